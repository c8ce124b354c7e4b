/* The output formats (--format): what main.c maps to report/'s reporters. MPI-free. */
#ifndef CS_FORMAT_H
#define CS_FORMAT_H

typedef enum cs_format { CS_FORMAT_OSU, CS_FORMAT_JSON, CS_FORMAT_CSV } cs_format_t;

const char *cs_format_name(cs_format_t f); /* "osu", "json", "csv" */

#endif
