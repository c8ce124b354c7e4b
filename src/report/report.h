/* Reporters render records; several may run at once (--format osu --json-out f). */
#ifndef CS_REPORT_H
#define CS_REPORT_H

#include <stdio.h>

#include "record/record.h"

typedef struct cs_reporter cs_reporter_t;

typedef struct cs_reporter_ops {
    void (*begin)(cs_reporter_t *r, const cs_run_info_t *info);
    void (*record)(cs_reporter_t *r, const cs_run_info_t *info, const cs_record_t *rec);
    void (*end)(cs_reporter_t *r, const cs_run_info_t *info, const cs_run_end_t *end);
} cs_reporter_ops_t;

struct cs_reporter {
    const cs_reporter_ops_t *ops;
    FILE *out;
    size_t nrecords;
    /* records held back for layouts that print them later: mbw_mr -V at the end, pairs a round at a time */
    cs_record_t *held;
    size_t nheld, held_cap;
    /* the sweep point whose column header was printed last (osu: a new datatype or
     * one-sided mode starts a new table) */
    cs_dtype_t shown_dtype;
    cs_win_mode_t shown_win;
    cs_rma_sync_t shown_sync;
};

extern const cs_reporter_ops_t cs_report_osu;
extern const cs_reporter_ops_t cs_report_json;  /* one JSON document */
extern const cs_reporter_ops_t cs_report_jsonl; /* header line, a line per record, end line */
extern const cs_reporter_ops_t cs_report_csv;

/* One line of the record stream: {"started":{"rank":R,"host":"H","pid":P}}, flushed at once
 * (the reader judges a launch that never ends by the ranks it names). */
void cs_jsonl_started(FILE *out, const cs_started_t *s);

void cs_reporter_init(cs_reporter_t *r, const cs_reporter_ops_t *ops, FILE *out);
void cs_reporter_free(cs_reporter_t *r);
/* Appends a copy of rec to r's held records. Out of memory, the record is left out of this
 * reporter's table only: the other reporters (JSON, CSV) print it as it comes. */
void cs_reporter_hold(cs_reporter_t *r, const cs_record_t *rec);

#endif
