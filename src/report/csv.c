/* One CSV table: a header row, then a row per record. Cells that do not apply to the
 * benchmark's metric stay empty; columns of other benchmark families are left out. */
#include <math.h>
#include <stddef.h>

#include "util/flow.h"
#include "report/report.h"

typedef enum { COL_LONG, COL_SIZE, COL_DOUBLE, COL_INT, COL_DTYPE, COL_WIN, COL_SYNC } col_kind_t;

typedef struct csv_column {
    const char *name;
    col_kind_t kind;
    size_t offset;
    int metric;    /* -1: always; else only for that cs_metric_t */
    unsigned caps; /* 0: every benchmark; else only benchmarks with one of these capabilities */
} csv_column_t;

#define REC(field) offsetof(cs_record_t, field)

static const csv_column_t columns[] = {
    {"size", COL_SIZE, REC(size), -1, 0},
    {"window", COL_INT, REC(window), -1, 0},
    {"iterations", COL_LONG, REC(iterations), -1, 0},
    {"warmup", COL_LONG, REC(warmup), -1, 0},
    {"batch", COL_LONG, REC(batch), -1, 0},
    {"samples", COL_SIZE, REC(stats.n), -1, 0},
    {"min_us", COL_DOUBLE, REC(stats.min), -1, 0},
    {"max_us", COL_DOUBLE, REC(stats.max), -1, 0},
    {"mean_us", COL_DOUBLE, REC(stats.mean), -1, 0},
    {"median_us", COL_DOUBLE, REC(stats.median), -1, 0},
    {"p50_us", COL_DOUBLE, REC(stats.p50), -1, 0},
    {"p90_us", COL_DOUBLE, REC(stats.p90), -1, 0},
    {"p99_us", COL_DOUBLE, REC(stats.p99), -1, 0},
    {"stddev_us", COL_DOUBLE, REC(stats.stddev), -1, 0},
    {"ci95_low_us", COL_DOUBLE, REC(stats.ci95_low), -1, 0},
    {"ci95_high_us", COL_DOUBLE, REC(stats.ci95_high), -1, 0},
    {"latency_us", COL_DOUBLE, REC(latency_us), CS_METRIC_LATENCY, 0},
    {"min_latency_us", COL_DOUBLE, REC(min_latency_us), CS_METRIC_LATENCY, 0},
    {"max_latency_us", COL_DOUBLE, REC(max_latency_us), CS_METRIC_LATENCY, 0},
    {"bandwidth_MBps", COL_DOUBLE, REC(bandwidth_MBps), CS_METRIC_BANDWIDTH, 0},
    {"min_bandwidth_MBps", COL_DOUBLE, REC(min_bandwidth_MBps), CS_METRIC_BANDWIDTH, 0},
    {"max_bandwidth_MBps", COL_DOUBLE, REC(max_bandwidth_MBps), CS_METRIC_BANDWIDTH, 0},
    {"message_rate", COL_DOUBLE, REC(message_rate), CS_METRIC_BANDWIDTH, 0},
    {"datatype", COL_DTYPE, REC(dtype), -1, CS_CAP_DATATYPES},
    {"window_creation", COL_WIN, REC(win_mode), -1, CS_CAP_RMA},
    {"synchronization", COL_SYNC, REC(sync_mode), -1, CS_CAP_RMA},
    {"algbw_GBps", COL_DOUBLE, REC(algbw_GBps), -1, CS_CAP_BUSBW},
    {"busbw_GBps", COL_DOUBLE, REC(busbw_GBps), -1, CS_CAP_BUSBW},
    {"overall_us", COL_DOUBLE, REC(overall_us), -1, CS_CAP_OVERLAP},
    {"compute_us", COL_DOUBLE, REC(compute_us), -1, CS_CAP_OVERLAP},
    {"init_us", COL_DOUBLE, REC(init_us), -1, CS_CAP_OVERLAP},
    {"test_us", COL_DOUBLE, REC(test_us), -1, CS_CAP_OVERLAP},
    {"wait_us", COL_DOUBLE, REC(wait_us), -1, CS_CAP_OVERLAP},
    {"pure_comm_us", COL_DOUBLE, REC(pure_comm_us), -1, CS_CAP_OVERLAP},
    {"min_comm_us", COL_DOUBLE, REC(min_comm_us), -1, CS_CAP_OVERLAP},
    {"max_comm_us", COL_DOUBLE, REC(max_comm_us), -1, CS_CAP_OVERLAP},
    {"overlap_pct", COL_DOUBLE, REC(overlap_pct), -1, CS_CAP_OVERLAP},
};
#define NCOLUMNS (sizeof columns / sizeof columns[0])

static bool in_family(const csv_column_t *col, const cs_run_info_t *info)
{
    return col->caps == 0 || (info->bench->caps & col->caps);
}

static void csv_begin(cs_reporter_t *r, const cs_run_info_t *info)
{
    fputs("benchmark", r->out);
    for (size_t c = 0; c < NCOLUMNS; c++)
        if (in_family(&columns[c], info)) fprintf(r->out, ",%s", columns[c].name);
    for (int i = 0; i < info->opts->npercentiles; i++) fprintf(r->out, ",p%g", info->opts->percentiles[i]);
    fputs(",validation_errors\n", r->out);
}

static void csv_cell(FILE *out, const csv_column_t *col, const cs_record_t *rec, cs_metric_t metric)
{
    const char *base = (const char *)rec + col->offset;
    fputc(',', out);
    if (col->metric >= 0 && col->metric != (int)metric) return;
    switch (col->kind) {
    case COL_LONG: fprintf(out, "%ld", *(const long *)(const void *)base); break;
    case COL_SIZE: fprintf(out, "%zu", *(const size_t *)(const void *)base); break;
    case COL_INT: fprintf(out, "%d", *(const int *)(const void *)base); break;
    case COL_DOUBLE: {
        double v = *(const double *)(const void *)base;
        if (!isnan(v)) fprintf(out, "%.10g", v); /* NaN: not defined here, stays empty */
        break;
    }
    case COL_DTYPE: fputs(cs_dtype_name(*(const cs_dtype_t *)(const void *)base), out); break;
    case COL_WIN: fputs(cs_win_mode_option(*(const cs_win_mode_t *)(const void *)base), out); break;
    case COL_SYNC: fputs(cs_sync_option(*(const cs_rma_sync_t *)(const void *)base), out); break;
    }
}

static void csv_record(cs_reporter_t *r, const cs_run_info_t *info, const cs_record_t *rec)
{
    r->nrecords++;
    fputs(info->bench->name, r->out);
    for (size_t c = 0; c < NCOLUMNS; c++)
        if (in_family(&columns[c], info)) csv_cell(r->out, &columns[c], rec, info->bench->metric);
    for (int i = 0; i < info->opts->npercentiles; i++) fprintf(r->out, ",%.10g", rec->percentile_values[i]);
    if (rec->validated) fprintf(r->out, ",%ld\n", rec->errors);
    else fputs(",\n", r->out);
    fflush(r->out);
}

static void csv_end(cs_reporter_t *r, const cs_run_info_t *info, const cs_run_end_t *end)
{
    (void)info;
    (void)end;
    fflush(r->out);
}

const cs_reporter_ops_t cs_report_csv = {csv_begin, csv_record, csv_end};
