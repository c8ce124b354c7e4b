/* The little JSON output the core needs: escaped strings and finite numbers. */
#ifndef CS_JSON_WRITER_H
#define CS_JSON_WRITER_H

#include <stdio.h>

void cs_json_string(FILE *out, const char *s);
/* Finite numbers with enough digits to round-trip a microsecond; NaN/inf become null. */
void cs_json_number(FILE *out, double v);
/* "key": prefixed by a comma unless first */
void cs_json_key(FILE *out, const char *key, int first);

#endif
