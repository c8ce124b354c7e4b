/* OMB's text layout, column for column: "%-10d" size, "%18.2f" values, "%12d" iterations
 * (see docs/core.md for each table). The title names commscope. Each layout is a list of
 * columns, shown or not by the options (-f, -c, -z, --busbw); benchmarks pick a layout. */
#include <stddef.h>
#include <string.h>

#include "report/congestion_out.h"
#include "report/osu_pairs.h"
#include "report/report.h"
#include "util/topo.h"

#define SIZE_W  10
#define FIELD_W 18
#define ITER_W  12

typedef enum col_kind { COL_VALUE, COL_ITERATIONS, COL_VALIDATION, COL_PERCENTILES } col_kind_t;
typedef enum col_when { WHEN_ALWAYS, WHEN_FULL, WHEN_BRIEF, WHEN_RATE, WHEN_BUSBW } col_when_t;

typedef struct osu_column {
    const char *label; /* NULL: the benchmark's osu_value_label */
    col_kind_t kind;
    size_t offset; /* COL_VALUE: a double of cs_record_t */
    col_when_t when;
    int metric; /* -1: any; else only for that cs_metric_t */
} osu_column_t;

#define REC(field) offsetof(cs_record_t, field)
#define ANY        (-1)

static const osu_column_t point_to_point[] = {
    {NULL, COL_VALUE, REC(latency_us), WHEN_ALWAYS, CS_METRIC_LATENCY},
    {NULL, COL_VALUE, REC(bandwidth_MBps), WHEN_ALWAYS, CS_METRIC_BANDWIDTH},
    {"Messages/s", COL_VALUE, REC(message_rate), WHEN_RATE, ANY},
    {"Min Latency(us)", COL_VALUE, REC(min_latency_us), WHEN_FULL, CS_METRIC_LATENCY},
    {"Max Latency(us)", COL_VALUE, REC(max_latency_us), WHEN_FULL, CS_METRIC_LATENCY},
    {"Min BW(MB/s)", COL_VALUE, REC(min_bandwidth_MBps), WHEN_FULL, CS_METRIC_BANDWIDTH},
    {"Max BW(MB/s)", COL_VALUE, REC(max_bandwidth_MBps), WHEN_FULL, CS_METRIC_BANDWIDTH},
    {"Iterations", COL_ITERATIONS, 0, WHEN_FULL, ANY},
    {"Validation", COL_VALIDATION, 0, WHEN_ALWAYS, ANY},
    {NULL, COL_PERCENTILES, 0, WHEN_ALWAYS, ANY},
};

static const osu_column_t collective[] = {
    {NULL, COL_VALUE, REC(latency_us), WHEN_ALWAYS, ANY},
    {"Min Latency(us)", COL_VALUE, REC(min_latency_us), WHEN_FULL, ANY},
    {"Max Latency(us)", COL_VALUE, REC(max_latency_us), WHEN_FULL, ANY},
    {"Iterations", COL_ITERATIONS, 0, WHEN_FULL, ANY},
    {"Validation", COL_VALIDATION, 0, WHEN_ALWAYS, ANY},
    {NULL, COL_PERCENTILES, 0, WHEN_ALWAYS, ANY},
    {"Algbw(GB/s)", COL_VALUE, REC(algbw_GBps), WHEN_BUSBW, ANY},
    {"Busbw(GB/s)", COL_VALUE, REC(busbw_GBps), WHEN_BUSBW, ANY},
};

static const osu_column_t nbc[] = {
    {NULL, COL_VALUE, REC(overall_us), WHEN_ALWAYS, ANY},
    {"Compute(us)", COL_VALUE, REC(compute_us), WHEN_ALWAYS, ANY},
    {"Coll. Init(us)", COL_VALUE, REC(init_us), WHEN_FULL, ANY},
    {"MPI_Test(us)", COL_VALUE, REC(test_us), WHEN_FULL, ANY},
    {"MPI_Wait(us)", COL_VALUE, REC(wait_us), WHEN_FULL, ANY},
    {"Pure Comm.(us)", COL_VALUE, REC(pure_comm_us), WHEN_ALWAYS, ANY},
    {"Min Comm.(us)", COL_VALUE, REC(min_comm_us), WHEN_FULL, ANY},
    {"Max Comm.(us)", COL_VALUE, REC(max_comm_us), WHEN_FULL, ANY},
    {"Overlap(%)", COL_VALUE, REC(overlap_pct), WHEN_ALWAYS, ANY},
    {"Validation", COL_VALIDATION, 0, WHEN_ALWAYS, ANY},
    {NULL, COL_PERCENTILES, 0, WHEN_ALWAYS, ANY},
};

