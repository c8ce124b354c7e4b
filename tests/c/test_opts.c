#include "check.h"
#include "opts.h"

/* Parses a NULL-terminated word list; returns the status and leaves the message in err. */
static cs_status_t parse(cs_opts_t *o, char *err, const char *implied, const char **words)
{
    char *argv[32];
    int argc = 0;
    argv[argc++] = (char *)"commscope-bench";
    for (; *words; words++) argv[argc++] = (char *)*words;
    argv[argc] = NULL;
    return cs_opts_parse(argc, argv, implied, o, err, 256);
}

#define PARSE_OK(...)                                                           \
    do {                                                                        \
        const char *w_[] = {__VA_ARGS__, NULL};                                 \
        CHECK(parse(&o, err, NULL, w_) == CS_OK);                               \
    } while (0)

/* A bad input must be a usage error whose message names the flag and value. */
#define PARSE_BAD(expect, ...)                                                  \
    do {                                                                        \
        const char *w_[] = {__VA_ARGS__, NULL};                                 \
        CHECK(parse(&o, err, NULL, w_) == CS_ERR_USAGE);                        \
        CHECK_CONTAINS(err, expect);                                            \
    } while (0)

int main(void)
{
    cs_opts_t o;
    char err[256];

    PARSE_OK("latency");
    CHECK(o.bench_name && strcmp(o.bench_name, "latency") == 0);
    CHECK(!o.min_size_set && !o.max_size_set && !o.iterations_set && !o.warmup_set);
    CHECK(o.window == 64 && o.mem_limit == (size_t)512 << 20 && o.format == CS_FORMAT_OSU);
    CHECK(o.send_mode == CS_SEND_STANDARD && o.buffers == CS_BUFFERS_SINGLE && o.print_rate);

    PARSE_OK("bw", "-m", "4K:2M", "-i", "50", "-x", "5", "-W", "32", "-c", "-f", "-b", "multiple");
    CHECK(o.min_size == 4096 && o.max_size == 2u << 20 && o.min_size_set && o.max_size_set);
    CHECK(o.iterations == 50 && o.warmup == 5 && o.window == 32 && o.validate && o.full);
    CHECK(o.buffers == CS_BUFFERS_MULTIPLE);

    PARSE_OK("-m", "128", "latency"); /* options may come first */
    CHECK(o.max_size == 128 && !o.min_size_set);
    PARSE_OK("latency", "-m", "2:");
    CHECK(o.min_size == 2 && o.min_size_set && !o.max_size_set);
    PARSE_OK("latency", "--message-size=1G");
    CHECK(o.max_size == (size_t)1 << 30);
    PARSE_OK("mbw_mr", "-p", "3", "-V", "-R", "0");
    CHECK(o.pairs == 3 && o.pairs_set && o.vary_window && !o.print_rate);

    PARSE_OK("latency", "-z");
    CHECK(o.npercentiles == 3 && o.percentiles[0] == 50 && o.percentiles[2] == 99);
    PARSE_OK("latency", "-z1,50,99.9");
    CHECK(o.npercentiles == 3 && o.percentiles[2] == 99.9);
    PARSE_OK("latency", "--send-mode", "rsend", "--format", "json", "--json-out", "x.json");
    CHECK(o.send_mode == CS_SEND_READY && o.send_mode_set && o.format == CS_FORMAT_JSON);
    CHECK(strcmp(o.json_out, "x.json") == 0);
    PARSE_OK("latency", "--batch", "10");
    CHECK(o.batch == 10);
    PARSE_OK("-M", "1M", "latency");
    CHECK(o.mem_limit == 1u << 20);

    /* osu_latency implies the benchmark */
    const char *none[] = {"-m", "8", NULL};
    CHECK(parse(&o, err, "latency", none) == CS_OK);
    CHECK(strcmp(o.bench_name, "latency") == 0 && o.max_size == 8);
    const char *extra[] = {"bw", NULL};
    CHECK(parse(&o, err, "latency", extra) == CS_ERR_USAGE);
    CHECK_CONTAINS(err, "unexpected argument 'bw'");

    PARSE_OK("--help");
    CHECK(o.help);
    PARSE_OK("--list");
    CHECK(o.list);

    /* every bad input names the flag and the value */
    PARSE_BAD("unknown option -q", "latency", "-q");
    PARSE_BAD("unknown option --bogus", "latency", "--bogus");
    PARSE_BAD("option -m needs a value", "latency", "-m");
    PARSE_BAD("-m abc: not a message size", "latency", "-m", "abc");
    PARSE_BAD("-m 1X: not a message size", "latency", "-m", "1X");
    PARSE_BAD("-m -4: not a message size", "latency", "-m", "-4");
    PARSE_BAD("-m 4KB: not a message size", "latency", "-m", "4KB");
    PARSE_BAD("MIN 'x' is not a message size", "latency", "-m", "x:8");
    PARSE_BAD("MAX 'y' is not a message size", "latency", "-m", "8:y");
    PARSE_BAD("-m ::: MAX ':' is not a message size", "latency", "-m", "::");
    PARSE_BAD("-m :: give MIN, MAX or both", "latency", "-m", ":");
    PARSE_BAD("MIN 1024 is larger than MAX 8", "latency", "-m", "1K:8");
    PARSE_BAD("-m 99999999999999999999: not a message size", "latency", "-m", "99999999999999999999");
    PARSE_BAD("-m 99999999999G: not a message size", "latency", "-m", "99999999999G");
    PARSE_BAD("-i 0: iterations", "latency", "-i", "0");
    PARSE_BAD("-i ten: iterations", "latency", "-i", "ten");
    PARSE_BAD("-x -1: warm-up", "latency", "-x", "-1");
    PARSE_BAD("-W 0: window size", "bw", "-W", "0");
    PARSE_BAD("-p 0: pairs", "mbw_mr", "-p", "0");
    PARSE_BAD("-z 0: percentiles", "latency", "-z0");
    PARSE_BAD("-z 100: percentiles", "latency", "-z100");
    PARSE_BAD("-z 50,: percentiles", "latency", "-z50,");
    PARSE_BAD("at most 5 percentiles", "latency", "-z1,2,3,4,5,6");
    PARSE_BAD("-M 10: the memory limit must be at least 1M", "latency", "-M", "10");
    PARSE_BAD("-M lots: not a memory size", "latency", "-M", "lots");
    PARSE_BAD("-b triple: choose single or multiple", "bw", "-b", "triple");
    PARSE_BAD("-R 2: choose 0 or 1", "mbw_mr", "-R", "2");
    PARSE_BAD("--send-mode fast: choose send, ssend, bsend, rsend or isend", "latency", "--send-mode", "fast");
    PARSE_BAD("--format xml: choose osu, json or csv", "latency", "--format", "xml");
    PARSE_BAD("-clog:out: validation logs are not supported", "latency", "-clog:out");
    PARSE_BAD("--batch 0: give auto or a whole number", "latency", "--batch", "0");
    PARSE_BAD("unexpected argument 'bw'", "latency", "bw");
    PARSE_BAD("no benchmark named", "-m", "8");

    size_t v;
    CHECK(cs_parse_bytes("0", &v) && v == 0);
    CHECK(cs_parse_bytes("3k", &v) && v == 3072);
    CHECK(cs_parse_bytes("2g", &v) && v == (size_t)2 << 30);
    CHECK(!cs_parse_bytes("", &v) && !cs_parse_bytes("+1", &v) && !cs_parse_bytes(" 1", &v));
    return check_report("test_opts");
}
