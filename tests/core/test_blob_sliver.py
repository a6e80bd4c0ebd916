"""A cannot-link honoured by a blob around its end, read with the result on screen, gives way
to the same strokes in one call (:func:`core.constraint_step.stage.blob_sliver`, issue 20,
items 3 and 4)."""

import warnings

import numpy as np
import pytest

from segapp import core
from segapp.core.constraint_step import stage
from segapp.core.constraint_step.stage import blob_sliver
from segapp.core.constraints import Kind
from segapp.core.eval import people
from segapp.core.graph.node_constraints import NodeConstraints

from .test_keep_healthy import KW, STROKES, _session
from .test_ncut_colouring import _disc_image

SIZES = np.full(40, 1.0)
BLOB = np.r_[np.zeros(39, int), 1]  # node 39 alone: 2.5% of the image


def test_a_small_segment_is_a_blob_unless_a_person_marked_it_as_a_region():
    cannot_only = NodeConstraints.from_pairs(40, must=[(0, 1)], cannot=[(0, 39)])
    assert blob_sliver(BLOB, cannot_only, 2, SIZES)  # only the cannot-link's end holds it
    assert blob_sliver(BLOB, NodeConstraints.from_pairs(40), 2, SIZES)  # nothing holds it
    stroked = NodeConstraints.from_pairs(40, must=[(0, 1), (38, 39)], cannot=[(0, 39)])
    assert not blob_sliver(BLOB, stroked, 2, SIZES)  # a must-link inside: a small region
    labelled = np.full(40, -1)
    labelled[39] = 1
    assert not blob_sliver(BLOB, NodeConstraints.from_pairs(40, labels=labelled), 2, SIZES)  # a block
    halves = np.repeat([0, 1], 20)
    assert not blob_sliver(halves, cannot_only, 2, SIZES)  # no small segment
    assert blob_sliver(np.zeros(40, int), cannot_only, 2, SIZES)  # an empty segment is one too


def _blob_with_the_screen(monkeypatch):
    """The step's labels read with a result on screen: one segment and the node of the
    cannot-link's end alone (209070, ssap, K = 2: 1.4 / 98.6% after the cannot-link); in
    one call, the step's own labels."""
    real = stage.constrained_labels

    def blob(*args, **kw):
        labels, resolution = real(*args, **kw)
        if kw.get("previous") is None:
            return labels, resolution
        end = [s.b for s in args[2].strokes if s.kind == Kind.CANNOT_LINK][0]
        bad = np.zeros_like(labels)
        bad[end] = 1
        return bad, resolution

    monkeypatch.setattr(stage, "constrained_labels", blob)


@pytest.mark.parametrize("keep", [True, False])
def test_a_cannot_link_honoured_by_a_blob_gives_way_to_one_call(monkeypatch, keep):
    img, target = _disc_image()
    second = _session(img, STROKES[:2])[1]
    _blob_with_the_screen(monkeypatch)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        third = core.segment(img, people.constraints_of(STROKES), method="e2cp", previous=second,
                             rounding_keep_healthy=keep, **KW)
        alone = core.segment(img, people.constraints_of(STROKES), method="e2cp", **KW)
    shares = np.bincount(third.labels.ravel(), minlength=2) / third.labels.size
    if keep:
        assert third.info.get("one_call_unslivered") is True
        assert np.array_equal(third.labels, alone.labels)
        assert shares.min() > 0.1
        assert third.honoured["cannot_link"].all() and third.honoured["must_link"].all()
    else:  # off: the blob is shown, as rounding_keep_healthy=False says
        assert "one_call_unslivered" not in third.info
        assert shares.min() < 0.03
