#include "util/error.h"

#include <stdarg.h>
#include <stdio.h>

cs_status_t cs_usage_error(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return CS_ERR_USAGE;
}

void cs_escape(const char *in, char *out, size_t outlen)
{
    size_t used = 0;
    for (; *in && used + 1 < outlen; in++) {
        unsigned char c = (unsigned char)*in;
        if (c < 0x20 || c == 0x7f) {
            if (used + 5 > outlen) break;
            used += (size_t)snprintf(out + used, outlen - used, "\\x%02x", c);
        } else {
            out[used++] = (char)c;
        }
    }
    if (outlen) out[used < outlen ? used : outlen - 1] = '\0';
}
