"""The session model through the real window: parameters, typed edits, results views never change."""

import threading

import numpy as np
import pytest
from PySide6.QtWidgets import QLineEdit, QSpinBox

from segapp import core
from segapp.core.eval.metrics import adjusted_rand
from segapp.gui.canvas import MUST
from tests.segapp.conftest import RESULT_TIMEOUT_MS, draw, make_window, settle


def _editor(form, name, kind):
    return next(w for w in form.findChildren(kind) if form.form.labelForField(w).text() == name)


def test_representation_params_survive_a_method_switch(qtbot, window):
    """Issue 11: max_nodes 300 in the form, switch method: the model still segments with 300."""
    spin = _editor(window.side.rep_form, "max_nodes", QSpinBox)
    with qtbot.waitSignal(window.model.resultChanged, timeout=RESULT_TIMEOUT_MS):
        spin.setValue(300)
    settle(qtbot, window)
    with qtbot.waitSignal(window.model.resultChanged, timeout=RESULT_TIMEOUT_MS):
        window.side.method_box.setCurrentText("e2cp")
    settle(qtbot, window)
    spin = _editor(window.side.rep_form, "max_nodes", QSpinBox)
    assert spin.value() == 300
    assert window.model.rep_params == {"max_nodes": 300}
    assert window.model.result.params["max_nodes"] == 300 and window.model.result.n_nodes <= 300


def test_each_method_keeps_its_own_parameters(qtbot, window):
    beta = _editor(window.side.params, "beta", QLineEdit)
    beta.setText("0.5")
    beta.editingFinished.emit()
    settle(qtbot, window)
    assert window.model.result.params["beta"] == 0.5
    window.side.method_box.setCurrentText("e2cp")
    assert window.model.params == {}
    window.side.method_box.setCurrentText("csp")
    settle(qtbot, window)
    assert _editor(window.side.params, "beta", QLineEdit).text() == "0.5"
    assert window.model.params == {"beta": 0.5} and window.model.result.params["beta"] == 0.5


def test_a_bad_parameter_is_refused_by_name_and_nothing_changes(qtbot, window):
    result, requests = window.model.result, window.runner.latest
    beta = _editor(window.side.params, "beta", QLineEdit)
    beta.setText("abc")
    beta.editingFinished.emit()
    assert "beta" in window.status.text() and "float" in window.status.text()
    assert window.model.params == {} and window.runner.latest == requests
    assert window.model.result is result
    assert _editor(window.side.params, "beta", QLineEdit).text() == ""  # the form shows the model again


def test_failed_job_keeps_result_and_constraints(qtbot, window):
    draw(qtbot, window, MUST, 40, 60, 40, 300)
    cons, result = window.model.constraints, window.model.result
    with qtbot.waitSignal(window.runner.failed, timeout=RESULT_TIMEOUT_MS) as sig:
        window.model.set_param("beta", "1e15")  # beyond lambda_max * vol: csp refuses
    assert "below lambda_max" in sig.args[1] and "below lambda_max" in window.status.text()
    assert window.model.result is result and window.model.constraints == cons


def test_views_never_change_a_result(qtbot, window):
    draw(qtbot, window, MUST, 40, 60, 40, 300)
    res = window.model.result
    for a in (res.node_labels, res.node_embedding, res.eigenvalues, res.node_map.node_map,
              *res.honoured.values()):
        assert not a.flags.writeable
        with pytest.raises(ValueError):
            a[...] = 0
    labels = res.node_labels.copy()
    window.side.opacity.setValue(80)
    window.side.boundaries.setChecked(True)
    assert np.array_equal(res.node_labels, labels)
    shown = window.canvas.overlay_item.image
    assert shown[..., 3].any() and not shown[..., 3].all()  # boundaries only


def test_an_edit_costs_the_change_not_every_constraint(qtbot, monkeypatch):
    """With 10^4 links, one more link validates one item and redraws one chunk.

    Its own worker: core needs minutes for 10^4 random links; closing the window kills it."""
    from segapp.gui import constraint_layer

    window = make_window(qtbot)

    rng = np.random.RandomState(0)
    h, w = window.model.shape
    links = np.stack([rng.randint(h, size=10000), rng.randint(w, size=10000),
                      rng.randint(h, size=10000), rng.randint(w, size=10000)], 1)
    window.model.set_constraints(core.Constraints(must_link=links.tolist()))
    qtbot.waitUntil(lambda: not window.canvas.layer.pending, timeout=10000)
    validated, rebuilt = [], []  # on the GUI thread (the autosave thread writes them all)
    real_init, real_rebuild = core.Constraints.__init__, constraint_layer._Chunk.rebuild

    def counting_init(self, *a, **k):
        if threading.current_thread() is threading.main_thread():
            validated.append(sum(len(x) for x in a) + sum(len(x) for x in k.values()))
        real_init(self, *a, **k)

    monkeypatch.setattr(core.Constraints, "__init__", counting_init)
    monkeypatch.setattr(constraint_layer._Chunk, "rebuild", lambda self: (rebuilt.append(self), real_rebuild(self))[1])
    window.model.add_link("cannot_link", 5, 5, 100, 100)
    qtbot.waitUntil(lambda: not window.canvas.layer.pending, timeout=5000)
    assert validated == [1] and len(rebuilt) == 1
    window.model.undo.undo()
    qtbot.waitUntil(lambda: not window.canvas.layer.pending, timeout=5000)
    assert validated == [1] and len(rebuilt) == 2
    assert len(window.model.items("must_link")) == 10000 and not window.model.items("cannot_link")
    window.close()
    assert window.runner.client.pid is None  # the busy worker was stopped, not waited for


def test_ground_truth_has_its_own_signal(qtbot, window):
    gt_seen, results = [], []
    window.model.groundTruthChanged.connect(lambda: gt_seen.append(1))
    window.model.resultChanged.connect(results.append)
    h, w = window.model.shape
    seg = np.zeros((h, w), np.int32)
    seg[:, w // 2:] = 1
    from segapp.gui.paint import boundary_rgba

    window.model.set_ground_truth([seg], [boundary_rgba(seg)])
    assert gt_seen == [1] and results == []
    qtbot.waitUntil(lambda: window.controller.ari is not None, timeout=RESULT_TIMEOUT_MS)
    res = window.model.result
    assert window.controller.ari == pytest.approx(
        adjusted_rand(seg, res.node_map.full_size(res.node_labels)))
