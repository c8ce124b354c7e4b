/* The record stream's start lines (record/record.h cs_started_t): one per rank, before the
 * header, in the order rank 0 learns of them. */
#include "report/json_writer.h"
#include "report/report.h"

void cs_jsonl_started(FILE *out, const cs_started_t *s)
{
    fputs("{\"started\":{", out);
    cs_json_key(out, "rank", 1);
    fprintf(out, "%d", s->rank);
    cs_json_key(out, "host", 0);
    cs_json_string(out, s->host);
    cs_json_key(out, "pid", 0);
    fprintf(out, "%ld", s->pid);
    fputs("}}\n", out);
    fflush(out);
}
