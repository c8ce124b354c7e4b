/* Status codes passed up the call chain; only main() turns them into an exit code. */
#ifndef CS_STATUS_H
#define CS_STATUS_H

#include <stdio.h>

typedef enum cs_status {
    CS_OK = 0,
    CS_ERR_RUNTIME = 1,    /* MPI or system failure */
    CS_ERR_USAGE = 2,      /* the user asked for something we cannot do */
    CS_ERR_VALIDATION = 3, /* data arrived wrong (-c) */
} cs_status_t;

/* Trace where an error came from, then hand it to the caller. */
#define CS_TRACE(st) (fprintf(stderr, "commscope-bench: error at %s:%d\n", __FILE__, __LINE__), (st))

#define CS_CHECK(expr)                                                                                                 \
    do {                                                                                                               \
        cs_status_t cs_st_ = (expr);                                                                                   \
        if (cs_st_ != CS_OK) return cs_st_;                                                                            \
    } while (0)

#endif
