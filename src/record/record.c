#include "record/record.h"

const char *cs_run_status_name(cs_run_status_t s)
{
    static const char *const names[] = {"complete", "validation_failed", "error"};
    return names[s];
}
