#define _POSIX_C_SOURCE 200809L
#include "util/textfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/error.h"

static const char *file_kind(mode_t mode)
{
    if (S_ISFIFO(mode)) return "a named pipe";
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a file";
}

static cs_status_t too_large(const char *what, long max, char *err, size_t errlen)
{
    if (max % (1L << 20) == 0)
        return cs_usage_error(err, errlen, "%s: larger than the limit of %ld MiB", what, max >> 20);
    return cs_usage_error(err, errlen, "%s: larger than the limit of %ld bytes", what, max);
}

/* Reads at most max + 1 bytes (a file may grow while it is read); -1 on a read error. */
static long read_upto(int fd, char *buf, long max)
{
    long got = 0;
    while (got <= max) {
        ssize_t n = read(fd, buf + got, (size_t)(max + 1 - got));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return -1;
        if (n == 0) break;
        got += n;
    }
    return got;
}

cs_status_t cs_read_text_file(const char *path, const char *what, long max, char **text, long *len, char *err,
                              size_t errlen)
{
    *text = NULL;
    /* O_NONBLOCK: opening a named pipe without a writer must not wait for one */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return cs_usage_error(err, errlen, "%s: cannot read this file: %s", what, strerror(errno));
    struct stat st;
    cs_status_t status = CS_OK;
    char *buf = NULL;
    if (fstat(fd, &st) != 0) {
        status = cs_usage_error(err, errlen, "%s: cannot read this file: %s", what, strerror(errno));
    } else if (!S_ISREG(st.st_mode)) {
        status = cs_usage_error(err, errlen, "%s: not a regular file (%s)", what, file_kind(st.st_mode));
    } else if (st.st_size > max) {
        status = too_large(what, max, err, errlen);
    } else if ((buf = malloc((size_t)st.st_size + 2)) == NULL) {
        status = CS_TRACE(CS_ERR_RUNTIME);
    } else {
        long got = read_upto(fd, buf, (long)st.st_size);
        if (got < 0) status = cs_usage_error(err, errlen, "%s: cannot read this file: %s", what, strerror(errno));
        else if (got > st.st_size)
            status = cs_usage_error(err, errlen, "%s: grew while it was read; give a file that stays as it is", what);
        else {
            buf[got] = '\0';
            *len = got;
            *text = buf;
            buf = NULL;
        }
    }
    free(buf);
    close(fd);
    return status;
}
