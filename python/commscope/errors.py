"""Errors a user can act on, and the exit codes the command line turns them into."""

from __future__ import annotations

EXIT_OK = 0
#: A benchmark failed, crashed, timed out or failed validation; a file could not
#: be imported; or something the user must fix (no core, no database...).
EXIT_FAILED = 1
#: Bad command line or bad suite file (click uses 2 for its own usage errors too).
EXIT_USAGE = 2
#: Ctrl-C or SIGTERM stopped a run; what was measured before is stored.
EXIT_INTERRUPTED = 3


class CommscopeError(Exception):
    """A problem the user can fix. The CLI prints the message, never a traceback."""

    exit_code = EXIT_FAILED


class UsageError(CommscopeError):
    """The command line or a suite file asks for something that cannot be done."""

    exit_code = EXIT_USAGE
