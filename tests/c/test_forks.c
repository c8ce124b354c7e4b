/* The processes latency_mp forks beside a rank: they wait until released, then exit 0;
 * none is left behind. MPI-free. */
#include <signal.h>
#include <sys/types.h>

#include "check.h"
#include "util/forks.h"

int main(void)
{
    cs_forks_t f;
    char err[256];
    CHECK(cs_forks_start(&f, 3, err, sizeof err) == CS_OK);
    CHECK(f.n == 3);
    pid_t pids[3] = {f.pids[0], f.pids[1], f.pids[2]};
    for (int i = 0; i < 3; i++) CHECK(kill(pids[i], 0) == 0); /* alive, waiting */
    CHECK(cs_forks_stop(&f) == 0);                            /* released: each exited 0 */
    for (int i = 0; i < 3; i++) CHECK(kill(pids[i], 0) != 0); /* reaped */
    CHECK(f.n == 0 && f.pids == NULL);
    CHECK(cs_forks_start(&f, 0, err, sizeof err) == CS_OK && cs_forks_stop(&f) == 0);
    return check_report("test_forks");
}
