"""ReFrame tests of commscope (`reframe -c` this folder; docs/integrations.md).

checks.py holds the test classes: one benchmark with its flags (CommscopeBenchmark), the
entries of a commscope suite (CommscopeSuite), and ready-made ones for the local machine.
config.py is a generic configuration for one machine (local scheduler, mpiexec). The tests
run the real core under ReFrame's launcher, read the core's JSON with commscope's reader,
and report every message size as a performance variable; references come from the test's
reference_values with a tolerance, or from a commscope baseline.
"""
