"""`--push URL` against addresses that answer anything but a Pushgateway's HTTP: a small
local server on a real socket answers garbage, more than 100 headers, a 64 KiB header line,
or trickles a valid answer one byte at a time. Each is one message, exit status 1, nothing
stored lost; a nightly entry's passing check keeps its 0 with `"published": false`. An
address with a password or a space is refused before anything is sent, and the password is
never printed."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time

import pytest
from test_schedule import table  # noqa: F401 (a fixture)
from test_schedule_night import _accepted, _night

from fixtures.analysis.handmade import run_of, store_runs

#: What the server sends once it has read the request's head, by name.
ANSWERS = {
    "garbage": b"SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n\r\n",
    "100-headers": b"HTTP/1.1 200 OK\r\n" + b"".join(b"X-%d: y\r\n" % n for n in range(101)) + b"\r\n",
    "long-header": b"HTTP/1.1 200 OK\r\nX-Long: " + b"a" * 65537 + b"\r\n\r\n",
    "empty": b"",
}
OK = b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"


@contextlib.contextmanager
def server(answer: bytes, trickle_s: float = 0.0):
    """An address on 127.0.0.1 that reads each request's head and sends `answer` (a byte
    every `trickle_s` seconds when given), then closes."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            with connection:
                connection.settimeout(5)
                with contextlib.suppress(OSError):
                    head = b""
                    while b"\r\n\r\n" not in head:
                        head += connection.recv(65536) or b"\r\n\r\n"
                    if trickle_s:
                        for byte in answer:
                            if stop.is_set():
                                return
                            connection.sendall(bytes([byte]))
                            time.sleep(trickle_s)
                    else:
                        connection.sendall(answer)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        listener.close()


@pytest.mark.parametrize("answer", list(ANSWERS), ids=list(ANSWERS))
def test_an_address_that_does_not_answer_http_is_one_message(cli, db, answer):
    store_runs(db, [run_of({8: 2.0})])
    with server(ANSWERS[answer]) as url:
        result = cli("export", "last", "--push", url, "--db", db)
    assert result.exit_code == 1, result.output
    assert result.stderr.count(f"--push {url}: cannot reach the Pushgateway: ") == 1, result.stderr
    assert "Traceback" not in result.output


def test_a_pushgateway_that_trickles_is_given_up_at_its_deadline(cli, db, monkeypatch):
    from commscope.output import openmetrics

    monkeypatch.setattr(openmetrics, "PUSH_TIMEOUT_S", 1.0)
    store_runs(db, [run_of({8: 2.0})])
    with server(OK, trickle_s=0.2) as url:  # each byte well within the socket's 1 s; 7.6 s in all
        result = cli("export", "last", "--push", url, "--db", db)
    assert result.exit_code == 1, result.output
    assert f"--push {url}: cannot reach the Pushgateway: timed out (no whole answer within 1 s)" in result.stderr


def test_a_pushgateway_that_answers_slowly_but_whole_is_pushed(cli, db):
    store_runs(db, [run_of({8: 2.0})])
    with server(OK, trickle_s=0.01) as url:
        result = cli("export", "last", "--push", url, "--db", db)
    assert result.exit_code == 0, result.output
    assert f"pushed the metrics to {url}" in result.stderr


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("http://user:s3cret@127.0.0.1:9091", "a user name or password in the address is not supported"),
        ("http://s3cret@127.0.0.1:9091", "a user name or password in the address is not supported"),
        ("http://127.0.0.1:9091/a b", "an address holds no space or control character (' ')"),
        ("http://127.0.0.1:9091 x", "an address holds no space or control character (' ')"),
        ("http://127.0.0.1:99999", "Port out of range"),
        ("http://:9091", "give the Pushgateway's http:// or https:// address"),
    ],
)
def test_an_address_that_cannot_be_pushed_to_is_refused_without_its_password(cli, db, url, said):
    store_runs(db, [run_of({8: 2.0})])
    for argv in (("export", "last", "--push", url), ("history", "--push", url)):
        result = cli(*argv, "--db", db)
        assert result.exit_code == 2, result.output
        assert said in result.stderr and "s3cret" not in result.output, result.output


@pytest.mark.slow
def test_a_passing_night_whose_push_gets_garbage_keeps_its_pass(cli, fake_core, table, db, tmp_path):  # noqa: F811
    _accepted(cli, db)
    with server(ANSWERS["100-headers"]) as url:
        written = cli("schedule", "latency", "--every", "1d", "--baseline", "ref", "--push", url, "--db", db)
        assert written.exit_code == 0, written.output
        code, log, job = _night(table, db, tmp_path)
    assert code == 0 and "PASS against baseline 'ref'" in log, log
    assert log.count(f"--push {url}: cannot reach the Pushgateway: ") == 1 and "Traceback" not in log, log
    assert json.loads((job / "check.json").read_text())["published"] is False


def test_a_textfile_folder_that_is_empty_text_is_refused(cli, db, tmp_path, monkeypatch):
    store_runs(db, [run_of({8: 2.0})])
    monkeypatch.chdir(tmp_path)
    for argv in (("export", "last", "--textfile", ""), ("history", "--textfile", "")):
        result = cli(*argv, "--db", db)
        assert result.exit_code == 2 and "an empty path names nothing" in result.stderr, result.output
    assert list(tmp_path.glob("*.prom")) == []
