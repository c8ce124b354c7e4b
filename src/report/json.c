/* JSON document (--format json, --json-out) and JSON Lines stream (--jsonl-out) of the
 * same records; python/commscope/records/schema/result.schema.json is the contract. */
#include <string.h>

#include "util/flow.h"
#include "util/schedule.h"
#include "report/congestion_out.h"
#include "report/json_writer.h"
#include "report/report.h"
#include "util/mask.h"

static void write_tool(FILE *out, const cs_run_info_t *info)
{
    fputc('{', out);
    cs_json_key(out, "name", 1);
    cs_json_string(out, "commscope-bench");
    cs_json_key(out, "version", 0);
    cs_json_string(out, info->tool_version);
    cs_json_key(out, "git_commit", 0);
    cs_json_string(out, info->git_commit);
    fputc('}', out);
}

static void write_benchmark(FILE *out, const cs_run_info_t *info)
{
    const cs_bench_t *b = info->bench;
    fputc('{', out);
    cs_json_key(out, "name", 1);
    cs_json_string(out, b->name);
    cs_json_key(out, "description", 0);
    cs_json_string(out, b->description);
    cs_json_key(out, "pattern", 0);
    cs_json_string(out, info->pattern_name);
    cs_json_key(out, "metric", 0);
    cs_json_string(out, b->metric == CS_METRIC_LATENCY ? "latency" : "bandwidth");
    cs_json_key(out, "unit", 0);
    cs_json_string(out, b->metric == CS_METRIC_LATENCY ? "us" : "MB/s");
    fputc('}', out);
}

static void write_long(FILE *out, const char *key, long v, int first)
{
    cs_json_key(out, key, first);
    fprintf(out, "%ld", v);
}

static void write_bool(FILE *out, const char *key, bool v)
{
    cs_json_key(out, key, 0);
    fputs(v ? "true" : "false", out);
}

static void write_number_field(FILE *out, const char *key, double v, int first)
{
    cs_json_key(out, key, first);
    cs_json_number(out, v);
}

static void write_string_list(FILE *out, const char *key, int n, const char *(*name)(int, const cs_plan_t *),
                              const cs_plan_t *plan)
{
    cs_json_key(out, key, 0);
    fputc('[', out);
    for (int i = 0; i < n; i++) {
        if (i) fputc(',', out);
        cs_json_string(out, name(i, plan));
    }
    fputc(']', out);
}

static const char *dtype_at(int i, const cs_plan_t *p) { return cs_dtype_name(p->dtypes[i]); }
static const char *win_at(int i, const cs_plan_t *p) { return cs_win_mode_option(p->win_modes[i]); }
static const char *sync_at(int i, const cs_plan_t *p) { return cs_sync_option(p->sync_modes[i]); }

/* pairs: the schedule as typed, its size, and what each pair measures at which size */
static void write_pairs_options(FILE *out, const cs_run_info_t *info)
{
    const cs_pairs_spec_t *spec = &info->plan->pairs_spec;
    cs_json_key(out, "schedule", 0);
    cs_json_string(out, spec->schedule);
    write_bool(out, "serial", spec->serial);
    if (info->schedule) write_long(out, "rounds", cs_schedule_rounds(info->schedule), 0);
    write_long(out, "scheduled_pairs", info->plan->scheduled_pairs, 0);
    cs_json_key(out, "pair_metrics", 0);
    fputc('[', out);
    for (int m = 0, n = 0; m < CS_NPAIR_METRICS; m++)
        if (spec->metrics & CS_MASK(m)) {
            if (n++) fputc(',', out);
            cs_json_string(out, cs_pair_metric_name((cs_pair_metric_t)m));
        }
    fputc(']', out);
    write_long(out, "lat_size", (long)spec->lat_size, 0);
    write_long(out, "bw_size", (long)spec->bw_size, 0);
}

