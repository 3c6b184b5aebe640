/*
 * xprod.h - exact products and the rounding of exact values into a format
 * named by enum xfmt.
 *
 * - struct fprod: a product of floats as a bracket [lo, hi] * 2^exp with
 *   128-bit mantissas, lo rounded down and hi up after every factor; the
 *   product is given only when both ends round to the same value, which is
 *   then the correctly rounded product.
 * - struct iprod: a product of integers, its exact magnitude while it fits
 *   128 bits (past that, flagged); a zero factor wins.
 * Both merge exactly, so partial products combine in stream order from any
 * cut of the stream. The reduce and scan kernels of src/cpu fold into them,
 * and the CUDA backend merges its device products into them on the host
 * (cuda/prod.cuh keeps the same bracket on the device, step for step).
 */
#ifndef XPROD_H
#define XPROD_H

#include <stdbool.h>
#include <stdint.h>
#include "gs.h"
#include "ieee.h"

struct fprod {			/* exact product of floats, bracketed */
	bool nan, zero, inf;	/* a NaN; a zero factor; an infinite factor */
	bool neg;		/* sign of the product */
	int64_t exp;		/* value in [lo, hi] * 2^exp, lo/hi 128-bit */
	unsigned __int128 lo, hi;	/* normalized: top bit set (or both 0) */
};
struct iprod {			/* product of integers, magnitude checked */
	bool zero, overflow, neg;
	uint64_t at;		/* where |product| passed 2^128, as an element
				 * index (record x columns + column), or
				 * UINT64_MAX: not known (the GPU's) */
	unsigned __int128 mag;	/* |product| while no overflow */
};

/* The IEEE format of a float element type. */
enum xfmt type_xfmt(enum gs_type t);

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
void fprod_init(struct fprod *p);
void fprod_mul_f64(struct fprod *p, double v);
void fprod_merge(struct fprod *p, const struct fprod *q);
/* The product rounded into f: false if the bracket's ends round apart. */
bool fprod_round(const struct fprod *p, enum xfmt f, uint64_t *bits);

/* Integer products: the exact magnitude while it fits 128 bits. */
void iprod_init(struct iprod *p);
void iprod_mul(struct iprod *p, __int128 v);
void iprod_merge(struct iprod *p, const struct iprod *q);

#endif
