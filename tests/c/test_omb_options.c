/* Issue 11: every option OMB 7.4 accepts for an osu_* program (omb_options.def) is
 * accepted by commscope for that benchmark, through the real parser and the real
 * registry's applicability check; the ones commscope does not act on say so in one
 * note each (core/compat.c). MPI-free. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/bench.h"
#include "core/compat.h"
#include "core/registry.h"

typedef enum omb_group {
#define OMB_GROUP(id, letters) OMB_##id,
#define OMB_BENCH(name, id)
#include "omb_options.def"
#undef OMB_GROUP
#undef OMB_BENCH
} omb_group_t;

static const char *const group_letters[] = {
#define OMB_GROUP(id, letters) letters,
#define OMB_BENCH(name, id)
#include "omb_options.def"
#undef OMB_GROUP
#undef OMB_BENCH
};

static const struct {
    const char *name;
    omb_group_t group;
} omb_benches[] = {
#define OMB_GROUP(id, letters)
#define OMB_BENCH(name, id) {#name, OMB_##id},
#include "omb_options.def"
#include "util/mask.h"
#undef OMB_GROUP
#undef OMB_BENCH
};
#define NBENCHES (sizeof omb_benches / sizeof omb_benches[0])

/* A value OMB's documentation uses for each option that takes one; NULL: none. Values
 * that every benchmark taking the option accepts (fence: put_bibw's -s as well). */
static const char *value_of(char letter)
{
    switch (letter) {
    case 'm': return "8";
    case 'x': return "2";
    case 'i': return "10";
    case 'b': return "multiple";
    case 'u': return "3";
    case 'G': return "tty";
    case 'D': return "vect:8:4";
    case 'P': return "PAPI_TOT_INS:papi.out";
    case 'T': return "mpi_int";
    case 't': return "2";
    case 'W': return "8";
    case 'M': return "64M";
    case 'a': return "16";
    case 'k': return "fixed:0";
    case 'N': return "cart:1:1";
    case 'w': return "create";
    case 's': return "fence";
    case 'p': return "1";
    case 'R': return "0";
    case 'r': return "cpu";
    case 'q': return "4";
    default: return NULL;
    }
}

static cs_status_t run_line(const char *bench, const char *const *words, cs_opts_t *o, char *err, size_t errlen)
{
    char *argv[16];
    int argc = 0;
    argv[argc++] = (char *)"commscope-bench";
    argv[argc++] = (char *)bench;
    for (; *words; words++) argv[argc++] = (char *)*words;
    argv[argc] = NULL;
    CS_CHECK(cs_opts_parse(argc, argv, NULL, o, err, errlen));
    if (o->help || o->version) return CS_OK;
    const cs_bench_t *b = cs_registry_find(bench);
    cs_plan_t p;
    cs_world_t w = {.nranks = (b->caps & CS_CAP_NEIGHBOR) ? 3 : 2};
    return cs_bench_plan_world(b, o, &w, &p, err, errlen);
}

/* Notes written for one command line, into buf. */
static int notes_of(const char *bench, const char *const *words, char *buf, size_t len)
{
    cs_opts_t o;
    char err[256];
    CHECK(run_line(bench, words, &o, err, sizeof err) == CS_OK);
    FILE *f = tmpfile();
    int n = cs_compat_notes(cs_registry_find(bench), &o, "commscope-bench", f);
    rewind(f);
    size_t got = fread(buf, 1, len - 1, f);
    buf[got] = '\0';
    fclose(f);
    return n;
}

