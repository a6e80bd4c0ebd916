"""The constraint step's parameters (the ParamSpecs the CLI and the window's form show) and constants."""

from __future__ import annotations

from ..params import ParamSpec

ROUNDINGS = ("constrained", "paper")

# rounding_keep_screen at K = 2, must-links alone that the screen holds in fewer segments than there are
# groups (a second must-link drawn inside a segment on screen): kept only where the screen's
# normalised cut is lower than the new labels' by at least 0.01 (bench/results/tuning.md,
# 2026-12-02, thirty-ninth session)
KEEP_SCREEN_JOINED_MARGIN = -0.01
# ... and only where the segment that holds no stroke is at least this share of the image: the
# screen shows a second region apart from every must-link (bench/results/tuning.md, fortieth session)
KEEP_SCREEN_JOINED_MIN_OTHER = 0.2
KEEP_SCREEN_MARGIN = 0.005  # rounding_keep_screen: how much lower the new labels' normalised cut must be
# rounding_keep_screen at K = 2, must-links alone: the screen stays, whatever the cuts, where the
# new labels shrink the segment apart from every stroke to under this share of its size on
# screen (bench/results/tuning.md, forty-fourth session)
KEEP_SCREEN_SHRUNK = 0.5
# 'auto' at K >= 3: how much lower the other colouring's normalised cut must be to replace the
# grouping of a result on screen that honours the edit (bench/results/tuning.md, 2026-11-29)
SCREEN_GROUPING_MARGIN = 0.02

COLOURINGS = ("auto", "ncut", "walk", "embedding")

