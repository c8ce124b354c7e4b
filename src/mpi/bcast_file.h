/* A file every rank needs, read once: rank 0 reads it, every rank gets the text. */
#ifndef CS_BCAST_FILE_H
#define CS_BCAST_FILE_H

#include <mpi.h>
#include <stddef.h>

#include "util/cs_status.h"

/* On success *text is a NUL-terminated copy on every rank (free it). When rank 0 cannot
 * read the file (missing, not a regular file, over 64 MiB: util/textfile.h) every rank
 * returns CS_ERR_USAGE, and rank 0's err says why ("WHAT: not a regular file (a named
 * pipe)"; WHAT: the option as typed, "-N graph:FILE"). */
cs_status_t cs_bcast_file(MPI_Comm comm, const char *path, const char *what, char **text, char *err, size_t errlen);

#endif