/* latency_mt, latency_mp: -t SEND:RECV, the sender's (rank 0's) and the receiver's
 * threads or forked processes */
static void write_workers(FILE *out, const char *key, const cs_plan_t *p)
{
    cs_json_key(out, key, 0);
    fputc('{', out);
    write_long(out, "send", p->workers[0], 1);
    write_long(out, "recv", p->workers[1], 0);
    fputc('}', out);
}

/* Options of the families beyond point-to-point, written only where they apply, so a
 * point-to-point document is what it always was. */
static void write_family_options(FILE *out, const cs_run_info_t *info)
{
    const cs_opts_t *o = info->opts;
    const cs_plan_t *p = info->plan;
    unsigned caps = info->bench->caps;
    if (caps & CS_CAP_DATATYPES) write_string_list(out, "datatypes", p->ndtypes, dtype_at, p);
    if (caps & CS_CAP_ROOT) {
        cs_json_key(out, "root", 0);
        if (p->root < 0) cs_json_string(out, "rotate");
        else fprintf(out, "%d", p->root);
    }
    if (caps & CS_CAP_IN_PLACE) write_bool(out, "in_place", o->in_place);
    if (caps & CS_CAP_OVERLAP) write_long(out, "num_test_calls", o->num_tests, 0);
    if (caps & CS_CAP_BUSBW) write_bool(out, "busbw", o->busbw);
    if (caps & CS_CAP_COLLECTIVE) write_bool(out, "max_size_clipped", p->max_size_clipped);
    if (caps & CS_CAP_NEIGHBOR) {
        char spec[512];
        if (o->nbr_kind == CS_NBR_GRAPH) snprintf(spec, sizeof spec, "graph:%s", o->nbr_file);
        else snprintf(spec, sizeof spec, "cart:%d:%d", o->nbr_dims, o->nbr_radius);
        cs_json_key(out, "neighborhood", 0);
        cs_json_string(out, spec);
    }
    if (caps & CS_CAP_RMA) {
        write_string_list(out, "window_creation", p->nwin_modes, win_at, p);
        write_string_list(out, "synchronization", p->nsync_modes, sync_at, p);
    }
    if (caps & CS_CAP_THREADS) write_workers(out, "threads", p);
    if (caps & CS_CAP_FORKS) write_workers(out, "processes", p);
    if (caps & CS_CAP_PARTITIONED) write_long(out, "partitions", p->partitions, 0);
    if (caps & CS_CAP_SCHEDULE) write_pairs_options(out, info);
    if (caps & CS_CAP_CONGESTION) cs_json_congestion_options(out, info);
}

/* Where each side's buffers were: "send" is rank 0's side (OMB's "Send Buffer"), "recv"
 * its peer's; written only for runs with a GPU, so host runs' documents are unchanged. */
static void write_memory(FILE *out, const cs_plan_t *p)
{
    cs_json_key(out, "memory", 0);
    fputc('{', out);
    cs_json_key(out, "send", 1);
    cs_json_string(out, cs_mem_kind_name(p->mem[0]));
    cs_json_key(out, "recv", 0);
    cs_json_string(out, cs_mem_kind_name(p->mem[1]));
    fputc('}', out);
}

static void write_gpus(FILE *out, const cs_run_info_t *info)
{
    cs_json_key(out, "gpus", 0);
    fputc('[', out);
    for (int r = 0; r < info->ngpus; r++) {
        const cs_gpu_info_t *g = &info->gpus[r];
        const char *host = "";
        for (int h = 0; h < info->nhosts; h++)
            for (int i = 0; i < info->hosts[h].nranks; i++)
                if (info->hosts[h].ranks[i] == r) host = info->hosts[h].name;
        fputs(r ? ",{" : "{", out);
        write_long(out, "rank", r, 1);
        cs_json_key(out, "host", 0);
        cs_json_string(out, host);
        write_long(out, "device", g->device, 0);
        write_long(out, "visible_devices", g->visible, 0);
        cs_json_key(out, "name", 0);
        cs_json_string(out, g->name);
        cs_json_key(out, "pci_bus_id", 0);
        cs_json_string(out, g->pci_bus_id);
        write_long(out, "driver_version", g->driver_version, 0);
        write_long(out, "runtime_version", g->runtime_version, 0);
        fputc('}', out);
    }
    fputc(']', out);
}

