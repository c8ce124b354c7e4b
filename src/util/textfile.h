/* A text file named on the command line (--schedule FILE, -N graph:FILE), read whole.
 * MPI-free. Only a regular file is read: a named pipe, a device or a directory would block
 * or never end, so it is refused at once, and so is a file larger than the limit. */
#ifndef CS_TEXTFILE_H
#define CS_TEXTFILE_H

#include <stddef.h>

#include "util/cs_status.h"

/* On success *text is the NUL-terminated contents (free it) and *len its length. Else
 * *text is NULL and CS_ERR_USAGE comes back with err saying "WHAT: why" (WHAT: the option
 * as typed): cannot read this file: REASON, not a regular file (a named pipe), larger
 * than the limit of MAX bytes. */
cs_status_t cs_read_text_file(const char *path, const char *what, long max, char **text, long *len, char *err,
                              size_t errlen);

#endif
