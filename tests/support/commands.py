"""Command lines of commscope that tests of several layers run, and a child process to run
one in while a test signals it or holds its database."""

from __future__ import annotations

import subprocess
from collections.abc import Mapping, Sequence

#: The core's flags of the loopback comparison: 1000 timed and 50 warm-up round trips of
#: 4 KiB, so --transport net moves at least 2 x 1050 x 4096 bytes through the network stack.
LOOPBACK_FLAGS = ("-m", "4096:4096", "-i", "1000", "-x", "50")

#: The core's flags of a run that checks function, not speed: 20 timed iterations, 2 warm-up.
FEW_ITERATIONS = ("-i", "20", "-x", "2")


def latency_argv(transport: str, launcher: str, *options, core_flags: Sequence[str] = LOOPBACK_FLAGS) -> list:
    """`run latency --transport TRANSPORT [OPTIONS] --launcher LAUNCHER -- CORE_FLAGS`: the
    words after `commscope`."""
    return ["run", "latency", "--transport", transport, *options, "--launcher", launcher, "--", *core_flags]


def start_child(argv: Sequence, env: Mapping[str, str]) -> subprocess.Popen:
    """`argv` in a child process, its stdout and stderr piped as text."""
    return subprocess.Popen(list(argv), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
