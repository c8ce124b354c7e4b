#include "util/cpulist.h"

#include <stdio.h>
#include <string.h>

_Bool cs_cpulist_format(const int *cpus, int n, char *buf, size_t len)
{
    if (len == 0) return 0;
    buf[0] = '\0';
    size_t used = 0;
    for (int i = 0; i < n;) {
        int j = i;
        while (j + 1 < n && cpus[j + 1] == cpus[j] + 1) j++;
        char part[32];
        int w = j > i ? snprintf(part, sizeof part, "%s%d-%d", used ? "," : "", cpus[i], cpus[j])
                      : snprintf(part, sizeof part, "%s%d", used ? "," : "", cpus[i]);
        if (used + (size_t)w + 1 > len) {
            if (len >= 4) strcpy(buf + (used + 4 <= len ? used : len - 4), "...");
            return 0;
        }
        memcpy(buf + used, part, (size_t)w + 1);
        used += (size_t)w;
        i = j + 1;
    }
    return 1;
}
