/* Multi-threaded ping-pong (OMB's osu_latency_mt): rank 0's sender threads each make round
 * trips with rank 1, whose receiver threads answer whichever message comes first. Every
 * thread has its own buffers; the MPI library must provide MPI_THREAD_MULTIPLE (main.c
 * asks for it and refuses the run where it is not provided).
 *
 * An iteration is one round trip of every sender thread, so a batch's time over its
 * iterations is the round trip one thread sees, which OMB averages over its sender
 * threads. The receiver threads run from begin to end, answering until rank 0 sends each
 * of them a stop message, so nothing waits on a dispatch at the receiving end. Sender
 * threads beyond the calling one wait for each batch on a generation counter. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/hot.h"
#include "core/pattern.h"
#include "mpi/check.h"
#include "util/validate.h"

#define TAG_DATA 21
#define TAG_STOP 22

struct cs_mt;

typedef struct mt_thread {
    struct cs_mt *mt;
    pthread_t tid;
    bool running;
    char *sbuf, *rbuf;
    long answered; /* receiver: messages answered since begin */
    cs_status_t status;
} mt_thread_t;

typedef struct cs_mt {
    MPI_Comm comm;
    int nthreads; /* this rank's: sender threads on rank 0, receiver threads on rank 1 */
    int peer_threads;
    int peer;
    bool sender;
    int count; /* elements of type in a message at the current size */
    MPI_Datatype type;
    mt_thread_t *threads;
    uint8_t *staging;
    atomic_long generation; /* senders: bumped per batch, -1 ends the workers */
    atomic_int finished;
    long batch;
} cs_mt_t;

static cs_mt_t *mt_of(const cs_ctx_t *c) { return c->state; }

static cs_status_t round_trips(const cs_mt_t *m, const mt_thread_t *t, long n)
{
    for (long i = 0; i < n; i++) {
        CS_MPI(MPI_Send(t->sbuf, m->count, m->type, m->peer, TAG_DATA, m->comm));
        CS_MPI(MPI_Recv(t->rbuf, m->count, m->type, m->peer, TAG_DATA, m->comm, MPI_STATUS_IGNORE));
    }
    return CS_OK;
}

static void *sender_worker(void *arg)
{
    mt_thread_t *t = arg;
    cs_mt_t *m = t->mt;
    long seen = 0;
    for (;;) {
        long g;
        while ((g = atomic_load(&m->generation)) == seen) sched_yield();
        if (g < 0) return NULL;
        seen = g;
        if (t->status == CS_OK) t->status = round_trips(m, t, m->batch);
        atomic_fetch_add(&m->finished, 1);
    }
}

static cs_status_t answer(cs_mt_t *m, mt_thread_t *t)
{
    for (;;) {
        MPI_Status st;
        CS_MPI(MPI_Recv(t->rbuf, m->count, m->type, m->peer, MPI_ANY_TAG, m->comm, &st));
        if (st.MPI_TAG == TAG_STOP) return CS_OK;
        t->answered++;
        CS_MPI(MPI_Send(t->sbuf, m->count, m->type, m->peer, TAG_DATA, m->comm));
    }
}

static void *receiver(void *arg)
{
    mt_thread_t *t = arg;
    t->status = answer(t->mt, t);
    return NULL;
}

static cs_status_t mt_setup(cs_ctx_t *c)
{
    cs_mt_t *m = calloc(1, sizeof *m);
    if (m == NULL) return CS_TRACE(CS_ERR_RUNTIME);
    c->state = m;
    const cs_plan_t *plan = c->info->plan;
    m->comm = c->comm;
    m->sender = c->rank == 0;
    m->peer = 1 - c->rank;
    m->nthreads = plan->workers[m->sender ? 0 : 1];
    m->peer_threads = plan->workers[m->sender ? 1 : 0];
    c->active = true;
    c->timer = m->sender;
    size_t bytes = plan->max_size ? plan->max_size : 1;
    m->threads = calloc((size_t)m->nthreads, sizeof *m->threads);
    m->staging = malloc(bytes);
    if (m->threads == NULL || m->staging == NULL) return CS_TRACE(CS_ERR_RUNTIME);
    for (int i = 0; i < m->nthreads; i++) {
        m->threads[i].mt = m;
        CS_CHECK(c->mem->alloc(bytes, (void **)&m->threads[i].sbuf));
        CS_CHECK(c->mem->alloc(bytes, (void **)&m->threads[i].rbuf));
    }
    return CS_OK;
}

