"""`commscope sweep one-to-all`: one host (--from, or the first) with every other, one pair at
a time."""

from __future__ import annotations

from commscope.errors import UsageError
from commscope.sweep.modes.base import TEXT, Option
from commscope.sweep.modes.link import LINK_OPTIONS, LinkMode

FROM = Option("--from", "source", TEXT, "The host measured to every other (default: the first host).", metavar="HOST")


class OneToAll(LinkMode):
    name = "one-to-all"
    summary = "the --from host (or the first) with every other host, one pair at a time"
    description = "The --from host (or the first) with every other host, one pair at a time."
    schedule = "one-to-all:0"
    options = (FROM, *LINK_OPTIONS)
    why_not = {"--np": "one rank per host"}

    def pick_hosts(self, request, hosts, given):
        hosts = super().pick_hosts(request, hosts, given)
        source = request.own.get(FROM.dest)
        if source is not None:
            if source not in hosts:
                raise UsageError(f"--from {source}: not one of the hosts ({', '.join(hosts)})")
            hosts.remove(source)
            hosts.insert(0, source)  # rank 0 is the root of the schedule
        return hosts


ONE_TO_ALL = OneToAll()
