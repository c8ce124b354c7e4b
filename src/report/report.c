#include "report/report.h"

#include <stdlib.h>

void cs_reporter_init(cs_reporter_t *r, const cs_reporter_ops_t *ops, FILE *out)
{
    r->ops = ops;
    r->out = out;
    r->nrecords = 0;
    r->held = NULL;
    r->nheld = r->held_cap = 0;
}

void cs_reporter_free(cs_reporter_t *r)
{
    free(r->held);
    r->held = NULL;
    r->nheld = r->held_cap = 0;
}

void cs_reporter_hold(cs_reporter_t *r, const cs_record_t *rec)
{
    if (r->nheld == r->held_cap) {
        size_t cap = r->held_cap ? 2 * r->held_cap : 64;
        cs_record_t *grown = realloc(r->held, cap * sizeof *grown);
        if (grown == NULL) return;
        r->held = grown;
        r->held_cap = cap;
    }
    r->held[r->nheld++] = *rec;
}
