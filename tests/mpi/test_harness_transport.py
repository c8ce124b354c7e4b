"""`--transport auto|shm|net`: the variables per MPI library, and real runs on this machine
under both libraries: `net` goes through the loopback device and is slower than `shm`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from commands import latency_argv
from commscope.errors import UsageError
from commscope.execute.transports import TRANSPORT_ENV, choose, mpich_device, observed, transport_env
from mpi_flavours import flavour_params, need

LO_RX = Path("/sys/class/net/lo/statistics/rx_bytes")


def test_open_mpi_net_is_ob1_over_tcp_and_shm_is_vader():
    assert transport_env("net", "openmpi") == {"OMPI_MCA_pml": "ob1", "OMPI_MCA_btl": "tcp,self"}
    assert transport_env("shm", "openmpi") == {"OMPI_MCA_pml": "ob1", "OMPI_MCA_btl": "vader,self"}


def test_mpich_is_steered_per_device():
    assert transport_env("net", "mpich", "ucx") == {"MPIR_CVAR_NOLOCAL": "1", "UCX_TLS": "tcp,self"}
    assert transport_env("net", "mpich", "ofi") == {"MPIR_CVAR_NOLOCAL": "1", "FI_PROVIDER": "tcp"}
    assert transport_env("shm", "mpich", "ucx") == {"UCX_TLS": "sm,self"}


def test_mpich_of_unknown_device_gets_every_devices_variables():
    env = transport_env("net", "mpich", None)
    assert env["UCX_TLS"] == "tcp,self" and env["FI_PROVIDER"] == "tcp"
    assert env["MPIR_CVAR_NOLOCAL"] == "1" and env["MPIR_CVAR_CH3_NOLOCAL"] == "1"


def test_auto_sets_nothing_and_unknown_library_is_a_usage_error():
    assert transport_env("auto", None) == {}
    with pytest.raises(UsageError, match="does not know how to steer"):
        transport_env("net", None)
    with pytest.raises(UsageError, match="choose one of auto, shm, net"):
        transport_env("tcp", "openmpi")


def test_every_row_names_both_transports():
    assert all(set(settings) == {"net", "shm"} for settings in TRANSPORT_ENV.values())


def test_device_is_told_by_the_linked_library():
    assert mpich_device("\tlibucp.so.0 => /lib/x86_64-linux-gnu/libucp.so.0 (0x7f)") == "ucx"
    assert mpich_device("\tlibfabric.so.1 => /opt/mpich/lib/libfabric.so.1 (0x7f)") == "ofi"
    assert mpich_device("\tlibc.so.6 => /lib/libc.so.6") is None


def test_provenance_keeps_what_was_asked_and_what_rank_0_saw():
    choice = choose("net", "openmpi", None)
    assert choice.provenance() == {
        "requested": "net",
        "library": "openmpi",
        "device": None,
        "settings": {"OMPI_MCA_pml": "ob1", "OMPI_MCA_btl": "tcp,self"},
    }
    assert observed({"OMPI_MCA_btl": "tcp,self", "PATH": "/bin", "UCX_TLS": "tcp"}) == {
        "OMPI_MCA_btl": "tcp,self",
        "UCX_TLS": "tcp",
    }


def test_transport_on_a_core_of_unknown_mpi_is_one_clear_usage_error(cli, fake_core):
    result = cli("run", "latency", "--transport", "net", "--dry-run", "--launcher", "mpirun")
    assert result.exit_code == 2
    assert "does not know how to steer" in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("flavour", flavour_params())
def test_suite_entry_transport_reaches_the_command_and_run_flag_overrides_it(flavour, cli, clean_env, tmp_path):
    flavour = need(flavour)
    clean_env.setenv("COMMSCOPE_BENCH", str(flavour.bench))
    suite = tmp_path / "t.yaml"
    suite.write_text(
        "description: t\nbenchmarks:\n  - benchmark: latency\n    transport: net\n    label: one node, net\n"
    )
    result = cli("run", "--suite-file", suite, "--dry-run", "--launcher", flavour.launcher)
    assert result.exit_code == 0, result.output
    wanted = "OMPI_MCA_btl=tcp,self" if flavour.is_openmpi else "UCX_TLS=tcp,self"
    assert wanted in result.output
    result = cli("run", "--suite-file", suite, "--dry-run", "--launcher", flavour.launcher, "--transport", "shm")
    assert wanted not in result.output
    assert ("OMPI_MCA_btl=vader,self" if flavour.is_openmpi else "UCX_TLS=sm,self") in result.output


def _latency_and_lo_bytes(cli, flavour, db, transport: str, label: str) -> tuple[float, int]:
    before = int(LO_RX.read_text())
    result = cli(*latency_argv(transport, flavour.launcher, "--label", label, "--db", db))
    moved = int(LO_RX.read_text()) - before
    assert result.exit_code == 0, result.output
    return result, moved


@pytest.mark.timing
@pytest.mark.parametrize("flavour", flavour_params())
def test_net_on_one_node_crosses_loopback_and_is_slower_than_shm(flavour, cli, clean_env, db):
    flavour = need(flavour)
    if not LO_RX.exists():
        pytest.skip("no /sys/class/net/lo counters on this machine")
    clean_env.setenv("COMMSCOPE_BENCH", str(flavour.bench))
    clean_env.setenv("OMPI_ALLOW_RUN_AS_ROOT", "1")
    clean_env.setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    _, net_bytes = _latency_and_lo_bytes(cli, flavour, db, "net", "net")
    _, shm_bytes = _latency_and_lo_bytes(cli, flavour, db, "shm", "shm")
    # 1050 round trips of 4 KiB each way went through the network stack: at least 8 MB.
    assert net_bytes >= 2 * 1050 * 4096, f"loopback moved only {net_bytes} bytes under --transport net"
    assert shm_bytes < net_bytes / 4, f"loopback moved {shm_bytes} bytes under shm, {net_bytes} under net"
    from commscope.store.db import Store

    with Store(db) as store:
        net, shm = (store.run(row.id) for row in sorted(store.summaries(), key=lambda row: row.id))
    assert net.provenance["transport"]["requested"] == "net"
    assert net.provenance["transport"]["observed"], "rank 0's environment shows no transport variable"
    assert shm.provenance["transport"]["requested"] == "shm"
    # The fastest round trip of each: a busy machine (2 shared cores) stretches the mean of
    # a polling transport by whole time slices, but not its best case.
    net_us, shm_us = net.points[0].stats["min"], shm.points[0].stats["min"]
    assert net_us > 2 * shm_us, f"net {net_us} us is not clearly slower than shm {shm_us} us (fastest samples)"
    json.dumps(net.provenance)  # stored as JSON