/* Line layouts: one line per record instead of a table. */
static void init_line(FILE *out, const cs_run_info_t *info, const cs_record_t *rec)
{
    fprintf(out, "nprocs: %d, min: %.0f ms, max: %.0f ms, avg: %.0f ms\n", info->nranks, rec->min_latency_us / 1e3,
            rec->max_latency_us / 1e3, rec->latency_us / 1e3);
}

static void hello_intro(FILE *out, const cs_run_info_t *info)
{
    fprintf(out, "This is a test with %d processes\n", info->nranks);
}

typedef struct osu_layout {
    const osu_column_t *columns;
    size_t ncolumns;
    const char *preamble; /* printed once after the title */
    void (*line)(FILE *out, const cs_run_info_t *info, const cs_record_t *rec);
    void (*intro)(FILE *out, const cs_run_info_t *info);
} osu_layout_t;

#define COLUMNS(list) list, sizeof list / sizeof list[0]
static const osu_layout_t layouts[] = {
    [CS_OSU_POINT_TO_POINT] = {COLUMNS(point_to_point), NULL, NULL, NULL},
    [CS_OSU_COLLECTIVE] = {COLUMNS(collective), NULL, NULL, NULL},
    [CS_OSU_NBC] = {COLUMNS(nbc), "# Overall = Coll. Init + Compute + MPI_Test + MPI_Wait\n\n", NULL, NULL},
    [CS_OSU_INIT] = {NULL, 0, NULL, init_line, NULL},
    [CS_OSU_HELLO] = {NULL, 0, NULL, NULL, hello_intro},
    [CS_OSU_PAIRS] = {NULL, 0, NULL, NULL, cs_osu_pairs_intro}, /* lines per round: osu_pairs.c */
    [CS_OSU_CONGESTION] = {NULL, 0, NULL, cs_osu_congestion_line, cs_osu_congestion_intro}, /* congestion_out.c */
};

static const osu_layout_t *layout_of(const cs_run_info_t *info) { return &layouts[info->bench->osu_layout]; }
static bool is_latency(const cs_run_info_t *info) { return info->bench->metric == CS_METRIC_LATENCY; }
static bool has_size(const cs_run_info_t *info) { return !(info->bench->caps & CS_CAP_SIZELESS); }

static bool shown(const osu_column_t *c, const cs_run_info_t *info)
{
    const cs_opts_t *o = info->opts;
    if (c->metric != ANY && c->metric != (int)info->bench->metric) return false;
    switch (c->kind) {
    case COL_VALIDATION: return o->validate;
    case COL_PERCENTILES: return o->npercentiles > 0;
    default: break;
    }
    switch (c->when) {
    case WHEN_FULL: return o->full;
    case WHEN_BRIEF: return !o->full;
    case WHEN_RATE: return (info->bench->caps & CS_CAP_RATE) && o->print_rate;
    case WHEN_BUSBW: return o->busbw;
    default: return true;
    }
}

/* Without a size column the first column carries the "# " of the header (OMB's barrier). */
static int first_width(const cs_run_info_t *info, const char *label)
{
    return has_size(info) ? FIELD_W : (int)strlen(label) + 2;
}

static void print_column_header(FILE *out, const cs_run_info_t *info)
{
    const osu_layout_t *l = layout_of(info);
    const cs_opts_t *o = info->opts;
    bool first = true;
    if (has_size(info)) fprintf(out, "%-*s", SIZE_W, "# Size");
    for (size_t i = 0; i < l->ncolumns; i++) {
        const osu_column_t *c = &l->columns[i];
        if (!shown(c, info)) continue;
        const char *label = c->label ? c->label : info->bench->osu_value_label;
        if (c->kind == COL_PERCENTILES) {
            for (int p = 0; p < o->npercentiles; p++) {
                char text[48];
                snprintf(text, sizeof text, is_latency(info) ? "P%g Tail Lat(us)" : "P%g Tail BW(MB/s)",
                         o->percentiles[p]);
                fprintf(out, "%*s", FIELD_W, text);
            }
        } else if (first && !has_size(info)) {
            fprintf(out, "# %s", label);
        } else {
            fprintf(out, "%*s", c->kind == COL_ITERATIONS ? ITER_W : FIELD_W, label);
        }
        first = false;
    }
    fputc('\n', out);
}

