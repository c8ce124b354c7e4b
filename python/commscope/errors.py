"""Errors a user can act on, and the exit codes the command line turns them into."""

from __future__ import annotations

EXIT_OK = 0
#: A benchmark failed, crashed, timed out or failed validation; a file could not
#: be imported; or something the user must fix (no core, no database...).
EXIT_FAILED = 1
#: Bad command line or bad suite file (click uses 2 for its own usage errors too).
EXIT_USAGE = 2
#: Ctrl-C, SIGTERM, SIGHUP or SIGQUIT stopped a run; what was measured before is stored.
EXIT_INTERRUPTED = 3
#: The result database cannot be used: missing, damaged, read-only for a write, locked
#: by another program past the busy timeout, or on a full disk. A run whose results
#: could not be stored keeps them in the unsaved-results folder.
EXIT_STORE = 4

#: What each exit status means, as every command's --help says it.
EXIT_STATUSES = {
    EXIT_OK: "success",
    EXIT_FAILED: "a benchmark failed, crashed, timed out or failed validation; a file could not be "
    "imported; or another error (message on stderr)",
    EXIT_USAGE: "usage error: bad option, unknown suite, benchmark or run, invalid suite file, an "
    "output file that cannot be written",
    EXIT_INTERRUPTED: "interrupted by Ctrl-C, SIGTERM, SIGHUP or SIGQUIT (what was measured before is stored)",
    EXIT_STORE: "the result database cannot be used: missing, damaged, read-only for a write, locked by "
    "another program, or its disk is full (a run keeps what it measured in the unsaved-results "
    "folder and says where)",
}


class CommscopeError(Exception):
    """A problem the user can fix. The CLI prints the message, never a traceback."""

    exit_code = EXIT_FAILED


class StoreError(CommscopeError):
    """The result database cannot be read or written."""

    exit_code = EXIT_STORE


class UsageError(CommscopeError):
    """The command line or a suite file asks for something that cannot be done."""

    exit_code = EXIT_USAGE


class Interrupted(CommscopeError):
    """A stop signal (Ctrl-C, SIGTERM, SIGHUP, SIGQUIT) ended the command; what it measured
    is kept, and what it took (an allocation, nodes out of service) given back."""

    exit_code = EXIT_INTERRUPTED
