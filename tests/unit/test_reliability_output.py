"""Issue 11: secrets in the recorded environment are redacted wherever it is kept, and
labels cannot inject formulas into CSV, headings into Markdown or escapes into a terminal."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

import core_golden
from commscope.store.db import Store
from paths import FIXTURES

SECRETS = {
    "UCX_TOKEN": "tok-123456",
    "FI_PASSWORD": "pw-abcdef",
    "MPICH_SECRET": "s3cr3t-value",
    "OMPI_MCA_foo_password": "hunter2-xyz",
    "I_MPI_AUTH_KEY": "key-998877",
}
HARMLESS = {"OMPI_MCA_btl": "self,vader", "UCX_TLS": "shm"}
FIXTURE = FIXTURES / "parse" / "omb5_bibw.txt"


def all_text(db: Path) -> bytes:
    """Every byte the database files hold, the WAL included (not checkpointed yet)."""
    return b"".join(path.read_bytes() for path in db.parent.glob(db.name + "*"))


def assert_no_secret(data: bytes | str) -> None:
    data = data.encode() if isinstance(data, str) else data
    for value in SECRETS.values():
        assert value.encode() not in data, value


@pytest.mark.slow
def test_secrets_in_the_environment_are_redacted_everywhere(cli, fake_core, db, clean_env, tmp_path):
    clean_env.setenv("FAKE_CORE_ENVIRONMENT", json.dumps({**SECRETS, **HARMLESS}))
    result = cli("run", "latency", "--launcher", "mpirun", "--db", db, "--", "-m", "1:4")
    assert result.exit_code == 0, result.output
    with Store(db) as store:
        [row] = store.summaries()
        run = store.run(row.id)
        raw = store.raw_outputs(run.id)
    replayed = core_golden.header("latency")["environment"]
    assert run.environment == {**replayed, **HARMLESS, **{name: "<redacted>" for name in SECRETS}}
    assert_no_secret(raw["jsonl"])
    assert_no_secret(raw["stdout"])
    (header,) = [json.loads(line)["header"] for line in raw["jsonl"].splitlines() if line.startswith(b'{"header"')]
    assert header["environment"]["UCX_TOKEN"] == "<redacted>"
    export = cli("export", "last", "--format", "json", "--db", db)
    assert_no_secret(export.stdout)
    assert_no_secret(all_text(db))


def test_secrets_in_an_imported_commscope_document_are_redacted(cli, fake_core, db, clean_env, tmp_path):
    document = json.loads((FIXTURES / "parse" / "commscope_latency.json").read_text())
    document["environment"] = {**document.get("environment", {}), **SECRETS}
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(document, indent=2))
    result = cli("import", path, "--db", db)
    assert result.exit_code == 0, result.output
    with Store(db) as store:
        run = store.run(1)
        source = store.raw_outputs(1)["source"]
    assert run.environment["UCX_TOKEN"] == "<redacted>"
    assert_no_secret(source)
    assert_no_secret(all_text(db))


@pytest.mark.parametrize(
    "label, cell",
    [(label, "'" + label) for label in ('=HYPERLINK("http://x","y")', "@SUM(1+1)", "+1", "-1+2", "\tx")]
    + [("\rx", "\\x0dx")],
)  # a CR is not quoted by csv writers: shown escaped
def test_csv_export_neutralises_formulas(cli, db, label, cell):
    assert cli("import", FIXTURE, "--label", label, "--db", db).exit_code == 0
    result = cli("export", "1", "--format", "csv", "--db", db)
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert rows and all(row["label"] == cell for row in rows)


def test_csv_export_keeps_plain_labels_and_numbers(cli, db):
    assert cli("import", FIXTURE, "--label", "plain label", "--db", db).exit_code == 0
    rows = list(csv.DictReader(io.StringIO(cli("export", "1", "--format", "csv", "--db", db).stdout)))
    assert rows[0]["label"] == "plain label" and float(rows[0]["bandwidth_MBps"]) > 0


def test_a_newline_in_a_label_cannot_break_a_markdown_table(cli, db):
    assert cli("import", FIXTURE, "--label", "a\n# injected\n| x | y |", "--db", db).exit_code == 0
    result = cli("compare", "1", "--format", "markdown", "--db", db)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert not any(line.startswith("#") for line in lines)
    table = [line for line in lines if line.startswith("|")]
    assert len({line.count(" | ") for line in table[:1] + table[2:]}) == 1  # every row has as many cells


@pytest.mark.slow
def test_control_characters_never_reach_the_terminal(cli, fake_core, db):
    system = "evil\x1b]0;pwned\x07\x1b[2J"
    result = cli(
        "run",
        "latency",
        "--launcher",
        "mpirun",
        "--system",
        system,
        "--label",
        "l\x1b[31mred",
        "--db",
        db,
        "--",
        "-m",
        "1:2",
    )
    assert result.exit_code == 0, result.output
    for command in (("list", "runs"), ("show", "last"), ("compare", "last"), ("delete", "99")):
        out = cli(*command, "--db", db)
        assert "\x1b" not in out.output and "\x07" not in out.output, command
    shown = cli("show", "last", "--db", db).stdout
    assert "evil\\x1b]0;pwned\\x07\\x1b[2J" in shown
