/*
 * hist1d_bin.h - where numpy.histogram(x, bins=N, range=(lo, hi)) puts a
 * value, for the host (C11, src/cpu/cpu_hist.c) and the device (CUDA C++,
 * cuda/hist_bin.cuh) alike: one copy of the arithmetic, GS_HD as in
 * ieee.h, so that the two backends cannot bin a value differently.
 * cpu_hist.c's file comment gives numpy's steps; here they are, each
 * rounded where numpy rounds.
 *
 * Every step is one IEEE operation rounded once: on the device by the
 * _rn intrinsics, which are never contracted into a multiply-add; on the
 * host by C11's operators (gcc does not contract in ISO C, and a C++ host
 * pass of nvcc has no FMA target).
 */
#ifndef HIST1D_BIN_H
#define HIST1D_BIN_H

#include "gs.h"
#include "ieee.h"

#ifdef __CUDA_ARCH__
#define HB_ADD(a, b) __dadd_rn(a, b)
#define HB_SUB(a, b) __dsub_rn(a, b)
#define HB_MUL(a, b) __dmul_rn(a, b)
#define HB_DIV(a, b) __ddiv_rn(a, b)
#define HB_FSUB(a, b) __fsub_rn(a, b)
#else
#define HB_ADD(a, b) ((a) + (b))
#define HB_SUB(a, b) ((a) - (b))
#define HB_MUL(a, b) ((a) * (b))
#define HB_DIV(a, b) ((a) / (b))
#define HB_FSUB(a, b) ((a) - (b))
#endif

/* The type numpy's steps round to: f16 for f16 data, f32 for f32 (and
 * bf16, which numpy lacks), f64 for f64 and every integer. */
enum hist_bt { BT_F16, BT_F32, BT_F64 };

struct hist_ranged {
	enum hist_bt bt;
	bool in_bt;		/* numpy's default range: steps in bt */
	uint64_t n;
	double rn;		/* n as numpy's steps see it (f16 rounds it) */
	double lo, hi;		/* the outer edges */
	double lob, hib;	/* lo and hi rounded to the bin type */
	double delta, step;	/* linspace's hi - lo and delta / n */
	double denom;		/* the estimate's divisor: delta or span */
	double n1, nm1;		/* n + 1 and n - 1 */
	const double *edges;	/* edge i for i = 0..n, or NULL */
};

GS_HD double hist_round_to(enum hist_bt bt, double x)
{
	if (bt == BT_F16)
		return ieee_f64_round_f16(x);	/* numpy's double->half */
	if (bt == BT_F32)
		return (float)x;
	return x;
}

/* One step of numpy's arithmetic: rounded to the bin type where numpy
 * works in the data's type (its default range), else double. The hot
 * loops pass in_bt and bt as constants, so that the choice leaves them. */
GS_HD double hist_op(bool in_bt, enum hist_bt bt, double x)
{
	return in_bt ? hist_round_to(bt, x) : x;
}

GS_HD enum hist_bt hist_bin_type(enum gs_type t)
{
	if (t == GS_F16)
		return BT_F16;
	if (t == GS_F32 || t == GS_BF16)
		return BT_F32;
	return BT_F64;
}

/* job's bins, made on the host. */
static inline struct hist_ranged hist_ranged_make(const struct gs_job *job)
{
	enum hist_bt bt = hist_bin_type(job->dtype.type);
	bool in_bt = job->data_range;
	struct hist_ranged r;

	r.bt = bt;
	r.in_bt = in_bt;
	r.n = job->bins;
	r.rn = hist_op(in_bt, bt, (double)r.n);
	r.lo = job->lo;
	r.hi = job->hi;
	if (r.lo == r.hi) {
		r.lo = hist_op(in_bt, bt, r.lo - 0.5);
		r.hi = hist_op(in_bt, bt, r.hi + 0.5);
	}
	r.lob = hist_round_to(bt, r.lo);
	r.hib = hist_round_to(bt, r.hi);
	r.delta = hist_op(in_bt, bt, r.hi - r.lo);
	r.step = hist_op(in_bt, bt, r.delta / r.rn);
	r.denom = job->data_range && job->span != 0 ? job->span : r.delta;
	r.n1 = (double)r.n + 1;
	r.nm1 = (double)r.n - 1;
	r.edges = NULL;
	return r;
}

/* Edge i < n in the bin type (edge n is hib): numpy's linspace, i * step +
 * lo in two roundings, i / n * delta + lo where step underflowed. */
