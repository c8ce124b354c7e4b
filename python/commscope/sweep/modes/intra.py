"""`commscope sweep intra`: every pair of cores of one host, each rank pinned to its own core,
so that a pair is a pair of cores; the stored run keeps where each core measured sits."""

from __future__ import annotations

import os

from commscope import ui
from commscope.errors import UsageError
from commscope.sweep.modes.base import INT, Layout, Option
from commscope.sweep.modes.link import LINK_OPTIONS, LinkMode

NP = Option(
    "--np",
    "np",
    INT,
    "Ranks on the host, each pinned to a core (default: this machine's cores).",
    metavar="N",
    low=2,
)
#: Pinning for the launchers that do not pin by --bind alone: each rank on its own core.
PIN_ENV = {"OMPI_MCA_hwloc_base_binding_policy": "core", "HYDRA_BINDING": "core"}


class Intra(LinkMode):
    name = "intra"
    summary = "every pair of cores of one host, ranks pinned"
    description = "Every pair of cores of one host, ranks pinned."
    hosts_help = "The one host (default this one)."
    options = (NP, *LINK_OPTIONS)
    no_nodes = "intra sweeps the cores of the host it runs on; run it inside a job on that node"

    def pick_hosts(self, request, hosts, given):
        if len(hosts) > 1:
            raise UsageError(f"intra sweeps one host; got {len(hosts)} ({', '.join(hosts)})")
        return hosts

    def layout(self, request, hosts) -> Layout:
        """--np ranks (default: a rank a core of this machine) on the host, each pinned to a
        core; not pinned where ranks outnumber cores (said)."""
        cores = len(os.sched_getaffinity(0))
        np = request.own.get(NP.dest) or cores
        if np < 2:
            raise UsageError("an intra-node sweep needs at least 2 ranks (--np)")
        pinned = np <= cores
        if not pinned:
            ui.warn(
                f"intra: {np} ranks on {cores} cores: ranks outnumber cores, so they are not pinned "
                "(a pair is then two ranks, not two cores; labels name ranks sharing a core by rank)"
            )
        bind, env = ("core", PIN_ENV) if pinned else ("none", {})
        return Layout(np=np, placement="intra-node", bind=bind, hosts=tuple(hosts), hostfile=False, env=env)

    def recorded(self, run) -> dict:
        """The topology of the cores measured, for the report."""
        from commscope.execute.cpu_topology import cpu_topology

        used = {cpu for point in run.points if point.pair for cpu in (point.pair.src_cpu, point.pair.dst_cpu)}
        return {"cpus": {cpu: where for cpu, where in cpu_topology().items() if cpu in used}}

    def lines_after(self, run) -> str:
        from commscope.analysis.sweep_verdicts import stored_topology
        from commscope.output.sweep_view import intra_table

        return intra_table(run, stored_topology(run) or {})


INTRA = Intra()
