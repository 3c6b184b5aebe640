/*
 * cpu_fsum32.h - the exact sum of f32 values, fast (cpu_fsum32.c): what the
 * CPU's sums of f32, f16 and bf16 run on (cpu_reduce.c).
 */
#ifndef CPU_FSUM32_H
#define CPU_FSUM32_H

#include <stdbool.h>
#include <stddef.h>
#include "xsum.h"

/* Add v[0..n) into b exactly. Returns how many additions b took, for the
 * caller's xbins_flush() count (at most n). */
size_t fsum32_add(struct xbins *b, const float *v, size_t n);

#endif
