/*
 * cpu_red.h - pieces shared by the reduce and scan CPU kernels
 * (cpu_reduce.c, cpu_scan.c): the block size, the identity of AND, and
 * gathering one column of a block of records into a flat buffer. The exact
 * products and the rounding into a format named by enum xfmt, which both
 * use, are numerics/xprod.h's (through acc.h).
 *
 * Private to src/cpu/ (tests/test_layers.sh checks it); the rest of the
 * program, the CUDA kernels that merge into the same products included,
 * sees acc.h only.
 */
#ifndef CPU_RED_H
#define CPU_RED_H

#include "acc.h"
#include "fkeys.h"

/* Records are processed in blocks of this many: gather buffers stay in L1
 * (1024 doubles are 8 KiB) and a failed fast scan block costs little. */
#define RED_BLOCK 1024

/* Identity of an integer AND: all ones in the type's width, sign-extended. */
uint64_t and_identity(enum gs_type t);

/* Column col of records [r0, r0 + n) of data (columns values per record),
 * converted exactly, into dst. */
void gather_f64(enum gs_type t, const void *data, unsigned columns,
		unsigned col, size_t r0, size_t n, double *dst);
void gather_int(enum gs_type t, const void *data, unsigned columns,
		unsigned col, size_t r0, size_t n, __int128 *dst);

#endif
