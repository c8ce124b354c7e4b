/* Pair schedules of the pairs benchmark: every pair exactly once, no rank in two pairs
 * of a round, the number of rounds (n-1 for all-pairs, n when n is odd), each rank's own
 * view (slot_of) agreeing with the round's list, and FILE errors naming FILE:LINE. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "util/schedule.h"

/* Walks every round; counts[src * n + dst] counts the pairs seen. */
static void walk(const cs_schedule_t *s, int *counts, long expect_rounds)
{
    int n = s->n;
    int *seen_in_round = malloc((size_t)n * sizeof *seen_in_round);
    CHECK(cs_schedule_rounds(s) == expect_rounds);
    long total = 0;
    for (long r = 0; r < cs_schedule_rounds(s); r++) {
        for (int i = 0; i < n; i++) seen_in_round[i] = 0;
        for (long k = 0; k < cs_schedule_slots(s, r); k++) {
            cs_sched_pair_t p;
            if (!cs_schedule_pair(s, r, k, &p)) continue;
            CHECK(p.src >= 0 && p.src < n && p.dst >= 0 && p.dst < n && p.src != p.dst);
            CHECK(!seen_in_round[p.src] && !seen_in_round[p.dst]); /* nobody twice in a round */
            seen_in_round[p.src] = seen_in_round[p.dst] = 1;
            counts[p.src * n + p.dst]++;
            total++;
            /* both ranks find the same pair in the same slot on their own */
            cs_sched_pair_t mine;
            CHECK(cs_schedule_slot_of(s, r, p.src, &mine) == k && mine.src == p.src && mine.dst == p.dst);
            CHECK(cs_schedule_slot_of(s, r, p.dst, &mine) == k && mine.src == p.src && mine.dst == p.dst);
        }
        for (int i = 0; i < n; i++) {
            cs_sched_pair_t mine;
            if (!seen_in_round[i]) CHECK(cs_schedule_slot_of(s, r, i, &mine) == -1);
        }
    }
    CHECK(total == cs_schedule_npairs(s));
    free(seen_in_round);
}

static void all_pairs(int n)
{
    char err[256];
    cs_schedule_t s;
    CHECK(cs_schedule_generated(&s, CS_SCHED_ALL_PAIRS, n, 0, err, sizeof err) == CS_OK);
    int *counts = calloc((size_t)n * n, sizeof *counts);
    walk(&s, counts, n % 2 ? n : n - 1);
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) {
            CHECK(counts[a * n + b] == 1); /* every unordered pair once, lower rank first */
            CHECK(counts[b * n + a] == 0);
        }
    /* a full round when n is even: n/2 pairs at once */
    if (n % 2 == 0) {
        long pairs = 0;
        for (long k = 0; k < cs_schedule_slots(&s, 0); k++) {
            cs_sched_pair_t p;
            pairs += cs_schedule_pair(&s, 0, k, &p);
        }
        CHECK(pairs == n / 2);
    }
    free(counts);
}

static void one_to_all(int n, int root)
{
    char err[256];
    cs_schedule_t s;
    CHECK(cs_schedule_generated(&s, CS_SCHED_ONE_TO_ALL, n, root, err, sizeof err) == CS_OK);
    int *counts = calloc((size_t)n * n, sizeof *counts);
    walk(&s, counts, n - 1);
    for (int b = 0; b < n; b++) CHECK(counts[root * n + b] == (b != root));
    free(counts);
}

static void ring(int n)
{
    char err[256];
    cs_schedule_t s;
    CHECK(cs_schedule_generated(&s, CS_SCHED_RING, n, 0, err, sizeof err) == CS_OK);
    int *counts = calloc((size_t)n * n, sizeof *counts);
    walk(&s, counts, n == 2 ? 1 : (n % 2 ? 3 : 2));
    if (n > 2)
        for (int i = 0; i < n; i++) CHECK(counts[i * n + (i + 1) % n] == 1);
    free(counts);
}

#define FILE_BAD(text, n, expect)                                                                                      \
    do {                                                                                                               \
        cs_schedule_t s_;                                                                                              \
        CHECK(cs_schedule_parse_file(&s_, text, "pairs.txt", n, err, sizeof err) == CS_ERR_USAGE);                     \
        CHECK_CONTAINS(err, expect);                                                                                   \
    } while (0)

int main(void)
{
    for (int n = 2; n <= 41; n++) {
        all_pairs(n);
        one_to_all(n, 0);
        one_to_all(n, n - 1);
        ring(n);
    }
    all_pairs(1000);

    char err[256];
    cs_sched_kind_t kind;
    int root;
    const char *file;
    CHECK(cs_schedule_parse_spec("one-to-all:3", &kind, &root, &file, err, sizeof err) == CS_OK);
    CHECK(kind == CS_SCHED_ONE_TO_ALL && root == 3 && file == NULL);
    CHECK(cs_schedule_parse_spec("all-pairs", &kind, &root, &file, err, sizeof err) == CS_OK &&
          kind == CS_SCHED_ALL_PAIRS);
    CHECK(cs_schedule_parse_spec("pairs.txt", &kind, &root, &file, err, sizeof err) == CS_OK && kind == CS_SCHED_FILE);
    CHECK(cs_schedule_parse_spec("one-to-all:x", &kind, &root, &file, err, sizeof err) == CS_ERR_USAGE);
    CHECK_CONTAINS(err, "--schedule one-to-all:x");
    cs_schedule_t s;
    CHECK(cs_schedule_generated(&s, CS_SCHED_ONE_TO_ALL, 4, 4, err, sizeof err) == CS_ERR_USAGE);
    CHECK_CONTAINS(err, "one-to-all:4");

    /* a file: rounds assigned in order, nobody twice in a round */
    const char *text = "# retest\n0 1\n2,3\n\n1 2  # both busy in round 0\n0 3\n";
    CHECK(cs_schedule_parse_file(&s, text, "pairs.txt", 4, err, sizeof err) == CS_OK);
    int *counts = calloc(16, sizeof *counts);
    walk(&s, counts, 2);
    CHECK(counts[0 * 4 + 1] == 1 && counts[2 * 4 + 3] == 1 && counts[1 * 4 + 2] == 1 && counts[0 * 4 + 3] == 1);
    cs_sched_pair_t p;
    CHECK(cs_schedule_pair(&s, 1, 0, &p) && p.src == 1 && p.dst == 2);
    free(counts);
    cs_schedule_free(&s);

    FILE_BAD("0 1\n0 7\n", 4, "pairs.txt:2: rank 7 is outside the 4 ranks");
    FILE_BAD("0 1\n\n2 2\n", 4, "pairs.txt:3: a pair needs two different ranks");
    FILE_BAD("0 1 2\n", 4, "pairs.txt:1: expected two rank numbers");
    FILE_BAD("vnode1 vnode2\n", 4, "pairs.txt:1:");
    FILE_BAD("# nothing\n", 4, "pairs.txt: names no pairs");
    /* control bytes of the file are shown escaped, never sent to the terminal as they are */
    FILE_BAD("0 1\n0 \x1b[2J\x07\n", 4, "pairs.txt:2: expected two rank numbers \"SRC DST\", got \"0 \\x1b[2J\\x07\"");
    CHECK(strchr(err, '\x1b') == NULL && strchr(err, '\x07') == NULL);

    printf("%d checks, %d failed\n", check_count, check_failures);
    return check_failures != 0;
}
