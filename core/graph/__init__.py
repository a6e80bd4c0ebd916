"""The graph a method clusters: nodes standing for pixels (:mod:`.representation`), their
affinities (:mod:`.affinity`) and the user's constraints mapped onto them
(:mod:`.node_constraints`)."""

from .node_constraints import NodeConstraints, components, map_constraints
from .representation import REPRESENTATION_PARAMS, Representation, build_representation

__all__ = ["NodeConstraints", "components", "map_constraints", "REPRESENTATION_PARAMS", "Representation",
           "build_representation"]
