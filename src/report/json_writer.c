#include "report/json_writer.h"

#include <math.h>

void cs_json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
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
