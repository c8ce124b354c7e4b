#include "util/format.h"

const char *cs_format_name(cs_format_t f)
{
    static const char *const names[] = {"osu", "json", "csv"};
    return names[f];
}
