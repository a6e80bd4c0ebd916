"""One palette and one set of display defaults: what the window paints is what exports write."""

import numpy as np

from segapp.core import render
from segapp.gui import colours, paint


def test_the_window_and_the_exported_overlay_paint_a_segment_alike():
    labels = np.repeat(np.arange(6), 40).reshape(12, 20)
    exported = render.overlay(np.zeros(labels.shape + (3,), np.uint8), labels, opacity=1.0)
    shown = paint.overlay_rgba(labels, 1.0)[..., :3]
    inner = ~paint.boundaries(labels)  # the outline is drawn opaque in the window only
    assert np.array_equal(exported[inner], shown[inner])
    assert np.array_equal(exported[inner], colours.PALETTE[labels][inner])
    assert colours.label_rgb(3) == tuple(int(v) for v in render.PALETTE[2])  # block label 3's colour


def test_display_defaults_live_in_one_place(qtbot):
    from segapp.gui.session import SessionModel
    from segapp.gui.side_panel import SidePanel

    panel = SidePanel(SessionModel())
    qtbot.addWidget(panel)
    assert panel.opacity.value() == round(render.OVERLAY_OPACITY * 100)
    assert panel.k_box.maximum() == render.MAX_SEGMENTS == len(render.PALETTE)
