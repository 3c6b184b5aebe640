/*
 * cpu_hist.c - histograms on the CPU.
 *
 * Per-value bins (8- and 16-bit integers): the value minus the type's
 * minimum is the bin. 8-bit data is counted in HIST8_SUBS interleaved 32-bit
 * sub-histograms per column, so that runs of equal bytes do not wait on each
 * other's increments; they are added into the 64-bit counts every
 * HIST8_BLOCK records, long before a 32-bit count could overflow. 16-bit
 * data counts straight into the 64-bit counts (the bins do not fit L1, so
 * sub-histograms would not pay).
 *
 * Ranged bins reproduce numpy.histogram(x, bins=N, range=(lo, hi)) of numpy
 * 2.x (lib/_histograms_impl.py) step by step, so that the counts are the
 * same even where numpy's arithmetic is inexact:
 *  - the bin type is f16 for f16 data, f32 for f32 (and for bf16, which
 *    numpy lacks), f64 for f64 and for integers (converted to double);
 *  - lo == hi widens the range to [lo - 0.5, hi + 0.5];
 *  - edges are linspace(lo, hi, N + 1) in double, i*step + lo with
 *    step = (hi - lo)/N, the last edge exactly hi, rounded to the bin type;
 *  - a value is kept when lo <= v <= hi, lo and hi rounded to the bin type;
 *  - its bin is first estimated as trunc((v - lo) / (hi - lo) * N), where
 *    v - lo is rounded to the bin type (for f16 through float, as numpy's
 *    half loops do) and the rest is double, N becoming N - 1; then corrected
 *    once: down when v < edge[i], else up when v >= edge[i + 1] and i is not
 *    the last bin.
 *    Where numpy fails (v - lo overflows f16 or f32, so the estimate is
 *    infinite), the bin is found by bisection over the edges.
 * Without --range (job->data_range) numpy takes lo and hi as a.min() and
 * a.max(), scalars of the data's type, so the same steps run in the bin
 * type instead of double: the widening by 0.5, linspace's hi - lo, step =
 * delta / N, i * step and + lo (i and N themselves rounded to f16 for f16,
 * as numpy's arange and its int-to-half conversion do), and the estimate's
 * division and multiplication (hist_op in numerics/hist1d_bin.h, which
 * holds the steps for both backends). Each step is done in double and
 * rounded once to f16 or f32, which is the correctly rounded f16/f32
 * result: double has more than 2p + 2 bits for both. For integer data numpy divides
 * by max - min computed exactly in the unsigned type (job->span), not by the
 * difference of the rounded doubles. bf16 data gets f32 arithmetic: the
 * histogram of its exact conversion to f32.
 * The scalar loop (f16 data, or no AVX2) takes the edges from a table in
 * scratch when the call has enough values to pay for making it
 * (EDGE_TABLE_MAX, EDGE_TABLE_PER), else from the formula, as the AVX2 loop
 * does; the same values either way.
 */
#include <math.h>
#include <string.h>

#include "acc.h"
#include "hist1d_bin.h"

#define HIST8_SUBS 4
#define HIST8_BLOCK (1u << 30)	/* < 2^32 increments per 32-bit count */
_Static_assert(HIST8_SUBS == 4, "perval8_block unrolls by 4");

/* ---- f16 rounding ---------------------------------------------------- */

/* x rounded to the nearest f16, ties to even (numpy's double->half): a
 * NaN keeps its sign. */
uint16_t hist_half_bits(double x)
{
	struct ieee_fmt f = ieee_fmt_of(XF_F16);

	return (uint16_t)(ieee_round_f64(x, &f) | (x != x && signbit(x) ? 0x8000 : 0));
}

/* ---- ranged bins (numerics/hist1d_bin.h) ---------------------------- */

void hist_edges(const struct gs_job *job, double *edges)
{
	struct hist_ranged r = hist_ranged_make(job);

	for (uint64_t i = 0; i <= r.n; i++)
		edges[i] = hist_edge_at(&r, i);
}

/* ---- ranged bins with AVX2 --------------------------------------------- */

/* Bin types f32 and f64 (all data but f16) take this path where the CPU has
 * AVX2: values are converted to double a block at a time, their bin codes
 * (hist_ranged_bin's) computed four at a time, then counted. The steps are
 * hist_ranged_bin's, lane by lane, in the same IEEE operations (no FMA, the
 * same roundings: cvtpd_ps is the cast to float), so the codes are the
 * same bits; the edges come from the formula, which vectorizes where a
 * table would need gathers. Codes fit 32 bits: n < 2^30 (ranged_vector;
 * cmd_hist.c allows 2^24). bench_kernels' f32, 100 bins, one thread, Xeon
 * (AVX-512 class): 0.49 GB/s before this file had the vector loop or the
 * branch-free scalar one, 1.35 now; about a fifth of the time is counting
 * the codes. */
