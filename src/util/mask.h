/* Sets of enum values as bit masks (-T's datatypes, one-sided modes, pair metrics). */
#ifndef CS_MASK_H
#define CS_MASK_H

#define CS_MASK(v) (1u << (v))

#endif
