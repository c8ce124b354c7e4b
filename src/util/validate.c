#include "util/validate.h"

static uint8_t expected_byte(size_t i, int sender, size_t size, int slot)
{
    /* A multiplicative hash of all four inputs: neighbouring bytes, senders, sizes and
     * slots all differ, and the sequence does not repeat with a short period. */
    uint32_t x = (uint32_t)i * 2654435761u ^ (uint32_t)sender * 40503u ^ (uint32_t)size * 2246822519u ^
                 (uint32_t)slot * 3266489917u;
    x ^= x >> 15;
    return (uint8_t)(x ^ (x >> 8));
}

void cs_pattern_fill(uint8_t *buf, size_t n, int sender, size_t size, int slot)
{
    for (size_t i = 0; i < n; i++) buf[i] = expected_byte(i, sender, size, slot);
}

void cs_pattern_fill_unlike(uint8_t *buf, size_t n, int sender, size_t size, int slot)
{
    for (size_t i = 0; i < n; i++) buf[i] = (uint8_t)~expected_byte(i, sender, size, slot);
}

long cs_pattern_mismatches(const uint8_t *buf, size_t n, int sender, size_t size, int slot)
{
    long wrong = 0;
    for (size_t i = 0; i < n; i++) wrong += buf[i] != expected_byte(i, sender, size, slot);
    return wrong;
}
