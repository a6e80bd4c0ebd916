"""The graph a method clusters: nodes standing for pixels (:mod:`.representation`), which
nodes touch (:mod:`.boundaries`), their affinities (:mod:`.affinity`) and the user's
constraints mapped onto them (:mod:`.node_constraints`).

Each part has its own parameter specs; :data:`GRAPH_PARAMS` is all of them (exported as
``core.REPRESENTATION_PARAMS``).
"""

from .affinity import AFFINITY_PARAMS
from .node_constraints import STROKE_PARAMS, NodeConstraints, components, map_constraints
from .representation import NODE_PARAMS, Representation, build_representation

GRAPH_PARAMS = NODE_PARAMS + AFFINITY_PARAMS + STROKE_PARAMS

__all__ = ["GRAPH_PARAMS", "NODE_PARAMS", "AFFINITY_PARAMS", "STROKE_PARAMS", "NodeConstraints", "components",
           "map_constraints", "Representation", "build_representation"]
