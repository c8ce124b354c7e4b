"""The `commscope` command group: what every subcommand shares (errors into exit codes, the
version, help) and the list of subcommands, which live in the modules beside this one."""

from __future__ import annotations

import click

from commscope import __version__, ui
from commscope.cli.common import CONTEXT, EXIT_STATUS_HELP
from commscope.errors import EXIT_INTERRUPTED, CommscopeError


class CommscopeGroup(click.Group):
    """Turns CommscopeError (the store's StoreError too) into its message and exit code, and
    Ctrl-C into exit 3."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except CommscopeError as exc:
            ui.error(str(exc))
            ctx.exit(exc.exit_code)
        except KeyboardInterrupt:
            ui.error("interrupted")
            ctx.exit(EXIT_INTERRUPTED)


@click.group(cls=CommscopeGroup, context_settings=CONTEXT, epilog=EXIT_STATUS_HELP)
@click.version_option(__version__, "-V", "--version", prog_name="commscope")
def main() -> None:
    """Run MPI communication benchmarks (commscope-bench, the OSU Micro-Benchmarks
    successor), keep every result with its provenance in a local database, and
    import results of OMB and IMB.

    \b
    Examples:
      commscope run quick                  # latency, bw, bibw up to 64 KiB on 2 ranks
      commscope run latency bw --np 2 -- -m 1:1M -c
      commscope run procurement --hosts node1,node2
      commscope list runs
      commscope show last
      commscope import osu_latency.out --label "old cluster"
    """


from commscope.cli import analysis, cluster, history, install, overhead, run, schedule, stored  # noqa: E402  (they use the group's helpers)

for command in (
    run.run,
    run.sweep,
    overhead.overhead,
    stored.list_,
    stored.show,
    stored.export,
    stored.delete,
    stored.import_,
    analysis.compare,
    analysis.baseline,
    analysis.check,
    analysis.model,
    analysis.plot,
    analysis.report,
    history.history,
    cluster.submit,
    cluster.status,
    cluster.collect,
    cluster.config,
    schedule.schedule,
    install.info,
    install.modulefile,
):
    main.add_command(command)
