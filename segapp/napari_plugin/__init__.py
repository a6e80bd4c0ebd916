"""segapp in napari: a dock widget that segments an Image layer with pairwise constraints.

Installed with the ``napari`` extra (``pip install 'segapp[napari]'``); napari finds it through
the npe2 manifest ``napari.yaml`` beside this file (Plugins → Segment with constraints
(segapp)). :mod:`.layers` turns napari layers into :class:`core.Constraints` (no Qt);
:mod:`.widget` is the dock widget, which calls :func:`core.segment` off napari's GUI thread
exactly as the window's worker does and writes a Labels layer.
"""
