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
    ParamSpec("pixel_keep", float, 0.01,
              "Pixel refinement: pull of each node's own segment on its band pixels, times how "
              "sure the strokes make the node (the walk from the stroke ends of "
              "core.suggestion.stroke_certainty, clipped at 0), once a cannot-link or blocks of "
              "two labels say which segments differ; 0: "
              "off. 0.01 lowered NoC@90 on the GrabCut clicks for all six constrained methods "
              "(bench/results/tuning.md, nineteenth and twenty-first sessions).",
              low=0.0, high=10.0,
              plain="How firmly the refinement keeps the outline where your strokes make a region "
                    "certain: 0 lets the image's edges alone move it."),
)
