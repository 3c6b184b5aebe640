/*
 * cpu_stats.c - count, NaN count, min, max, exact sum and exact sum of
 * squares per column, on the CPU.
 *
 * f32 (and f16/bf16, widened to f32 exactly): a float is m * 2^(e - 150)
 * with a 24-bit significand m and biased exponent e (1 for subnormals), so
 * the sum is gathered exactly in int64 bins indexed by e (|m| < 2^24) and
 * the sum of squares in uint64 bins indexed by e holding m^2 < 2^48, which
 * weighs 2^(2e - 300). There are F32_LANES sets of bins, record k going
 * into set k % F32_LANES, and a square bin can take 2^16 additions, so
 * every F32_RUN records the bins are added into 128-bit bins, and those
 * into the xsums at the end of the call. Values go in a stage of
 * F32_STAGE at a time: taken apart in vectors, then added into the bins.
 * This is several times faster than going through doubles and xbins.
 *
 * f64: struct xbins for the sum and the sum of squares (xbins_add_prod_f64
 * keeps v*v exact), flushed every XBINS_FLUSH_EVERY records.
 *
 * Integers: the sum in a 128-bit integer; squares (up to 2^128 for 64-bit
 * values) into a 192-bit one, a 128-bit low part with a carry word. One
 * column of 8- or 16-bit values adds blocks in narrower lanes first, and
 * so do 2, 3, 4, 6 or 8 of them, in 48 lanes.
 *
 * Columns are handled STATS_GROUP at a time, each group one pass over the
 * records, so the scratch stays bounded whatever the number of columns.
 * Min and max of floats compare integer keys made from the bits, which
 * order -0 below +0 (NaNs are counted before they get there).
 */
#include <math.h>
#include <string.h>

#include "acc.h"
#include "cpu_f32bits.h"
#include "fkeys.h"

#define STATS_GROUP 8
#define F32_BLOCK (1u << 16)	/* m^2 < 2^48: 2^16 of them fit a uint64 */
#define F32_LANES 8		/* sets of bins, record k in set k % 8 */
#define F32_RUN (F32_LANES * F32_BLOCK)	/* records between widenings */
#define F32_STAGE 256		/* values taken apart at a time */

_Static_assert(F32_STAGE % F32_LANES == 0, "a stage starts at lane 0");
#define F64_DIRECT_MAX 64	/* fewer records skip the xbins (stats_f64_direct) */

struct u192 {
	unsigned __int128 lo;
	uint64_t hi;
};

/* A bin: the sum and the sum of squares side by side, one cache line for
 * both. */
struct f32_bin {
	int64_t s1;
	uint64_t s2;
};

/* bin[e * F32_LANES + l] is exponent e of lane l: the lanes of an exponent
 * share a cache line. Lanes 256 bins apart were 4 KiB apart, and loads
 * from one waited on stores to another (4K aliasing): half the speed on
 * data of one binade. */
struct f32_slot {
	struct f32_bin bin[256 * F32_LANES];
	__int128 w1[256];
	unsigned __int128 w2[256];
	int32_t kmin, kmax;
	uint64_t nan;
	bool pinf, ninf;
};

struct f64_slot {
	struct xbins b1, b2;
	int64_t kmin, kmax;
	uint64_t nan;
};

struct int_slot {
	__int128 s1;		/* signed types */
	unsigned __int128 u1;	/* unsigned types */
	struct u192 s2;
	int64_t imin, imax;
	uint64_t umin, umax;
};

union stats_slot {
	struct f32_slot f32;
	struct f64_slot f64;
	struct int_slot in;
};

/* Fold a chunk's min and max into c before its count and nan take the
 * chunk in: c holds values of its own when c->count > c->nan. */
static void merge_minmax(const struct gs_job *job, struct stats_col *c,
			 union gs_scalar mn, union gs_scalar mx)
{
	enum gs_type t = job->dtype.type;

