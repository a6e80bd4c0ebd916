"""The pixel refinement's parameter specs (part of every method's shared settings)."""

from __future__ import annotations

from ..params import ParamSpec

PIXEL_PARAMS = (
    ParamSpec("pixel_band", float, 0.75,
              "Pixel refinement: half-width of the band around the segment boundaries whose "
              "pixels are relabelled at pixel level, in widths of a graph node (0: the labels "
              "follow the nodes' outlines).",
              low=0.0, high=5.0),
    ParamSpec("pixel_looks", float, 0.03,
              "Pixel refinement: pull of each segment's colour distribution (its histogram "
              "over the image) on the band's pixels; 0: the image's edges alone.",
              low=0.0, high=10.0),
)
