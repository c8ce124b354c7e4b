/* Neighbourhoods of the neighbourhood collectives, MPI-free: OMB's Cartesian grid with a
 * radius, and adjacency files with every error naming FILE:LINE. */
#include <stdlib.h>

#include "check.h"
#include "util/topo.h"

static int contains(const int *list, int n, int v)
{
    for (int i = 0; i < n; i++)
        if (list[i] == v) return 1;
    return 0;
}

#define GRAPH_BAD(text, expect)                                                                                        \
    do {                                                                                                               \
        cs_topo_t t_;                                                                                                  \
        CHECK(cs_topo_parse_graph(text, "nbr.adj", 4, &t_, err, sizeof err) == CS_ERR_USAGE);                          \
        CHECK_CONTAINS(err, expect);                                                                                   \
    } while (0)

int main(void)
{
    char err[512];
    cs_topo_t t;

    /* a ring of 5, radius 1 and 2 */
    int ring[] = {5};
    CHECK(cs_topo_cart(5, ring, 1, 1, &t, err, sizeof err) == CS_OK);
    CHECK(t.indegree[0] == 2 && t.outdegree[0] == 2 && t.max_indegree == 2 && t.nedges == 10);
    CHECK(t.destinations[0][0] == 4 && t.destinations[0][1] == 1); /* -1 first, as OMB orders them */
    CHECK(t.sources[3][0] == 2 && t.sources[3][1] == 4);
    cs_topo_free(&t);
    CHECK(cs_topo_cart(5, ring, 1, 2, &t, err, sizeof err) == CS_OK);
    CHECK(t.outdegree[2] == 4 && contains(t.destinations[2], 4, 0) && contains(t.destinations[2], 4, 4));
    cs_topo_free(&t);

    /* a periodic 3x3 grid: 8 neighbours each, every edge matched by one back */
    int grid[] = {3, 3};
    CHECK(cs_topo_cart(9, grid, 2, 1, &t, err, sizeof err) == CS_OK);
    CHECK(t.max_outdegree == 8 && t.nedges == 72);
    CHECK(contains(t.destinations[4], 8, 0) && contains(t.destinations[4], 8, 8) && !contains(t.destinations[4], 8, 4));
    CHECK(contains(t.destinations[0], 8, 8)); /* wraps around both dimensions */
    for (int r = 0; r < 9; r++)
        for (int i = 0; i < t.outdegree[r]; i++) CHECK(contains(t.sources[t.destinations[r][i]], 8, r));
    cs_topo_free(&t);

    /* OMB's rule: the radius stays below half the smallest dimension */
    int two[] = {2}, four[] = {2, 2};
    CHECK(cs_topo_cart(2, two, 1, 1, &t, err, sizeof err) == CS_ERR_USAGE);
    CHECK_CONTAINS(err, "-N cart:1:1: 2 ranks make a 2 grid; radius 1 needs at least 3 ranks along every dimension");
    CHECK(cs_topo_cart(4, four, 2, 1, &t, err, sizeof err) == CS_ERR_USAGE);
    CHECK_CONTAINS(err, "4 ranks make a 2x2 grid");
    CHECK(cs_topo_cart(5, ring, 1, 3, &t, err, sizeof err) == CS_ERR_USAGE);
    CHECK_CONTAINS(err, "radius 3 needs at least 7 ranks");

    /* an adjacency file: edges SRC,DST in file order, comments, blanks and CRLF */
    const char *text = "# a star\n0,1\n\n 0 , 2\r\n0,3\n1,0\n2,0\n3,0\n";
    CHECK(cs_topo_parse_graph(text, "star.adj", 4, &t, err, sizeof err) == CS_OK);
    CHECK(t.nedges == 6 && t.outdegree[0] == 3 && t.indegree[0] == 3 && t.max_outdegree == 3);
    CHECK(t.destinations[0][0] == 1 && t.destinations[0][2] == 3 && t.sources[2][0] == 0);
    CHECK(t.outdegree[1] == 1 && t.indegree[1] == 1);
    cs_topo_free(&t);

    /* every bad input names the file and the line */
    GRAPH_BAD("0,1\n1;0\n", "nbr.adj:2: expected 'SRC,DST' (two rank numbers and a comma), got '1;0'");
    GRAPH_BAD("0,1\n\n# x\n2\n", "nbr.adj:4: expected 'SRC,DST'");
    GRAPH_BAD("0,1,2\n", "nbr.adj:1: expected 'SRC,DST'");
    GRAPH_BAD("-1,0\n", "nbr.adj:1: expected 'SRC,DST'");
    GRAPH_BAD("a,b\n", "nbr.adj:1: expected 'SRC,DST'");
    GRAPH_BAD("0,\n", "nbr.adj:1: expected 'SRC,DST'");
    GRAPH_BAD("0,1\n1,4\n", "nbr.adj:2: rank 4 is outside the communicator of 4 ranks");
    GRAPH_BAD("9,1\n", "nbr.adj:1: rank 9 is outside the communicator");
    GRAPH_BAD("99999999999,1\n", "nbr.adj:1: expected 'SRC,DST'");
    GRAPH_BAD("", "nbr.adj: no edges");
    GRAPH_BAD("# only a comment\n\n", "nbr.adj: no edges");
    char *long_line = malloc(700);
    memset(long_line, '1', 699);
    long_line[699] = '\0';
    GRAPH_BAD(long_line, "nbr.adj:1: line longer than");
    free(long_line);
    return check_report("test_topo");
}
