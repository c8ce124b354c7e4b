/* The one way a usage error is told: a formatted line into the caller's buffer and
 * CS_ERR_USAGE, which main turns into the message and exit status 2. MPI-free. */
#ifndef CS_ERROR_H
#define CS_ERROR_H

#include <stddef.h>

#include "util/cs_status.h"

#if defined(__GNUC__)
#define CS_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define CS_PRINTF(fmt, args)
/* `in` for a message: control bytes (below 0x20, and 0x7f) written as \xNN so that text
 * read from a file cannot move the cursor or clear the terminal; truncated to outlen. */
void cs_escape(const char *in, char *out, size_t outlen);

#endif

/* Writes the message (truncated to errlen) and returns CS_ERR_USAGE. */
cs_status_t cs_usage_error(char *err, size_t errlen, const char *fmt, ...) CS_PRINTF(3, 4);

/* `in` for a message: control bytes (below 0x20, and 0x7f) written as \xNN so that text
 * read from a file cannot move the cursor or clear the terminal; truncated to outlen. */
void cs_escape(const char *in, char *out, size_t outlen);

#endif
