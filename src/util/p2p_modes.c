#include "util/p2p_modes.h"

const char *cs_send_mode_name(cs_send_mode_t m)
{
    static const char *const names[] = {"send", "ssend", "bsend", "rsend", "isend", "persistent", "partitioned"};
    return names[m];
}
