/* Reading a file given on the command line (--schedule, -N graph:FILE): a regular file is
 * read whole; a named pipe, a device or a directory is refused at once without blocking or
 * reading without end; a file over the limit is refused at the limit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "util/textfile.h"

static void refused(const char *path, long max, const char *expect)
{
    char err[512], *text = (char *)"untouched";
    long len = -1;
    CHECK(cs_read_text_file(path, "--schedule X", max, &text, &len, err, sizeof err) == CS_ERR_USAGE);
    CHECK(text == NULL);
    CHECK_CONTAINS(err, expect);
}

int main(void)
{
    char dir[] = "/tmp/cs-textfile-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[256], fifo[256];
    snprintf(path, sizeof path, "%s/pairs.txt", dir);
    snprintf(fifo, sizeof fifo, "%s/pairs.fifo", dir);

    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    fputs("0 1\n2 3\n", f);
    fclose(f);
    char err[512], *text = NULL;
    long len = 0;
    CHECK(cs_read_text_file(path, "--schedule X", 1024, &text, &len, err, sizeof err) == CS_OK);
    CHECK(len == 8 && text != NULL && strcmp(text, "0 1\n2 3\n") == 0);
    free(text);

    refused(path, 4, "--schedule X: larger than the limit of 4 bytes");
    CHECK(mkfifo(fifo, 0600) == 0);
    refused(fifo, 1024, "--schedule X: not a regular file (a named pipe)"); /* no writer: must not block */
    refused("/dev/zero", 1024, "--schedule X: not a regular file (a character device)");
    refused(dir, 1024, "--schedule X: not a regular file (a directory)");
    refused("/no/such/file", 1024, "--schedule X: cannot read this file: No such file or directory");

    unlink(fifo);
    unlink(path);
    rmdir(dir);
    printf("%d checks, %d failed\n", check_count, check_failures);
    return check_failures != 0;
}
