/* Start-up patterns. init: the time of MPI_Init, measured by main from its first line
 * (clock_gettime) to MPI_Init's return, reported across ranks as OMB's osu_init does.
 * hello: nothing to time; the run itself is the test (OMB: wrap it in `time mpirun`). */
#include "core/pattern.h"

static cs_status_t idle(cs_ctx_t *c)
{
    c->active = false;
    c->timer = true;
    return CS_OK;
}

static cs_status_t no_iterations(cs_ctx_t *c, long first, long n)
{
    (void)c, (void)first, (void)n;
    return CS_OK;
}

static double init_seconds(const cs_ctx_t *c) { return c->info->init_seconds; }

const cs_pattern_t cs_pattern_init = {.name = "startup",
                                      .time_divisor = 1.0,
                                      .timers = CS_TIMERS_EVERY,
                                      .setup = idle,
                                      .teardown = cs_pattern_nothing,
                                      .begin = cs_pattern_nothing,
                                      .iterations = no_iterations,
                                      .end = cs_pattern_nothing,
                                      .given_seconds = init_seconds};
const cs_pattern_t cs_pattern_hello = {.name = "none",
                                       .time_divisor = 1.0,
                                       .timers = CS_TIMERS_SOME,
                                       .setup = idle,
                                       .teardown = cs_pattern_nothing,
                                       .begin = cs_pattern_nothing,
                                       .iterations = no_iterations,
                                       .end = cs_pattern_nothing};
