#include <stdint.h>

#include "check.h"
#include "util/validate.h"

int main(void)
{
    uint8_t buf[4096], other[4096];
    cs_pattern_fill(buf, sizeof buf, 1, 4096, 0);
    CHECK(cs_pattern_mismatches(buf, sizeof buf, 1, 4096, 0) == 0);
    buf[17] ^= 1;
    CHECK(cs_pattern_mismatches(buf, sizeof buf, 1, 4096, 0) == 1);

    /* data from another sender, size or slot does not pass for ours */
    cs_pattern_fill(other, sizeof other, 0, 4096, 0);
    CHECK(cs_pattern_mismatches(other, sizeof other, 1, 4096, 0) > 3000);
    cs_pattern_fill(other, sizeof other, 1, 4096, 1);
    CHECK(cs_pattern_mismatches(other, sizeof other, 1, 4096, 0) > 3000);
    cs_pattern_fill(other, 2048, 1, 2048, 0);
    CHECK(cs_pattern_mismatches(other, 2048, 1, 4096, 0) > 1500);

    /* the pre-fill of receive buffers differs in every byte */
    cs_pattern_fill_unlike(other, sizeof other, 1, 4096, 0);
    CHECK(cs_pattern_mismatches(other, sizeof other, 1, 4096, 0) == 4096);
    return check_report("test_validate");
}
