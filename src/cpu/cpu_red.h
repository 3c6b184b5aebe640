/*
 * cpu_red.h - pieces shared by the reduce and scan CPU kernels
 * (cpu_reduce.c, cpu_scan.c): rounding an exact binary value into an IEEE
 * format, the bracketed float product and the checked integer product, and
 * gathering one column of a block of records into a flat buffer.
 *
 * Private to src/cpu/ (tests/test_layers.sh checks it); the rest of the
 * program, the CUDA kernels that merge into the same products included,
 * sees acc.h only.
 */
#ifndef CPU_RED_H
#define CPU_RED_H

#include "acc.h"

/* Records are processed in blocks of this many: gather buffers stay in L1
 * (1024 doubles are 8 KiB) and a failed fast scan block costs little. */
#define RED_BLOCK 1024

/* Round (neg ? -m : m) * 2^e once, to nearest even, into format f; returns
 * the bit pattern. m == 0 gives a zero of the given sign. (ieee_round with
 * no sticky bit, for a format named by enum xfmt.) */
uint64_t round_u128(unsigned __int128 m, int64_t e, bool neg, enum xfmt f);
/* The same for a double (NaN and infinities map to their own kind; f64
 * keeps every bit): ieee_round_f64. */
uint64_t round_f64(double v, enum xfmt f);
/* The value of bits in format f, exactly, as a double. */
double xfmt_to_f64(uint64_t bits, enum xfmt f);

/* Float products: every factor narrows the bracket by at most one unit of
 * 2^-127 at each end, so a product of a few exact factors stays exact. */
void fprod_mul_f64(struct fprod *p, double v);
/* The product rounded into f: false if the bracket's ends round apart. */
bool fprod_round(const struct fprod *p, enum xfmt f, uint64_t *bits);

/* Integer products: the exact magnitude while it fits 128 bits. */
void iprod_mul(struct iprod *p, __int128 v);

/* Identity of an integer AND: all ones in the type's width, sign-extended. */
uint64_t and_identity(enum gs_type t);

/* Column col of records [r0, r0 + n) of data (columns values per record),
 * converted exactly, into dst. */
void gather_f64(enum gs_type t, const void *data, unsigned columns,
		unsigned col, size_t r0, size_t n, double *dst);
void gather_int(enum gs_type t, const void *data, unsigned columns,
		unsigned col, size_t r0, size_t n, __int128 *dst);

/* Order of doubles with -0.0 < +0.0, as a signed integer key (not NaN). */
static inline int64_t f64_key(double v)
{
	int64_t k;

	__builtin_memcpy(&k, &v, sizeof(k));
	return k < 0 ? k ^ INT64_MAX : k;
}

#endif
