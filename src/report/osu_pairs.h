/* The pairs benchmark's OSU-style table: a line per pair (source, destination, a column
 * per metric), modelled on the one-host-to-every-node tables people make from OMB runs.
 * The records of one round arrive metric by metric; they are held until the round ends,
 * so rank 0 keeps one round, never the whole matrix. MPI-free. */
#ifndef CS_OSU_PAIRS_H
#define CS_OSU_PAIRS_H

#include "report/report.h"

void cs_osu_pairs_intro(FILE *out, const cs_run_info_t *info);
void cs_osu_pairs_record(cs_reporter_t *r, const cs_run_info_t *info, const cs_record_t *rec);
void cs_osu_pairs_end(cs_reporter_t *r, const cs_run_info_t *info);

#endif
