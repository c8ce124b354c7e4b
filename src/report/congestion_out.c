#include "report/congestion_out.h"

#include <math.h>

#include "report/json_writer.h"
#include "util/mask.h"

#define NAME_W  34
#define FIELD_W 15

static const char *unit_of(const cs_record_t *rec) { return rec->congestion.bandwidth ? "MB/s" : "us"; }

void cs_osu_congestion_intro(FILE *out, const cs_run_info_t *info)
{
    const cs_congestion_spec_t *spec = &info->plan->congestion;
    const cs_congestion_split_t *split = info->split;
    int canaries = split ? split->ncanaries : 0, congestors = split ? split->ncongestors : info->nranks;
    fprintf(out, "# Canaries: %d of %d ranks", canaries, info->nranks);
    if (spec->placement == CS_PLACE_NODE && split)
        fprintf(out, " (%d of %d nodes)", split->canary_nodes, split->nnodes);
    else fprintf(out, " (random)");
    fprintf(out, "; congestors: %d ranks", congestors);
    if (spec->fraction <= 0) fprintf(out, ", alone for %g s each (no canaries)", spec->duration_s);
    fputc('\n', out);
    fprintf(out, "# Impact = congested / isolated (latency), isolated / congested (bandwidth): 1 is no impact\n");
    if (spec->fraction <= 0) {
        fprintf(out, "%-*s%*s%*s%*s%*s\n", NAME_W, "# Congestor", FIELD_W, "Avg", FIELD_W, "P99 (slow)", FIELD_W,
                "Operations", 7, "Unit");
        return;
    }
    fprintf(out, "%-*s%-*s%*s%*s%*s%*s%*s%*s%*s\n", NAME_W, "# Congestor", NAME_W, "Canary test", FIELD_W, "Iso. avg",
            FIELD_W, "Iso. p99", FIELD_W, "Cong. avg", FIELD_W, "Cong. p99", FIELD_W, "Impact avg", FIELD_W,
            "Impact p99", 7, "Unit");
}

void cs_osu_congestion_line(FILE *out, const cs_run_info_t *info, const cs_record_t *rec)
{
    (void)info;
    const cs_congestion_record_t *c = &rec->congestion;
    const cs_impact_t *im = &c->impact;
    const char *congestor = cs_congestor_title((cs_congestor_t)c->congestor);
    if (c->canary < 0) {
        fprintf(out, "%-*s%*.2f%*.2f%*ld%*s\n", NAME_W, congestor, FIELD_W, im->congested_avg, FIELD_W,
                im->congested_p99, FIELD_W, c->congestor_ops, 7, unit_of(rec));
        return;
    }
    fprintf(out, "%-*s%-*s%*.2f%*.2f%*.2f%*.2f%*.2fX%*.2fX%*s\n", NAME_W, congestor, NAME_W,
            cs_canary_title((cs_canary_t)c->canary), FIELD_W, im->isolated_avg, FIELD_W, im->isolated_p99, FIELD_W,
            im->congested_avg, FIELD_W, im->congested_p99, FIELD_W - 1, im->impact_avg, FIELD_W - 1, im->impact_p99, 7,
            unit_of(rec));
}

static void number(FILE *out, const char *key, double v)
{
    cs_json_key(out, key, 0);
    cs_json_number(out, v);
}

void cs_json_congestion_options(FILE *out, const cs_run_info_t *info)
{
    const cs_congestion_spec_t *spec = &info->plan->congestion;
    const cs_congestion_split_t *split = info->split;
    number(out, "canary_fraction", spec->fraction);
    cs_json_key(out, "canary_placement", 0);
    cs_json_string(out, spec->placement == CS_PLACE_NODE ? "node" : "random");
    cs_json_key(out, "congestors", 0);
    fputc('[', out);
    for (int k = 0, n = 0; k < CS_NCONGESTORS; k++)
        if (spec->congestors & CS_MASK(k)) {
            if (n++) fputc(',', out);
            cs_json_string(out, cs_congestor_name((cs_congestor_t)k));
        }
    fputc(']', out);
    cs_json_key(out, "canary_ranks", 0);
    fprintf(out, "%d", split ? split->ncanaries : 0);
    cs_json_key(out, "congestor_ranks", 0);
    fprintf(out, "%d", split ? split->ncongestors : info->nranks);
    if (spec->fraction <= 0) number(out, "duration_s", spec->duration_s);
}

void cs_json_congestion_metrics(FILE *out, const cs_record_t *rec)
{
    const cs_congestion_record_t *c = &rec->congestion;
    const cs_impact_t *im = &c->impact;
    const char *u = c->bandwidth ? "MBps" : "us";
    char key[48];
    fputc('{', out);
    cs_json_key(out, c->bandwidth ? "bandwidth_MBps" : "latency_us", 1);
    cs_json_number(out, im->congested_avg);
    if (c->canary >= 0) {
        snprintf(key, sizeof key, "isolated_avg_%s", u);
        number(out, key, im->isolated_avg);
        snprintf(key, sizeof key, "isolated_p99_%s", u);
        number(out, key, im->isolated_p99);
    }
    snprintf(key, sizeof key, "congested_avg_%s", u);
    number(out, key, im->congested_avg);
    snprintf(key, sizeof key, "congested_p99_%s", u);
    number(out, key, im->congested_p99);
    if (c->canary >= 0) {
        number(out, "impact_avg", im->impact_avg);
        number(out, "impact_p99", im->impact_p99);
    }
    cs_json_key(out, "congestor_ops", 0);
    fprintf(out, "%ld", c->congestor_ops);
    fputc('}', out);
}

void cs_json_congestion_axes(FILE *out, const cs_record_t *rec)
{
    cs_json_key(out, "canary", 0);
    if (rec->congestion.canary < 0) fputs("null", out);
    else cs_json_string(out, cs_canary_name((cs_canary_t)rec->congestion.canary));
    cs_json_key(out, "congestor", 0);
    cs_json_string(out, cs_congestor_name((cs_congestor_t)rec->congestion.congestor));
}