static void write_options(FILE *out, const cs_run_info_t *info)
{
    const cs_opts_t *o = info->opts;
    long it_small, wu_small, it_large, wu_large;
    cs_bench_iterations(info->bench, o, 0, &it_small, &wu_small);
    cs_bench_iterations(info->bench, o, CS_LARGE_MESSAGE_SIZE + 1, &it_large, &wu_large);
    fputc('{', out);
    write_long(out, "min_size", (long)info->plan->min_size, 1);
    write_long(out, "max_size", (long)info->plan->max_size, 0);
    write_long(out, "iterations_small", it_small, 0);
    write_long(out, "warmup_small", wu_small, 0);
    write_long(out, "iterations_large", it_large, 0);
    write_long(out, "warmup_large", wu_large, 0);
    write_long(out, "large_threshold", CS_LARGE_MESSAGE_SIZE, 0);
    write_long(out, "window", info->plan->window, 0);
    write_long(out, "pairs", info->plan->pairs, 0);
    write_bool(out, "vary_window", o->vary_window);
    cs_json_key(out, "send_mode", 0);
    cs_json_string(out, cs_send_mode_name(cs_bench_send_mode(info->bench, o)));
    cs_json_key(out, "buffers", 0);
    cs_json_string(out, o->buffers == CS_BUFFERS_SINGLE ? "single" : "multiple");
    write_bool(out, "validate", o->validate);
    write_long(out, "mem_limit", (long)o->mem_limit, 0);
    cs_json_key(out, "datatype", 0);
    cs_json_string(out, cs_dtype_name(info->plan->ndtypes ? info->plan->dtypes[0] : info->bench->dtype));
    write_long(out, "batch", o->batch, 0);
    cs_json_key(out, "percentiles", 0);
    fputc('[', out);
    for (int i = 0; i < o->npercentiles; i++) {
        if (i) fputc(',', out);
        cs_json_number(out, o->percentiles[i]);
    }
    fputc(']', out);
    write_bool(out, "full", o->full);
    if (o->precision.target_pct > 0) {
        cs_precision_cfg_t pc = cs_precision_resolve(&o->precision);
        cs_json_key(out, "precision", 0);
        fputc('{', out);
        write_number_field(out, "target_pct", pc.target_pct, 1);
        write_number_field(out, "max_time_s", pc.max_time_s, 0);
        write_long(out, "min_samples", pc.min_samples, 0);
        fputc('}', out);
    }
    write_family_options(out, info);
    if (info->plan->gpu) {
        cs_json_key(out, "accelerator", 0);
        cs_json_string(out, cs_accel_name(o->accel_set ? o->accel : CS_ACCEL_CUDA));
        write_memory(out, info->plan);
    }
    fputc('}', out);
}

/* The host's CPU count and each rank's CPU set (the binding in effect), where known. */
static void write_host_binding(FILE *out, const cs_host_t *host)
{
    if (host->cpu_count > 0) write_long(out, "cpu_count", host->cpu_count, 0);
    if (host->affinity == NULL) return;
    cs_json_key(out, "affinity", 0);
    fputc('[', out);
    for (int i = 0; i < host->nranks; i++) {
        if (i) fputc(',', out);
        cs_json_string(out, host->affinity[i]);
    }
    fputc(']', out);
}

