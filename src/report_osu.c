/* OMB's text layout, column for column: "%-10d" size, "%18.2f" values, "%12d" iterations
 * (see docs/core.md for each table). The title names commscope. */
#include <stdlib.h>
#include <string.h>

#include "report.h"

#define SIZE_W 10
#define FIELD_W 18
#define ITER_W 12

static bool is_latency(const cs_run_info_t *info) { return info->bench->metric == CS_METRIC_LATENCY; }
static bool shows_rate(const cs_run_info_t *info)
{
    return (info->bench->caps & CS_CAP_RATE) && info->opts->print_rate;
}

static void print_column_header(FILE *out, const cs_run_info_t *info)
{
    const cs_opts_t *o = info->opts;
    fprintf(out, "%-*s%*s", SIZE_W, "# Size", FIELD_W, info->bench->osu_value_label);
    if (shows_rate(info)) fprintf(out, "%*s", FIELD_W, "Messages/s");
    if (o->full) {
        if (is_latency(info))
            fprintf(out, "%*s%*s", FIELD_W, "Min Latency(us)", FIELD_W, "Max Latency(us)");
        else
            fprintf(out, "%*s%*s", FIELD_W, "Min BW(MB/s)", FIELD_W, "Max BW(MB/s)");
        fprintf(out, "%*s", ITER_W, "Iterations");
    }
    if (o->validate) fprintf(out, "%*s", FIELD_W, "Validation");
    for (int i = 0; i < o->npercentiles; i++) {
        char label[48];
        snprintf(label, sizeof label, is_latency(info) ? "P%g Tail Lat(us)" : "P%g Tail BW(MB/s)",
                 o->percentiles[i]);
        fprintf(out, "%*s", FIELD_W, label);
    }
    fputc('\n', out);
}

static void osu_begin(cs_reporter_t *r, const cs_run_info_t *info)
{
    FILE *out = r->out;
    if (info->bench->osu_leading_blank) fputc('\n', out);
    fprintf(out, "# commscope MPI %s v%s\n", info->bench->osu_title, info->tool_version);
    if (info->bench->caps & CS_CAP_PAIRS) {
        if (info->opts->vary_window)
            fprintf(out, "# [ pairs: %d ] [ window size: Varied ]\n", info->plan->pairs);
        else if (info->bench->caps & CS_CAP_WINDOW)
            fprintf(out, "# [ pairs: %d ] [ window size: %d ]\n", info->plan->pairs, info->plan->window);
    }
    if (info->bench->caps & CS_CAP_SEND_MODE && info->opts->send_mode != CS_SEND_STANDARD)
        fprintf(out, "# Send mode: %s\n", cs_send_mode_name(info->opts->send_mode));
    fprintf(out, "# Datatype: MPI_CHAR.\n");
    if (!info->opts->vary_window) print_column_header(out, info);
    fflush(out);
}

static void print_row(FILE *out, const cs_run_info_t *info, const cs_record_t *rec)
{
    const cs_opts_t *o = info->opts;
    bool lat = is_latency(info);
    fprintf(out, "%-*zu%*.2f", SIZE_W, rec->size, FIELD_W, lat ? rec->latency_us : rec->bandwidth_MBps);
    if (shows_rate(info)) fprintf(out, "%*.2f", FIELD_W, rec->message_rate);
    if (o->full)
        fprintf(out, "%*.2f%*.2f%*ld", FIELD_W, lat ? rec->min_latency_us : rec->min_bandwidth_MBps, FIELD_W,
                lat ? rec->max_latency_us : rec->max_bandwidth_MBps, ITER_W, rec->iterations);
    if (o->validate) fprintf(out, "%*s", FIELD_W, rec->errors == 0 ? "Pass" : "Fail");
    for (int i = 0; i < o->npercentiles; i++) fprintf(out, "%*.2f", FIELD_W, rec->percentile_values[i]);
    fputc('\n', out);
}

static void hold(cs_reporter_t *r, const cs_record_t *rec)
{
    if (r->nheld == r->held_cap) {
        size_t cap = r->held_cap ? 2 * r->held_cap : 64;
        cs_record_t *grown = realloc(r->held, cap * sizeof *grown);
        if (grown == NULL) return; /* the matrix loses a cell; the JSON keeps it */
        r->held = grown;
        r->held_cap = cap;
    }
    r->held[r->nheld++] = *rec;
}

static void osu_record(cs_reporter_t *r, const cs_run_info_t *info, const cs_record_t *rec)
{
    r->nrecords++;
    if (info->opts->vary_window) {
        hold(r, rec);
        return;
    }
    print_row(r->out, info, rec);
    fflush(r->out);
}

/* mbw_mr -V: one matrix per metric, a row per size and a column per window. */
static void print_matrix(FILE *out, const cs_reporter_t *r, const char *title, bool rate)
{
    fprintf(out, "# %s\n%-*s", title, SIZE_W, "# Size");
    size_t first_size_count = 0;
    for (size_t i = 0; i < r->nheld && r->held[i].size == r->held[0].size; i++, first_size_count++)
        fprintf(out, "%*d", ITER_W, r->held[i].window);
    fputc('\n', out);
    for (size_t i = 0; i < r->nheld; i++) {
        if (i % first_size_count == 0) fprintf(out, "%-*zu", SIZE_W, r->held[i].size);
        fprintf(out, "%*.2f", ITER_W, rate ? r->held[i].message_rate : r->held[i].bandwidth_MBps);
        if (i % first_size_count == first_size_count - 1 || i + 1 == r->nheld) fputc('\n', out);
    }
}

static void osu_end(cs_reporter_t *r, const cs_run_info_t *info, const cs_run_end_t *end)
{
    (void)end;
    if (info->opts->vary_window && r->nheld > 0) {
        print_matrix(r->out, r, "Uni-directional Bandwidth (MB/sec)", false);
        if (shows_rate(info)) print_matrix(r->out, r, "Message Rate Profile", true);
    }
    fflush(r->out);
}

const cs_reporter_ops_t cs_report_osu = {osu_begin, osu_record, osu_end};
