#include "util/pairs_spec.h"
#include "util/error.h"
#include "util/mask.h"
#include "util/opts.h"

#include <string.h>

const char *cs_pair_metric_name(cs_pair_metric_t m)
{
    static const char *const names[CS_NPAIR_METRICS] = {"latency", "bw", "bibw"};
    return names[m];
}

static cs_status_t parse_metrics(const char *arg, unsigned *mask, char *err, size_t errlen)
{
    *mask = 0;
    for (const char *p = arg; *p;) {
        size_t len = strcspn(p, ",");
        int found = -1;
        for (int m = 0; m < CS_NPAIR_METRICS; m++)
            if (strlen(cs_pair_metric_name((cs_pair_metric_t)m)) == len &&
                strncmp(p, cs_pair_metric_name((cs_pair_metric_t)m), len) == 0)
                found = m;
        if (found < 0 || len == 0)
            return cs_usage_error(err, errlen, "--metric %s: choose latency, bw, bibw or a comma-separated list", arg);
        *mask |= CS_MASK(found);
        p += len + (p[len] == ',');
    }
    if (*mask == 0)
        return cs_usage_error(err, errlen, "--metric %s: choose latency, bw, bibw or a comma-separated list", arg);
    return CS_OK;
}

static cs_status_t parse_size(const cs_opts_t *o, cs_option_id_t id, size_t fallback, size_t *out, char *err,
                              size_t errlen)
{
    *out = fallback;
    if (!cs_opts_given(o, id)) return CS_OK;
    char flag[32];
    cs_option_flag(id, flag, sizeof flag);
    if (!cs_parse_bytes(o->given_value[id], out) || *out > (size_t)1 << 30)
        return cs_usage_error(err, errlen, "%s %s: give a message size up to 1G (K, M, G = 1024, 1024^2, 1024^3)", flag,
                              o->given_value[id]);
    return CS_OK;
}

cs_status_t cs_pairs_spec_parse(const cs_opts_t *o, int nranks, cs_pairs_spec_t *spec, char *err, size_t errlen)
{
    memset(spec, 0, sizeof *spec);
    spec->schedule = cs_opts_given(o, CS_OPT_SCHEDULE) ? o->given_value[CS_OPT_SCHEDULE] : "all-pairs";
    CS_CHECK(cs_schedule_parse_spec(spec->schedule, &spec->kind, &spec->root, &spec->file, err, errlen));
    if (spec->kind == CS_SCHED_ONE_TO_ALL && spec->root >= nranks)
        return cs_usage_error(err, errlen, "--schedule %s: root %d is outside the %d ranks", spec->schedule, spec->root,
                              nranks);
    spec->serial = cs_opts_given(o, CS_OPT_SERIAL);
    spec->metrics = CS_MASK(CS_PM_LATENCY) | CS_MASK(CS_PM_BW) | CS_MASK(CS_PM_BIBW);
    if (cs_opts_given(o, CS_OPT_PAIR_METRIC))
        CS_CHECK(parse_metrics(o->given_value[CS_OPT_PAIR_METRIC], &spec->metrics, err, errlen));
    CS_CHECK(parse_size(o, CS_OPT_LAT_SIZE, CS_PAIRS_DEFAULT_LAT_SIZE, &spec->lat_size, err, errlen));
    CS_CHECK(parse_size(o, CS_OPT_BW_SIZE, CS_PAIRS_DEFAULT_BW_SIZE, &spec->bw_size, err, errlen));
    if (spec->bw_size == 0) return cs_usage_error(err, errlen, "--bw-size 0: bandwidth needs at least 1 byte");
    return CS_OK;
}

int cs_pairs_nmetrics(const cs_pairs_spec_t *spec)
{
    int n = 0;
    for (int m = 0; m < CS_NPAIR_METRICS; m++) n += (spec->metrics & CS_MASK(m)) != 0;
    return n;
}

size_t cs_pairs_size(const cs_pairs_spec_t *spec, cs_pair_metric_t m)
{
    return m == CS_PM_LATENCY ? spec->lat_size : spec->bw_size;
}
