/*
 * cpu_dot.c - exact dot products on the CPU.
 *
 * dot A B (job->two_inputs): data and data2 have the same record layout and
 * column j of one is multiplied by column j of the other: C dot products.
 * dot --pairs: column 2j of data times column 2j+1: C/2 dot products.
 *
 * f32 (and f16/bf16, widened to f32 exactly): with a = ma * 2^(ea - 150)
 * (24-bit significand, biased exponent, 1 for subnormals), a product is
 * ma*mb (under 2^48) weighing 2^(ea + eb - 300); it is added, signed, to an
 * int64 bin indexed by ea + eb. There are F32_LANES sets of bins, record k
 * going into set k % F32_LANES, and a bin takes 2^15 such additions, so
 * every F32_RUN records the bins move into 128-bit bins, and those into the
 * xsum at the end of the call. Pairs go in a stage of F32_STAGE at a time:
 * taken apart in vectors, then multiplied and added into the bins.
 * f64: xbins_add_prod_f64, flushed every XBINS_FLUSH_EVERY records.
 * Integers: products are exact in 128 bits and summed into 192 bits (a
 * 128-bit low part and a signed carry word).
 *
 * Dot products are handled DOT_GROUP at a time, each group one pass over
 * the records, so the scratch stays bounded whatever the number of columns.
 */
#include <math.h>
#include <string.h>

#include "acc.h"
#include "cpu_f32bits.h"

#define DOT_GROUP 8
#define F32_BLOCK (1u << 15)	/* |ma*mb| < 2^48: 2^15 of them fit an int64 */
#define F32_LANES 4		/* sets of bins, record k in set k % 4 */
#define F32_RUN (F32_LANES * F32_BLOCK)	/* records between widenings */
#define F32_STAGE 256		/* pairs taken apart at a time */

_Static_assert(F32_STAGE % F32_LANES == 0, "a stage starts at lane 0");

/* p[e * F32_LANES + l] is exponent sum e of lane l: the lanes of a bin
 * share a cache line, where lanes 4 KiB apart would alias (see
 * cpu_stats.c). */
struct f32_slot {
	int64_t p[512 * F32_LANES];
	__int128 w[512];
	bool nan, pinf, ninf;
};

struct i192 {
	unsigned __int128 lo;
	int64_t hi;
};

union dot_slot {
	struct f32_slot f32;
	struct xbins f64;
	struct i192 in;
};

/* Where the two factors of dot product j live, in elements. */
struct dot_src {
	const void *a, *b;
	size_t C;		/* elements per record */
	unsigned aoff, boff;	/* offsets of dot product 0 in a record */
	unsigned step;		/* offset increment per dot product */
};

static unsigned dot_count(const struct gs_job *job)
{
	return job->two_inputs ? job->columns : job->columns / 2;
}

/* ---- f32, f16, bf16 ------------------------------------------------------ */

/* A NaN or infinite factor: NaN, inf * 0 and NaN give NaN. */
static __attribute__((noinline)) void f32_special(struct f32_slot *s,
						  uint32_t a, uint32_t b)
{
	uint32_t ma = a & 0x7fffffff, mb = b & 0x7fffffff;

	if (ma > 0x7f800000 || mb > 0x7f800000 || ma == 0 || mb == 0)
		s->nan = true;
	else if ((a ^ b) >> 31)
		s->ninf = true;
	else
		s->pinf = true;
}

/* One pair into lane l, with the check for infinities and NaNs: how a
 * stage that holds one goes in (F32_STAGE_IN). */
static void f32_one(struct f32_slot *s, unsigned l, uint32_t a, uint32_t b)
{
	uint32_t ea = (a >> 23) & 0xff, eb = (b >> 23) & 0xff;

	if (ea == 0xff || eb == 0xff) {
		f32_special(s, a, b);
		return;
	}
	uint64_t ma = (a & 0x7fffff) | (uint32_t)(ea != 0) << 23;
	uint64_t mb = (b & 0x7fffff) | (uint32_t)(eb != 0) << 23;
	int64_t p = (int64_t)(ma * mb);
	ea += ea == 0;
	eb += eb == 0;
	s->p[(ea + eb) * F32_LANES + l] += (a ^ b) >> 31 ? -p : p;
}