/* The lines that open each table: one-sided modes, the datatype, the column header. */
static void print_table_header(FILE *out, const cs_run_info_t *info, cs_dtype_t t, cs_win_mode_t w, cs_rma_sync_t s)
{
    if (layout_of(info)->columns == NULL) return;
    if (info->bench->caps & CS_CAP_RMA) {
        fprintf(out, "# Window creation: %s\n", cs_win_mode_call(w));
        fprintf(out, "# Synchronization: %s\n", cs_sync_calls(s));
    }
    if (has_size(info)) fprintf(out, "# Datatype: %s.\n", cs_dtype_name(t));
    if (!info->opts->vary_window) print_column_header(out, info); /* -V prints matrices at the end */
}

static void print_neighbourhood(FILE *out, const cs_run_info_t *info)
{
    const cs_topo_t *t = info->topo;
    if (t == NULL) return;
    if (info->opts->nbr_kind == CS_NBR_GRAPH) {
        fprintf(out, "# Neighborhood: graph %s, %d edges\n", info->opts->nbr_file, t->nedges);
        return;
    }
    char grid[128] = "";
    for (int d = 0; d < t->ndims; d++)
        snprintf(grid + strlen(grid), sizeof grid - strlen(grid), d ? "x%d" : "%d", t->dims[d]);
    fprintf(out, "# Neighborhood: cart %s, radius %d, %d neighbours per rank\n", grid, t->radius, t->max_outdegree);
}

/* OMB's words for a side's buffer */
static const char *buffer_word(cs_mem_kind_t k)
{
    switch (k) {
    case CS_MEM_DEVICE: return "DEVICE (D)";
    case CS_MEM_HOST: return "HOST (H)";
    default: return "MANAGED (M)";
    }
}

static void osu_begin(cs_reporter_t *r, const cs_run_info_t *info)
{
    FILE *out = r->out;
    const cs_bench_t *b = info->bench;
    const cs_plan_t *plan = info->plan;
    /* OMB's multi-threaded and multi-process latency tests say how many threads or processes
     * each side has before their title, the sender's line with a space before its newline */
    if (b->caps & CS_CAP_THREADS)
        fprintf(out, "# Number of Sender threads: %d \n# Number of Receiver threads: %d\n", plan->workers[0],
                plan->workers[1]);
    if (b->caps & CS_CAP_FORKS)
        fprintf(out, "# Number of forked processes in sender: %d\n# Number of forked processes in receiver: %d\n",
                plan->workers[0], plan->workers[1]);
    if (b->osu_leading_blank) fputc('\n', out);
    /* OMB's one-sided titles read "MPI_Put Latency Test"; with -d, "MPI-CUDA Latency Test"
     * (and "MPI-CUDA MANAGED"); NCCL's titles name NCCL themselves */
    const char *accel = "";
    if (plan->gpu && !(b->caps & CS_CAP_NCCL))
        accel = info->opts->accel == CS_ACCEL_MANAGED ? "-CUDA MANAGED" : "-CUDA";
    if (strncmp(b->osu_title, "MPI_", 4) == 0 || (b->caps & CS_CAP_NCCL))
        fprintf(out, "# commscope %s v%s\n", b->osu_title, info->tool_version);
    else fprintf(out, "# commscope MPI%s %s v%s\n", accel, b->osu_title, info->tool_version);
    if (plan->gpu && !(b->caps & (CS_CAP_COLLECTIVE | CS_CAP_NCCL)))
        fprintf(out, "# Send Buffer on %s and Receive Buffer on %s\n", buffer_word(plan->mem[0]),
                buffer_word(plan->mem[1]));
    if (b->caps & (CS_CAP_PAIRS | CS_CAP_ALL_PAIRS)) {
        if (info->opts->vary_window) fprintf(out, "# [ pairs: %d ] [ window size: Varied ]\n", plan->pairs);
        else if (b->caps & CS_CAP_WINDOW)
            fprintf(out, "# [ pairs: %d ] [ window size: %d ]\n", plan->pairs, plan->window);
    }
    if (b->caps & CS_CAP_FAN) fprintf(out, "# [ peers: %d ] [ window size: %d ]\n", plan->pairs, plan->window);
    if (b->caps & CS_CAP_PARTITIONED) fprintf(out, "# Number of partitions: %d\n", plan->partitions);
    if (b->caps & CS_CAP_SEND_MODE && info->opts->send_mode != CS_SEND_STANDARD)
        fprintf(out, "# Send mode: %s\n", cs_send_mode_name(info->opts->send_mode));
    if (b->caps & CS_CAP_NEIGHBOR) print_neighbourhood(out, info);
    const osu_layout_t *l = layout_of(info);
    if (l->preamble) fputs(l->preamble, out);
    if (l->intro) l->intro(out, info);
    r->shown_dtype = plan->ndtypes ? plan->dtypes[0] : CS_DT_CHAR;
    r->shown_win = plan->nwin_modes ? plan->win_modes[0] : (cs_win_mode_t)0; /* records say 0 without -w */
    r->shown_sync = plan->nsync_modes ? plan->sync_modes[0] : (cs_rma_sync_t)0;
    print_table_header(out, info, r->shown_dtype, r->shown_win, r->shown_sync);
    fflush(out);
}

