"""A sweep's judgement, in one place: from the sweep run's matrix, the policy and the
retest run's values alone to the bad nodes and links. `commscope sweep` uses it as it
measures (plan_retest, then judge_sweep once the retest is back) and the report and
`plot` use it on stored runs (judge_stored), so a stored sweep is judged exactly as it
was at the time.

What that needs is kept in the sweep run's provenance under "sweep" (no new column):

    {"mode": "all-pairs", "rules": {...rules file's shape...}, "retest": true,
     "retest_run": 2, "cpus": {"0": {"package": "0", "core": "0", "l3": "0-1"}, ...},
     "topology": {"parents": {"leaf1": "spine", ...}, "leaves": {"leaf1": ["cn01", ...], ...}}}

"retest" is whether a retest was asked for (--no-retest: false); "retest_run" the id of
the serial retest's run, null when nothing was suspect; "cpus" (intra sweeps) where the
cores sit, so the report groups core pairs by the topology of the host measured, not of
the machine that writes the report; "topology" (all-pairs with --topology) the fabric
it was judged with, as locate keeps it (analysis/fabric.py: fabric_record), so a bad
uplink is named as its switch again (analysis/sweep_fabric.py). The retest run's provenance says
{"sweep": {"retest_of": ID}}.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

from commscope.analysis.fabric import NO_SWITCH, Fabric, fabric_of_record
from commscope.analysis.start_faults import StartFault, stored_faults
from commscope.analysis.sweep import (
    PAIR_METRICS,
    Cleared,
    Flag,
    Policy,
    Suspects,
    SweepMatrix,
    Verdict,
    find_suspects,
    judge,
    matrix_from_run,
)
from commscope.analysis.sweep_fabric import (
    SwitchFlag,
    SwitchSuspects,
    confirm_switches,
    find_switches,
    without_explained,
)
from commscope.errors import UsageError
from commscope.records.core_paths import Cpu
from commscope.records.run import Run
from commscope.records.run_kinds import SWEEP_KEY

Pair = tuple[int, int]


@dataclass
class RetestPlan:
    """Per metric: what step 1 found, and the pairs to measure again alone."""

    suspects: dict[str, Suspects]
    pairs: dict[str, list[Pair]]
    switches: dict[str, SwitchSuspects] = field(default_factory=dict)  # with a topology

    def __bool__(self) -> bool:
        return any(self.pairs.values())

    def metrics(self) -> list[str]:
        return [metric for metric in PAIR_METRICS if self.pairs.get(metric)]

    def all_pairs(self) -> list[Pair]:
        """Every pair to retest once, in metric order (one serial launch measures them all)."""
        return list(dict.fromkeys(pair for metric in self.metrics() for pair in self.pairs[metric]))


@dataclass
class SweepJudgement:
    """The verdicts of one sweep and what they were judged with."""

    matrix: SweepMatrix
    policy: Policy
    verdicts: dict[str, Verdict]
    retest_run_id: int | None = None
    notes: list[str] = field(default_factory=list)  # why the judgement may differ from the sweep's own
    switches: list[SwitchFlag] = field(default_factory=list)  # bad uplinks, named as their switch
    fabric: Fabric | None = None  # the topology judged with
    leaf_groups: list[tuple[str, list[int]]] | None = None  # the hosts leaf by leaf (the heatmap's order)
    #: Hosts set aside for failing or hanging at MPI start, not in the matrix (start_faults.py)
    set_aside: list[StartFault] = field(default_factory=list)

    def flags(self) -> list[Flag]:
        return [flag for verdict in self.verdicts.values() for flag in verdict.flags]

    def cleared(self) -> list[Cleared]:
        return [item for verdict in self.verdicts.values() for item in verdict.cleared]


def plan_retest(matrix: SweepMatrix, policy: Policy, fabric: Fabric | None = None) -> RetestPlan:
    """Suspects and the pairs to retest; with a topology, the switches whose uplink
    explains their hosts' slow pairs first (their pairs across, then the rest)."""
    suspects = {metric: find_suspects(values, metric, policy.rules[metric]) for metric, values in matrix.values.items()}
    switches: dict[str, SwitchSuspects] = {}
    if fabric is not None and fabric.known:
        for metric, found in suspects.items():
            rule, values = policy.rules[metric], matrix.values[metric]
            switches[metric] = find_switches(values, found, rule, fabric, policy.retest_per_node)
            suspects[metric] = without_explained(found, switches[metric], fabric)
    pairs = {}
    for metric, found in suspects.items():
        across = [pair for flag in getattr(switches.get(metric), "switches", []) for pair in flag.retest_pairs]
        chosen = dict.fromkeys([*across, *found.retest_pairs(policy, matrix.values[metric])])
        pairs[metric] = list(chosen)[: policy.max_retests]
    return RetestPlan(suspects, pairs, switches)