static void write_hosts(FILE *out, const cs_run_info_t *info)
{
    fputc('[', out);
    for (int h = 0; h < info->nhosts; h++) {
        if (h) fputc(',', out);
        fputc('{', out);
        cs_json_key(out, "name", 1);
        cs_json_string(out, info->hosts[h].name);
        cs_json_key(out, "ranks", 0);
        fputc('[', out);
        for (int i = 0; i < info->hosts[h].nranks; i++) fprintf(out, i ? ",%d" : "%d", info->hosts[h].ranks[i]);
        fputc(']', out);
        write_host_binding(out, &info->hosts[h]);
        fputc('}', out);
    }
    fputc(']', out);
}

static void write_environment(FILE *out, const cs_run_info_t *info)
{
    fputc('{', out);
    for (int i = 0; i < info->nenvironment; i++) {
        const char *entry = info->environment[i];
        const char *eq = strchr(entry, '=');
        char key[256];
        size_t klen = eq ? (size_t)(eq - entry) : strlen(entry);
        if (klen >= sizeof key) klen = sizeof key - 1;
        memcpy(key, entry, klen);
        key[klen] = '\0';
        cs_json_key(out, key, i == 0);
        cs_json_string(out, eq ? eq + 1 : "");
    }
    fputc('}', out);
}

/* Everything known before the first measurement. */
static void write_header_fields(FILE *out, const cs_run_info_t *info)
{
    cs_json_key(out, "schema", 1);
    cs_json_string(out, "commscope-result");
    cs_json_key(out, "schema_version", 0);
    fputs("1", out);
    cs_json_key(out, "tool", 0);
    write_tool(out, info);
    cs_json_key(out, "argv", 0);
    fputc('[', out);
    for (int i = 0; i < info->argc; i++) {
        if (i) fputc(',', out);
        cs_json_string(out, info->argv[i]);
    }
    fputc(']', out);
    cs_json_key(out, "benchmark", 0);
    write_benchmark(out, info);
    cs_json_key(out, "options", 0);
    write_options(out, info);
    write_long(out, "planned_records", (long)cs_bench_planned_records(info->bench, info->opts, info->plan), 0);
    cs_json_key(out, "mpi", 0);
    fputc('{', out);
    cs_json_key(out, "library_version", 1);
    cs_json_string(out, info->mpi_library);
    cs_json_key(out, "standard_version", 0);
    cs_json_string(out, info->mpi_standard);
    write_long(out, "ranks", info->nranks, 0);
    fputc('}', out);
    cs_json_key(out, "hosts", 0);
    write_hosts(out, info);
    cs_json_key(out, "cpu_model", 0);
    cs_json_string(out, info->cpu_model);
    cs_json_key(out, "start_time", 0);
    cs_json_string(out, info->start_time);
    cs_json_key(out, "environment", 0);
    write_environment(out, info);
    if (info->plan->gpu) write_gpus(out, info);
}

static void write_stats(FILE *out, const cs_stats_t *s)
{
    fputc('{', out);
    cs_json_key(out, "unit", 1);
    cs_json_string(out, "us");
    write_long(out, "samples", (long)s->n, 0);
    write_number_field(out, "min", s->min, 0);
    write_number_field(out, "max", s->max, 0);
    write_number_field(out, "mean", s->mean, 0);
    write_number_field(out, "median", s->median, 0);
    write_number_field(out, "p50", s->p50, 0);
    write_number_field(out, "p90", s->p90, 0);
    write_number_field(out, "p99", s->p99, 0);
    write_number_field(out, "stddev", s->stddev, 0);
    write_number_field(out, "ci95_low", s->ci95_low, 0);
    write_number_field(out, "ci95_high", s->ci95_high, 0);
    fputc('}', out);
}

