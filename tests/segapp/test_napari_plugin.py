"""The napari plugin (segapp/napari_plugin): manifest, layers as constraints, the dock widget.

The widget runs in napari's own viewer (the ``make_napari_viewer`` fixture, offscreen) where
napari's canvas can get an OpenGL context: Qt's offscreen platform has one only with an X
display, which pytest-xvfb (test extra) provides when the machine has Xvfb. The same widget
also runs on a canvas-less ``ViewerModel`` everywhere. Every wait is on the widget's signals.
"""

import os

import numpy as np
import pytest

napari = pytest.importorskip("napari")

from napari.components import ViewerModel  # noqa: E402

from segapp.core.errors import ConstraintError  # noqa: E402
from segapp.napari_plugin import layers as L  # noqa: E402
from segapp.napari_plugin.widget import OUTPUT, SegmentWidget  # noqa: E402


def two_halves(h=60, w=80):
    """Dark left half, bright right half, a little noise."""
    img = np.zeros((h, w, 3), np.uint8)
    img[:, w // 2:] = 200
    return img + np.random.RandomState(0).randint(0, 20, img.shape).astype(np.uint8)


@pytest.fixture
def viewer_model(qtbot):
    v = ViewerModel()
    v.add_image(two_halves(), rgb=True, name="photo")
    return v


def make_widget(qtbot, viewer):
    w = SegmentWidget(viewer)
    qtbot.addWidget(w)
    return w


def segment_and_wait(qtbot, widget, timeout=60000):
    with qtbot.waitSignal(widget.segmented, timeout=timeout) as blocker:
        widget.request()
    return blocker.args[0]


def test_manifest_names_the_widget_and_its_command_imports():
    npe2 = pytest.importorskip("npe2")
    pm = npe2.PluginManifest.from_distribution("segapp")
    (widget,) = pm.contributions.widgets
    assert widget.display_name == "Segment with constraints"
    (command,) = [c for c in pm.contributions.commands if c.id == widget.command]
    module, _, name = command.python_name.partition(":")
    assert getattr(__import__(module, fromlist=[name]), name) is SegmentWidget


def test_layers_map_to_image_pixels_through_world_coordinates(viewer_model):
    v = viewer_model
    v.layers["photo"].scale = (2, 2)  # the image is shown twice its size
    ml = v.add_shapes([np.array([[20.0, 10.0], [100.0, 60.0]])], shape_type="line", name="ml")
    pts = v.add_points(np.array([[40.0, 140.0]]), name="pts", features={"label": [2]})
    brush = v.add_labels(np.zeros((60, 80), np.int32), name="brush")
    brush.scale = (2, 2)
    brush.data[5:8, 5:9] = 3
    cons = L.constraints_from_layers(v.layers["photo"], must_link=ml, points=pts, labels=brush)
    assert cons.must_link[0][:4] == (10, 5, 50, 30)  # world / 2
    point_block, brush_block = cons.blocks
    assert (point_block.label, point_block.top, point_block.left) == (2, 20, 70)
    assert brush_block.label == 3 and brush_block.box == (5, 5, 8, 9)


def test_points_without_a_label_feature_are_label_1(viewer_model):
    pts = viewer_model.add_points(np.array([[3.0, 4.0], [10.0, 70.0]]), name="clicks")
    blocks = L.blocks_from_points(pts, viewer_model.layers["photo"], (60, 80))
    assert [b.label for b in blocks] == [1, 1]


@pytest.mark.parametrize("make, says", [
    (lambda v: dict(must_link=v.add_shapes([np.array([[10.0, 10.0], [10.0, 500.0]])], shape_type="line")),
     "outside the 60×80 image"),
    (lambda v: dict(cannot_link=v.add_shapes([np.array([[10.0, 10.0], [10.2, 10.1]])], shape_type="line")),
     "starts and ends on one pixel"),
    (lambda v: dict(labels=v.add_labels(np.ones((30, 30), np.int32))), "is 30×30 but the image is 60×80"),
    (lambda v: dict(labels=v.add_labels(np.ones((60, 80), np.int32), scale=(2, 2))), "placed differently"),
    (lambda v: dict(labels=v.add_labels(np.full((60, 80), 300, np.int32))), "holds label 300"),
    (lambda v: dict(must_link=v.add_shapes([np.array([[5.0, 5.0], [20.0, 30.0]])], shape_type="rectangle")),
     "is a rectangle; a link is a line or a path"),
    (lambda v: dict(points=v.add_points(np.array([[3.0, 4.0]]), features={"label": [2.5]})), "has label 2.5"),
    (lambda v: dict(points=v.add_points(np.array([[3.0, 4.0]]), features={"label": ["a"]})), "has label 'a'"),
])
def test_bad_layers_are_named_in_a_constraint_error(viewer_model, make, says):
    with pytest.raises(ConstraintError, match=says):
        L.constraints_from_layers(viewer_model.layers["photo"], **make(viewer_model))


def test_a_stack_is_refused_with_a_message():
    v = ViewerModel()
    v.add_image(np.zeros((3, 20, 20)), name="stack")
    with pytest.raises(ConstraintError, match="one 2-D image"):
        L.image_of(v.layers["stack"])


def test_widget_picks_layers_by_name_and_splits_the_halves(qtbot, viewer_model):
    v = viewer_model
    w = make_widget(qtbot, v)
    w.live_box.setChecked(False)
    v.add_shapes([np.array([[10.0, 5.0], [50.0, 30.0]])], shape_type="line", name="must-links")
    v.add_shapes([np.array([[30.0, 10.0], [30.0, 70.0]])], shape_type="line", name="cannot-links")
    assert (w.image_box.currentText(), w.must_box.currentText(), w.cannot_box.currentText()) == \
        ("photo", "must-links", "cannot-links")
    segment_and_wait(qtbot, w)
    out = v.layers[OUTPUT].data
    left, right = np.unique(out[:, :40]), np.unique(out[:, 40:])
    assert len(left) == 1 and len(right) == 1 and left[0] != right[0]
    assert set(np.unique(out)) <= {1, 2}  # segment i is value i + 1: 0 stays napari's empty
    assert w.status.text().startswith("e2cp,")


def test_a_brush_region_of_label_L_shows_as_value_L(qtbot, viewer_model):
    v = viewer_model
    w = make_widget(qtbot, v)
    w.live_box.setChecked(False)
    brush = np.zeros((60, 80), np.int32)
    brush[20:30, 50:60] = 1  # label 1 on the bright half
    brush[20:30, 10:20] = 2
    v.add_labels(brush, name="brush regions")
    assert w.labels_box.currentText() == "brush regions"
    segment_and_wait(qtbot, w)
    out = v.layers[OUTPUT].data
    assert (out[:, 45:] == 1).mean() > 0.95 and (out[:, :35] == 2).mean() > 0.95


def test_live_edit_resegments_and_a_bad_stroke_keeps_the_last_result(qtbot, viewer_model):
    v = viewer_model
    w = make_widget(qtbot, v)
    shapes = v.add_shapes([np.array([[30.0, 10.0], [30.0, 70.0]])], shape_type="line", name="cannot-links")
    segment_and_wait(qtbot, w)
    before = v.layers[OUTPUT].data.copy()
    with qtbot.waitSignal(w.failed, timeout=10000) as blocker:  # live: the edit itself asks
        shapes.add_lines(np.array([[10.0, 10.0], [10.0, 500.0]]))
    assert "outside" in blocker.args[0] and "outside" in w.status.text()
    np.testing.assert_array_equal(v.layers[OUTPUT].data, before)
    with qtbot.waitSignal(w.segmented, timeout=60000):
        shapes.data = shapes.data[:1] + [np.array([[50.0, 15.0], [50.0, 65.0]])]
    assert len(w._previous) == 1  # the result is passed on to the next edit, as the window does


def test_only_the_newest_of_several_quick_requests_is_shown(qtbot, viewer_model):
    v = viewer_model
    w = make_widget(qtbot, v)
    w.live_box.setChecked(False)
    v.add_shapes([np.array([[30.0, 10.0], [30.0, 70.0]])], shape_type="line", name="cannot-links")
    shown = []
    w.segmented.connect(lambda seg: shown.append(w.k_box.value()))
    w.request()
    w.k_box.setValue(3)
    with qtbot.waitSignal(w.segmented, timeout=60000):
        w.request()
    qtbot.waitUntil(lambda: not w._running, timeout=60000)
    assert shown == [3]
    assert len(np.unique(v.layers[OUTPUT].data)) == 3


needs_gl = pytest.mark.skipif(
    os.environ.get("QT_QPA_PLATFORM") == "offscreen" and not os.environ.get("DISPLAY"),
    reason="napari's canvas needs OpenGL, which Qt's offscreen platform has only with an X display "
           "(install Xvfb: the test extra's pytest-xvfb then starts one)")


@needs_gl
def test_the_plugin_docks_in_napari_and_writes_a_labels_layer(make_napari_viewer, qtbot):
    viewer = make_napari_viewer()
    viewer.add_image(two_halves(), rgb=True, name="photo")
    _dock, w = viewer.window.add_plugin_dock_widget("segapp", "Segment with constraints")
    assert isinstance(w, SegmentWidget)
    w.live_box.setChecked(False)
    viewer.add_points(np.array([[30.0, 10.0], [30.0, 70.0]]), name="clicks", features={"label": [1, 2]})
    assert w.points_box.currentText() == "clicks"
    segment_and_wait(qtbot, w)
    out = viewer.layers[OUTPUT].data
    assert (out[:, :35] == 1).mean() > 0.95 and (out[:, 45:] == 2).mean() > 0.95
    assert type(viewer.layers[OUTPUT]).__name__ == "Labels"


def test_brush_regions_of_many_labels_come_out_in_one_pass(viewer_model):
    data = np.zeros((60, 80), np.int32)
    data[2:5, 3:6], data[40:42, 70:75], data[10, 10] = 7, 2, 7
    blocks = L.blocks_from_labels(viewer_model.add_labels(data), (60, 80), viewer_model.layers["photo"])
    assert [(b.label, b.box) for b in blocks] == [(2, (40, 70, 42, 75)), (7, (2, 3, 11, 11))]
    mask = np.zeros((60, 80), bool)
    for r, c0, c1 in blocks[1].runs:
        mask[r, c0:c1] = True
    assert mask.sum() == 10 and mask[10, 10] and mask[2:5, 3:6].all()


def test_layers_already_there_are_picked_renames_follow_and_the_output_sits_above_the_image(qtbot, viewer_model):
    v = viewer_model
    v.add_shapes([np.array([[30.0, 10.0], [30.0, 70.0]])], shape_type="line", name="cannot-links")
    path = np.array([[10.0, 5.0], [20.0, 15.0], [50.0, 30.0]])
    v.add_shapes([np.array([[5.0, 5.0], [15.0, 20.0]]), path], shape_type=["line", "path"], name="must-links")
    w = make_widget(qtbot, v)
    assert (w.must_box.currentText(), w.cannot_box.currentText()) == ("must-links", "cannot-links")
    v.layers["photo"].name = "my photo"
    assert w.image_box.currentText() == "my photo" and w._chosen("image_box") is v.layers["my photo"]
    v.layers.selection.active = v.layers["must-links"]
    segment_and_wait(qtbot, w)
    names = [ly.name for ly in v.layers]
    assert names.index(OUTPUT) == names.index("my photo") + 1
    assert v.layers.selection.active is v.layers["must-links"]  # the user's next stroke goes where it went


def test_an_unexpected_failure_is_a_message_and_the_widget_keeps_working(qtbot, viewer_model, monkeypatch):
    from segapp import core

    v = viewer_model
    w = make_widget(qtbot, v)
    w.live_box.setChecked(False)
    v.add_shapes([np.array([[30.0, 10.0], [30.0, 70.0]])], shape_type="line", name="cannot-links")
    real = core.segment
    monkeypatch.setattr(core, "segment", lambda *a, **k: (_ for _ in ()).throw(RuntimeError("boom")))
    with qtbot.waitSignal(w.failed, timeout=60000) as blocker:
        w.request()
    assert blocker.args[0] == "RuntimeError: boom" and "Could not segment: RuntimeError: boom" in w.status.text()
    monkeypatch.setattr(core, "segment", real)
    segment_and_wait(qtbot, w)


def test_a_closed_widget_stops_listening(qtbot, viewer_model):
    v = viewer_model
    w = make_widget(qtbot, v)
    shapes = v.add_shapes([np.array([[30.0, 10.0], [30.0, 70.0]])], shape_type="line", name="cannot-links")
    segment_and_wait(qtbot, w)
    w.close_down()
    asked = w._request
    shapes.add_lines(np.array([[50.0, 15.0], [50.0, 65.0]]))
    v.add_points(np.array([[3.0, 4.0]]), name="clicks")
    assert w._request == asked and w.points_box.findText("clicks") < 0
