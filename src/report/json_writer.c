#include "report/json_writer.h"

#include <math.h>

/* The length of the well-formed UTF-8 sequence at p (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF), or 0 when p does not start one. */
static size_t utf8_sequence(const unsigned char *p)
{
    unsigned char c = p[0];
    size_t len;
    unsigned lo = 0x80, hi = 0xbf; /* the second byte's range */
    if (c < 0x80) return 1;
    if (c >= 0xc2 && c <= 0xdf) len = 2;
    else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        if (c == 0xe0) lo = 0xa0;      /* overlong */
        else if (c == 0xed) hi = 0x9f; /* surrogates */
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        if (c == 0xf0) lo = 0x90;      /* overlong */
        else if (c == 0xf4) hi = 0x8f; /* above U+10FFFF */
    } else return 0;
    if (p[1] < lo || p[1] > hi) return 0;
    for (size_t i = 2; i < len; i++)
        if (p[i] < 0x80 || p[i] > 0xbf) return 0;
    return len;
}

/* JSON strings must be UTF-8; what the core records (argv, paths, environment values,
 * host names) need not be. Each byte that is not part of a well-formed sequence is
 * written as U+FFFD, so the document always parses; valid text is kept as it is. */
void cs_json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p >= 0x80) {
            size_t len = utf8_sequence(p);
            if (len == 0) {
                fputs("\\ufffd", out);
            } else {
                fwrite(p, 1, len, out);
                p += len - 1;
            }
            continue;
        }
        switch (*p) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\t': fputs("\\t", out); break;
        default:
            if (*p < 0x20) fprintf(out, "\\u%04x", *p);
            else fputc(*p, out);
        }
    }
    fputc('"', out);
}

void cs_json_number(FILE *out, double v)
{
    if (isfinite(v)) fprintf(out, "%.10g", v);
    else fputs("null", out);
}

void cs_json_key(FILE *out, const char *key, int first)
{
    if (!first) fputc(',', out);
    cs_json_string(out, key);
    fputc(':', out);
}