	if (c->count == c->nan) {
		c->min = mn;
		c->max = mx;
	} else if (type_is_float(t)) {
		if (f64_key(mn.f) < f64_key(c->min.f))
			c->min = mn;
		if (f64_key(mx.f) > f64_key(c->max.f))
			c->max = mx;
	} else if (type_is_signed(t)) {
		if (mn.i < c->min.i)
			c->min = mn;
		if (mx.i > c->max.i)
			c->max = mx;
	} else {
		if (mn.u < c->min.u)
			c->min = mn;
		if (mx.u > c->max.u)
			c->max = mx;
	}
}

/* ---- f32, f16, bf16 ------------------------------------------------------ */

static void f32_slot_init(struct f32_slot *s)
{
	memset(s, 0, sizeof *s);
	s->kmin = INT32_MAX;
	s->kmax = INT32_MIN;
}

/* Infinities and NaNs, rare enough to leave the hot loop. */
static __attribute__((noinline)) void f32_special(struct f32_slot *s,
						  uint32_t b)
{
	int32_t k = key32(b);

	if (b & 0x7fffff) {
		s->nan++;
		return;
	}
	if (b >> 31)
		s->ninf = true;
	else
		s->pinf = true;
	s->kmin = k < s->kmin ? k : s->kmin;
	s->kmax = k > s->kmax ? k : s->kmax;
}

/* One value into lane l, with the check for infinities and NaNs: how a
 * stage that holds one goes in (F32_STAGE_IN). */
static void f32_one(struct f32_slot *s, unsigned l, uint32_t b)
{
	uint32_t e = (b >> 23) & 0xff;
	int32_t k = key32(b);

	if (e == 0xff) {
		f32_special(s, b);
		return;
	}
	uint32_t m = (b & 0x7fffff) | (uint32_t)(e != 0) << 23;
	e += e == 0;
	s->bin[e * F32_LANES + l].s1 += b >> 31 ? -(int64_t)m : (int64_t)m;
	s->bin[e * F32_LANES + l].s2 += (uint64_t)m * m;
	s->kmin = k < s->kmin ? k : s->kmin;
	s->kmax = k > s->kmax ? k : s->kmax;
}

static void f32_widen(struct f32_slot *s)
{
	for (unsigned l = 0; l < F32_LANES; l++) {
		for (unsigned e = 0; e < 256; e++) {
			s->w1[e] += s->bin[e * F32_LANES + l].s1;
			s->w2[e] += s->bin[e * F32_LANES + l].s2;
		}
	}
	memset(s->bin, 0, sizeof s->bin);
}

/* A stage: F32_STAGE values of one column taken apart with no branch, in
 * vectors (f32_take_apart), then added into the bins one by one, a load,
 * a multiply and two additions each (f32_stage_add). The two loops ran at
 * 3.9 GB/s on bench_kernels' data (one thread of a 2-core Xeon) where one
 * loop doing both ran at 1.65. */
struct f32_stage {
	uint32_t bin[F32_STAGE];	/* value i: its bin, in lane i % F32_LANES */
	int32_t m[F32_STAGE];		/* signed significand, |m| < 2^24 */
};

/* The first n values of a stage into the slot's bins. Value i goes into
 * lane i % F32_LANES: consecutive values mostly fall in a few bins, and
 * with one set of bins each addition waited on the last one to the same
 * bin, through memory. Data of one binade ran at 1.8 GB/s with one lane,
 * 3.3 with four and 3.85 with eight (bench_kernels' data, of a few
 * binades, at 3.0, 3.95 and 3.85). */
static inline void f32_stage_add(struct f32_slot *s, const struct f32_stage *st,
				 size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct f32_bin *bn = &s->bin[st->bin[i]];
		int64_t m = st->m[i];

		bn->s1 += m;
		bn->s2 += (uint64_t)(m * m);
	}
}

/* Take apart the F32_STAGE values x (f32 bits) into st; their min and max
 * keys into *kmin and *kmax. Returns nonzero when one is an infinity or
 * NaN, and then st and the keys are to be thrown away. No branch: the
 * compiler vectorizes it. */