/* Command lines and the notes they must give: how many, and a line they contain. */
static const struct {
    const char *bench, *words[8];
    int nnotes;
    const char *expect;
} note_cases[] = {
    {"latency", {"-T", "mpi_int", "-c", "-u", "3"}, 0, ""},
    {"latency", {"-G", "tty"}, 1, "commscope-bench: note: -G tty accepted and ignored by latency"},
    {"bw", {"-t", "4"}, 1, "-t 4 accepted and ignored by bw: only non-blocking collectives make MPI_Test calls"},
    {"iallreduce", {"-t", "4", "-r", "cpu"}, 0, ""},
    {"allreduce", {"-r", "cpu", "-a", "8"}, 2, "-a 8 accepted and ignored by allreduce"},
    {"allreduce", {"-r", "cpu"}, 1, "-r cpu accepted and ignored by allreduce"},
    {"iallreduce", {"-r", "both"}, 1, "-r both accepted and ignored by iallreduce: the dummy compute runs on the CPU"},
    {"barrier", {"-m", "128"}, 1, "-m 128 accepted and ignored by barrier: it has no message size"},
    {"latency", {"-b", "multiple"}, 1, "-b multiple accepted and ignored by latency: one message is in flight"},
    {"bw", {"-b", "multiple", "-D", "cont", "-P", "E:f", "-I"}, 3, "-I accepted and ignored by bw"}, /* -b acts */
    {"latency", {"-u", "2"}, 1, "-u 2 accepted and ignored: it applies to validation (-c)"},
    {"latency", {"-clog:out"}, 1, "-clog:out: no validation log is written"},
    /* -z past the sample bound: percentiles of batch means, said once */
    {"barrier", {"-z", "-i", "3000000"}, 1, "-z with 3000000 iterations: samples are kept for at most 1048576"},
};

static void check_notes(void)
{
    char text[2048];
    for (size_t i = 0; i < sizeof note_cases / sizeof note_cases[0]; i++) {
        int n = notes_of(note_cases[i].bench, note_cases[i].words, text, sizeof text);
        if (n != note_cases[i].nnotes) fprintf(stderr, "case %zu: %d notes:\n%s", i, n, text);
        CHECK(n == note_cases[i].nnotes);
        CHECK_CONTAINS(text, note_cases[i].expect);
    }
}

int main(void)
{
    /* every benchmark of the registry has its row, and every row a benchmark */
    CHECK(NBENCHES == cs_registry_count());
    for (size_t i = 0; i < cs_registry_count(); i++) {
        const char *name = cs_registry_at(i)->name;
        bool found = false;
        for (size_t j = 0; j < NBENCHES; j++) found |= strcmp(omb_benches[j].name, name) == 0;
        if (!found) fprintf(stderr, "%s: no row in omb_options.def\n", name);
        CHECK(found);
    }
    cs_opts_t o;
    char err[256];
    for (size_t i = 0; i < NBENCHES; i++) {
        const char *name = omb_benches[i].name;
        CHECK(cs_registry_find(name) != NULL);
        if (cs_registry_find(name) == NULL) continue;
        for (const char *l = group_letters[omb_benches[i].group]; *l; l++) {
            char flag[3] = {'-', *l, '\0'};
            const char *words[3] = {flag, value_of(*l), NULL};
            if (run_line(name, words, &o, err, sizeof err) != CS_OK) {
                fprintf(stderr, "OMB-valid line refused: %s %s %s: %s\n", name, flag, words[1] ? words[1] : "", err);
                CHECK(false);
            }
        }
    }
    /* OMB's own spellings and forms of values */
    const char *clog[] = {"-clog:validation_output", NULL}, *clog2[] = {"-clog", NULL};
    const char *types[] = {"-T", "MPI_INT", "-T", "mpi_float", NULL}, *all[] = {"-T", "ALL", NULL};
    const char *tail[] = {"-z50,99", "-G", "png,pdf", "-D", "indx:ddt.txt", NULL};
    CHECK(run_line("latency", clog, &o, err, sizeof err) == CS_OK && o.validate);
    CHECK(run_line("latency", clog2, &o, err, sizeof err) == CS_OK && o.validate);
    CHECK(run_line("latency", types, &o, err, sizeof err) == CS_OK);
    CHECK(o.dtypes == (CS_MASK(CS_DT_INT) | CS_MASK(CS_DT_FLOAT))); /* -T twice: both, as OMB */
    CHECK(run_line("allreduce", all, &o, err, sizeof err) == CS_OK && o.dtypes_all);
    CHECK(run_line("bw", tail, &o, err, sizeof err) == CS_OK && o.npercentiles == 2);
    check_notes();
    return check_report("test_omb_options");
}