ROUNDING_PARAMS = (
    ParamSpec("rounding", str, "constrained",
              "constrained: the final labels honour every consistent constraint (must-link ends "
              "together, cannot-link ends apart, each block label its own segment; the newest "
              "stroke wins a conflict); paper: each paper's own k-means / sign / Yu-Shi step.",
              choices=ROUNDINGS),
    ParamSpec("rounding_prior", float, 0.01,
              "Constrained rounding: the final labels come from a random walk on the image graph "
              "from the stroke ends; a segment no stroke has reached yet follows the method's "
              "labels, pulled in with this weight (0: no walk; every other node takes the "
              "nearest segment of the method's embedding).",
              low=0.0, high=1e6),
    ParamSpec("rounding_colouring", str, "auto",
              "Constrained rounding: how the groups of must-linked stroke ends get their "
              "segments: auto (both walk and ncut, keeping the labels of lower normalised "
              "cut on the image graph; must-links alone in several places take ncut's as many "
              "segments; a stroke the result on screen already honours keeps the screen's grouping; at K = 2 "
              "a result with a segment under 3% of the image loses to one without), walk (the image graph's random-walk energy, the cut alone; best for "
              "strokes placed where the result is wrong), ncut (the normalised cut between the "
              "groups' territories plus how they look: no blob cannot-links, no collapse, the "
              "same result whatever the stroke order; best for strokes drawn regions first), "
              "the method's embedding breaking ties in both; or embedding (the method's "
              "embedding alone; also what ncut and walk mean when rounding_prior is 0, as "
              "there is then no walk).",
              choices=COLOURINGS),
    ParamSpec("rounding_looks", float, 2.0,
              "Constrained rounding with rounding_colouring=ncut: the weight of what the "
              "stroke groups look like (colour histograms of the nodes near their ends and of "
              "their territories) "
              "against the normalised cut when groups of stroke ends are put in segments "
              "(0: the graph alone).",
              low=0.0, high=1e6),
    ParamSpec("rounding_appearance", float, 0.0,
              "Constrained rounding with rounding_colouring=ncut: the random walk's pull "
              "towards what each stroked segment looks like (the colour histogram of its "
              "groups' territories; Grady's walk with a prior model), so a region of one look "
              "comes along with a stroke inside it (0: the image graph's edges alone).",
              low=0.0, high=1e6),
    ParamSpec("rounding_texture", float, 8.0,
              "Constrained rounding: how strongly a texture model (scikit-image's multiscale "
              "features, a logistic regression fitted on the result the strokes give) keeps "
              "the final walk from crossing into a region of another texture, so a click "
              "inside fur or grass brings the rest of it along (0: colour and edges alone).",
              low=0.0, high=1e6),
    ParamSpec("rounding_unconstrained", float, 0.05,
              "Constrained rounding: how much higher the normalised cut of the method's own "
              "labels on the image graph may be than that of the method's own result without "
              "strokes before the segments no stroke reaches follow the latter (csp's eq. 17 "
              "threshold, given a few strokes, answers with a blob around them); also where "
              "the method's labels are one segment (1e6: always the method's labels unless they "
              "are one segment).",
              low=0.0, high=1e6),
    ParamSpec("rounding_keep_screen", bool, True,
              "Constrained rounding, given the result shown before this edit by the same method "
              "and settings: when the edit only adds must-links and that result already honours "
              "every stroke (each must-link inside one segment, cannot-linked ends apart, no "
              "segment a sliver), it stays on screen unless the new labels cut the image "
              f"graph better (normalised cut lower by more than {KEEP_SCREEN_MARGIN:g}), so a must-link drawn "
              "inside a region the screen already shows does not make the result worse "
              "elsewhere. At 2 segments, before any cannot-link, a screen that holds several "
              "must-link groups in one segment stays too where its cut is lower by at least "
              f"{-KEEP_SCREEN_JOINED_MARGIN:g} and its other segment is at least "
              f"{KEEP_SCREEN_JOINED_MIN_OTHER:.0%} of the image (a region stroked twice) "
              "(off: every edit recomputes the labels)."),
    ParamSpec("rounding_keep_healthy", bool, True,
              "Constrained rounding, given the result shown before this edit by the same method "
              "and settings: when the edit only adds strokes (must- or cannot-links) and that "
              "result already honours every stroke with no segment under 3% of the image, new "
              "labels with a segment under 3% of the image that no stroke holds do not replace "
              "it, unless the same strokes in one call give labels without one that cut the "
              "image graph better (then those are shown), so a stroke the screen already "
              "honours does not shrink a segment no stroke reached to a sliver; and any new labels "
              "with a segment under 3% of the image (a cannot-link honoured by a blob around its "
              "end) give way to the same strokes in one call where those have none (off: such "
              "labels are shown)."),
    ParamSpec("rounding_connect", bool, True,
              "Constrained rounding: where the labels leave a must-link's two ends in separate "
              "pieces of their segment (another segment between them), the walk runs again from "
              "the cheapest path between the ends on the image graph, kept when it cuts the "
              "image no worse and leaves no new sliver, so a must-link across a long or thin "
              "region brings the region along rather than two blobs around its ends; at K = 2 "
              "(at K = 3 it cost more than it gave on the training images; off: the walk from "
              "the ends alone)."),
    ParamSpec("rounding_widen", bool, True,
              "Constrained rounding, with must-links alone: where a must-link's segment is two "
              "blobs around its ends and under 3% of the image, the walk runs once more with "
              "what the ends' surroundings look like (colour), and that segment takes the nodes "
              "it gives it, so a must-link along a strip of snow or grass brings the strip "
              "along (off: the walk from the ends alone)."),
    ParamSpec("rounding_screen_groups", bool, True,
              "Constrained rounding, at K >= 3, on an edit that only adds must-links to a result "
              "that honours every stroke and whose every segment already holds must-links of "
              "its own: must-links whose two ends lie in one segment on screen stay together "
              "(a must-link drawn inside a region the screen shows adds to that region), where "
              "no stroke says otherwise; a new must-link across two segments on screen that "
              "would be left alone in a sliver joins the segment whose strokes it is closest "
              "to (off: every group is regrouped afresh)."),
    ParamSpec("rounding_anchored", bool, True,
              "Constrained rounding: once the cannot-linked strokes hold every segment, each "
              "must-link no cannot-link touches (drawn inside a region) joins the segment whose "
              "cannot-linked strokes it is closest to, by a random walk on the image graph and by "
              "what its ends' surroundings look like (colour and texture), unless the result on "
              "screen already honours every stroke or the placement would leave a cannot-link "
              "honoured by a sliver (off: the two colourings' choice alone)."),
    ParamSpec("rounding_ground", float, 0.1,
              "Constrained rounding, with labelled blocks and brush regions alone (no link): "
              "nodes the blocks' walk reaches with a probability under this (a walker from them "
              "is absorbed by the walk's prior first, so noise would decide their label) take "
              "the segment that holds most of the image's border (80%), as the far field of an object marked "
              "with labelled clicks is its background (0: the walk decides them).",
              low=0.0, high=1.0,
              plain="With labelled blocks: how far from every block the rest of the image goes to "
                    "the segment along the image's edge instead of the nearest block's (0: off)."),
    ParamSpec("rounding_stability", float, 0.1,
              "Constrained rounding, given the result shown before this edit (segment's "
              "previous): what a group of must-linked stroke ends pays, per node, for leaving "
              "the segment its nodes had there (in units of a node's degree, as the walk's "
              "energy; with rounding_colouring=embedding or no walk, in the embedding's squared "
              "distances, a single vector first scaled to a row-normalised embedding's "
              "spacing), so that earlier strokes keep their segments unless the new "
              "constraints need otherwise and a stroke does not recolour the image elsewhere "
              "(0: ignore the previous result).",
              low=0.0, high=1e6),
)