static inline __attribute__((always_inline)) uint32_t
f32_take_apart(struct f32_stage *restrict st, const uint32_t *restrict x,
	       int32_t *kmin, int32_t *kmax)
{
	int32_t mn = INT32_MAX, mx = INT32_MIN;
	uint32_t spec = 0;

	for (uint32_t i = 0; i < F32_STAGE; i++) {
		uint32_t b = x[i];
		uint32_t e = (b >> 23) & 0xff;
		uint32_t m = (b & 0x7fffff) | (uint32_t)(e != 0) << 23;
		uint32_t neg = (uint32_t)((int32_t)b >> 31);
		int32_t k = key32(b);

		spec |= e == 0xff;
		st->bin[i] = (e + (e == 0)) * F32_LANES + i % F32_LANES;
		st->m[i] = (int32_t)((m ^ neg) - neg);
		mn = k < mn ? k : mn;
		mx = k > mx ? k : mx;
	}
	*kmin = mn;
	*kmax = mx;
	return spec;
}

typedef uint32_t take_apart_fn(struct f32_stage *, const uint32_t *,
			       int32_t *, int32_t *);

/* f32_take_apart for the machine: built for AVX2 as well (8 values a step,
 * with min and max of 32-bit ints, which SSE2 lacks) and picked at run
 * time by cpu_avx2(), as cpu_fsum32.c does. */