static void write_collective_metrics(FILE *out, const cs_run_info_t *info, const cs_record_t *r)
{
    const cs_bench_t *b = info->bench;
    if (b->flow && b->flow->busbw != CS_BUSBW_NONE) {
        write_number_field(out, "algbw_GBps", r->algbw_GBps, 0);
        write_number_field(out, "busbw_GBps", r->busbw_GBps, 0);
    }
    if (b->caps & CS_CAP_OVERLAP) {
        write_number_field(out, "overall_us", r->overall_us, 0);
        write_number_field(out, "compute_us", r->compute_us, 0);
        write_number_field(out, "init_us", r->init_us, 0);
        write_number_field(out, "test_us", r->test_us, 0);
        write_number_field(out, "wait_us", r->wait_us, 0);
        write_number_field(out, "pure_comm_us", r->pure_comm_us, 0);
        write_number_field(out, "min_comm_us", r->min_comm_us, 0);
        write_number_field(out, "max_comm_us", r->max_comm_us, 0);
        write_number_field(out, "overlap_pct", r->overlap_pct, 0);
    }
}

static void write_metrics(FILE *out, const cs_run_info_t *info, const cs_record_t *r)
{
    fputc('{', out);
    /* a pairs record is latency or bandwidth by what it measured */
    cs_metric_t metric = !r->pair.has_pair                 ? info->bench->metric
                         : r->pair.metric == CS_PM_LATENCY ? CS_METRIC_LATENCY
                                                           : CS_METRIC_BANDWIDTH;
    if (metric == CS_METRIC_LATENCY) {
        write_number_field(out, "latency_us", r->latency_us, 1);
        write_number_field(out, "min_latency_us", r->min_latency_us, 0);
        write_number_field(out, "max_latency_us", r->max_latency_us, 0);
        write_collective_metrics(out, info, r);
    } else {
        write_number_field(out, "bandwidth_MBps", r->bandwidth_MBps, 1);
        write_number_field(out, "min_bandwidth_MBps", r->min_bandwidth_MBps, 0);
        write_number_field(out, "max_bandwidth_MBps", r->max_bandwidth_MBps, 0);
        write_number_field(out, "message_rate", r->message_rate, 0);
    }
    fputc('}', out);
}

/* --precision: the target, what the size reached (null: too few rounds for an interval),
 * its rounds and why it stopped. Written only with --precision, so a document of OMB's
 * fixed counts is what it always was. */
static void write_precision(FILE *out, const cs_record_t *r)
{
    cs_json_key(out, "precision", 0);
    fputc('{', out);
    write_number_field(out, "target_pct", r->target_pct, 1);
    write_number_field(out, "achieved_pct", r->achieved_pct, 0);
    write_bool(out, "met", r->achieved_pct <= r->target_pct);
    write_long(out, "rounds", r->rounds, 0);
    cs_json_key(out, "stop", 0);
    cs_json_string(out, cs_stop_name(r->stop));
    fputc('}', out);
}

static const char *host_name(const cs_run_info_t *info, int index)
{
    return index >= 0 && index < info->nhosts ? info->hosts[index].name : "";
}

/* "pair": which ranks, on which hosts and cores, in which round, measuring what. */
static void write_pair(FILE *out, const cs_run_info_t *info, const cs_pair_record_t *p)
{
    cs_json_key(out, "pair", 0);
    fputc('{', out);
    write_long(out, "src", p->src, 1);
    write_long(out, "dst", p->dst, 0);
    cs_json_key(out, "metric", 0);
    cs_json_string(out, cs_pair_metric_name(p->metric));
    cs_json_key(out, "src_host", 0);
    cs_json_string(out, host_name(info, p->src_host));
    cs_json_key(out, "dst_host", 0);
    cs_json_string(out, host_name(info, p->dst_host));
    write_long(out, "src_cpu", p->src_cpu, 0);
    write_long(out, "dst_cpu", p->dst_cpu, 0);
    write_long(out, "round", p->round, 0);
    write_long(out, "slot", p->slot, 0);
    fputc('}', out);
}

