#include "report/osu_pairs.h"

#include <string.h>

#include "util/schedule.h"
#include "util/mask.h"

#define RANK_W  6
#define HOST_W  20
#define FIELD_W 18

static const char *const column_label[CS_NPAIR_METRICS] = {"Latency(us)", "Bandwidth (MB/s)", "Bi-BW (MB/s)"};

static const char *host_name(const cs_run_info_t *info, int index)
{
    return index >= 0 && index < info->nhosts ? info->hosts[index].name : "?";
}

void cs_osu_pairs_intro(FILE *out, const cs_run_info_t *info)
{
    const cs_pairs_spec_t *spec = &info->plan->pairs_spec;
    fprintf(out, "# Schedule: %s, %d ranks on %d hosts", spec->schedule, info->nranks, info->nhosts);
    if (info->schedule)
        fprintf(out, ", %ld rounds, %ld pairs", cs_schedule_rounds(info->schedule), cs_schedule_npairs(info->schedule));
    fprintf(out, ", %s\n", spec->serial ? "one pair at a time (--serial)" : "a round's pairs at once");
    fprintf(out, "# Latency at %zu B; bandwidth at %zu B, window %d\n", spec->lat_size, spec->bw_size,
            info->plan->window);
    fprintf(out, "%-*s%-*s%-*s%-*s", RANK_W, "# Src", HOST_W, "Source", RANK_W, "Dst", HOST_W, "Destination");
    for (int m = 0; m < CS_NPAIR_METRICS; m++)
        if (spec->metrics & CS_MASK(m)) fprintf(out, "%*s", FIELD_W, column_label[m]);
    if (info->opts->validate) fprintf(out, "%*s", FIELD_W, "Validation");
    fputc('\n', out);
}

static double value_of(const cs_record_t *rec)
{
    return rec->pair.metric == CS_PM_LATENCY ? rec->latency_us : rec->bandwidth_MBps;
}

/* The held round, a line per pair in the order its first record came. */
static void flush_round(cs_reporter_t *r, const cs_run_info_t *info)
{
    const cs_pairs_spec_t *spec = &info->plan->pairs_spec;
    for (size_t i = 0; i < r->nheld; i++) {
        const cs_record_t *first = &r->held[i];
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = r->held[j].pair.src == first->pair.src && r->held[j].pair.dst == first->pair.dst;
        if (seen) continue;
        char src[16], dst[16];
        snprintf(src, sizeof src, "%d", first->pair.src);
        snprintf(dst, sizeof dst, "%d", first->pair.dst);
        fprintf(r->out, "%-*s%-*s%-*s%-*s", RANK_W, src, HOST_W, host_name(info, first->pair.src_host), RANK_W, dst,
                HOST_W, host_name(info, first->pair.dst_host));
        long errors = 0;
        for (int m = 0; m < CS_NPAIR_METRICS; m++) {
            if (!(spec->metrics & CS_MASK(m))) continue;
            const cs_record_t *found = NULL;
            for (size_t j = i; j < r->nheld && !found; j++)
                if (r->held[j].pair.src == first->pair.src && r->held[j].pair.dst == first->pair.dst &&
                    (int)r->held[j].pair.metric == m)
                    found = &r->held[j];
            if (found) {
                fprintf(r->out, "%*.2f", FIELD_W, value_of(found));
                errors += found->errors;
            } else {
                fprintf(r->out, "%*s", FIELD_W, "-");
            }
        }
        if (info->opts->validate) fprintf(r->out, "%*s", FIELD_W, errors == 0 ? "Pass" : "Fail");
        fputc('\n', r->out);
    }
    r->nheld = 0;
    fflush(r->out);
}

void cs_osu_pairs_record(cs_reporter_t *r, const cs_run_info_t *info, const cs_record_t *rec)
{
    r->nrecords++;
    if (r->nheld > 0 && r->held[0].pair.round != rec->pair.round) flush_round(r, info);
    cs_reporter_hold(r, rec);
}

void cs_osu_pairs_end(cs_reporter_t *r, const cs_run_info_t *info)
{
    if (r->nheld > 0) flush_round(r, info);
}
