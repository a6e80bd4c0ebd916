"""The application icon that segapp.app sets on the QApplication."""

from segapp.resources import ICON_SIZES, window_icon


def test_window_icon_holds_every_drawn_size(qapp):
    icon = window_icon()
    assert not icon.isNull()
    assert sorted(s.width() for s in icon.availableSizes()) == sorted(ICON_SIZES)
    image = icon.pixmap(32, 32).toImage()
    assert image.width() == 32 and image.pixelColor(16, 16).alpha() == 255