static void print_row(FILE *out, const cs_run_info_t *info, const cs_record_t *rec)
{
    const osu_layout_t *l = layout_of(info);
    const cs_opts_t *o = info->opts;
    bool first = true;
    if (has_size(info)) fprintf(out, "%-*zu", SIZE_W, rec->size);
    for (size_t i = 0; i < l->ncolumns; i++) {
        const osu_column_t *c = &l->columns[i];
        if (!shown(c, info)) continue;
        const char *label = c->label ? c->label : info->bench->osu_value_label;
        switch (c->kind) {
        case COL_VALUE: {
            double v = *(const double *)(const void *)((const char *)rec + c->offset);
            fprintf(out, "%*.2f", first ? first_width(info, label) : FIELD_W, v);
            break;
        }
        case COL_ITERATIONS: fprintf(out, "%*ld", ITER_W, rec->iterations); break;
        case COL_VALIDATION: fprintf(out, "%*s", FIELD_W, rec->errors == 0 ? "Pass" : "Fail"); break;
        case COL_PERCENTILES:
            for (int p = 0; p < o->npercentiles; p++) fprintf(out, "%*.2f", FIELD_W, rec->percentile_values[p]);
            break;
        }
        first = false;
    }
    fputc('\n', out);
}

static void osu_record(cs_reporter_t *r, const cs_run_info_t *info, const cs_record_t *rec)
{
    if (info->bench->osu_layout == CS_OSU_PAIRS) {
        cs_osu_pairs_record(r, info, rec);
        return;
    }
    r->nrecords++;
    if (info->opts->vary_window) {
        cs_reporter_hold(r, rec); /* the -V matrices are printed at the end */
        return;
    }
    const osu_layout_t *l = layout_of(info);
    if (l->line) {
        l->line(r->out, info, rec);
        fflush(r->out);
        return;
    }
    if (rec->dtype != r->shown_dtype || rec->win_mode != r->shown_win || rec->sync_mode != r->shown_sync) {
        r->shown_dtype = rec->dtype;
        r->shown_win = rec->win_mode;
        r->shown_sync = rec->sync_mode;
        print_table_header(r->out, info, rec->dtype, rec->win_mode, rec->sync_mode);
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
    if (info->bench->osu_layout == CS_OSU_PAIRS) cs_osu_pairs_end(r, info);
    if (info->opts->vary_window && r->nheld > 0) {
        print_matrix(r->out, r, "Uni-directional Bandwidth (MB/sec)", false);
        if ((info->bench->caps & CS_CAP_RATE) && info->opts->print_rate)
            print_matrix(r->out, r, "Message Rate Profile", true);
    }
    fflush(r->out);
}

const cs_reporter_ops_t cs_report_osu = {osu_begin, osu_record, osu_end};