#define RANGED_BLOCK 512	/* values per block: 4K of doubles, 2K of codes */

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* x rounded to the bin type where in_bt (hist_op), or always
 * (hist_round_to). */
__attribute__((target("avx2")))
static inline __m256d round_v(enum hist_bt bt, __m256d x)
{
	return bt == BT_F32 ? _mm256_cvtps_pd(_mm256_cvtpd_ps(x)) : x;
}

__attribute__((target("avx2")))
static inline __m256d op_v(bool in_bt, enum hist_bt bt, __m256d x)
{
	return in_bt ? round_v(bt, x) : x;
}

/* r's numbers in every lane, made once per block: the loop would reload
 * them from r each time round, as far as the compiler knows. */
struct ranged_v {
	__m256d lob, hib, lo, step, denom, rn, n, n1, nm1, one, two;
	__m128 lobf;
};

/* hist_edge_formula of four bins i (r->step != 0) */
__attribute__((target("avx2")))
static inline __m256d edge_v(const struct ranged_v *k, enum hist_bt bt,
			     bool in_bt, __m256d ri)
{
	__m256d y = op_v(in_bt, bt, _mm256_mul_pd(op_v(in_bt, bt, ri),
						  k->step));

	return round_v(bt, _mm256_add_pd(y, k->lo));
}

/* hist_ranged_bin of v[0..3] into code[0..3] */
__attribute__((target("avx2")))
static inline __attribute__((always_inline)) void
bins4_avx2(const struct hist_ranged *r, const struct ranged_v *k,
	   enum hist_bt bt, bool in_bt, const double *v, uint32_t *code)
{
	__m256d x = _mm256_loadu_pd(v), d;
	__m256d in = _mm256_and_pd(_mm256_cmp_pd(x, k->lob, _CMP_GE_OQ),
				   _mm256_cmp_pd(x, k->hib, _CMP_LE_OQ));
	/* max and min give their second operand for a NaN: lo */
	__m256d vc = _mm256_min_pd(_mm256_max_pd(x, k->lob), k->hib);

	if (bt == BT_F32)
		d = _mm256_cvtps_pd(_mm_sub_ps(_mm256_cvtpd_ps(vc), k->lobf));
	else
		d = _mm256_sub_pd(vc, k->lob);
	d = op_v(in_bt, bt, _mm256_div_pd(d, k->denom));
	__m256d est = op_v(in_bt, bt, _mm256_mul_pd(d, k->rn));
	__m256d bad = _mm256_andnot_pd(_mm256_cmp_pd(est, k->n1, _CMP_LT_OQ),
				       in);

