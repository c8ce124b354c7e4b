#include "core/compat.h"

#include <strings.h>

#include "core/metrics.h"

/* An option has an effect on benchmarks with any capability of `effect` (0: on none);
 * with `when`, the row is about that value only. Options outside this table always act. */
static const struct {
    cs_option_id_t id;
    unsigned effect;
    const char *when;
    const char *why;
} rules[] = {
    {CS_OPT_ARRAY_SIZE, 0, NULL, "sizes OMB's GPU dummy-compute arrays; commscope's dummy compute runs on the CPU"},
    {CS_OPT_GRAPH, 0, NULL, "OMB draws per-iteration graphs with gnuplot; commscope-bench draws none"},
    {CS_OPT_DDT, 0, NULL, "derived datatypes are not implemented; messages stay contiguous"},
    {CS_OPT_PAPI, 0, NULL, "PAPI counters are not read"},
    {CS_OPT_SESSION, 0, NULL, "MPI is started with MPI_Init, not an MPI-4 session"},
    {CS_OPT_CUDA_TARGET, CS_CAP_OVERLAP, "cpu", "there is no dummy compute outside the non-blocking collectives"},
    {CS_OPT_NUM_TEST_CALLS, CS_CAP_OVERLAP | CS_CAP_WORKERS, NULL, "only non-blocking collectives make MPI_Test calls"},
    {CS_OPT_MESSAGE_SIZE, CS_CAP_SIZELESS, NULL, NULL}, /* inverted below: no size to set */
    {CS_OPT_BUFFER_NUM, CS_CAP_WINDOW, "multiple",
     "one message is in flight, so one buffer per window slot is a single buffer"},
};

int cs_compat_notes(const cs_bench_t *b, const cs_opts_t *o, const char *prog, FILE *out)
{
    int n = 0;
    char flag[32];
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        if (!cs_opts_given(o, rules[i].id)) continue;
        const char *value = o->given_value[rules[i].id];
        if (rules[i].when && strcasecmp(value, rules[i].when) != 0) continue;
        bool acts = (b->caps & rules[i].effect) != 0;
        const char *why = rules[i].why;
        if (rules[i].id == CS_OPT_MESSAGE_SIZE) acts = !acts, why = "it has no message size";
        if (acts) continue;
        cs_option_flag(rules[i].id, flag, sizeof flag);
        fprintf(out, "%s: note: %s%s%s accepted and ignored by %s: %s\n", prog, flag, value[0] ? " " : "", value,
                b->name, why);
        n++;
    }
    /* value-dependent ones */
    if (cs_opts_given(o, CS_OPT_CUDA_TARGET) && strcasecmp(o->given_value[CS_OPT_CUDA_TARGET], "cpu") != 0) {
        fprintf(out, "%s: note: -r %s accepted and ignored by %s: the dummy compute runs on the CPU\n", prog,
                o->given_value[CS_OPT_CUDA_TARGET], b->name);
        n++;
    }
    if (o->validation_log) {
        fprintf(out,
                "%s: note: -c%s: no validation log is written; each size's error count is in the output "
                "(validation.errors in the JSON)\n",
                prog, o->validation_log);
        n++;
    }
    if (cs_opts_given(o, CS_OPT_VALIDATION_WARMUP) && !o->validate) {
        fprintf(out, "%s: note: -u %s accepted and ignored: it applies to validation (-c)\n", prog,
                o->given_value[CS_OPT_VALIDATION_WARMUP]);
        n++;
    }
    /* the sample bound: -z's tails are of single iterations only up to it */
    long small, large, wu, cap = o->max_samples > 0 ? o->max_samples : CS_MAX_SAMPLES;
    cs_bench_iterations(b, o, 0, &small, &wu);
    cs_bench_iterations(b, o, CS_LARGE_MESSAGE_SIZE + 1, &large, &wu);
    long most = small > large ? small : large;
    if (o->npercentiles > 0 && !(b->caps & CS_CAP_STARTUP) && most > cap) {
        fprintf(out,
                "%s: note: -z with %ld iterations: samples are kept for at most %ld, so a sample (and a "
                "percentile) is the mean of %ld consecutive iterations\n",
                prog, most, cap, cs_min_batch(most, cap));
        n++;
    }
    return n;
}
