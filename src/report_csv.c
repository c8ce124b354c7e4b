/* One CSV table: a header row, then a row per record. Cells that do not apply to the
 * benchmark's metric stay empty. */
#include <stddef.h>

#include "report.h"

typedef enum { COL_LONG, COL_SIZE, COL_DOUBLE, COL_INT } col_kind_t;

typedef struct csv_column {
    const char *name;
    col_kind_t kind;
    size_t offset;
    int metric; /* -1: always; else only for that cs_metric_t */
} csv_column_t;

#define REC(field) offsetof(cs_record_t, field)

static const csv_column_t columns[] = {
    {"size", COL_SIZE, REC(size), -1},
    {"window", COL_INT, REC(window), -1},
    {"iterations", COL_LONG, REC(iterations), -1},
    {"warmup", COL_LONG, REC(warmup), -1},
    {"batch", COL_LONG, REC(batch), -1},
    {"samples", COL_SIZE, REC(stats.n), -1},
    {"min_us", COL_DOUBLE, REC(stats.min), -1},
    {"max_us", COL_DOUBLE, REC(stats.max), -1},
    {"mean_us", COL_DOUBLE, REC(stats.mean), -1},
    {"median_us", COL_DOUBLE, REC(stats.median), -1},
    {"p50_us", COL_DOUBLE, REC(stats.p50), -1},
    {"p90_us", COL_DOUBLE, REC(stats.p90), -1},
    {"p99_us", COL_DOUBLE, REC(stats.p99), -1},
    {"stddev_us", COL_DOUBLE, REC(stats.stddev), -1},
    {"ci95_low_us", COL_DOUBLE, REC(stats.ci95_low), -1},
    {"ci95_high_us", COL_DOUBLE, REC(stats.ci95_high), -1},
    {"latency_us", COL_DOUBLE, REC(latency_us), CS_METRIC_LATENCY},
    {"min_latency_us", COL_DOUBLE, REC(min_latency_us), CS_METRIC_LATENCY},
    {"max_latency_us", COL_DOUBLE, REC(max_latency_us), CS_METRIC_LATENCY},
    {"bandwidth_MBps", COL_DOUBLE, REC(bandwidth_MBps), CS_METRIC_BANDWIDTH},
    {"min_bandwidth_MBps", COL_DOUBLE, REC(min_bandwidth_MBps), CS_METRIC_BANDWIDTH},
    {"max_bandwidth_MBps", COL_DOUBLE, REC(max_bandwidth_MBps), CS_METRIC_BANDWIDTH},
    {"message_rate", COL_DOUBLE, REC(message_rate), CS_METRIC_BANDWIDTH},
};
#define NCOLUMNS (sizeof columns / sizeof columns[0])

static void csv_begin(cs_reporter_t *r, const cs_run_info_t *info)
{
    fputs("benchmark", r->out);
    for (size_t c = 0; c < NCOLUMNS; c++) fprintf(r->out, ",%s", columns[c].name);
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
    case COL_DOUBLE: fprintf(out, "%.10g", *(const double *)(const void *)base); break;
    }
}

static void csv_record(cs_reporter_t *r, const cs_run_info_t *info, const cs_record_t *rec)
{
    r->nrecords++;
    fputs(info->bench->name, r->out);
    for (size_t c = 0; c < NCOLUMNS; c++) csv_cell(r->out, &columns[c], rec, info->bench->metric);
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
