/* CS_HOT marks the code that runs inside timed loops. GCC places hot functions together
 * (.text.hot), so one timed iteration touches one or two code pages instead of one per
 * source file; on a VM a missed instruction-TLB entry costs tens of nanoseconds. Measured:
 * 4-8 % off MPICH's 1-64 byte allreduce on the project's VM (docs/PERFORMANCE.md). The
 * one-sided loop is one function already (pattern_rma.c) and stays out: its copies per
 * call and -s mode would spread the others over more pages. */
#ifndef CS_HOT_H
#define CS_HOT_H

#define CS_HOT __attribute__((hot))

/* A timed loop's MPI call chosen by a switch on a constant: the loop is compiled once
 * per mode with the call made directly, no function pointer per operation. */
#define CS_INLINE static inline __attribute__((always_inline))

#endif
