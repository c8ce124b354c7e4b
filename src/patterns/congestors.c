/* The congestors' traffic, GPCNeT's congestors on the congestor ranks' communicator, 4 KiB
 * messages: alltoall; two-sided incast (everyone sends to rank 0); put incast (everyone
 * puts into rank 0's window); two-sided bcast (rank 0 sends to everyone); get bcast
 * (everyone gets from rank 0's window). */
#include <stdlib.h>
#include <string.h>

#include "mpi/check.h"
#include "patterns/congestion.h"
#include "util/mask.h"

#define TAG_CONGEST 7401
#define BLOCK       ((int)CS_CONG_MSG_SIZE)

double cs_congestor_bytes(const cs_cong_t *s)
{
    if (s->congestor == CS_CONG_ALLTOALL) return (double)CS_CONG_MSG_SIZE * (s->gsize - 1);
    return s->grank == 0 ? 0 : (double)CS_CONG_MSG_SIZE;
}

cs_status_t cs_congestors_setup(cs_cong_t *s)
{
    size_t all = (size_t)s->gsize * CS_CONG_MSG_SIZE;
    s->csend = calloc(all, 1);
    s->crecv = calloc(all, 1);
    s->crequests = calloc((size_t)s->gsize, sizeof *s->crequests);
    s->cstatuses = calloc((size_t)s->gsize, sizeof *s->cstatuses); /* MPICH declares Waitall to write them */
    if (!s->csend || !s->crecv || !s->crequests || !s->cstatuses) return CS_TRACE(CS_ERR_RUNTIME);
    s->win = MPI_WIN_NULL;
    s->win_error = MPI_SUCCESS;
    unsigned onesided = CS_MASK(CS_CONG_PUT_INCAST) | CS_MASK(CS_CONG_GET_BCAST);
    if (!(s->spec->congestors & onesided)) return CS_OK;
    MPI_Aint bytes = s->grank == 0 ? (MPI_Aint)all : 0;
    /* A window creation's error goes to the communicator's handler: returned here, so that a
     * library that cannot open one over this fabric costs its congestors, not the run. */
    MPI_Errhandler previous;
    CS_MPI(MPI_Comm_get_errhandler(s->group, &previous));
    CS_MPI(MPI_Comm_set_errhandler(s->group, MPI_ERRORS_RETURN));
    int rc = MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, s->group, &s->win_base, &s->win);
    CS_MPI(MPI_Comm_set_errhandler(s->group, previous));
    MPI_Errhandler_free(&previous);
    if (rc != MPI_SUCCESS) {
        MPI_Error_class(rc, &s->win_error);
        s->win = MPI_WIN_NULL;
    }
    return CS_OK;
}

bool cs_congestor_one_sided(cs_congestor_t c) { return c == CS_CONG_PUT_INCAST || c == CS_CONG_GET_BCAST; }

void cs_congestors_teardown(cs_cong_t *s)
{
    if (s->win != MPI_WIN_NULL) MPI_Win_free(&s->win);
    free(s->csend);
    free(s->crecv);
    free(s->crequests);
    free(s->cstatuses);
}

/* One operation of the congestor; *bytes: what this rank moved (0 for rank 0 of the incasts
 * and broadcasts, which GPCNeT leaves out of its numbers too). */
static cs_status_t congest_once(cs_cong_t *s, double *bytes)
{
    const int n = s->gsize, me = s->grank;
    *bytes = cs_congestor_bytes(s);
    switch (s->congestor) {
    case CS_CONG_ALLTOALL: CS_MPI(MPI_Alltoall(s->csend, BLOCK, MPI_BYTE, s->crecv, BLOCK, MPI_BYTE, s->group)); break;
    case CS_CONG_INCAST:
        if (me != 0) {
            CS_MPI(MPI_Send(s->csend, BLOCK, MPI_BYTE, 0, TAG_CONGEST, s->group));
            break;
        }
        for (int r = 1; r < n; r++)
            CS_MPI(MPI_Irecv(s->crecv + (size_t)r * CS_CONG_MSG_SIZE, BLOCK, MPI_BYTE, r, TAG_CONGEST, s->group,
                             &s->crequests[r - 1]));
        CS_MPI(MPI_Waitall(n - 1, s->crequests, s->cstatuses));
        break;
    case CS_CONG_BCAST:
        if (me != 0) {
            CS_MPI(MPI_Recv(s->crecv, BLOCK, MPI_BYTE, 0, TAG_CONGEST, s->group, MPI_STATUS_IGNORE));
            break;
        }
        for (int r = 1; r < n; r++)
            CS_MPI(MPI_Isend(s->csend, BLOCK, MPI_BYTE, r, TAG_CONGEST, s->group, &s->crequests[r - 1]));
        CS_MPI(MPI_Waitall(n - 1, s->crequests, s->cstatuses));
        break;
    case CS_CONG_PUT_INCAST:
        if (me == 0) break;
        CS_MPI(MPI_Put(s->csend, BLOCK, MPI_BYTE, 0, (MPI_Aint)me * BLOCK, BLOCK, MPI_BYTE, s->win));
        CS_MPI(MPI_Win_flush(0, s->win));
        break;
    case CS_CONG_GET_BCAST:
        if (me == 0) break;
        CS_MPI(MPI_Get(s->crecv, BLOCK, MPI_BYTE, 0, 0, BLOCK, MPI_BYTE, s->win));
        CS_MPI(MPI_Win_flush(0, s->win));
        break;
    default: break;
    }
    return CS_OK;
}

