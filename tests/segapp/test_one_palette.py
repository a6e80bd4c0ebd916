"""One palette and one set of display defaults: what the window paints is what exports write."""

import numpy as np
from PySide6.QtCore import Qt

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


def test_the_chosen_method_is_described_in_plain_words(qtbot):
    from segapp import core
    from segapp.gui.session import SessionModel
    from segapp.gui.side_panel import SidePanel

    model = SessionModel()
    panel = SidePanel(model)
    qtbot.addWidget(panel)
    for name, spec in core.METHODS.items():
        model.set_method(name)
        assert spec.plain and panel.method_about.text() == spec.plain
        i = panel.method_box.findText(name)
        assert spec.plain in panel.method_box.itemData(i, Qt.ToolTipRole)
