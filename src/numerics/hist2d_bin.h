/*
 * hist2d_bin.h - where numpy.histogram2d puts a point (x, y), for the host
 * (C11, src/cpu/cpu_hist2d.c) and the device (CUDA C++,
 * cuda/hist2d_kernels.cu) alike: one copy of the arithmetic, GS_HD as in
 * ieee.h, so that the two backends cannot bin a point differently.
 *
 * numpy's bin of v along an axis is np.searchsorted(edges, v,
 * side='right') - 1 with v compared as a double, a value equal to the last
 * edge moved into the last bin. Here it is estimated from v (one
 * subtraction and one multiplication in double) and then moved to the last
 * edge at or below v: exactly searchsorted's answer for non-decreasing
 * edges (cmd_hist2d.c refuses others), the estimate or a neighbour, or
 * else a bisection (repeated f16 edges, a range whose width overflows).
 * The estimate only picks where to look: every answer is checked against
 * the edges, so a contracted multiply-add on either processor could move
 * the search, never its result.
 *
 * A point's code is its bin, ix * NY + iy, below HIST2D_MAX_BINS, or
 * HIST2D_CODE_NAN (x or y is NaN: numpy's searchsorted puts it past the
 * end) or HIST2D_CODE_OUT (any other point outside [edge 0, edge n] of an
 * axis).
 */
#ifndef HIST2D_BIN_H
#define HIST2D_BIN_H

#include "ieee.h"

/* NX * NY at most: 256 MiB of u64 counts per copy; codes fit 32 bits */
#define HIST2D_MAX_BINS (1u << 25)
#define HIST2D_CODE_NAN 0xfffffffeu
#define HIST2D_CODE_OUT 0xffffffffu

/* One axis: its edges (host or device memory, as the caller runs) and
 * what the estimate needs. */
struct h2axis {
	const double *e;	/* n + 1 edges, non-decreasing */
	uint64_t n;
	double lo, hi, scale;	/* e[0], e[n], n / (e[n] - e[0]) */
};

/* lo, hi and scale are taken from the edges given to it. */
GS_HD struct h2axis h2axis_make(const double *e, double lo, double hi,
				uint64_t n)
{
	struct h2axis a;

	a.e = e;
	a.n = n;
	a.lo = lo;
	a.hi = hi;
	a.scale = hi > lo ? (double)n / (hi - lo) : 0;
	return a;
}

/* Whether bin i holds v: e[i] <= v, and e[i + 1] > v unless i is last. */
GS_HD bool h2axis_holds(const struct h2axis *a, uint64_t i, double v)
{
	return a->e[i] <= v && (i + 1 == a->n || a->e[i + 1] > v);
}

/* Bisection for the last i < n with e[i] <= v (e[0] <= v). */
GS_HD_COLD uint64_t h2axis_search(const struct h2axis *a, double v)
{
	uint64_t lo = 0, hi = a->n - 1;

	while (lo < hi) {
		uint64_t m = lo + (hi - lo + 1) / 2;

		if (a->e[m] <= v)
			lo = m;
		else
			hi = m - 1;
	}
	return lo;
}

/* The bin of v, lo <= v <= hi: the last i < n with e[i] <= v. */
GS_HD uint64_t h2axis_bin(const struct h2axis *a, double v)
{
	double est = (v - a->lo) * a->scale;
	uint64_t i = est < (double)(a->n - 1) ? (uint64_t)est : a->n - 1;

	if (h2axis_holds(a, i, v))
		return i;
	if (i + 1 < a->n && h2axis_holds(a, i + 1, v))
		return i + 1;
	if (i > 0 && h2axis_holds(a, i - 1, v))
		return i - 1;
	return h2axis_search(a, v);
}

/* The code of the point (x, y), each converted exactly to double (64-bit
 * integers rounded to nearest, as numpy compares them). */
GS_HD uint32_t hist2d_code(const struct h2axis *ax, const struct h2axis *ay,
			   double x, double y)
{
	if (x != x || y != y)
		return HIST2D_CODE_NAN;
	if (x < ax->lo || x > ax->hi || y < ay->lo || y > ay->hi)
		return HIST2D_CODE_OUT;
	return (uint32_t)(h2axis_bin(ax, x) * ay->n + h2axis_bin(ay, y));
}

#endif
