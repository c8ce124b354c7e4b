/* Exactly checkable message contents for -c. Each (sender, size, slot) gets its own byte
 * sequence, so misrouted or stale data is caught as well as corrupted data. MPI-free. */
#ifndef CS_VALIDATE_H
#define CS_VALIDATE_H

#include <stddef.h>
#include <stdint.h>

void cs_pattern_fill(uint8_t *buf, size_t n, int sender, size_t size, int slot);
/* Fills buf with bytes that differ everywhere from what that sender would send. */
void cs_pattern_fill_unlike(uint8_t *buf, size_t n, int sender, size_t size, int slot);
/* Number of bytes of buf that differ from cs_pattern_fill's. */
long cs_pattern_mismatches(const uint8_t *buf, size_t n, int sender, size_t size, int slot);

#endif
