/* JSON strings are always valid UTF-8: bytes that are not (from argv, a path, an
 * environment value) become U+FFFD; well-formed text passes unchanged. */
#include <stdlib.h>

#include "check.h"
#include "report/json_writer.h"
#include "report/report.h"

static void expect(const char *in, const char *want)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cs_json_string(f, in);
    fclose(f);
    if (strcmp(buf, want) != 0) fprintf(stderr, "json string of \"%s\": %s, expected %s\n", in, buf, want);
    CHECK(strcmp(buf, want) == 0);
    free(buf);
}

/* The stream's start line of a rank: one line, the host's name escaped as any string. */
static void expect_started(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cs_started_t s = {.rank = 3, .pid = 4711, .host = "vnode\"4"};
    cs_jsonl_started(f, &s);
    fclose(f);
    const char *want = "{\"started\":{\"rank\":3,\"host\":\"vnode\\\"4\",\"pid\":4711}}\n";
    if (strcmp(buf, want) != 0) fprintf(stderr, "start line: %s, expected %s\n", buf, want);
    CHECK(strcmp(buf, want) == 0);
    free(buf);
}

int main(void)
{
    expect_started();
    expect("plain", "\"plain\"");
    expect("q\"b\\\n\t\x01", "\"q\\\"b\\\\\\n\\t\\u0001\"");
    expect("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\""); /* é € 😀 */
    expect("a\xff"
           "b",
           "\"a\\ufffdb\"");                                        /* never valid */
    expect("\xe9t\xe9", "\"\\ufffdt\\ufffd\"");                     /* Latin-1 é */
    expect("\xc0\x80", "\"\\ufffd\\ufffd\"");                       /* overlong NUL */
    expect("\xe0\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\"");            /* overlong / */
    expect("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"");            /* a surrogate */
    expect("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\""); /* above U+10FFFF */
    expect("x\xe2\x82", "\"x\\ufffd\\ufffd\"");                     /* cut short at the end */
    expect("\xe2\x82"
           "A",
           "\"\\ufffd\\ufffdA\""); /* cut short by ASCII */
    return check_report("test_json_writer");
}
