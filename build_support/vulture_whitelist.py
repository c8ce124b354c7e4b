"""Names vulture (`make lint`) takes for dead code that are used where it cannot see.

Never executed: vulture only reads the names. Add a name here only with the reason it is
used; a name that is really unused is deleted instead. Each line is the bare name (vulture
matches names, not paths), grouped by why it looks unused.
"""

# ruff: noqa
# fmt: off

# Click registers commands by their decorator; nothing calls them by name.
baseline_set, baseline_list, baseline_delete  # cli/analysis.py
config_set, config_unset  # cli/cluster.py
list_suites, list_runs  # cli/stored.py

# Looked up by name from a string (cli.common.ParsedValue, cli/fio.py's `_parsed(name)`).
parse_tolerance, parse_floor  # analysis/check.py
parse_since  # store/selection.py
parse_counts  # execute/fio.py

# Registered by a class decorator (launchers.LAUNCHERS) and chosen from that table.
OpenMpiLauncher, HydraLauncher  # execute/launchers.py

# Module-level __getattr__ (PEP 562): Python calls it for a missing attribute.
__getattr__  # ingest/parse/__init__.py, ui.py

# Read by the report's Jinja templates (output/report/templates/*.j2).
figure_alt, generated, nothing_flagged  # output/report/

# Data a caller or a test reads: a fitted model's medians; the record's axes, filled from
# the core's record by name (records/run.py Axes); pydantic's model settings and fields.
times_us  # analysis/model.py
window_creation, synchronization  # records/run.py
model_config, latency, bw, bibw  # analysis/sweep_rules.py

# The tests validate the core's JSON against its schema with the harness's own loader.
load_schema  # ingest/parse/commscope_json.py
# Only tests/unit/test_links.py calls it: left to the link inventory's own change to use or remove.
one_to_all  # analysis/peaks.py

# sqlite3's connection attribute, read by sqlite3 itself.
row_factory  # store/

# ReFrame reads these attributes, calls the hooks and finds the tests by their decorators.
valid_systems, valid_prog_environs, tags, maintainers, descr, executable_opts, num_tasks  # reframe/checks.py
set_command, completed, set_perf_variables, from_entry  # reframe/checks.py
commscope_latency, commscope_quick_suite  # reframe/checks.py
site_configuration  # reframe/config.py

# records/topology.py: a switch's LinkSpeed, read and kept as Slurm's file has it (refused
# when not a number); no verdict weighs it yet
link_speed

# urllib's openers call a handler's SCHEME_open by the scheme's name (output/openmetrics.py).
http_open, https_open  # output/openmetrics.py

# matplotlib reads a figure's suppressComposite when it saves it (output/fabric_map.py).
suppressComposite  # output/fabric_map.py