static void f32_widen(struct f32_slot *s)
{
	for (unsigned e = 0; e < 512; e++)
		for (unsigned l = 0; l < F32_LANES; l++)
			s->w[e] += s->p[e * F32_LANES + l];
	memset(s->p, 0, sizeof s->p);
}

/* A stage: F32_STAGE pairs taken apart with no branch, in vectors
 * (f32_take_apart), then multiplied and added into the bins one by one
 * (f32_stage_add). */
struct f32_stage {
	uint32_t bin[F32_STAGE];	/* pair i: its bin, in lane i % F32_LANES */
	int32_t ma[F32_STAGE];		/* significand of a, signed as a * b */
	int32_t mb[F32_STAGE];		/* significand of b, < 2^24 */
};

/* The first n pairs of a stage into the slot's bins, pair i into lane
 * i % F32_LANES: consecutive products mostly fall in a few bins, and with
 * one set of bins each addition waited on the last one to the same bin,
 * through memory. */
static inline void f32_stage_add(struct f32_slot *s, const struct f32_stage *st,
				 size_t n)
{
	for (size_t i = 0; i < n; i++)
		s->p[st->bin[i]] += (int64_t)st->ma[i] * st->mb[i];
}

/* Take apart the F32_STAGE pairs x, y (f32 bits) into st. Returns nonzero
 * when one holds an infinity or NaN, and then st is to be thrown away. No
 * branch: the compiler vectorizes it. */
static inline __attribute__((always_inline)) uint32_t
f32_take_apart(struct f32_stage *restrict st, const uint32_t *restrict x,
	       const uint32_t *restrict y)
{
	uint32_t spec = 0;

	for (uint32_t i = 0; i < F32_STAGE; i++) {
		uint32_t a = x[i], b = y[i];
		uint32_t ea = (a >> 23) & 0xff, eb = (b >> 23) & 0xff;
		uint32_t ma = (a & 0x7fffff) | (uint32_t)(ea != 0) << 23;
		uint32_t mb = (b & 0x7fffff) | (uint32_t)(eb != 0) << 23;
		uint32_t neg = (uint32_t)((int32_t)(a ^ b) >> 31);

		spec |= (ea == 0xff) | (eb == 0xff);
		st->bin[i] = (ea + (ea == 0) + eb + (eb == 0)) * F32_LANES +
			     i % F32_LANES;
		st->ma[i] = (int32_t)((ma ^ neg) - neg);
		st->mb[i] = (int32_t)mb;
	}
	return spec;
}

typedef uint32_t take_apart_fn(struct f32_stage *, const uint32_t *,
			       const uint32_t *);

/* f32_take_apart for the machine: built for AVX2 as well and picked at run
 * time by cpu_avx2(), as cpu_fsum32.c does. */