	if (__builtin_expect(_mm256_movemask_pd(bad) != 0, 0)) {
		for (int l = 0; l < 4; l++)
			code[l] = (uint32_t)hist_ranged_bin(r, bt, in_bt, v[l]);
		return;
	}
	/* the bin as a double: trunc(min(est, n - 1)), corrected */
	__m256d fi = _mm256_round_pd(_mm256_min_pd(est, k->nm1),
				     _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
	__m256d lt = _mm256_cmp_pd(vc, edge_v(k, bt, in_bt, fi), _CMP_LT_OQ);
	__m256d down = _mm256_and_pd(lt, _mm256_cmp_pd(
		fi, _mm256_setzero_pd(), _CMP_NEQ_OQ));
	__m256d up = _mm256_andnot_pd(lt, _mm256_and_pd(
		_mm256_cmp_pd(fi, k->nm1, _CMP_NEQ_OQ),
		_mm256_cmp_pd(vc, edge_v(k, bt, in_bt,
					 _mm256_add_pd(fi, k->one)),
			      _CMP_GE_OQ)));

	fi = _mm256_sub_pd(fi, _mm256_and_pd(down, k->one));
	fi = _mm256_add_pd(fi, _mm256_and_pd(up, k->one));
	/* out of range: n + 2 for NaN, n + 1 above, n below */
	__m256d out = _mm256_add_pd(k->n, _mm256_add_pd(
		_mm256_and_pd(_mm256_cmp_pd(x, x, _CMP_UNORD_Q), k->two),
		_mm256_and_pd(_mm256_cmp_pd(x, k->hib, _CMP_GT_OQ), k->one)));

	fi = _mm256_blendv_pd(out, fi, in);
	_mm_storeu_si128((__m128i *)code, _mm256_cvttpd_epi32(fi));
}

/* The codes of v[0..m), m a multiple of 4. */
__attribute__((target("avx2")))
static inline __attribute__((always_inline)) void
bins_avx2(const struct hist_ranged *r, enum hist_bt bt, bool in_bt,
	  const double *v, size_t m, uint32_t *code)
{
	const struct ranged_v k = {
		.lob = _mm256_set1_pd(r->lob), .hib = _mm256_set1_pd(r->hib),
		.lo = _mm256_set1_pd(r->lo), .step = _mm256_set1_pd(r->step),
		.denom = _mm256_set1_pd(r->denom), .rn = _mm256_set1_pd(r->rn),
		.n = _mm256_set1_pd(r->nm1 + 1), .n1 = _mm256_set1_pd(r->n1),
		.nm1 = _mm256_set1_pd(r->nm1), .one = _mm256_set1_pd(1),
		.two = _mm256_set1_pd(2), .lobf = _mm_set1_ps((float)r->lob),
	};

	for (size_t j = 0; j < m; j += 4)
		bins4_avx2(r, &k, bt, in_bt, v + j, code + j);
}

__attribute__((target("avx2")))
static void bins_avx2_f32(const struct hist_ranged *r, const double *v,
			  size_t m, uint32_t *code)
{
	if (r->in_bt)
		bins_avx2(r, BT_F32, true, v, m, code);
	else
		bins_avx2(r, BT_F32, false, v, m, code);
}

__attribute__((target("avx2")))
static void bins_avx2_f64(const struct hist_ranged *r, const double *v,
			  size_t m, uint32_t *code)
{
	bins_avx2(r, BT_F64, false, v, m, code);	/* in_bt: no rounding */
}

#endif

typedef void bins_fn(const struct hist_ranged *, const double *, size_t,
		     uint32_t *);

/* The vector code for r's bin type, or NULL where the scalar loop runs:
 * no AVX2 (or a test asking for the portable loop: cpu_portable), f16
 * bins, or edges the formula would compute otherwise. */
static bins_fn *ranged_vector(const struct hist_ranged *r)
{
	if (!cpu_avx2() || r->bt == BT_F16 || r->step == 0 ||
	    r->n >= (1u << 30))
		return NULL;
#if defined(__x86_64__) && defined(__GNUC__)
	return r->bt == BT_F32 ? bins_avx2_f32 : bins_avx2_f64;
#else
	return NULL;
#endif
}

/* Count codes of the values p[j0..j0+m) of a C-column stream. */
static void count_codes(const struct hist_ranged *r, struct hist_acc *h,
			const uint32_t *code, size_t j0, size_t m)
{
	uint64_t C = h->columns, n = r->n, c = j0 % C;

	if (C == 1) {
		for (size_t j = 0; j < m; j++)
			h->v[code[j] < n ? 3 + code[j] : code[j] - n]++;
		return;
	}
	for (size_t j = 0; j < m; j++) {
		uint64_t i = code[j];

		if (i < n)
			hist_counts(h, c)[i]++;
		else
			h->v[(i - n) * C + c]++;
		c = c + 1 == C ? 0 : c + 1;
	}
}

/* Bins at or below this many get a table of their edges in scratch, when
 * the call has at least EDGE_TABLE_PER values per edge to amortize it. */
#define EDGE_TABLE_MAX 4096
#define EDGE_TABLE_PER 8

/* The bin of each value counted into h: a loop per data type T (each value
 * CONV-erted to double exactly) and bin type BT, in two copies, in_bt false
 * and true, so that no choice is left in the loop; one column apart.
 * below[], above[] and nan[] are consecutive arrays of C counts, so the
 * out-of-range code n + k lands at v[k*C + c]. */
#define RANGED_LOOP(name, T, BT, CONV)					\
static inline __attribute__((always_inline)) void			\
name##_in(const struct hist_ranged *r, struct hist_acc *h, const T *p,	\
	  size_t nrec, bool in_bt)					\
{									\
	uint64_t C = h->columns, n = r->n;				\
	if (C == 1) {							\
		for (size_t k = 0; k < nrec; k++) {			\
			uint64_t i = hist_ranged_bin(r, BT, in_bt,		\
							     CONV(p[k]));	\
			h->v[i < n ? 3 + i : i - n]++;			\
		}							\
		return;							\
	}								\
	for (size_t k = 0; k < nrec; k++) {				\
		for (uint64_t c = 0; c < C; c++) {			\
			uint64_t i = hist_ranged_bin(r, BT, in_bt,	\
						CONV(p[k * C + c]));	\
			if (i < n)					\
				hist_counts(h, c)[i]++;			\
			else						\
				h->v[(i - n) * C + c]++;		\
		}							\
	}								\
}									\
static void name(const struct hist_ranged *r, struct hist_acc *h,	\
		 const void *data, size_t nrec)				\
{									\
	bins_fn *vec = ranged_vector(r);				\
	const T *p = data;						\
	size_t nv = nrec * h->columns, j = 0;				\
	if (vec) {							\
		double v[RANGED_BLOCK];					\
		uint32_t code[RANGED_BLOCK];				\
		for (; j < nv; j += RANGED_BLOCK) {			\
			size_t m = nv - j < RANGED_BLOCK ?		\
				   nv - j : RANGED_BLOCK;		\
			size_t m4 = (m + 3) & ~(size_t)3;		\
			for (size_t k = 0; k < m; k++)			\
				v[k] = CONV(p[j + k]);			\
			for (size_t k = m; k < m4; k++)	/* tail: codes unused */ \
				v[k] = 0;				\
			vec(r, v, m4, code);				\
			count_codes(r, h, code, j, m);			\
		}							\
		return;							\
	}								\
	if (r->in_bt)							\
		name##_in(r, h, data, nrec, true);			\
	else								\
		name##_in(r, h, data, nrec, false);			\
}

