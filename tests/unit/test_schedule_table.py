"""`commscope schedule` against a table as users leave it: carriage returns inside their own
lines and comments, bytes that are not UTF-8, and commscope's marks edited by hand. The
table lives in a file behind a stand-in crontab/scrontab that hands it over byte for byte,
as both programs do; the user's bytes must come back exactly, and a block whose end mark is
gone must not take the user's lines for an entry's."""

from __future__ import annotations

import pytest
from test_schedule import slurm_table, table  # noqa: F401 (fixtures)

from commscope.cluster.schedule import BEGIN, END

#: A user's table: a CR inside a comment (cron reads the rest of that line as comment),
#: CRLF lines, and a byte that is not UTF-8 (Latin-1's é).
HOSTILE = (
    b"MAILTO=ops@example.org\n"
    b"# disabled: \r*/1 * * * * /usr/local/bin/rm-everything\n"
    b"15 3 * * * /usr/local/bin/backup\r\n"
    b"# caf\xe9 au lait\n"
)
#: A user's table that any scheduler reads alike.
PLAIN = b"MAILTO=ops@example.org\n15 3 * * * /usr/local/bin/backup\n"
ADD = ("schedule", "quick", "--every", "1d", "--baseline", "ref")


@pytest.mark.slow
@pytest.mark.parametrize("scheduler", ["table", "slurm_table"])
def test_the_users_bytes_come_back_exactly(cli, request, db, scheduler):
    kept = request.getfixturevalue(scheduler)
    kept.write_bytes(HOSTILE)
    dry = cli(*ADD, "--db", db, "--dry-run")
    assert dry.exit_code == 0, dry.output
    assert dry.stdout_bytes.startswith(HOSTILE) and kept.read_bytes() == HOSTILE
    written = cli(*ADD, "--db", db)
    assert written.exit_code == 0, written.output
    assert kept.read_bytes() == dry.stdout_bytes
    assert kept.read_bytes().count(b"* * * * *") == 0  # no live line made of the user's comment
    listed = cli("schedule", "--list")
    assert listed.exit_code == 0 and b"# commscope-entry quick:" in listed.stdout_bytes
    assert HOSTILE not in listed.stdout_bytes  # only commscope's block
    removed = cli("schedule", "--remove", "quick")
    assert removed.exit_code == 0, removed.output
    assert kept.read_bytes() == HOSTILE


def _with_block(kept, cli, db, user: bytes = PLAIN) -> bytes:
    kept.write_bytes(user)
    assert cli(*ADD, "--db", db).exit_code == 0
    return kept.read_bytes()


@pytest.mark.parametrize(
    ("damage", "said"),
    [
        (lambda t: t.replace(END.encode() + b"\n", b""), "commscope's end mark is missing"),
        (lambda t: t.replace(BEGIN.encode() + b"\n", b""), "commscope's begin mark is missing"),
        (lambda t: t + BEGIN.encode() + b"\n", "commscope's begin mark is on lines 3, 7"),
        (
            lambda t: (
                t.replace(BEGIN.encode() + b"\n", b"")
                .replace(b"MAILTO", BEGIN.encode() + b"\nMAILTO")
                .replace(END.encode() + b"\n", b"")
                + END.encode()
                + b"\n"
            ),
            "line 2 is inside commscope's block",
        ),
    ],
    ids=["no-end", "no-begin", "two-begins", "user-line-in-block"],
)
def test_a_block_with_a_mark_missing_is_refused_and_nothing_is_lost(cli, table, db, damage, said):  # noqa: F811
    damaged = damage(_with_block(table, cli, db)) + b"0 4 * * * /usr/local/bin/users-own-after\n"
    table.write_bytes(damaged)
    for argv in (("schedule", "--remove", "quick"), (*ADD, "--db", db), ("schedule", "--list")):
        result = cli(*argv)
        assert result.exit_code == 1, result.output
        assert said in result.output and "nothing was changed" in result.output, result.output
        assert "crontab's table" in result.output and "Traceback" not in result.output
        assert table.read_bytes() == damaged


def test_a_mark_an_editor_ended_with_cr_is_still_the_mark(cli, table, db):  # noqa: F811
    crlf = _with_block(table, cli, db, HOSTILE).replace(b" <<<\n", b" <<<\r\n").replace(b">>>\n", b">>>\r\n")
    table.write_bytes(crlf + b"0 4 * * * /usr/local/bin/users-own-after\n")
    assert cli("schedule", "--remove", "quick").exit_code == 0
    assert table.read_bytes() == HOSTILE + b"0 4 * * * /usr/local/bin/users-own-after\n"