def values_alone(plan: RetestPlan, retest: SweepMatrix) -> dict[str, dict[Pair, float]]:
    """Per metric, the value alone of each pair retested for that metric. The retest run
    measured every metric of every retested pair; a pair counts only for the metrics it
    was retested for, as at the time."""
    values: dict[str, dict[Pair, float]] = {}
    for metric in plan.metrics():
        alone = retest.values.get(metric)
        values[metric] = {
            pair: float(alone[pair]) for pair in plan.pairs[metric] if alone is not None and not np.isnan(alone[pair])
        }
    return values


def judge_sweep(
    matrix: SweepMatrix, policy: Policy, plan: RetestPlan, alone: dict[str, dict[Pair, float]]
) -> dict[str, Verdict]:
    return {
        metric: judge(found, policy.rules[metric], alone.get(metric), matrix.values[metric])
        for metric, found in plan.suspects.items()
    }


def judgement(
    matrix: SweepMatrix,
    policy: Policy,
    plan: RetestPlan,
    alone: dict[str, dict[Pair, float]],
    retest_run: int | None = None,
    notes: list[str] | None = None,
    fabric: Fabric | None = None,
    set_aside: list[StartFault] | None = None,
) -> SweepJudgement:
    """The verdicts of the hosts and links, and of the switches the topology let name; the
    hosts set aside at MPI start beside them, named by the launcher's words."""
    verdicts = judge_sweep(matrix, policy, plan, alone)
    switches: list[SwitchFlag] = []
    for metric, found in plan.switches.items():
        named, cleared = confirm_switches(found, policy.rules[metric], alone.get(metric) or {}, matrix.values[metric])
        switches += named
        verdicts[metric].cleared += cleared
    groups = None
    notes = list(notes or [])
    if fabric is not None and fabric.known:
        groups = fabric.leaf_groups()
        unplaced = [matrix.labels[i] for i in np.flatnonzero(fabric.leaf == NO_SWITCH).tolist()]
        if unplaced:
            more = f" and {len(unplaced) - 5} more" if len(unplaced) > 5 else ""
            notes.append(
                f"{len(unplaced)} host(s) under no switch of the sweep's topology ({', '.join(unplaced[:5])}{more}): "
                "their slow pairs are blamed on hosts alone"
            )
    return SweepJudgement(matrix, policy, verdicts, retest_run, notes, switches, fabric, groups, list(set_aside or []))


def recorded_fabric(run: Run, hosts: list[str]) -> Fabric | None:
    """The topology an all-pairs sweep recorded, over its hosts by rank; None: none."""
    return fabric_of_record(record_of(run).get("topology"), hosts)


# -- the record in the provenance -------------------------------------------------


def sweep_record(
    mode: str, policy: Policy, retest: bool, cpus: dict[int, Cpu] | None = None, topology: dict | None = None
) -> dict:
    """The sweep run's provenance entry, before its retest (retest_run is added after);
    `topology` as analysis/fabric.py's fabric_record writes it."""
    # imported here: the rules' pydantic models cost a tenth of a second that every report,
    # which asks each run for its retest, would pay
    from commscope.analysis.sweep_rules import rules_mapping

    record = {"mode": mode, "rules": rules_mapping(policy), "retest": retest, "retest_run": None}
    if cpus is not None:
        record["cpus"] = {str(cpu): asdict(where) for cpu, where in sorted(cpus.items())}
    if topology is not None:
        record["topology"] = topology
    return record