static inline double conv_f16(uint16_t x) { return f16_to_f32(x); }
static inline double conv_bf16(uint16_t x) { return bf16_to_f32(x); }
#define CONV_D(x) ((double)(x))

RANGED_LOOP(ranged_u8, uint8_t, BT_F64, CONV_D)
RANGED_LOOP(ranged_i8, int8_t, BT_F64, CONV_D)
RANGED_LOOP(ranged_u16, uint16_t, BT_F64, CONV_D)
RANGED_LOOP(ranged_i16, int16_t, BT_F64, CONV_D)
RANGED_LOOP(ranged_u32, uint32_t, BT_F64, CONV_D)
RANGED_LOOP(ranged_i32, int32_t, BT_F64, CONV_D)
RANGED_LOOP(ranged_u64, uint64_t, BT_F64, CONV_D)
RANGED_LOOP(ranged_i64, int64_t, BT_F64, CONV_D)
RANGED_LOOP(ranged_f16, uint16_t, BT_F16, conv_f16)
RANGED_LOOP(ranged_bf16, uint16_t, BT_F32, conv_bf16)
RANGED_LOOP(ranged_f32, float, BT_F32, CONV_D)
RANGED_LOOP(ranged_f64, double, BT_F64, CONV_D)

typedef void ranged_fn(const struct hist_ranged *, struct hist_acc *,
		       const void *, size_t);
static ranged_fn *const ranged_loops[GS_NTYPES] = {
	[GS_U8] = ranged_u8, [GS_I8] = ranged_i8, [GS_U16] = ranged_u16,
	[GS_I16] = ranged_i16, [GS_U32] = ranged_u32, [GS_I32] = ranged_i32,
	[GS_U64] = ranged_u64, [GS_I64] = ranged_i64, [GS_F16] = ranged_f16,
	[GS_BF16] = ranged_bf16, [GS_F32] = ranged_f32, [GS_F64] = ranged_f64,
};

void hist_codes(const struct gs_job *job, const double *v, size_t m,
		uint32_t *code)
{
	struct hist_ranged r;
	bins_fn *vec;
	size_t j = 0;

	r = hist_ranged_make(job);
	vec = ranged_vector(&r);
	if (vec && m >= 4) {
		j = m & ~(size_t)3;
		vec(&r, v, j, code);
	}
	for (; j < m; j++)
		code[j] = (uint32_t)hist_ranged_bin(&r, r.bt, r.in_bt, v[j]);
}

/* ---- per-value bins ----------------------------------------------------- */