GS_HD double hist_edge_formula(const struct hist_ranged *r, enum hist_bt bt,
			       bool in_bt, uint64_t i)
{
	double ri = hist_op(in_bt, bt, (double)i), y;

	if (r->step != 0)
		y = hist_op(in_bt, bt, HB_MUL(ri, r->step));
	else
		y = hist_op(in_bt, bt, HB_MUL(hist_op(in_bt, bt,
						      HB_DIV(ri, r->rn)),
					      r->delta));
	return hist_round_to(bt, HB_ADD(y, r->lo));
}

GS_HD double hist_edge_at(const struct hist_ranged *r, uint64_t i)
{
	return i == r->n ? r->hib : hist_edge_formula(r, r->bt, r->in_bt, i);
}

/* Edge i <= n from the table where the caller made one, else edge i < n
 * from the formula (the bin loops never ask the formula for edge n but
 * where its answer is masked). */
GS_HD double hist_edge_of(const struct hist_ranged *r, enum hist_bt bt,
			  bool in_bt, uint64_t i)
{
	return r->edges ? r->edges[i] : hist_edge_formula(r, bt, in_bt, i);
}

/* v - lo rounded to the bin type; f16 subtracts in float, as numpy's half
 * loops do, then rounds to f16. */
GS_HD double hist_diff_in(const struct hist_ranged *r, enum hist_bt bt,
			  double v)
{
	if (bt == BT_F16)
		return ieee_f64_round_f16(HB_FSUB((float)v, (float)r->lob));
	if (bt == BT_F32)
		return HB_FSUB((float)v, (float)r->lob);
	return HB_SUB(v, r->lob);
}

/* Where v - lo overflows the bin type (f16 mostly), the estimate is
 * infinite and numpy fails with an IndexError; this gives the bin whose
 * edges hold v instead: the last i with edge[i] <= v (lo <= v <= hi). */
GS_HD_COLD uint64_t hist_search_bin(const struct hist_ranged *r, double v)
{
	uint64_t a = 0, b = r->n - 1;

	while (a < b) {
		uint64_t m = a + (b - a + 1) / 2;

		if (hist_edge_at(r, m) <= v)
			a = m;
		else
			b = m - 1;
	}
	return a;
}

/* The bin of v (already exact in the bin type): 0..n-1, or n + 0 below,
 * n + 1 above, n + 2 NaN.
 * Written without branches on the data: random data in and out of the
 * range would otherwise mispredict one every few values (and diverge a
 * warp). The estimate and its correction are made for every v, from v
 * clamped into [lo, hi]: the same v where v is in the range, and an
 * estimate in [0, n - 1] after clamping (or NaN, which clamps to n - 1)
 * where it is not, so that the edges read exist and the conversion to an
 * integer is defined. The result is picked at the end by a mask. Only an
 * in-range v whose estimate is not below n + 1 (infinite or NaN) branches
 * off to hist_search_bin. */
GS_HD_HOT uint64_t hist_ranged_bin(const struct hist_ranged *r, enum hist_bt bt,
				   bool in_bt, double v)
{
	uint64_t n = r->n, i;
	bool in = (v >= r->lob) & (v <= r->hib);	/* false for NaN */
	uint64_t out = n + 2 * (v != v) + (v > r->hib);
	double vc = v > r->lob ? v : r->lob;		/* NaN: lo */
	double est;
	bool lt, down, up;
	uint64_t keep;

	vc = vc < r->hib ? vc : r->hib;
	est = hist_op(in_bt, bt, HB_MUL(hist_op(in_bt, bt,
					       HB_DIV(hist_diff_in(r, bt, vc),
						      r->denom)), r->rn));
	if (GS_UNLIKELY(in & !(est < r->n1)))
		return hist_search_bin(r, v);
	/* trunc(est) where est < n, else n - 1 */
	est = est < r->nm1 ? est : r->nm1;
	i = (uint64_t)(int64_t)est;
	/* numpy's correction: down when v < edge[i], else up when v >=
	 * edge[i + 1] and i is not the last bin */
	lt = vc < hist_edge_of(r, bt, in_bt, i);
	down = lt & (i > 0);
	up = !lt & (i != n - 1) & (vc >= hist_edge_of(r, bt, in_bt, i + 1));
	keep = (uint64_t)in - 1;		/* 0 in range, else ~0 */
	i = i - down + up;
	return (i & ~keep) | (out & keep);
}

#endif
