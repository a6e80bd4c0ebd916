"""The segment legend: colour swatch, index, pixel share and an editable name per segment.

A view of the session model's results: it gives each result's segments their stable colours
(:class:`~.colours.SegmentColours`) and emits ``coloured(result, info)`` for the canvas at
once, so the overlay and the legend always agree; the table follows in a later event-loop
turn (:mod:`.turns`, newest result only), its rows' items reused. Names belong to colours, so a segment keeps its name
while it keeps its colour (across strokes and changes of K).
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QLabel, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget

from segapp.core.constraints import Kind
from . import turns
from .colours import SegmentColours
from .status_text import empty_note

SWATCH, INDEX, SHARE, NAME = range(4)


ROWS_ALWAYS = 6  # the table never shows fewer rows than this many segments


class Legend(QWidget):
    """Signals

    coloured(SegmentResult, SegmentInfo) : a result and its segments' colours
    """

    coloured = Signal(object, object)

    def __init__(self, model):
        super().__init__()
        self.model = model
        self.colours = SegmentColours()
        self.names: dict[int, str] = {}  # palette slot -> the name the user gave
        self.info = None
        self._result = None  # the result whose table is (to be) shown
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.table = QTableWidget(0, 4)
        self.table.setHorizontalHeaderLabels(["", "#", "pixels", "name"])
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        self.table.setSelectionMode(QAbstractItemView.NoSelection)
        self.table.setEditTriggers(QAbstractItemView.DoubleClicked | QAbstractItemView.EditKeyPressed
                                   | QAbstractItemView.SelectedClicked)
        head = self.table.horizontalHeader()
        for col in (SWATCH, INDEX, SHARE):
            head.setSectionResizeMode(col, QHeaderView.ResizeToContents)
        head.setSectionResizeMode(NAME, QHeaderView.Stretch)
        self.table.setToolTip("Segments of the shown result: # is the value in an exported label mask. "
                              "Double-click a name to edit it; a segment keeps its colour and name "
                              "across strokes and changes of K.")
        lay.addWidget(self.table)
        self.note = QLabel("")  # one line; what to do is in its tooltip (never squeezes the table)
        self.note.setWordWrap(False)
        self.note.setStyleSheet("QLabel { background: #fff3cd; color: #7a4a00; padding: 3px; "
                                "border: 1px solid #e0b252; font-weight: bold; }")
        self.note.hide()
        lay.addWidget(self.note)
        self.table.itemChanged.connect(self._on_edit)
        model.imageChanged.connect(self._on_image)
        model.resultChanged.connect(self.show_result)

    def _on_image(self) -> None:
        self.colours.reset()
        self.info = self._result = None
        turns.shared().cancel((self, "table"))
        self.table.setRowCount(0)
        self.note.hide()

    @property
    def pending(self) -> bool:
        """The table of the newest result is still to be filled."""
        return turns.shared().waiting(self)

    def show_result(self, result, preview: bool = False) -> None:
        """Colour ``result``'s segments, hand them to the canvas now, the table later.

        A ``preview`` (the result for a stroke still being dragged) takes the colours of the
        committed result on screen and leaves them as they are: matched preview to preview, the
        colours drifted through the intermediate results of one drag, and the released stroke's
        result, barely different from the one before it, could show its two large regions in
        each other's colours (309004, the first cannot-link, drawn by hand under Xvfb)."""
        s = self.model.snapshot()
        blocks = [b for _seq, b in sorted(zip(s["order"][Kind.BLOCK], s[Kind.BLOCK]), key=lambda t: t[0])]
        colours = self.colours.follower() if preview else self.colours
        self.info = info = colours.assign(result, blocks)
        self._result = result
        self.coloured.emit(result, info)
        turns.shared().later((self, "table"), self._fill)

    def _fill(self) -> None:
        result, info, t = self._result, self.info, self.table
        if result is None:
            return
        t.blockSignals(True)
        if t.rowCount() != len(info.slots):
            t.setRowCount(len(info.slots))
        for k, slot in enumerate(info.slots):
            if t.item(k, NAME) is None:
                self._new_row(k)
            t.item(k, SWATCH).setBackground(QColor(*map(int, info.rgb[k])))
            t.item(k, INDEX).setText(str(k))
            t.item(k, SHARE).setText("empty" if info.share[k] == 0 else f"{100 * info.share[k]:.1f}%")
            name = t.item(k, NAME)
            name.setText(self.name_of(k))
            name.setData(Qt.UserRole, int(slot))
        t.blockSignals(False)
        note = empty_note(result)
        text = f"⚠ {note}" if note else ""
        if text != self.note.text():
            self.note.setText(text)
            self.note.setToolTip(f"{note}. Add a stroke or block in the part that should be its own "
                                 "segment, or lower the number of segments." if note else "")
        self.note.setVisible(bool(note))
        rows = min(len(info.slots), ROWS_ALWAYS)  # every segment's row stays visible (up to 6)
        t.setMinimumHeight(t.horizontalHeader().height() + rows * t.verticalHeader().defaultSectionSize() + 4)

    def _new_row(self, k: int) -> None:
        for col in (SWATCH, INDEX, SHARE, NAME):
            it = QTableWidgetItem("")
            if col != NAME:
                it.setFlags(Qt.ItemIsEnabled)
            if col == SHARE:
                it.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
            self.table.setItem(k, col, it)

    def name_of(self, k: int) -> str:
        """The shown name of segment ``k`` of the current result."""
        slot = int(self.info.slots[k])
        if slot in self.names:
            return self.names[slot]
        held = self.info.labels[k]
        return ("label " + " + ".join(map(str, held))) if held else f"segment {slot + 1}"

    def _on_edit(self, item) -> None:
        if item.column() == NAME:
            text = item.text().strip()
            slot = int(item.data(Qt.UserRole))
            if text:
                self.names[slot] = text
            else:
                self.names.pop(slot, None)