def record_of(run: Run) -> dict:
    """The run's sweep entry ({} for a pairs run stored before commscope kept one)."""
    entry = (run.provenance or {}).get(SWEEP_KEY)
    return entry if isinstance(entry, dict) else {}


def retest_of(run: Run) -> int | None:
    """The sweep run a retest run measured suspects of, or None."""
    value = record_of(run).get("retest_of")
    return value if isinstance(value, int) else None


def retest_run_id(run: Run) -> int | None:
    value = record_of(run).get("retest_run")
    return value if isinstance(value, int) else None


def stored_topology(run: Run) -> dict[int, Cpu] | None:
    """Where the cores of an intra sweep sat, as recorded at the time; None if not recorded."""
    cpus = record_of(run).get("cpus")
    if not isinstance(cpus, dict):
        return None
    try:
        return {int(cpu): Cpu(**where) for cpu, where in cpus.items()}
    except (TypeError, ValueError) as exc:
        raise UsageError(f"run {run.id}: the sweep's recorded core topology cannot be read: {exc}") from exc


def stored_policy(run: Run) -> Policy | None:
    """The rules a stored sweep was judged with; None where it does not record them, or
    records rules that cannot be read (rules_problem says why): the run is judged with the
    default rules then, never left unshown."""
    return _recorded_rules(run)[0]


def rules_problem(run: Run) -> str | None:
    """Why a stored sweep's recorded rules cannot be used (a NaN threshold stored by an
    older commscope), as a note; None when they can, or when there are none."""
    problem = _recorded_rules(run)[1]
    return None if problem is None else f"{problem}: judged here with the default rules"


def _recorded_rules(run: Run) -> tuple[Policy | None, str | None]:
    record = record_of(run)
    if "rules" not in record:
        return None, None
    from commscope.analysis.sweep_rules import RulesError, policy_of_mapping

    try:
        return policy_of_mapping(record["rules"], f"run {run.id}: provenance sweep.rules"), None
    except RulesError as exc:
        return None, str(exc).replace("\n", "; ")


def judge_stored(run: Run, retest: Run | None) -> SweepJudgement:
    """Judge a stored sweep again with the rules and retest it was judged with. A pairs run
    without a record (stored before commscope kept one, or imported) is judged with the
    default rules and no retest, and the notes say so; so does a missing retest run."""
    if retest_of(run) is not None:
        raise UsageError(f"run {run.id} is the serial retest of sweep run {retest_of(run)}: name run {retest_of(run)}")
    record = record_of(run)
    notes: list[str] = []
    policy = stored_policy(run)
    if policy is None:
        policy = Policy()
        notes.append(
            rules_problem(run)
            or f"run {run.id} does not record the rules it was judged with (stored before commscope kept them, "
            "or imported): judged here with the default rules, suspects as found"
        )
    matrix = matrix_from_run(run)
    fabric = recorded_fabric(run, matrix.hosts)
    plan = plan_retest(matrix, policy, fabric)
    wanted = retest_run_id(run)
    alone: dict[str, dict[Pair, float]] = {}
    if retest is not None:
        if wanted is not None and retest.id != wanted:
            raise UsageError(f"run {retest.id} is not the retest of sweep run {run.id} (that is run {wanted})")
        if retest.ranks != run.ranks:
            raise UsageError(f"retest run {retest.id} has {retest.ranks} ranks, sweep run {run.id} {run.ranks}")
        alone = values_alone(plan, matrix_from_run(retest))
    elif wanted is not None:
        notes.append(f"retest run {wanted} of sweep run {run.id} is not in the store: suspects judged as found")
    elif record.get("retest") is False and plan:
        notes.append(f"sweep run {run.id} was measured with --no-retest: suspects stand as found")
    return judgement(matrix, policy, plan, alone, wanted, notes, fabric, stored_faults(record.get("set_aside")))