COLOURING_TIE_WEIGHT = 0.01  # the embedding's weight against the walk's energy in step 2

SINGLE_VECTOR_SPACING = 2.0  # a single vector's centroids scaled to this squared distance (a row-normalised embedding's at K = 2)
NCUT_TIE_WEIGHT = 1e-3  # the embedding's weight against the normalised cut in step 2

CONNECT_MAX_CHANGE = 0.3  # rounding_connect: the share of the image (by pixels) a join may relabel (0.2 until the sixteenth session, tuning.md)
SURE_SHARE = 0.5  # step 4: the share of an unreached segment's nodes, most certain first, that seed it

EXACT_GROUPS = 40  # groups coloured by the exact search; more: greedy with local moves

NCUT_EXACT = 200_000  # colourings enumerated exactly (K^groups); more: greedy with local moves

LOOK_BINS = 12  # colours of the codebook a territory's histogram counts

WIDEN_STEPS = (1.0, 10.0, 100.0)  # rounding_widen: the looks' weights tried in turn, times WIDEN_APPEARANCE (forty-second session)
WIDEN_LENS = 1.2  # rounding_widen once a cannot-link is drawn: a free must-link's sliver grows only into nodes whose hops to its two ends sum to at most this times the hops between them (forty-seventh session)
WIDEN_APPEARANCE = 0.05  # rounding_widen: the weight of the looks' prior in its walk (rounding_appearance's scale; tuning.md, thirty-second session)
UNREACHED_MIN_SHARE = 0.03  # 'auto': an unstroked segment smaller than this (no cannot-link yet) is a collapse
ANCHORED_LOOKS = 6.0  # lambda of core.constraint_step.anchored: the looks against the walk's log-probabilities
# nu of core.constraint_step.anchored: the method's own labels (per node of a free group, 1 where
# the method puts it away from a colour's cannot-linked groups) against the walk's log-probabilities
# (bench/results/tuning.md, 2026-11-30, thirty-first session)
ANCHORED_METHOD = 1.0
# mu of core.constraint_step.anchored: the distance in the image from a free group's nodes to a
# colour's nearest cannot-linked node, over the image's diagonal, against the walk's
# log-probabilities (bench/results/tuning.md, 2026-12-07, forty-third session)
ANCHORED_NEAR = 30.0
# at K >= 3, how much better (score per node of the group) the placement's colour must be than
# the colour a result on screen that honours every stroke gave a free group, to move it there
# (bench/results/tuning.md, 2026-11-30, thirtieth session: 0.5; thirty-first, with ANCHORED_METHOD: 0.25)
ANCHORED_SCREEN_MARGIN = 0.25
# the same at K = 2 (bench/results/tuning.md, 2026-12-07, forty-third session: with the
# nearness term a screen's grouping the placement is sure is wrong gives way)
ANCHORED_SCREEN_MARGIN_K2 = 1.0
# without a result on screen (one call, or a screen that splits a group): how much better the
# placement's colour must be than the colouring's, per node of the group, to move a free group
# (bench/results/tuning.md, 2026-12-07, forty-fifth session: near ties follow the colouring)
ANCHORED_ONE_CALL_MARGIN = 0.25
# a placement that leaves a segment none of the two or more free groups it held is refused where
# the segment keeps less than this of its share of the image (bench/results/tuning.md, 2026-11-30)
ANCHORED_EMPTIED_KEEP = 0.5
# rounding_ground: the ground is the segment holding at least this share of the reached nodes' border pixels
# (0.7 / 0.8 / 0.9 / none: GrabCut csp NoC@90 7.18 / 7.38 / 7.68 / 7.14; Berkeley blocks, e2cp, K = 3
# NoC@0.80 6.05 / 6.08 / 6.02 / 7.27 and K = 2 4.35 / 4.18 / 4.23 against 6.13 and 4.15 without the rule;
# tuning.md, forty-eighth session)
GROUND_BORDER_SHARE = 0.8
