"""Rounding that honours the user's constraints: our addition to every paper.

Every method ends in k-means (or a sign, or Yu & Shi's discretisation) on its embedding, and
that step knows nothing of the constraints: a must-link's two ends can land in two segments
even when the embedding moved them close. :func:`constrained_labels` rounds the method's
result so that, whenever the constraints are consistent, both ends of every must-link share
a segment, the ends of every cannot-link do not, and every labelled block has a segment of
its own.

1. **Resolve.** The user's constraints (:class:`~core.graph.node_constraints.Stroke`) are
   taken newest first into a union-find of nodes: a must-link joins its two endpoint nodes,
   a block joins its nodes to its label, a cannot-link forbids its endpoints' groups from
   sharing a segment. A constraint that contradicts newer ones is not honoured (the newest
   stroke wins) and is reported. Where two strokes end in one superpixel, the caller has
   split it first (:mod:`core.graph.refine`), so strokes a person can draw consistently are
   consistent here too. The nodes an endpoint stands for (its neighbourhood, which the
   methods receive as constraints) are not joined here: they are the method's evidence,
   not the user's word: joined, they merge the groups of two segments of similar colour
   (measured in ``bench/results/tuning.md``).
1a. **Screen groups** (``rounding_screen_groups``, :mod:`.regroup`). At K >= 3, on an edit
   that only adds must-links to a result that honours every stroke, once the older
   must-links hold at least K groups with ends in every segment on screen: the must-link
   groups whose two ends lie in one segment on screen are joined, below every stroke. A
   must-link drawn inside a region the screen shows adds to that region instead of
   regrouping every stroke afresh. Where the edit's must-link has its ends in two
   segments on screen (the screen honouring every older stroke) and the step would leave
   it alone in a segment under 3% of the image, it is placed among the older groups
   (:func:`~.anchored.anchored_colours` with them as exemplars) and joined to its segment's
   (:func:`~.stage._placed`).
2. **Colour.** With ``rounding_colouring='ncut'`` (:func:`_ncut_rounding`) the groups
   (must-link components) are put into segments by the normalised cut (Shi & Malik) between
   their territories on the image graph: the effective conductance between groups (the
   Schur complement of the graph Laplacian onto the seeds) over the volume of the nodes
   each group's walk reaches first (:func:`group_conductance`, :func:`ncut_colouring`),
   plus ``rounding_looks`` times the scatter of what the groups look like (colour
   histograms of the nodes each stroke end stands for and of each territory,
   :func:`territory_looks`). Cannot-linked groups differ; as many segments are used as
   there are groups, up to K. Unlike the
   cut alone (the random walk's energy), it does not pay to give a cannot-link's end a
   segment of its own as a blob, and two must-links in one region of one look go together
   even when the graph between them is weak. Exact by enumeration for a person's strokes
   (up to :data:`NCUT_EXACT` colourings), local moves beyond. The result on screen
   (``previous``) only numbers the segments (``rounding_stability`` in the Hungarian
   numbering), so the partition never depends on the order of the strokes.
   ``'walk'`` colours by the walk's energy alone (a Potts energy,
   branch and bound from a DSatur greedy colouring, exact up to 40 groups unless 2000
   steps run out), where ``rounding_stability`` does move groups: a group pays it for each
   of its nodes that had another segment on screen. ``'auto'`` (the default,
   :func:`_auto_rounding`) runs both to the end (steps 2-4) and keeps the labels whose
   segments have the lower normalised cut on the boundary graph; while no cannot-link is
   drawn, a result with a sliver segment no stroke is in loses, and so does the walk's
   colouring where it puts must-link groups drawn in several places into fewer segments
   than there are groups (up to K). Where the result on screen already honours every
   stroke (with ``rounding_stability`` > 0), the colouring that groups the strokes as the
   screen does is kept: a stroke inside a region the screen already shows does not regroup
   the others. ``'walk'`` serves strokes
   placed where the result is wrong (the error-centre user), ``'ncut'`` strokes drawn
   regions first; the choice was measured on the training images
   (``bench/results/tuning.md``). ``'embedding'`` colours by the method's
   embedding alone. When no colouring exists with ``n_clusters`` segments, the oldest
   cannot-links are dropped until one does.
3. **Fill.** With ``'ncut'``: while the strokes have not reached every segment, the method's
   own segments seed the walk (the half of each segment's nodes its embedding is surest of):
   one holding strokes of one segment seeds it, one holding none a segment no stroke took;
   where a must-link group spans several of the method's segments and a segment is left
   that no stroke took, the one holding fewest of its stroke nodes seeds that segment.
   Must-links alone therefore never empty a segment, and what the strokes do not decide
   follows the chosen method. With ``'walk'`` / ``'embedding'``: every other node goes to
   the nearest centroid of the embedding; centroids and colours are recomputed until the
   labels stop changing (COP-KMeans, Wagstaff et al. 2001, with must-link components as
   units and the colouring exact).
4. **Walk** (``rounding_prior`` > 0). The stroke-end nodes and block nodes (and step 3's
   seeds) keep their colours and every other node is labelled by a random walk with a prior
   (Grady, CVPR 2005) on the boundary graph of touching superpixels
   (:func:`core.graph.affinity.boundary_affinity`), so the final labels follow the image's
   edges. Every label's walk ends at each step with probability ``w / (1 + w)``,
   ``w = rounding_prior``; a segment strokes have reached gets its mass from its seeds only
   (and, with ``rounding_appearance`` > 0, from how much a node looks like its strokes'
   surroundings), a segment no stroke has reached yet from the method's labels. With
   ``rounding_texture`` > 0 the walk runs once more, on the graph weakened across nodes a
   texture model fitted on its first labels tells apart (:mod:`.texture`).

4a. **Place** (``rounding_anchored``, :mod:`.anchored`). With ``'auto'``, once the
   cannot-linked groups hold every segment, each must-link group no cannot-link touches (a
   must-link drawn inside a region) joins the segment whose cannot-linked groups it is
   closest to: a harmonic walk from them on the boundary graph and the colour and texture
   of its ends' surroundings; the walk of step 4 runs again from every group. Not where the
   result on screen already honours every stroke, nor where it would leave a cannot-link
   honoured by a blob.

4b. **Join** (``rounding_connect``, :mod:`.connect`). Where the labels leave a must-link's
   two ends in separate pieces of their segment (another segment between them: two blobs,
   not the region the stroke was drawn in), the cheapest path between the ends on the
   boundary graph (edge cost ``1 / w``) seeds the walk once more; its labels are kept where
   their normalised cut is no higher and they hold no new sliver. At K = 2, on labels that
   replace the screen (step 5 compares the screen with the step's own labels).

4c. **Widen** (``rounding_widen``, :mod:`.widen`). With must-links alone, where a segment
   is a must-link's two ends in separate pieces and under 3% of the image (a must-link
   drawn along a strip of snow or grass, answered by two blobs), the walk runs once more
   with Grady's prior from what the must-links' ends look like, and that segment takes
   the nodes it gives it; kept where the slivers are fewer and none is new.

4d. **Ground** (``rounding_ground``, :mod:`.ground`). With labelled blocks and brush regions
   alone, every segment holding one, the nodes the blocks' walk barely reaches (a walker
   from them is absorbed by the walk's prior before it meets any block, so noise decides
   their label) take the segment that holds at least 80% of the image's border among the
   reached nodes: the far field of an object marked with labelled clicks is its background.
   Never with links, nor where two segments share the border.

What the steps read of the method (:func:`~.stage.unreached_source`): its labels and the
embedding it clustered; where those labels are one segment, or cut the image graph far worse
than the method's own result without strokes (normalised cut higher by more than
``rounding_unconstrained``: csp's eq. 17 threshold, given a few strokes, answers with a blob
around them), that result without strokes.

5. **Keep** (``rounding_keep_screen``, :func:`~.stage.screen_kept`). An edit that only adds
   must-links, with the same method and settings as the result on screen, keeps that
   result (its pixels as they were) where it already honours every stroke and the new
   labels do not cut the image graph better (normalised cut lower by more than
   :data:`~.params.KEEP_SCREEN_MARGIN`): a must-link drawn inside a region the screen
   already shows as one segment does not redraw the image elsewhere. Both cuts are of
   node-level labels: the screen's as its own step left it, before its pixel refinement.
   At K = 2, must-links alone that the screen holds in fewer segments than groups (a region
   stroked twice before another) keep it where it cuts better by at least
   :data:`~.params.KEEP_SCREEN_JOINED_MARGIN` and its segment apart from every stroke is at
   least :data:`~.params.KEEP_SCREEN_JOINED_MIN_OTHER` of the image.
   An edit that adds must-links, cannot-links or both to a result on screen that honours
   every one of them and has no sliver (``rounding_keep_healthy``,
   :func:`~.stage.healthy_screen_kept`) keeps it where the new labels would leave a segment
   under 3% of the image that no stroke holds (:func:`~.stage.unheld_sliver`), unless the
   same strokes in one call give labels without one that cut the image graph better
   (:func:`~.stage.healthy_one_call`), which are then shown: no lock-in. Any other new
   labels read with the screen that leave a blob (a segment under 3% of the image holding
   no must-link's end and no block, :func:`~.stage.blob_sliver`: a cannot-link honoured by
   the pixels around its end) give way to the same strokes in one call where those leave
   none (:func:`~.stage._unslivered`).

Chosen by the simulated-user benchmark on the train split (``bench/tune.py``,
``bench/results/tuning.md``).
"""

from .params import COLOURINGS, ROUNDING_PARAMS, ROUNDINGS
from .resolve import Resolution, resolve
from .stage import ConstraintStep, apply_step
from .step import constrained_labels
from .walk import overruled_nodes, prior_walk

__all__ = ["COLOURINGS", "ROUNDINGS", "ROUNDING_PARAMS", "ConstraintStep", "Resolution", "apply_step",
           "constrained_labels", "overruled_nodes", "prior_walk", "resolve"]
