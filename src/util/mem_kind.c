#include "util/mem_kind.h"

const char *cs_accel_name(cs_accel_t a)
{
    static const char *const names[] = {"none", "cuda", "managed"};
    return names[a];
}

const char *cs_mem_kind_name(cs_mem_kind_t k)
{
    static const char *const names[] = {"host", "device", "managed", "managed_host"};
    return names[k];
}
