"""Cluster tests: the virtual cluster of scripts/vcluster (a package, so that its conftest
is not imported as the top-level `conftest` of tests/)."""