static uint32_t take_apart_c(struct f32_stage *st, const uint32_t *x,
			     int32_t *kmin, int32_t *kmax)
{
	return f32_take_apart(st, x, kmin, kmax);
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2")))
static uint32_t take_apart_avx2(struct f32_stage *st, const uint32_t *x,
				int32_t *kmin, int32_t *kmax)
{
	return f32_take_apart(st, x, kmin, kmax);
}

#else
#define take_apart_avx2 take_apart_c
#endif

static take_apart_fn *take_apart_pick(void)
{
	return cpu_avx2() ? take_apart_avx2 : take_apart_c;
}

/* A stage of n <= F32_STAGE values of one column (elements i0 + i * C)
 * into slot s. The values are copied into x as f32 bits unless they are
 * f32 already (DIRECT) and contiguous, and a short stage padded with its
 * first value, which leaves the keys as they are. A stage holding an
 * infinity or NaN goes one value at a time instead, through f32_one. */
#define F32_STAGE_IN(name, BITS, DIRECT)					\
static void name(struct f32_slot *s, struct f32_stage *st, uint32_t *x,	\
		 take_apart_fn *fn, const void *data, size_t i0, size_t C,	\
		 size_t n)							\
{										\
	const uint32_t *v = x;							\
	int32_t mn, mx;								\
	if (DIRECT && C == 1 && n == F32_STAGE) {				\
		v = (const uint32_t *)data + i0;				\
	} else {								\
		for (size_t i = 0; i < n; i++)					\
			x[i] = BITS(data, i0 + i * C);				\
		for (size_t i = n; i < F32_STAGE; i++)				\
			x[i] = x[0];						\
	}									\
	if (fn(st, v, &mn, &mx)) {						\
		for (size_t i = 0; i < n; i++)					\
			f32_one(s, i % F32_LANES, v[i]);			\
		return;								\
	}									\
	s->kmin = mn < s->kmin ? mn : s->kmin;				\
	s->kmax = mx > s->kmax ? mx : s->kmax;				\
	f32_stage_add(s, st, n);						\
}

/* Records [k0, k1) of columns c0 .. c0+g-1 into the slots, a stage of each
 * column in turn; one function per type so that the load is not a switch
 * in the hot loop. k1 - k0 is at most F32_RUN and every stage but the
 * last F32_STAGE records, so record k goes into lane (k - k0) % F32_LANES
 * and a lane takes at most F32_BLOCK additions. */
#define F32_RANGE(name, stage)							\
static void name(union stats_slot *slots, const void *data, size_t k0,	\
		 size_t k1, size_t C, unsigned c0, unsigned g)			\
{										\
	struct f32_stage st;							\
	uint32_t x[F32_STAGE];							\
	take_apart_fn *fn = take_apart_pick();					\
	for (size_t k = k0; k < k1; k += F32_STAGE) {				\
		size_t n = k1 - k < F32_STAGE ? k1 - k : F32_STAGE;		\
		for (unsigned j = 0; j < g; j++)				\
			stage(&slots[j].f32, &st, x, fn, data,			\
			      k * C + c0 + j, C, n);				\
	}									\
}

F32_STAGE_IN(stage_f32, bits_f32, 1)
F32_STAGE_IN(stage_bf16, bits_bf16, 0)
F32_STAGE_IN(stage_f16, bits_f16, 0)
F32_RANGE(range_f32, stage_f32)
F32_RANGE(range_bf16, stage_bf16)
F32_RANGE(range_f16, stage_f16)

static void f32_finish(const struct gs_job *job, struct f32_slot *s,
		       struct stats_col *c, size_t nrec)
{
	for (int e = 1; e < 255; e++) {
		if (s->w1[e])
			xsum_add_i128(&c->s1, s->w1[e], e - 150);
		if (s->w2[e])
			xsum_add_u128(&c->s2, s->w2[e], 2 * e - 300, false);
	}
	if (s->pinf)
		xsum_add_f64(&c->s1, INFINITY);
	if (s->ninf)
		xsum_add_f64(&c->s1, -INFINITY);
	if (s->pinf || s->ninf)
		xsum_add_f64(&c->s2, INFINITY);
	if (nrec > s->nan)
		merge_minmax(job, c, (union gs_scalar){ .f = key32_to_f64(s->kmin) },
			     (union gs_scalar){ .f = key32_to_f64(s->kmax) });
	c->nan += s->nan;
}

static void stats_f32_group(const struct gs_job *job, struct stats_col *acc,
			    union stats_slot *slots, const void *data,
			    size_t nrec, unsigned c0, unsigned g)
{
	enum gs_type t = job->dtype.type;
	size_t C = job->columns;
	void (*range)(union stats_slot *, const void *, size_t, size_t, size_t,
		      unsigned, unsigned) =
		t == GS_F32 ? range_f32 : t == GS_BF16 ? range_bf16 : range_f16;

	for (unsigned j = 0; j < g; j++)
		f32_slot_init(&slots[j].f32);
	for (size_t k0 = 0; k0 < nrec; k0 += F32_RUN) {
		size_t k1 = nrec - k0 < F32_RUN ? nrec : k0 + F32_RUN;
		range(slots, data, k0, k1, C, c0, g);
		for (unsigned j = 0; j < g; j++)
			f32_widen(&slots[j].f32);
	}
	for (unsigned j = 0; j < g; j++)
		f32_finish(job, &slots[j].f32, &acc[c0 + j], nrec);
}

/* ---- f64 ------------------------------------------------------------------ */

static void f64_flush(struct f64_slot *s, struct stats_col *c)
{
	xbins_flush(&s->b1, &c->s1);
	xbins_flush(&s->b2, &c->s2);
}

/* A few records straight into the xsums: clearing and flushing two xbins of
 * 4200 bins per column costs more than adding a few dozen values one at a
 * time (a stream of wide records, a million f64 columns in a chunk of 8,
 * took minutes that way). */
static void stats_f64_direct(const struct gs_job *job, struct stats_col *acc,
			     const double *p, size_t nrec, unsigned c0,
			     unsigned g)
{
	size_t C = job->columns;

	for (unsigned j = 0; j < g; j++) {
		struct stats_col *c = &acc[c0 + j];
		int64_t kmin = INT64_MAX, kmax = INT64_MIN;
		uint64_t nan = 0;

		for (size_t k = 0; k < nrec; k++) {
			double v = p[k * C + c0 + j];
			if (isnan(v)) {
				nan++;
				continue;
			}
			xsum_add_f64(&c->s1, v);
			xsum_add_prod_f64(&c->s2, v, v);
			int64_t key = f64_key(v);
			kmin = key < kmin ? key : kmin;
			kmax = key > kmax ? key : kmax;
		}
		if (nrec > nan)
			merge_minmax(job, c, (union gs_scalar){ .f = key64_to_f64(kmin) },
				     (union gs_scalar){ .f = key64_to_f64(kmax) });
		c->nan += nan;
	}
}

static void stats_f64_group(const struct gs_job *job, struct stats_col *acc,
			    union stats_slot *slots, const double *p,
			    size_t nrec, unsigned c0, unsigned g)
{
	size_t C = job->columns;

	if (nrec < F64_DIRECT_MAX) {
		stats_f64_direct(job, acc, p, nrec, c0, g);
		return;
	}

	for (unsigned j = 0; j < g; j++) {
		struct f64_slot *s = &slots[j].f64;
		xbins_init(&s->b1);
		xbins_init(&s->b2);
		s->kmin = INT64_MAX;
		s->kmax = INT64_MIN;
		s->nan = 0;
	}
	for (size_t k0 = 0; k0 < nrec; k0 += XBINS_FLUSH_EVERY) {
		size_t k1 = nrec - k0 < XBINS_FLUSH_EVERY ? nrec
							 : k0 + XBINS_FLUSH_EVERY;
		for (size_t k = k0; k < k1; k++) {
			for (unsigned j = 0; j < g; j++) {
				struct f64_slot *s = &slots[j].f64;
				double v = p[k * C + c0 + j];
				if (isnan(v)) {
					s->nan++;
					continue;
				}
				xbins_add_f64(&s->b1, v);
				xbins_add_prod_f64(&s->b2, v, v);
				int64_t key = f64_key(v);
				s->kmin = key < s->kmin ? key : s->kmin;
				s->kmax = key > s->kmax ? key : s->kmax;
			}
		}
		for (unsigned j = 0; j < g; j++)
			f64_flush(&slots[j].f64, &acc[c0 + j]);
	}
	for (unsigned j = 0; j < g; j++) {
		struct f64_slot *s = &slots[j].f64;
		if (nrec > s->nan)
			merge_minmax(job, &acc[c0 + j],
				     (union gs_scalar){ .f = key64_to_f64(s->kmin) },
				     (union gs_scalar){ .f = key64_to_f64(s->kmax) });
		acc[c0 + j].nan += s->nan;
	}
}

/* ---- integers ------------------------------------------------------------- */

static inline void u192_add(struct u192 *a, unsigned __int128 v)
{
	a->lo += v;
	a->hi += a->lo < v;
}

static inline void int_signed_one(struct int_slot *s, int64_t v)
{
	uint64_t a = v < 0 ? -(uint64_t)v : (uint64_t)v;

	s->s1 += v;
	u192_add(&s->s2, (unsigned __int128)a * a);
	s->imin = v < s->imin ? v : s->imin;
	s->imax = v > s->imax ? v : s->imax;
}

static inline void int_unsigned_one(struct int_slot *s, uint64_t v)
{
	s->u1 += v;
	u192_add(&s->s2, (unsigned __int128)v * v);
	s->umin = v < s->umin ? v : s->umin;
	s->umax = v > s->umax ? v : s->umax;
}

#define INT_LOOP(name, T, ONE)							\
static void name(union stats_slot *slots, const void *data, size_t nrec,	\
		 size_t C, unsigned c0, unsigned g)				\
{										\
	const T *p = data;							\
	for (size_t k = 0; k < nrec; k++)					\
		for (unsigned j = 0; j < g; j++)				\
			ONE(&slots[j].in, p[k * C + c0 + j]);			\
}

INT_LOOP(int_u8, uint8_t, int_unsigned_one)
INT_LOOP(int_i8, int8_t, int_signed_one)
INT_LOOP(int_u16, uint16_t, int_unsigned_one)
INT_LOOP(int_i16, int16_t, int_signed_one)
INT_LOOP(int_u32, uint32_t, int_unsigned_one)
INT_LOOP(int_i32, int32_t, int_signed_one)
INT_LOOP(int_u64, uint64_t, int_unsigned_one)
INT_LOOP(int_i64, int64_t, int_signed_one)

typedef void int_fn(union stats_slot *, const void *, size_t, size_t, unsigned,
		    unsigned);
static int_fn *const int_loops[GS_F16] = {
	[GS_U8] = int_u8, [GS_I8] = int_i8, [GS_U16] = int_u16,
	[GS_I16] = int_i16, [GS_U32] = int_u32, [GS_I32] = int_i32,
	[GS_U64] = int_u64, [GS_I64] = int_i64,
};

/* A block's sum a, sum of squares q, least and greatest value into s
 * (sgn: the slot's signed fields, else the unsigned ones). */
static inline void int_fold(struct int_slot *s, bool sgn, int64_t a,
			    uint64_t q, int64_t lo, int64_t hi)
{
	u192_add(&s->s2, q);
	if (sgn) {
		s->s1 += a;
		s->imin = lo < s->imin ? lo : s->imin;
		s->imax = hi > s->imax ? hi : s->imax;
	} else {
		s->u1 += (uint64_t)a;
		s->umin = (uint64_t)lo < s->umin ? (uint64_t)lo : s->umin;
		s->umax = (uint64_t)hi > s->umax ? (uint64_t)hi : s->umax;
	}
}

/* One column of 8- or 16-bit integers goes INT_BLOCK values at a time
 * through lanes that cannot overflow: the sum in 32 bits (|sum| < 2^16 *
 * 1024), each square in 32 (< 2^32) and their sum in 64 (< 2^42), with
 * the block's min and max, a loop the compiler vectorizes (the 128- and
 * 192-bit sums of int_*_one do not: 0.8 GB/s of i16 on one thread); then
 * the block into the slot. W is the lane: int32_t for signed types,
 * uint32_t for unsigned ones. */
#define INT_BLOCK 1024

#define INT_NARROW(name, ATTR, T, W)						\
ATTR static void name(struct int_slot *s, const void *data, size_t nblocks)	\
{										\
	const T *p = data;							\
										\
	for (size_t b = 0; b < nblocks; b++, p += INT_BLOCK) {			\
		W a = 0;							\
		uint64_t q = 0;							\
		T lo = p[0], hi = p[0];						\
										\
		for (size_t i = 0; i < INT_BLOCK; i++) {			\
			a += (W)p[i];						\
			q += (uint32_t)((W)p[i] * (W)p[i]);			\
			lo = p[i] < lo ? p[i] : lo;				\
			hi = p[i] > hi ? p[i] : hi;				\
		}								\
		int_fold(s, (T)-1 < 0, (int64_t)a, q, lo, hi);		\
	}									\
}

#define INT_NARROW2(name, T, W)							\
INT_NARROW(name##_c, , T, W)							\
INT_NARROW(name##_avx2, AVX2_FN, T, W)

INT_NARROW2(narrow_u8, uint8_t, uint32_t)
INT_NARROW2(narrow_i8, int8_t, int32_t)
INT_NARROW2(narrow_u16, uint16_t, uint32_t)
INT_NARROW2(narrow_i16, int16_t, int32_t)

typedef void narrow_fn(struct int_slot *, const void *, size_t);
static narrow_fn *const narrow_loops[2][GS_U32] = {
	{ [GS_U8] = narrow_u8_c, [GS_I8] = narrow_i8_c,
	  [GS_U16] = narrow_u16_c, [GS_I16] = narrow_i16_c },
	{ [GS_U8] = narrow_u8_avx2, [GS_I8] = narrow_i8_avx2,
	  [GS_U16] = narrow_u16_avx2, [GS_I16] = narrow_i16_avx2 },
};

static void int_finish(const struct gs_job *job, struct int_slot *s,
		       struct stats_col *c)
{
	bool sgn = type_is_signed(job->dtype.type);

	if (sgn)
		xsum_add_i128(&c->s1, s->s1, 0);
	else
		xsum_add_u128(&c->s1, s->u1, 0, false);
	xsum_add_u128(&c->s2, s->s2.lo, 0, false);
	xsum_add_u128(&c->s2, s->s2.hi, 128, false);
	if (sgn)
		merge_minmax(job, c, (union gs_scalar){ .i = s->imin },
			     (union gs_scalar){ .i = s->imax });
	else
		merge_minmax(job, c, (union gs_scalar){ .u = s->umin },
			     (union gs_scalar){ .u = s->umax });
}

/* A group of several columns of 8- or 16-bit integers that divides
 * INT_LANES (2, 3, 4, 6 or 8 of them: RGB, RGBA...): rows of INT_LANES
 * values, value l of a row in lane l, which holds column l % C, with the
 * same lanes and bounds as INT_NARROW; INT_ROWS rows a block, then each
 * lane into its column's slot. */
#define INT_LANES 48
#define INT_ROWS 64

#define INT_LANED(name, ATTR, T, W)						\
ATTR static void name(union stats_slot *slots, const void *data,		\
		      size_t nblocks, unsigned C)				\
{										\
	const T *p = data;							\
										\
	for (size_t b = 0; b < nblocks; b++, p += INT_LANES * INT_ROWS) {	\
		W a[INT_LANES] = { 0 };						\
		uint64_t q[INT_LANES] = { 0 };					\
		T lo[INT_LANES], hi[INT_LANES];					\
										\
		for (size_t l = 0; l < INT_LANES; l++)				\
			lo[l] = hi[l] = p[l];					\
		for (size_t r = 0; r < INT_ROWS; r++)				\
			for (size_t l = 0; l < INT_LANES; l++) {		\
				T v = p[r * INT_LANES + l];			\
										\
				a[l] += (W)v;					\
				q[l] += (uint32_t)((W)v * (W)v);		\
				lo[l] = v < lo[l] ? v : lo[l];			\
				hi[l] = v > hi[l] ? v : hi[l];			\
			}							\
		for (size_t l = 0; l < INT_LANES; l++)				\
			int_fold(&slots[l % C].in, (T)-1 < 0, (int64_t)a[l],	\
				 q[l], lo[l], hi[l]);				\
	}									\
}

#define INT_LANED2(name, T, W)							\
INT_LANED(name##_c, , T, W)							\
INT_LANED(name##_avx2, AVX2_FN, T, W)

INT_LANED2(laned_u8, uint8_t, uint32_t)
INT_LANED2(laned_i8, int8_t, int32_t)
INT_LANED2(laned_u16, uint16_t, uint32_t)
INT_LANED2(laned_i16, int16_t, int32_t)

typedef void laned_fn(union stats_slot *, const void *, size_t, unsigned);
static laned_fn *const laned_loops[2][GS_U32] = {
	{ [GS_U8] = laned_u8_c, [GS_I8] = laned_i8_c,
	  [GS_U16] = laned_u16_c, [GS_I16] = laned_i16_c },
	{ [GS_U8] = laned_u8_avx2, [GS_I8] = laned_i8_avx2,
	  [GS_U16] = laned_u16_avx2, [GS_I16] = laned_i16_avx2 },
};

static void stats_int_group(const struct gs_job *job, struct stats_col *acc,
			    union stats_slot *slots, const void *data,
			    size_t nrec, unsigned c0, unsigned g)
{
	for (unsigned j = 0; j < g; j++) {
		struct int_slot *s = &slots[j].in;
		memset(s, 0, sizeof *s);
		s->imin = INT64_MAX;
		s->imax = INT64_MIN;
		s->umin = UINT64_MAX;
	}
	if (job->columns == 1 && job->dtype.type < GS_U32) {
		size_t whole = nrec / INT_BLOCK * INT_BLOCK;

		narrow_loops[cpu_avx2()][job->dtype.type](&slots[0].in, data,
							  nrec / INT_BLOCK);
		int_loops[job->dtype.type](slots, (const char *)data +
					   whole * type_size(job->dtype.type),
					   nrec - whole, 1, 0, 1);
	} else if (g == job->columns && g > 1 && INT_LANES % g == 0 &&
		   job->dtype.type < GS_U32) {
		size_t per = INT_LANES * INT_ROWS / g, whole = nrec / per * per;

		laned_loops[cpu_avx2()][job->dtype.type](slots, data, nrec / per, g);
		int_loops[job->dtype.type](slots, (const char *)data +
					   whole * job_record_size(job),
					   nrec - whole, g, 0, g);
	} else {
		int_loops[job->dtype.type](slots, data, nrec, job->columns, c0, g);
	}
	if (nrec == 0)
		return;
	for (unsigned j = 0; j < g; j++)
		int_finish(job, &slots[j].in, &acc[c0 + j]);
}

/* ---- the kernel table ------------------------------------------------- */

static size_t stats_acc_size(const struct gs_job *job)
{
	return job->columns * sizeof(struct stats_col);
}

static void stats_acc_init(const struct gs_job *job, void *acc)
{
	struct stats_col *c = acc;

	for (unsigned j = 0; j < job->columns; j++) {
		memset(&c[j], 0, sizeof c[j]);
		xsum_init(&c[j].s1);
		xsum_init(&c[j].s2);
	}
}

static void stats_acc_merge(const struct gs_job *job, void *acc, const void *src)
{
	struct stats_col *c = acc;
	const struct stats_col *s = src;

	for (unsigned j = 0; j < job->columns; j++) {
		if (s[j].count > s[j].nan)
			merge_minmax(job, &c[j], s[j].min, s[j].max);
		xsum_merge_negzero(&c[j].s1, c[j].count - c[j].nan, &s[j].s1,
				   s[j].count - s[j].nan);
		c[j].count += s[j].count;
		c[j].nan += s[j].nan;
		xsum_merge(&c[j].s1, &s[j].s1);
		xsum_merge(&c[j].s2, &s[j].s2);
	}
}

static unsigned stats_group(const struct gs_job *job)
{
	return job->columns < STATS_GROUP ? job->columns : STATS_GROUP;
}

static size_t stats_scratch_size(const struct gs_job *job)
{
	return stats_group(job) * sizeof(union stats_slot);
}

static void stats_cpu_add(const struct gs_job *job, void *acc, void *scratch,
			  const void *data, const void *data2, size_t nrec)
{
	enum gs_type t = job->dtype.type;
	struct stats_col *cols = acc;
	unsigned G = stats_group(job);
	uint64_t before[STATS_GROUP];

	for (unsigned c0 = 0; c0 < job->columns; c0 += G) {
		unsigned g = job->columns - c0 < G ? job->columns - c0 : G;
		for (unsigned j = 0; j < g; j++)
			before[j] = cols[c0 + j].count - cols[c0 + j].nan;
		if (t == GS_F64)
			stats_f64_group(job, cols, scratch, data, nrec, c0, g);
		else if (type_is_float(t))
			stats_f32_group(job, cols, scratch, data, nrec, c0, g);
		else
			stats_int_group(job, cols, scratch, data, nrec, c0, g);
		/* nan has grown, count not yet: the values are nrec less those */
		for (unsigned j = 0; j < g && type_is_float(t); j++) {
			struct stats_col *s = &cols[c0 + j];

			acc_note_negzero(job, &s->s1, before[j],
					 s->count + nrec - s->nan - before[j],
					 data, c0 + j, nrec, true);
		}
	}
	for (unsigned j = 0; j < job->columns; j++)
		cols[j].count += nrec;
}

const struct acc_kernels stats_kernels = {
	.acc_size = stats_acc_size,
	.acc_init = stats_acc_init,
	.acc_merge = stats_acc_merge,
	.scratch_size = stats_scratch_size,
	.cpu_add = stats_cpu_add,
};