static cs_status_t mt_teardown(cs_ctx_t *c)
{
    cs_mt_t *m = mt_of(c);
    if (m == NULL) return CS_OK;
    for (int i = 0; m->threads && i < m->nthreads; i++) {
        if (m->threads[i].sbuf) c->mem->free(m->threads[i].sbuf);
        if (m->threads[i].rbuf) c->mem->free(m->threads[i].rbuf);
    }
    free(m->threads);
    free(m->staging);
    free(m);
    c->state = NULL;
    return CS_OK;
}

/* Starts the threads of one measurement: every receiver, the senders beyond the first. */
static cs_status_t mt_begin(cs_ctx_t *c)
{
    cs_mt_t *m = mt_of(c);
    m->count = cs_ctx_count(c);
    m->type = cs_mpi_datatype(c->dtype);
    atomic_store(&m->generation, 0);
    for (int i = m->sender ? 1 : 0; i < m->nthreads; i++) {
        mt_thread_t *t = &m->threads[i];
        t->answered = 0;
        t->status = CS_OK;
        if (pthread_create(&t->tid, NULL, m->sender ? sender_worker : receiver, t) != 0)
            return CS_TRACE(CS_ERR_RUNTIME);
        t->running = true;
    }
    return CS_OK;
}

/* Senders: the workers leave, then each receiver gets its stop message. Receivers: their
 * threads are joined. Either side reports the first thread that failed. */
static cs_status_t mt_end(cs_ctx_t *c)
{
    cs_mt_t *m = mt_of(c);
    if (m->sender) atomic_store(&m->generation, -1);
    cs_status_t st = CS_OK;
    for (int i = 0; i < m->nthreads; i++) {
        mt_thread_t *t = &m->threads[i];
        if (t->running) pthread_join(t->tid, NULL);
        t->running = false;
        if (st == CS_OK) st = t->status;
    }
    if (m->sender)
        for (int i = 0; i < m->peer_threads; i++) CS_MPI(MPI_Send(NULL, 0, MPI_CHAR, m->peer, TAG_STOP, m->comm));
    return st;
}

CS_HOT static cs_status_t mt_iterations(cs_ctx_t *c, long first, long n)
{
    (void)first;
    cs_mt_t *m = mt_of(c);
    if (!m->sender) return CS_OK; /* the receiver threads answer on their own */
    if (m->nthreads > 1) {
        m->batch = n;
        atomic_store(&m->finished, 0);
        atomic_fetch_add(&m->generation, 1);
    }
    cs_status_t st = round_trips(m, &m->threads[0], n);
    while (atomic_load(&m->finished) < m->nthreads - 1) sched_yield();
    for (int i = 1; i < m->nthreads && st == CS_OK; i++) st = m->threads[i].status;
    return st;
}

/* -c: every thread sends the same data (a receiver cannot know which sender thread it
 * answers); each thread that received checks what it holds. */
static cs_status_t mt_fill(cs_ctx_t *c, long iteration)
{
    (void)iteration;
    cs_mt_t *m = mt_of(c);
    for (int i = 0; i < m->nthreads; i++) {
        cs_pattern_fill(m->staging, c->size, c->rank, c->size, 0);
        CS_CHECK(c->mem->from_host(m->threads[i].sbuf, m->staging, c->size));
        cs_pattern_fill_unlike(m->staging, c->size, m->peer, c->size, 0);
        CS_CHECK(c->mem->from_host(m->threads[i].rbuf, m->staging, c->size));
    }
    return CS_OK;
}

static cs_status_t mt_check(cs_ctx_t *c, long iteration, long *wrong)
{
    (void)iteration;
    cs_mt_t *m = mt_of(c);
    *wrong = 0;
    for (int i = 0; i < m->nthreads; i++) {
        if (!m->sender && m->threads[i].answered == 0) continue;
        CS_CHECK(c->mem->to_host(m->staging, m->threads[i].rbuf, c->size));
        *wrong += cs_pattern_mismatches(m->staging, c->size, m->peer, c->size, 0);
    }
    return CS_OK;
}

const cs_pattern_t cs_pattern_pingpong_threads = {.name = "pingpong_threads",
                                                  .time_divisor = 2.0,
                                                  .timers = CS_TIMERS_SOME,
                                                  .setup = mt_setup,
                                                  .teardown = mt_teardown,
                                                  .begin = mt_begin,
                                                  .iterations = mt_iterations,
                                                  .end = mt_end,
                                                  .fill = mt_fill,
                                                  .check = mt_check};
