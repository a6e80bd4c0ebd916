"""Pixel refinement: the final labels follow the image's edges at pixel level (our addition).

Every method and the constraint step label graph nodes (800 SLIC superpixels by default),
so a result painted back at full size follows the superpixels' outlines: thin parts, fur
and any outline a superpixel straddles are cut wrong, whatever the user draws. The best
labelling of the nodes reaches only IoU 0.949 on average on the GrabCut objects, and under
0.90 on 7 of the 50 (``segapp evaluate --objects``).

This stage relabels the pixels near the node-level boundaries
(:func:`~core.pixel_refinement.stage.apply_refinement`):

1. **Band.** The pixels within ``pixel_band`` node widths (4-neighbour steps) of a
   boundary between segments; every other pixel keeps its node's segment and seeds the
   walk, as do the stroke ends and the pixels of blocks and brush regions (the user's word).
2. **Colour prior.** Each segment's colour histogram over the pixels the node-level labels
   give it (16 bins per channel), as GrabCut's colour models (Rother et al. 2004); a band
   pixel's prior is each segment's posterior at its colour (:mod:`.looks`).
3. **Walk.** A random walk with that prior (Grady, CVPR 2005; weight ``pixel_looks``) on the
   band's 4-neighbour pixel grid, weighted like the boundary graph at pixel level
   (:mod:`core.graph.pixels`); each band pixel takes its most probable segment.
4. **Specks.** A region of one segment the walk made (it holds a relabelled pixel and lies
   inside the band) smaller than a quarter of a node's mean area takes the segment that
   surrounds it (:func:`~core.pixel_refinement.stage.fill_islands`): texture at the
   boundary gives no islands a person would have to clean up.
5. **No sliver made of stroke ends.** A segment the walk left under 3% of the image that
   held at least that at node level, in two or more pieces around stroke ends (the walk
   from a must-link's ends, not a region), keeps its node-level pixels, and the walk runs
   again without them (:func:`~core.pixel_refinement.stage._shrunk_to_slivers`): every
   pixel of such a segment lies in the band, seeded from the pixels around it, and the
   walk pulled it in further (187071, 3.4% -> 2.5% of the image). A small region in one
   piece is refined as any other.

The result is a representation whose nodes are the parts of the input nodes that received
one segment each (:class:`~core.pixel_refinement.stage.Refined`): the window, the exported
mask and the benchmarks all paint the same labels through its node map. The refinement
runs on the working copy of the image (at most ``work_pixels`` pixels, the image itself for
Berkeley and GrabCut photos); on a larger photo each working pixel covers ``f x f`` pixels.
It runs after the constraint step (``rounding='constrained'``) and after ncut; each paper's
own rounding (``rounding='paper'``) is left as the paper has it. ``pixel_band`` and
``pixel_looks`` were chosen on the GrabCut clicks (``bench/results/tuning.md``).
"""

from .params import PIXEL_PARAMS
from .stage import PixelRefinement, Refined, apply_refinement, cut_nodes

__all__ = ["PIXEL_PARAMS", "PixelRefinement", "Refined", "apply_refinement", "cut_nodes"]
