"""ParseError: one exception, naming file and line, for every kind of bad input."""

import pickle

import pytest

from commscope.ingest.parse import ParseError, parse_bytes, parse_file, parse_text
from paths import FIXTURES as SUPPORT_FIXTURES

FIXTURES = SUPPORT_FIXTURES / "parse"

TITLE = "# OSU MPI Latency Test v7.4\n# Datatype: MPI_CHAR.\n"


def error_of(text: str, name: str = "results/foo.txt") -> ParseError:
    with pytest.raises(ParseError) as caught:
        parse_text(text, name)
    return caught.value


def test_error_fields_and_format():
    error = ParseError("results/foo.txt", 17, "row has 3 values but header has 2 columns")
    assert (error.path, error.line) == ("results/foo.txt", 17)
    assert error.message == "row has 3 values but header has 2 columns"
    assert str(error) == "results/foo.txt:17: row has 3 values but header has 2 columns"
    assert str(ParseError("x.txt", None, "cannot read file")) == "x.txt: cannot read file"
    copy = pickle.loads(pickle.dumps(error))
    assert (copy.path, copy.line, copy.message) == (error.path, error.line, error.message)


def test_row_with_more_values_than_columns():
    text = TITLE + "# Size       Avg Latency(us)\n1    0.46\n2    0.37    0.99\n"
    assert str(error_of(text)) == "results/foo.txt:5: row has 3 values but header has 2 columns"


def test_row_with_fewer_values_than_columns():
    text = (
        TITLE + "# Size       Avg Latency(us)   Min Latency(us)   Max Latency(us)  Iterations\n"
        "1   0.37   0.06   0.68   100\n2   0.36   0.06\n"
    )
    assert str(error_of(text)) == "results/foo.txt:5: row has 3 values but header has 5 columns"


def test_header_without_rows():
    assert str(error_of(TITLE + "# Size       Avg Latency(us)\n")) == "results/foo.txt:3: table header has no data rows"


def test_header_without_rows_before_the_next_benchmark():
    text = TITLE + "# Size       Avg Latency(us)\n\n# OSU MPI Bandwidth Test v7.4\n# Size  Bandwidth (MB/s)\n1  9.5\n"
    assert str(error_of(text)) == "results/foo.txt:3: table header has no data rows"


def test_title_without_table():
    assert (
        str(error_of("\n# OSU MPI Bandwidth Test v7.4\n"))
        == "results/foo.txt:2: 'OSU MPI Bandwidth Test v7.4' is not followed by a table (truncated output?)"
    )


def test_non_numeric_value():
    text = TITLE + "# Size       Avg Latency(us)\n1    0.46\n2    0,37\n"
    assert str(error_of(text)) == "results/foo.txt:5: column 'Avg Latency(us)': '0,37' is not a number"


def test_validation_column_must_say_pass_or_fail():
    text = TITLE + "# Size       Avg Latency(us)        Validation\n1    0.46    Maybe\n"
    assert error_of(text).message == "column 'Validation': 'Maybe' is neither Pass nor Fail"


def test_size_must_be_a_whole_number():
    text = TITLE + "# Size       Avg Latency(us)\n1.5    0.46\n"
    assert error_of(text).message == "column 'Size': '1.5' is not a message size"


@pytest.mark.parametrize("sizes, line", [((1, 2, 2), 6), ((1, 4, 2), 6), ((8, 1), 5)])
def test_sizes_must_increase(sizes, line):
    rows = "".join(f"{size}    0.5\n" for size in sizes)
    error = error_of(TITLE + "# Size       Avg Latency(us)\n" + rows)
    assert error.line == line
    assert error.message.startswith("sizes not increasing")


def test_unrecognised_column():
    text = TITLE + "# Size       Avg Latency(us)    Jitter(us)\n1  0.4  0.1\n"
    assert str(error_of(text)) == "results/foo.txt:3: unrecognised column 'Jitter(us)' in table header"


def test_row_before_header():
    assert str(error_of(TITLE + "1    0.46\n")) == "results/foo.txt:3: data row before any column header"


def test_barrier_with_two_rows():
    text = "# OSU MPI Barrier Latency Test v7.4\n# Avg Latency(us)\n   1.2\n   1.3\n"
    assert error_of(text).line == 4


def test_unknown_format():
    assert str(error_of("Just some notes about the cluster.\nNothing to import.\n")) == (
        "results/foo.txt:1: unrecognised format: no OMB, IMB or commscope results and no table of message sizes found"
    )


@pytest.mark.parametrize("text", ["", "   ", "\n\n\n", "\t\r\n"])
def test_empty_file(text):
    assert str(error_of(text)) == "results/foo.txt:1: file is empty"


def test_binary_junk_names_the_line():
    data = b"# OSU MPI Latency Test v7.4\nok line\n\x00\x01\x02\x03binary"
    with pytest.raises(ParseError) as caught:
        parse_bytes(data, "core.123")
    assert caught.value.line == 3
    assert "binary data" in caught.value.message


def test_random_bytes_are_binary():
    with pytest.raises(ParseError) as caught:
        parse_bytes(bytes(range(1, 256)) * 8, "blob")
    assert "binary data" in caught.value.message


def test_a_few_undecodable_bytes_do_not_spoil_a_good_file():
    data = (FIXTURES / "omb7_latency.txt").read_bytes().replace(b"# Datatype", b"# \xff\xfe\n# Datatype")
    runs = parse_bytes(data, "latin1-noise.txt")
    assert runs[0].value(1024, "latency_us") == 0.67


def test_utf16_file_with_bom():
    text = (FIXTURES / "omb7_bw.txt").read_text()
    runs = parse_bytes(text.encode("utf-16"), "windows-notepad.txt")
    assert runs[0].value(65536, "bandwidth_MBps") == 3636.32


def test_crlf_line_endings():
    text = (FIXTURES / "omb7_bw.txt").read_text().replace("\n", "\r\n")
    run = parse_text(text, "dos.txt")[0]
    assert run.point(65536).line == 16


def test_missing_file_is_a_parse_error(tmp_path):
    with pytest.raises(ParseError) as caught:
        parse_file(tmp_path / "nope.txt")
    assert caught.value.line is None
    assert caught.value.path.endswith("nope.txt")
    assert "cannot read file" in caught.value.message


def test_directory_is_a_parse_error(tmp_path):
    with pytest.raises(ParseError):
        parse_file(tmp_path)


def test_parse_file_reports_the_path(tmp_path):
    path = tmp_path / "foo.txt"
    path.write_text(TITLE + "# Size       Avg Latency(us)\n1    0.46\n2    0.37    0.99\n")
    with pytest.raises(ParseError) as caught:
        parse_file(path)
    assert str(caught.value) == f"{path}:5: row has 3 values but header has 2 columns"


def test_a_size_beyond_64_bits_is_a_parse_error_not_a_crash():
    from commscope.ingest.parse import ParseError, parse_text

    text = (
        "# OSU MPI Latency Test v7.4\n# Size       Avg Latency(us)\n"
        "1                       0.46\n99999999999999999999    0.50\n"
    )
    with pytest.raises(ParseError) as err:
        parse_text(text, "big.txt")
    assert err.value.line == 4 and "too large" in err.value.message