/* Operations until `stop` says so. The congestors agree after every CS_CONG_AGREE_EVERY
 * operations (an allreduce on their communicator), so all of them leave after the same
 * one; between agreements the eager sends of the incasts and broadcasts stream like
 * GPCNeT's loops of operations, instead of waiting for a round trip each. */
#define CS_CONG_AGREE_EVERY 32

typedef bool (*cs_stop_fn)(void *arg);

static cs_status_t congest_until(cs_cong_t *s, cs_stop_fn stop, void *arg, double *samples, long cap, long *nsamples,
                                 long *ops)
{
    if (cs_congestor_one_sided(s->congestor)) CS_MPI(MPI_Win_lock_all(0, s->win));
    *ops = 0;
    if (nsamples) *nsamples = 0;
    for (int any = 0; !any;) {
        double bytes, t0 = MPI_Wtime();
        CS_CHECK(congest_once(s, &bytes));
        double dt = MPI_Wtime() - t0;
        ++*ops;
        if (samples && bytes > 0 && *nsamples < cap) samples[(*nsamples)++] = dt;
        if (*ops % CS_CONG_AGREE_EVERY != 0) continue;
        int mine = stop(arg);
        CS_MPI(MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, s->group));
    }
    if (cs_congestor_one_sided(s->congestor)) CS_MPI(MPI_Win_unlock_all(s->win));
    return CS_OK;
}

typedef struct until_barrier {
    MPI_Request req;
    cs_status_t st;
} until_barrier_t;

static bool barrier_done(void *arg)
{
    until_barrier_t *u = arg;
    int flag = 0;
    if (u->req == MPI_REQUEST_NULL) return true;
    if (MPI_Test(&u->req, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS) u->st = CS_TRACE(CS_ERR_RUNTIME), flag = 1;
    return flag != 0;
}

cs_status_t cs_congestors_load(cs_cong_t *s, MPI_Comm world, long *ops)
{
    double bytes;
    MPI_Request start;
    if (cs_congestor_one_sided(s->congestor)) CS_MPI(MPI_Win_lock_all(0, s->win));
    CS_CHECK(congest_once(s, &bytes)); /* the network is loaded before the canaries start */
    if (cs_congestor_one_sided(s->congestor)) CS_MPI(MPI_Win_unlock_all(s->win));
    CS_MPI(MPI_Ibarrier(world, &start));
    CS_MPI(MPI_Wait(&start, MPI_STATUS_IGNORE));
    until_barrier_t done = {MPI_REQUEST_NULL, CS_OK};
    CS_MPI(MPI_Ibarrier(world, &done.req)); /* completes when every canary has finished */
    CS_CHECK(congest_until(s, barrier_done, &done, NULL, 0, NULL, ops));
    if (done.req != MPI_REQUEST_NULL) CS_MPI(MPI_Wait(&done.req, MPI_STATUS_IGNORE));
    return done.st;
}

typedef struct until_time {
    double end;
} until_time_t;

static bool time_up(void *arg) { return MPI_Wtime() >= ((until_time_t *)arg)->end; }

cs_status_t cs_congestors_alone(cs_cong_t *s, double *samples, long cap, long *nsamples, long *ops)
{
    double bytes;
    if (cs_congestor_one_sided(s->congestor)) CS_MPI(MPI_Win_lock_all(0, s->win));
    CS_CHECK(congest_once(s, &bytes)); /* warm-up: connections made */
    if (cs_congestor_one_sided(s->congestor)) CS_MPI(MPI_Win_unlock_all(s->win));
    CS_MPI(MPI_Barrier(s->group));
    until_time_t until = {MPI_Wtime() + s->duration_s};
    return congest_until(s, time_up, &until, samples, cap, nsamples, ops);
}
