/*
 * xprod.h - exact products on the CPU, and the rounding of exact values
 * into a format named by enum xfmt.
 *
 * The products are xprod_core.h's (struct fprod, struct iprod: the bracket
 * step, the merges), shared with the CUDA kernels; here elements enter them
 * one at a time, a float product is rounded, and an integer product keeps
 * where it passed 2^128 (struct iprod_at). Both merge exactly, so partial
 * products combine in stream order from any cut of the stream. The reduce
 * and scan kernels of src/cpu fold into them, and the CUDA backend merges
 * its device products into them on the host.
 */
#ifndef XPROD_H
#define XPROD_H

#include <stdbool.h>
#include <stdint.h>
#include "gs.h"
#include "ieee.h"
#include "xprod_core.h"

/* An integer product and the element where |product| passed 2^128, as an
 * index (record x columns + column), or UINT64_MAX: not known (the GPU's,
 * a merge of states). */
struct iprod_at {
	struct iprod p;
	uint64_t at;
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

/* Float products from 1 (fprod_one): elements one at a time, then rounded
 * into f; false if the bracket's ends round apart (fprod_merge multiplies
 * two). */
void fprod_mul_f64(struct fprod *p, double v);
bool fprod_round(const struct fprod *p, enum xfmt f, uint64_t *bits);

/* Integer products from 1: elements (of 64 bits at most: |v| < 2^64) one
 * at a time; the merge that keeps where the product passed 2^128. */
void iprod_at_init(struct iprod_at *p);
void iprod_mul(struct iprod *p, __int128 v);
void iprod_at_merge(struct iprod_at *p, const struct iprod_at *q);

#endif
