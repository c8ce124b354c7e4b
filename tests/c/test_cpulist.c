/* CPU lists in Linux's notation, as the provenance of rank binding records them. */
#include "check.h"
#include "util/cpulist.h"

int main(void)
{
    char buf[64];
    int a[] = {0, 1, 2, 3, 8, 10, 11};
    CHECK(cs_cpulist_format(a, 7, buf, sizeof buf) && strcmp(buf, "0-3,8,10-11") == 0);
    int one[] = {5};
    CHECK(cs_cpulist_format(one, 1, buf, sizeof buf) && strcmp(buf, "5") == 0);
    CHECK(cs_cpulist_format(a, 0, buf, sizeof buf) && strcmp(buf, "") == 0);
    int odd[] = {0, 2, 4, 6, 8, 10, 12, 14};
    CHECK(!cs_cpulist_format(odd, 8, buf, 10) && strlen(buf) < 10 && strstr(buf, "...") != NULL);
    return check_report("test_cpulist");
}