static void write_record(FILE *out, const cs_run_info_t *info, const cs_record_t *r)
{
    fputc('{', out);
    write_long(out, "size", (long)r->size, 1);
    write_long(out, "window", r->window, 0);
    write_long(out, "iterations", r->iterations, 0);
    write_long(out, "warmup", r->warmup, 0);
    write_long(out, "batch", r->batch, 0);
    cs_json_key(out, "stats", 0);
    write_stats(out, &r->stats);
    cs_json_key(out, "metrics", 0);
    if (r->congestion.has) cs_json_congestion_metrics(out, r);
    else write_metrics(out, info, r);
    cs_json_key(out, "percentiles", 0);
    fputc('[', out);
    for (int i = 0; i < info->opts->npercentiles; i++) {
        fputs(i ? ",{" : "{", out);
        write_number_field(out, "p", info->opts->percentiles[i], 1);
        write_number_field(out, "value", r->percentile_values[i], 0);
        fputc('}', out);
    }
    fputc(']', out);
    cs_json_key(out, "validation", 0);
    if (r->validated) fprintf(out, "{\"errors\":%ld}", r->errors);
    else fputs("null", out);
    if (r->has_precision) write_precision(out, r);
    if (info->bench->caps & CS_CAP_DATATYPES) {
        cs_json_key(out, "datatype", 0);
        cs_json_string(out, cs_dtype_name(r->dtype));
    }
    if (info->bench->caps & CS_CAP_RMA) {
        cs_json_key(out, "window_creation", 0);
        cs_json_string(out, cs_win_mode_option(r->win_mode));
        cs_json_key(out, "synchronization", 0);
        cs_json_string(out, cs_sync_option(r->sync_mode));
    }
    if (info->plan->gpu) write_memory(out, info->plan);
    if (r->pair.has_pair) write_pair(out, info, &r->pair);
    if (r->congestion.has) cs_json_congestion_axes(out, r);
    fputc('}', out);
}

static void write_end_fields(FILE *out, const cs_run_end_t *end, int first)
{
    cs_json_key(out, "end_time", first);
    cs_json_string(out, end->end_time);
    cs_json_key(out, "status", 0);
    cs_json_string(out, cs_run_status_name(end->status));
}

static void doc_begin(cs_reporter_t *r, const cs_run_info_t *info)
{
    fputc('{', r->out);
    write_header_fields(r->out, info);
    cs_json_key(r->out, "results", 0);
    fputc('[', r->out);
}

static void doc_record(cs_reporter_t *r, const cs_run_info_t *info, const cs_record_t *rec)
{
    if (r->nrecords++) fputc(',', r->out);
    fputc('\n', r->out);
    write_record(r->out, info, rec);
}

static void doc_end(cs_reporter_t *r, const cs_run_info_t *info, const cs_run_end_t *end)
{
    (void)info;
    fputs("],\n", r->out);
    write_end_fields(r->out, end, 1);
    fputs("}\n", r->out);
    fflush(r->out);
}

static void lines_begin(cs_reporter_t *r, const cs_run_info_t *info)
{
    fputs("{\"header\":{", r->out);
    write_header_fields(r->out, info);
    fputs("}}\n", r->out);
    fflush(r->out);
}

static void lines_record(cs_reporter_t *r, const cs_run_info_t *info, const cs_record_t *rec)
{
    r->nrecords++;
    fputs("{\"record\":", r->out);
    write_record(r->out, info, rec);
    fputs("}\n", r->out);
    fflush(r->out); /* a reader tails this file for progress and for partial results */
}

static void lines_end(cs_reporter_t *r, const cs_run_info_t *info, const cs_run_end_t *end)
{
    (void)info;
    fputs("{\"end\":{", r->out);
    write_end_fields(r->out, end, 1);
    fputs("}}\n", r->out);
    fflush(r->out);
}

const cs_reporter_ops_t cs_report_json = {doc_begin, doc_record, doc_end};
const cs_reporter_ops_t cs_report_jsonl = {lines_begin, lines_record, lines_end};
