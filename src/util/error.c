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
