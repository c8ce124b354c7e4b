"""The paths a copy between two cores of one node takes through shared memory, nearest first:
the names `commscope run` stores with a core pair (execute.cpu_topology classifies) and the
order seed 004's rule ranks them by (analysis.peaks). A core pair has no link peak (the copy
is memory-bound), so the farthest path stands for the lowest theoretical peak."""

SAME_NODE = "same NUMA node"
OTHER_NODE = "other NUMA node on the socket"
ACROSS_SOCKETS = "across sockets"
#: Nearest (highest bandwidth expected) first.
CORE_PATHS = (SAME_NODE, OTHER_NODE, ACROSS_SOCKETS)