/* Counts 8-bit values; flip (0 or 0x80) maps i8 so that -128 is bin 0. */
static void perval8_block(struct hist_acc *h, uint32_t *sub, const uint8_t *p,
			  size_t nrec, uint8_t flip)
{
	uint64_t C = h->columns;
	size_t k = 0;

	memset(sub, 0, HIST8_SUBS * C * 256 * sizeof *sub);
	if (C == 1) {
		for (; k + 4 <= nrec; k += 4) {
			sub[0 * 256 + (uint8_t)(p[k] ^ flip)]++;
			sub[1 * 256 + (uint8_t)(p[k + 1] ^ flip)]++;
			sub[2 * 256 + (uint8_t)(p[k + 2] ^ flip)]++;
			sub[3 * 256 + (uint8_t)(p[k + 3] ^ flip)]++;
		}
	}
	for (; k < nrec; k++) {
		uint32_t *s = sub + (k % HIST8_SUBS) * C * 256;
		for (uint64_t c = 0; c < C; c++)
			s[c * 256 + (uint8_t)(p[k * C + c] ^ flip)]++;
	}
	for (uint64_t c = 0; c < C; c++) {
		uint64_t *cnt = hist_counts(h, c);
		for (unsigned j = 0; j < HIST8_SUBS; j++)
			for (unsigned b = 0; b < 256; b++)
				cnt[b] += sub[(j * C + c) * 256 + b];
	}
}

static void perval8(struct hist_acc *h, uint32_t *sub, const uint8_t *p,
		    size_t nrec, uint8_t flip)
{
	while (nrec > 0) {
		size_t n = nrec < HIST8_BLOCK ? nrec : HIST8_BLOCK;
		perval8_block(h, sub, p, n, flip);
		p += n * h->columns;
		nrec -= n;
	}
}

static void perval16(struct hist_acc *h, const uint16_t *p, size_t nrec,
		     uint16_t flip)
{
	uint64_t C = h->columns;

	for (size_t k = 0; k < nrec; k++)
		for (uint64_t c = 0; c < C; c++)
			hist_counts(h, c)[(uint16_t)(p[k * C + c] ^ flip)]++;
}

/* ---- the kernel table ------------------------------------------------- */

static uint64_t hist_nbins(const struct gs_job *job)
{
	if (job->ranged)
		return job->bins;
	return (uint64_t)1 << (8 * type_size(job->dtype.type));
}

static size_t hist_acc_size(const struct gs_job *job)
{
	return sizeof(struct hist_acc) +
	       (3 + hist_nbins(job)) * job->columns * sizeof(uint64_t);
}

static void hist_acc_init(const struct gs_job *job, void *acc)
{
	struct hist_acc *h = acc;

	h->nbins = hist_nbins(job);
	h->columns = job->columns;
	memset(h->v, 0, (3 + h->nbins) * h->columns * sizeof(uint64_t));
}

static void hist_acc_merge(const struct gs_job *job, void *acc, const void *src)
{
	struct hist_acc *h = acc;
	const struct hist_acc *s = src;
	uint64_t n = (3 + h->nbins) * h->columns;

	for (uint64_t i = 0; i < n; i++)
		h->v[i] += s->v[i];
}

static size_t hist_scratch_size(const struct gs_job *job)
{
	if (job->ranged)
		return job->bins <= EDGE_TABLE_MAX ?
		       (job->bins + 1) * sizeof(double) : 0;
	if (type_size(job->dtype.type) != 1)
		return 0;
	return HIST8_SUBS * (size_t)job->columns * 256 * sizeof(uint32_t);
}

static void hist_cpu_add(const struct gs_job *job, void *acc, void *scratch,
			 const void *data, const void *data2, size_t nrec)
{
	enum gs_type t = job->dtype.type;
	struct hist_ranged r;

	if (job->ranged) {
		r = hist_ranged_make(job);
		if (!ranged_vector(&r) && r.n <= EDGE_TABLE_MAX &&
		    nrec * job->columns >= EDGE_TABLE_PER * (r.n + 1)) {
			hist_edges(job, scratch);
			r.edges = scratch;
		}
		ranged_loops[t](&r, acc, data, nrec);
	} else if (type_size(t) == 1) {
		perval8(acc, scratch, data, nrec, t == GS_I8 ? 0x80 : 0);
	} else {
		perval16(acc, data, nrec, t == GS_I16 ? 0x8000 : 0);
	}
}

const struct acc_kernels hist_kernels = {
	.acc_size = hist_acc_size,
	.acc_init = hist_acc_init,
	.acc_merge = hist_acc_merge,
	.scratch_size = hist_scratch_size,
	.cpu_add = hist_cpu_add,
};
