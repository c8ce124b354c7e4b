/* The congestion benchmark in the reporters: an OSU-style line per canary test and
 * congestor (isolated, congested, impact factor), and its JSON options and record fields.
 * MPI-free. */
#ifndef CS_REPORT_CONGESTION_OUT_H
#define CS_REPORT_CONGESTION_OUT_H

#include <stdio.h>

#include "record/record.h"

void cs_osu_congestion_intro(FILE *out, const cs_run_info_t *info);
void cs_osu_congestion_line(FILE *out, const cs_run_info_t *info, const cs_record_t *rec);

/* "canary_fraction", ... in the header's options (first: not the object's first key) */
void cs_json_congestion_options(FILE *out, const cs_run_info_t *info);
/* the record's metrics object */
void cs_json_congestion_metrics(FILE *out, const cs_record_t *rec);
/* "canary" and "congestor" beside the record's other keys */
void cs_json_congestion_axes(FILE *out, const cs_record_t *rec);

#endif
