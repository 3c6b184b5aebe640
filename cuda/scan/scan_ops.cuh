/*
 * scan_ops.cuh - the monoids the scan kernels are templated on, one per
 * op and element type (CUB's scan operators), and each element type's
 * wide sum (scan_wide; dtype.cuh's dtype_dispatch picks the type). Each
 * monoid is a struct with
 *   elem        the element type; V the prefix value;
 *   WINDOW      the chunk's window mode it runs in (float sums), else 0;
 *   ident(c)    the empty prefix; add(a, b, c) a + b, exact and
 *               associative, so every grouping gives the same bits;
 *   of(x, c)    an element as a value; out(v, c, &bits, &why) the output
 *               bits of prefix v, false (and why) where it cannot be written.
 *

 * Every prefix is kept exactly, as a value of a monoid:
 * - sums: a two's complement fixed-point integer of K 64-bit limbs whose
 *   lsb weighs 2^L, wide enough for the whole range of the input type and
 *   2^63 elements (so nothing ever rounds or overflows), plus NaN/+inf/-inf
 *   flags. Integers: K = 2, L = 0 (|prefix| < 2^63 * 2^64). f16: K = 2,
 *   L = -24 (bits -24 .. 79). f32 and bf16: K = 6, L = -149 (bits -149 ..
 *   191). f64: K = 34, L = -1074 (bits -1074 .. 1087, under 2176 - 1074).
 *   Adding is a K-limb integer add, so every grouping gives the same bits.
 * - prod: prod.cuh's values, as reduce_kernels.cu has them: for floats a
 *   bracket [lo, hi] * 2^exp of the exact product (128-bit ends, rounded
 *   outward at every step), for integers the exact magnitude below 2^128;
 *   NaN, zero, inf, the sign and overflow are flags. The tiles group the
 *   factors otherwise than cpu_scan's one pass, so the brackets differ,
 *   but a float output is written only when both ends round alike, and is
 *   then the exact prefix correctly rounded: the CPU's bits wherever the
 *   CPU rounds it too. Within about n * 2^-126 (relative, n factors) of a
 *   rounding tie one side may fail alone, as the CPU may between thread
 *   counts.
 *   Integer products are exact in any grouping, overflow included. The
 *   grouping follows the tiles and the parts (agent_scan.cuh), and the
 *   number of parts the GPU's size and occupancy: which near-ties fail may differ
 *   between GPU models, as between CPU thread counts.
 * - min/max: order-preserving 64-bit keys (as reduce_kernels.cu: floats as
 *   doubles with -0.0 below +0.0, NaN a sticky flag; signed integers with
 *   the sign bit flipped); and/or/xor: the sign-extended 64-bit two's
 *   complement bits, as cpu_scan.c keeps them.
 * The empty prefix is the identity cpu_reduce.c starts from (sum 0, prod
 * 1, min the largest value of the input type, +inf for floats, and all
 * ones ...), so exclusive scans start where the CPU does.
 */
#ifndef SCAN_OPS_CUH
#define SCAN_OPS_CUH

#include "scan_sum_wide.cuh"
#include "scan_word.cuh"
#include "scan_sum_window.cuh"
#include "scan_prod.cuh"

/* The wide sum of element type T: K limbs with lsb 2^L (scan_sum_wide);
 * the traits of the types, beside dtype.cuh's. */
template <typename T> struct scan_wide { enum { K = 2, L = 0 }; };
template <> struct scan_wide<f16_bits> { enum { K = 2, L = -24 }; };
template <> struct scan_wide<bf16_bits> { enum { K = 6, L = -149 }; };
template <> struct scan_wide<float> { enum { K = 6, L = -149 }; };
template <> struct scan_wide<double> { enum { K = 34, L = -1074 }; };

#endif