static uint32_t take_apart_c(struct f32_stage *st, const uint32_t *x,
			     const uint32_t *y)
{
	return f32_take_apart(st, x, y);
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2")))
static uint32_t take_apart_avx2(struct f32_stage *st, const uint32_t *x,
				const uint32_t *y)
{
	return f32_take_apart(st, x, y);
}

#else
#define take_apart_avx2 take_apart_c
#endif

static take_apart_fn *take_apart_pick(void)
{
	return cpu_avx2() ? take_apart_avx2 : take_apart_c;
}

static void f32_finish(struct f32_slot *s, struct xsum *x)
{
	for (int e = 2; e < 509; e++)
		if (s->w[e])
			xsum_add_i128(x, s->w[e], e - 300);
	if (s->nan)
		xsum_add_f64(x, NAN);
	if (s->pinf)
		xsum_add_f64(x, INFINITY);
	if (s->ninf)
		xsum_add_f64(x, -INFINITY);
}

/* A stage of n <= F32_STAGE pairs of one dot product (elements i0 + i * C
 * of a and b, plus aoff and boff) into slot s. The pairs are copied into x
 * and y as f32 bits unless they are f32 already (DIRECT) and contiguous,
 * and a short stage padded with its first pair. A stage holding an
 * infinity or NaN goes one pair at a time instead, through f32_one. */
#define F32_STAGE_IN(name, BITS, DIRECT)					\
static void name(struct f32_slot *s, struct f32_stage *st, uint32_t *x,	\
		 uint32_t *y, take_apart_fn *fn, const struct dot_src *d,	\
		 size_t i0, size_t n)						\
{										\
	const uint32_t *u = x, *v = y;						\
	if (DIRECT && d->C == 1 && n == F32_STAGE) {				\
		u = (const uint32_t *)d->a + i0 + d->aoff;			\
		v = (const uint32_t *)d->b + i0 + d->boff;			\
	} else {								\
		for (size_t i = 0; i < n; i++) {				\
			x[i] = BITS(d->a, i0 + i * d->C + d->aoff);		\
			y[i] = BITS(d->b, i0 + i * d->C + d->boff);		\
		}								\
		for (size_t i = n; i < F32_STAGE; i++) {			\
			x[i] = x[0];						\
			y[i] = y[0];						\
		}								\
	}									\
	if (fn(st, u, v)) {							\
		for (size_t i = 0; i < n; i++)					\
			f32_one(s, i % F32_LANES, u[i], v[i]);			\
		return;								\
	}									\
	f32_stage_add(s, st, n);						\
}

/* Records [k0, k1) of dot products j0 .. j0+g-1 into the slots, a stage of
 * each in turn; one function per type so that the load is not a switch in
 * the hot loop. k1 - k0 is at most F32_RUN and every stage but the last
 * F32_STAGE records, so record k goes into lane (k - k0) % F32_LANES and a
 * lane takes at most F32_BLOCK additions. */
#define F32_RANGE(name, stage)							\
static void name(const struct dot_src *d, union dot_slot *slots,	\
		 size_t k0, size_t k1, unsigned j0, unsigned g)			\
{										\
	struct f32_stage st;							\
	uint32_t x[F32_STAGE], y[F32_STAGE];					\
	take_apart_fn *fn = take_apart_pick();					\
	for (size_t k = k0; k < k1; k += F32_STAGE) {				\
		size_t n = k1 - k < F32_STAGE ? k1 - k : F32_STAGE;		\
		for (unsigned j = 0; j < g; j++)				\
			stage(&slots[j].f32, &st, x, y, fn, d,			\
			      k * d->C + (j0 + j) * d->step, n);		\
	}									\
}

F32_STAGE_IN(stage_f32, bits_f32, 1)
F32_STAGE_IN(stage_bf16, bits_bf16, 0)
F32_STAGE_IN(stage_f16, bits_f16, 0)
F32_RANGE(range_f32, stage_f32)
F32_RANGE(range_bf16, stage_bf16)
F32_RANGE(range_f16, stage_f16)

static void dot_f32_group(enum gs_type t, const struct dot_src *d,
			  struct dot_col *acc, union dot_slot *slots,
			  size_t nrec, unsigned j0, unsigned g)
{
	void (*range)(const struct dot_src *, union dot_slot *, size_t, size_t,
		      unsigned, unsigned) =
		t == GS_F32 ? range_f32 : t == GS_BF16 ? range_bf16 : range_f16;

	for (unsigned j = 0; j < g; j++)
		memset(&slots[j].f32, 0, sizeof slots[j].f32);
	for (size_t k0 = 0; k0 < nrec; k0 += F32_RUN) {
		size_t k1 = nrec - k0 < F32_RUN ? nrec : k0 + F32_RUN;
		range(d, slots, k0, k1, j0, g);
		for (unsigned j = 0; j < g; j++)
			f32_widen(&slots[j].f32);
	}
	for (unsigned j = 0; j < g; j++)
		f32_finish(&slots[j].f32, &acc[j0 + j].s);
}

/* ---- f64 ------------------------------------------------------------------ */

static void dot_f64_group(const struct dot_src *d, struct dot_col *acc,
			  union dot_slot *slots, size_t nrec, unsigned j0,
			  unsigned g)
{
	const double *a = d->a, *b = d->b;

	for (unsigned j = 0; j < g; j++)
		xbins_init(&slots[j].f64);
	for (size_t k0 = 0; k0 < nrec; k0 += XBINS_FLUSH_EVERY) {
		size_t k1 = nrec - k0 < XBINS_FLUSH_EVERY ? nrec
							 : k0 + XBINS_FLUSH_EVERY;
		for (size_t k = k0; k < k1; k++) {
			for (unsigned j = 0; j < g; j++) {
				size_t i = k * d->C + (j0 + j) * d->step;
				xbins_add_prod_f64(&slots[j].f64, a[i + d->aoff],
						   b[i + d->boff]);
			}
		}
		for (unsigned j = 0; j < g; j++)
			xbins_flush(&slots[j].f64, &acc[j0 + j].s);
	}
}

/* ---- integers ------------------------------------------------------------- */

static inline void i192_add(struct i192 *s, __int128 p)
{
	s->lo += (unsigned __int128)p;
	s->hi += (s->lo < (unsigned __int128)p) - (p < 0);
}

static inline void u192_add(struct i192 *s, unsigned __int128 p)
{
	s->lo += p;
	s->hi += s->lo < p;
}

#define INT_LOOP(name, T, W, ADD)						\
static void name(const struct dot_src *d, union dot_slot *slots,	\
		 size_t nrec, unsigned j0, unsigned g)				\
{										\
	const T *a = d->a, *b = d->b;						\
	for (size_t k = 0; k < nrec; k++) {					\
		for (unsigned j = 0; j < g; j++) {				\
			size_t i = k * d->C + (j0 + j) * d->step;		\
			ADD(&slots[j].in, (W)a[i + d->aoff] * b[i + d->boff]);	\
		}								\
	}									\
}

INT_LOOP(int_u8, uint8_t, unsigned __int128, u192_add)
INT_LOOP(int_i8, int8_t, __int128, i192_add)
INT_LOOP(int_u16, uint16_t, unsigned __int128, u192_add)
INT_LOOP(int_i16, int16_t, __int128, i192_add)
INT_LOOP(int_u32, uint32_t, unsigned __int128, u192_add)
INT_LOOP(int_i32, int32_t, __int128, i192_add)
INT_LOOP(int_u64, uint64_t, unsigned __int128, u192_add)
INT_LOOP(int_i64, int64_t, __int128, i192_add)

typedef void int_fn(const struct dot_src *, union dot_slot *, size_t, unsigned,
		    unsigned);
static int_fn *const int_loops[GS_F16] = {
	[GS_U8] = int_u8, [GS_I8] = int_i8, [GS_U16] = int_u16,
	[GS_I16] = int_i16, [GS_U32] = int_u32, [GS_I32] = int_i32,
	[GS_U64] = int_u64, [GS_I64] = int_i64,
};

/* One dot product of 8- or 16-bit integers (A B of one column, or --pairs
 * of two) goes INT_BLOCK records at a time through lanes that cannot
 * overflow: each product in 32 bits (|a b| <= 2^30 signed, < 2^32
 * unsigned), their sum in 64 (< 2^42), a loop the compiler vectorizes (the
 * 192-bit sum per product of int_* does not); then the block into the
 * slot. C is the record's elements (1 or 2), a constant in each loop. */
#define INT_BLOCK 1024

#define INT_NARROW(name, ATTR, T, W, S, ADD, C)					\
ATTR static void name(const struct dot_src *d, struct i192 *s, size_t nblocks)	\
{										\
	const T *a = (const T *)d->a + d->aoff, *b = (const T *)d->b + d->boff;	\
										\
	for (size_t k = 0; k < nblocks; k++, a += INT_BLOCK * C, b += INT_BLOCK * C) { \
		S q = 0;							\
										\
		for (size_t i = 0; i < INT_BLOCK; i++)				\
			q += (S)((W)a[i * C] * (W)b[i * C]);			\
		ADD(s, q);							\
	}									\
}

#define INT_NARROW4(name, T, W, S, ADD)						\
INT_NARROW(name##_1_c, , T, W, S, ADD, 1)					\
INT_NARROW(name##_1_avx2, AVX2_FN, T, W, S, ADD, 1)				\
INT_NARROW(name##_2_c, , T, W, S, ADD, 2)					\
INT_NARROW(name##_2_avx2, AVX2_FN, T, W, S, ADD, 2)

INT_NARROW4(narrow_u8, uint8_t, uint32_t, uint64_t, u192_add)
INT_NARROW4(narrow_i8, int8_t, int32_t, int64_t, i192_add)
INT_NARROW4(narrow_u16, uint16_t, uint32_t, uint64_t, u192_add)
INT_NARROW4(narrow_i16, int16_t, int32_t, int64_t, i192_add)

typedef void narrow_fn(const struct dot_src *, struct i192 *, size_t);
/* [AVX2][C - 1][type] */
static narrow_fn *const narrow_loops[2][2][GS_U32] = {
	{ { [GS_U8] = narrow_u8_1_c, [GS_I8] = narrow_i8_1_c,
	    [GS_U16] = narrow_u16_1_c, [GS_I16] = narrow_i16_1_c },
	  { [GS_U8] = narrow_u8_2_c, [GS_I8] = narrow_i8_2_c,
	    [GS_U16] = narrow_u16_2_c, [GS_I16] = narrow_i16_2_c } },
	{ { [GS_U8] = narrow_u8_1_avx2, [GS_I8] = narrow_i8_1_avx2,
	    [GS_U16] = narrow_u16_1_avx2, [GS_I16] = narrow_i16_1_avx2 },
	  { [GS_U8] = narrow_u8_2_avx2, [GS_I8] = narrow_i8_2_avx2,
	    [GS_U16] = narrow_u16_2_avx2, [GS_I16] = narrow_i16_2_avx2 } },
};

static void dot_int_group(enum gs_type t, const struct dot_src *d,
			  struct dot_col *acc, union dot_slot *slots,
			  size_t nrec, unsigned j0, unsigned g)
{
	for (unsigned j = 0; j < g; j++)
		memset(&slots[j].in, 0, sizeof slots[j].in);
	if (g == 1 && j0 == 0 && t < GS_U32 && (d->C == 1 || d->C == 2)) {
		size_t whole = nrec / INT_BLOCK * INT_BLOCK;
		size_t skip = whole * d->C * type_size(t);
		struct dot_src rest = *d;

		narrow_loops[cpu_avx2()][d->C - 1][t](d, &slots[0].in,
						      nrec / INT_BLOCK);
		rest.a = (const char *)d->a + skip;
		rest.b = (const char *)d->b + skip;
		int_loops[t](&rest, slots, nrec - whole, 0, 1);
	} else {
		int_loops[t](d, slots, nrec, j0, g);
	}
	for (unsigned j = 0; j < g; j++) {
		xsum_add_u128(&acc[j0 + j].s, slots[j].in.lo, 0, false);
		xsum_add_i128(&acc[j0 + j].s, slots[j].in.hi, 128);
	}
}

/* ---- the kernel table ------------------------------------------------- */

static size_t dot_acc_size(const struct gs_job *job)
{
	return dot_count(job) * sizeof(struct dot_col);
}

static void dot_acc_init(const struct gs_job *job, void *acc)
{
	struct dot_col *c = acc;

	for (unsigned j = 0; j < dot_count(job); j++) {
		c[j].count = 0;
		xsum_init(&c[j].s);
	}
}

static void dot_acc_merge(const struct gs_job *job, void *acc, const void *src)
{
	struct dot_col *c = acc;
	const struct dot_col *s = src;

	for (unsigned j = 0; j < dot_count(job); j++) {
		c[j].count += s[j].count;
		xsum_merge(&c[j].s, &s[j].s);
	}
}

static unsigned dot_group(const struct gs_job *job)
{
	return dot_count(job) < DOT_GROUP ? dot_count(job) : DOT_GROUP;
}

static size_t dot_scratch_size(const struct gs_job *job)
{
	return dot_group(job) * sizeof(union dot_slot);
}

static void dot_cpu_add(const struct gs_job *job, void *acc, void *scratch,
			const void *data, const void *data2, size_t nrec)
{
	enum gs_type t = job->dtype.type;
	unsigned n = dot_count(job), G = dot_group(job);
	struct dot_src d = {
		.a = data, .C = job->columns,
		.b = job->two_inputs ? data2 : data,
		.aoff = 0, .boff = job->two_inputs ? 0 : 1,
		.step = job->two_inputs ? 1 : 2,
	};

	for (unsigned j0 = 0; j0 < n; j0 += G) {
		unsigned g = n - j0 < G ? n - j0 : G;
		if (t == GS_F64)
			dot_f64_group(&d, acc, scratch, nrec, j0, g);
		else if (type_is_float(t))
			dot_f32_group(t, &d, acc, scratch, nrec, j0, g);
		else
			dot_int_group(t, &d, acc, scratch, nrec, j0, g);
	}
	for (unsigned j = 0; j < n; j++)
		((struct dot_col *)acc)[j].count += nrec;
}

const struct acc_kernels dot_kernels = {
	.acc_size = dot_acc_size,
	.acc_init = dot_acc_init,
	.acc_merge = dot_acc_merge,
	.scratch_size = dot_scratch_size,
	.cpu_add = dot_cpu_add,
};
