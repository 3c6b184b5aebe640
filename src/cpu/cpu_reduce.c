/*
 * cpu_reduce.c - reduce (sum, prod, min, max, and, or, xor) on the CPU, per
 * column, into struct red_col; the final values (red_result); and the
 * helpers that scans share (cpu_red.h).
 *
 * Every accumulator merges exactly:
 * - sum: an xsum. Integers add up in an __int128 per cpu_add call (|sum| <
 *   2^63 * 2^64 cannot overflow; values of 32 bits or fewer in blocks of
 *   narrower lanes first, one column or several in 48 lanes) and then
 *   into the xsum; floats go through
 *   exponent bins (struct xbins, the scratch) flushed into the xsum; f32
 *   (and f16, bf16 widened to it) a block at a time in exact doubles first
 *   (cpu_fsum32.c).
 * - prod: floats keep a bracket [lo, hi] * 2^exp of the exact product
 *   (struct fprod), integers the exact magnitude until it passes 2^128
 *   (struct iprod): both are numerics/xprod_core.h's; here they are folded per
 *   column, and an integer product's overflow is traced to its element.
 * - min/max: exact values; float NaN propagates, -0.0 < +0.0.
 * - and/or/xor: the 64-bit two's complement bits (sign-extended).
 */
#include <math.h>
#include <string.h>
#include "cpu_fsum32.h"
#include "fkeys.h"
#include "cpu_red.h"
#include "numfmt.h"

/* f32 sums of one column run on the data in place, this many at a call. */
#define FSUM_FLAT_STEP (1u << 18)

/* ---- integer products in stream order; AND's identity ------------------ */

void iprod_merge_at(const struct gs_job *job, struct red_col *acc,
		    const struct red_col *src, const void *data,
		    uint64_t first, size_t nrec)
{
	for (unsigned col = 0; col < job->columns; col++) {
		struct iprod_at *p = &acc[col].u.ip;
		struct iprod q = p->p;

		iprod_at_merge(p, &src[col].u.ip);
		acc[col].count += src[col].count;
		if ((q.flags & PROD_OVER) || !(p->p.flags & PROD_OVER))
			continue;
		for (size_t r = 0; r < nrec && !(q.flags & PROD_OVER); r++) {
			__int128 v;

			gather_int(job->dtype.type, data, job->columns, col, r, 1, &v);
			iprod_mul(&q, v);
			if (q.flags & PROD_OVER)
				p->at = (first + r) * job->columns + col;
		}
	}
}

uint64_t and_identity(enum gs_type t)
{
	if (type_is_signed(t))
		return ~(uint64_t)0;
	return type_size(t) == 8 ? ~(uint64_t)0 : (1ull << 8 * type_size(t)) - 1;
}

/* ---- gathering a column ------------------------------------------------- */

#define GATHER(T, CONV) do {                                              \
	const T *s = (const T *)data + r0 * columns + col;                \
	for (size_t i = 0; i < n; i++)                                    \
		dst[i] = CONV(s[i * columns]);                            \
} while (0)
#define AS_IS(x) (x)

void gather_f64(enum gs_type t, const void *data, unsigned columns,
		unsigned col, size_t r0, size_t n, double *dst)
{
	switch (t) {
	case GS_F16: GATHER(uint16_t, f16_to_f32); break;
	case GS_BF16: GATHER(uint16_t, bf16_to_f32); break;
	case GS_F32: GATHER(float, AS_IS); break;
	default: GATHER(double, AS_IS); break;
	}
}

void gather_int(enum gs_type t, const void *data, unsigned columns,
		unsigned col, size_t r0, size_t n, __int128 *dst)
{
	switch (t) {
	case GS_U8: GATHER(uint8_t, AS_IS); break;
	case GS_I8: GATHER(int8_t, AS_IS); break;
	case GS_U16: GATHER(uint16_t, AS_IS); break;
	case GS_I16: GATHER(int16_t, AS_IS); break;
	case GS_U32: GATHER(uint32_t, AS_IS); break;
	case GS_I32: GATHER(int32_t, AS_IS); break;
	case GS_U64: GATHER(uint64_t, AS_IS); break;
	default: GATHER(int64_t, AS_IS); break;
	}
}

/* ---- the accumulator ---------------------------------------------------- */

static size_t red_acc_size(const struct gs_job *job)
{
	return sizeof(struct red_col) * job->columns;
}

static void red_col_init(const struct gs_job *job, struct red_col *c)
{
	enum gs_type t = job->dtype.type;
	bool flt = type_is_float(t), sgn = type_is_signed(t);
	unsigned bits = 8 * (unsigned)type_size(t);

	memset(c, 0, sizeof(*c));
	switch (job->op) {
	case OP_SUM:
		xsum_init(&c->u.sum);
		break;
	case OP_PROD:
		if (flt)
			fprod_one(&c->u.fp);
		else
			iprod_at_init(&c->u.ip);
		break;
	case OP_MIN:	/* the identity: the largest value of the type */
		if (flt)
			c->u.mm.v.f = INFINITY;
		else if (sgn)
			c->u.mm.v.i = (int64_t)(~0ull >> (65 - bits));
		else
			c->u.mm.v.u = ~0ull >> (64 - bits);
		break;
	case OP_MAX:
		if (flt)
			c->u.mm.v.f = -INFINITY;
		else if (sgn)
			c->u.mm.v.i = -(int64_t)(~0ull >> (65 - bits)) - 1;
		break;
	case OP_AND:
		c->u.bits = and_identity(t);
		break;
	default:
		break;
	}
}

static void red_acc_init(const struct gs_job *job, void *acc)
{
	struct red_col *c = acc;

	for (unsigned i = 0; i < job->columns; i++)
		red_col_init(job, &c[i]);
}

/* Fold value v (or the value of src) into a min/max column. */
static void mm_fold(const struct gs_job *job, struct red_col *c,
		    const struct red_col *s)
{
	bool mn = job->op == OP_MIN;
	union gs_scalar *a = &c->u.mm.v;
	const union gs_scalar *b = &s->u.mm.v;

	if (type_is_float(job->dtype.type)) {
		c->u.mm.nan |= s->u.mm.nan;
		if (mn ? f64_key(b->f) < f64_key(a->f) : f64_key(b->f) > f64_key(a->f))
			a->f = b->f;
	} else if (type_is_signed(job->dtype.type)) {
		if (mn ? b->i < a->i : b->i > a->i)
			a->i = b->i;
	} else {
		if (mn ? b->u < a->u : b->u > a->u)
			a->u = b->u;
	}
}

static void red_col_merge(const struct gs_job *job, struct red_col *c,
			  const struct red_col *s)
{
	bool flt = type_is_float(job->dtype.type);

	switch (job->op) {
	case OP_SUM:
		xsum_merge_negzero(&c->u.sum, c->count, &s->u.sum, s->count);
		xsum_merge(&c->u.sum, &s->u.sum);
		break;
	case OP_PROD:
		if (flt)
			fprod_merge(&c->u.fp, &s->u.fp);
		else
			iprod_at_merge(&c->u.ip, &s->u.ip);
		break;
	case OP_MIN:
	case OP_MAX: mm_fold(job, c, s); break;
	case OP_AND: c->u.bits &= s->u.bits; break;
	case OP_OR: c->u.bits |= s->u.bits; break;
	case OP_XOR: c->u.bits ^= s->u.bits; break;
	}
	c->count += s->count;
}

static void red_acc_merge(const struct gs_job *job, void *acc, const void *src)
{
	struct red_col *c = acc;
	const struct red_col *s = src;

	for (unsigned i = 0; i < job->columns; i++)
		red_col_merge(job, &c[i], &s[i]);
}

/* ---- folding records ---------------------------------------------------- */

struct red_scratch {
	struct xbins bins;
	union {
		double f[RED_BLOCK];
		float f32[RED_BLOCK];
		__int128 i[RED_BLOCK];
	} buf;
};

static size_t red_scratch_size(const struct gs_job *job)
{
	return sizeof(struct red_scratch);
}

#define ISUM(T) do {                                                      \
	const T *s = (const T *)data + col;                               \
	for (size_t r = 0; r < nrec; r++)                                 \
		acc += s[r * columns];                                    \
} while (0)

/* One column of integers of 32 bits or fewer adds ISUM_BLOCK values at a
 * time in a lane type W that cannot overflow (|sum| < 2^16 * 1024 for 8-
 * and 16-bit types in 32 bits, < 2^32 * 1024 in 64), a loop the compiler
 * vectorizes (the __int128 sum of the general loop does not: 1.2 GB/s of
 * i16 on one thread); each block's sum goes into the __int128. */
#define ISUM_BLOCK 1024

#define ISUM_BLOCKS(name, ATTR, T, W)                                      \
ATTR static __int128 name(const void *data, size_t nblocks)              \
{                                                                         \
	const T *s = data;                                                \
	__int128 acc = 0;                                                 \
                                                                          \
	for (size_t b = 0; b < nblocks; b++, s += ISUM_BLOCK) {           \
		W w = 0;                                                  \
                                                                          \
		for (size_t i = 0; i < ISUM_BLOCK; i++)                   \
			w += (W)s[i];                                     \
		acc += w;                                                 \
	}                                                                 \
	return acc;                                                       \
}

#define ISUM_FLAT(name, T, W)                                              \
ISUM_BLOCKS(name##_c, , T, W)                                             \
ISUM_BLOCKS(name##_avx2, AVX2_FN, T, W)

ISUM_FLAT(isum_u8, uint8_t, uint32_t)
ISUM_FLAT(isum_i8, int8_t, int32_t)
ISUM_FLAT(isum_u16, uint16_t, uint32_t)
ISUM_FLAT(isum_i16, int16_t, int32_t)
ISUM_FLAT(isum_u32, uint32_t, uint64_t)
ISUM_FLAT(isum_i32, int32_t, int64_t)

/* Several columns, a divisor of ISUM_LANES (2, 3, 4, 6, 8, 12, 16, 24,
 * 48: RGB and RGBA pixels among them): rows of ISUM_LANES values, value l
 * of a row in lane l, which holds column l % columns; ISUM_ROWS rows a
 * block (64 values a lane: within the bounds above), then each lane into
 * its column's __int128. */
#define ISUM_LANES 48
#define ISUM_ROWS 64

#define ISUM_LANED(name, ATTR, T, W)                                       \
ATTR static void name(const void *data, size_t nblocks, unsigned columns, \
		      __int128 *col)                                      \
{                                                                         \
	const T *s = data;                                                \
                                                                          \
	for (size_t b = 0; b < nblocks; b++, s += ISUM_LANES * ISUM_ROWS) { \
		W w[ISUM_LANES] = { 0 };                                  \
                                                                          \
		for (size_t r = 0; r < ISUM_ROWS; r++)                    \
			for (size_t l = 0; l < ISUM_LANES; l++)           \
				w[l] += (W)s[r * ISUM_LANES + l];         \
		for (size_t l = 0; l < ISUM_LANES; l++)                   \
			col[l % columns] += w[l];                         \
	}                                                                 \
}

#define ISUM_LANED2(name, T, W)                                            \
ISUM_LANED(name##_c, , T, W)                                              \
ISUM_LANED(name##_avx2, AVX2_FN, T, W)

ISUM_LANED2(laned_u8, uint8_t, uint32_t)
ISUM_LANED2(laned_i8, int8_t, int32_t)
ISUM_LANED2(laned_u16, uint16_t, uint32_t)
ISUM_LANED2(laned_i16, int16_t, int32_t)
ISUM_LANED2(laned_u32, uint32_t, uint64_t)
ISUM_LANED2(laned_i32, int32_t, int64_t)

typedef void laned_fn(const void *, size_t, unsigned, __int128 *);
static laned_fn *const isum_laned[2][GS_U64] = {	/* [AVX2][type] */
	{ [GS_U8] = laned_u8_c, [GS_I8] = laned_i8_c, [GS_U16] = laned_u16_c,
	  [GS_I16] = laned_i16_c, [GS_U32] = laned_u32_c, [GS_I32] = laned_i32_c },
	{ [GS_U8] = laned_u8_avx2, [GS_I8] = laned_i8_avx2,
	  [GS_U16] = laned_u16_avx2, [GS_I16] = laned_i16_avx2,
	  [GS_U32] = laned_u32_avx2, [GS_I32] = laned_i32_avx2 },
};

typedef __int128 flat_fn(const void *, size_t);
static flat_fn *const isum_flat[2][GS_U64] = {	/* [AVX2][type] */
	{ [GS_U8] = isum_u8_c, [GS_I8] = isum_i8_c, [GS_U16] = isum_u16_c,
	  [GS_I16] = isum_i16_c, [GS_U32] = isum_u32_c, [GS_I32] = isum_i32_c },
	{ [GS_U8] = isum_u8_avx2, [GS_I8] = isum_i8_avx2,
	  [GS_U16] = isum_u16_avx2, [GS_I16] = isum_i16_avx2,
	  [GS_U32] = isum_u32_avx2, [GS_I32] = isum_i32_avx2 },
};

static void isum_add(enum gs_type t, struct xsum *x, const void *data,
		     unsigned columns, unsigned col, size_t nrec)
{
	__int128 acc = 0;

	if (columns == 1 && t < GS_U64) {
		size_t whole = nrec / ISUM_BLOCK * ISUM_BLOCK;

		acc = isum_flat[cpu_avx2()][t](data, nrec / ISUM_BLOCK);
		data = (const char *)data + whole * type_size(t);
		nrec -= whole;
	}
	switch (t) {
	case GS_U8: ISUM(uint8_t); break;
	case GS_I8: ISUM(int8_t); break;
	case GS_U16: ISUM(uint16_t); break;
	case GS_I16: ISUM(int16_t); break;
	case GS_U32: ISUM(uint32_t); break;
	case GS_I32: ISUM(int32_t); break;
	case GS_U64: ISUM(uint64_t); break;
	default: ISUM(int64_t); break;
	}
	xsum_add_i128(x, acc, 0);
}

/* Column col of records [r0, r0 + n) of f32, f16 or bf16, as f32 (exact). */
static void gather_f32(enum gs_type t, const void *data, unsigned columns,
		       unsigned col, size_t r0, size_t n, float *dst)
{
	switch (t) {
	case GS_F16: GATHER(uint16_t, f16_to_f32); break;
	case GS_BF16: GATHER(uint16_t, bf16_to_f32); break;
	default: GATHER(float, AS_IS); break;
	}
}

static void fsum_add(const struct gs_job *job, struct red_col *c,
		     struct red_scratch *sc, const void *data, unsigned col,
		     size_t nrec)
{
	enum gs_type t = job->dtype.type;
	bool f32 = t != GS_F64, flat = t == GS_F32 && job->columns == 1;
	size_t since_flush = 0, step = flat ? FSUM_FLAT_STEP : RED_BLOCK;

	xbins_init(&sc->bins);
	for (size_t r0 = 0; r0 < nrec; r0 += step) {
		size_t n = nrec - r0 < step ? nrec - r0 : step;

		if (flat) {
			since_flush += fsum32_add(&sc->bins,
						  (const float *)data + r0, n);
		} else if (f32) {
			gather_f32(t, data, job->columns, col, r0, n,
				   sc->buf.f32);
			since_flush += fsum32_add(&sc->bins, sc->buf.f32, n);
		} else {
			gather_f64(t, data, job->columns, col, r0, n,
				   sc->buf.f);
			for (size_t i = 0; i < n; i++)
				xbins_add_f64(&sc->bins, sc->buf.f[i]);
			since_flush += n;
		}
		if (since_flush > XBINS_FLUSH_EVERY - step) {
			xbins_flush(&sc->bins, &c->u.sum);
			since_flush = 0;
		}
	}
	xbins_flush(&sc->bins, &c->u.sum);
}

static void fother_block(enum gs_op op, struct red_col *c, const double *v,
			 size_t n)
{
	int64_t k = f64_key(c->u.mm.v.f), kv;
	bool nan = false;

	for (size_t i = 0; i < n; i++) {
		if (op == OP_PROD) {
			fprod_mul_f64(&c->u.fp, v[i]);
			continue;
		}
		nan |= isnan(v[i]);
		if (isnan(v[i]))
			continue;
		kv = f64_key(v[i]);
		if (op == OP_MIN ? kv < k : kv > k) {
			k = kv;
			c->u.mm.v.f = v[i];
		}
	}
	if (op != OP_PROD)
		c->u.mm.nan |= nan;
}

static void iother_block(const struct gs_job *job, struct red_col *c,
			 const __int128 *v, size_t n)
{
	bool sgn = type_is_signed(job->dtype.type);
	__int128 m = sgn ? (__int128)c->u.mm.v.i : (__int128)c->u.mm.v.u;

	for (size_t i = 0; i < n; i++) {
		switch (job->op) {
		case OP_PROD: iprod_mul(&c->u.ip.p, v[i]); break;
		case OP_MIN: m = v[i] < m ? v[i] : m; break;
		case OP_MAX: m = v[i] > m ? v[i] : m; break;
		case OP_AND: c->u.bits &= (uint64_t)v[i]; break;
		case OP_OR: c->u.bits |= (uint64_t)v[i]; break;
		default: c->u.bits ^= (uint64_t)v[i]; break;
		}
	}
	if (job->op == OP_MIN || job->op == OP_MAX) {
		if (sgn)
			c->u.mm.v.i = (int64_t)m;
		else
			c->u.mm.v.u = (uint64_t)m;
	}
}

/* ---- min and max of one column, in place ------------------------------- */

/*
 * With one column, min and max run on the data itself, MM_BLOCK values at
 * a time, in a loop with no branch and a fixed trip count, which the
 * compiler vectorizes (and builds again for AVX2 where the CPU has it).
 * A float is compared by its key (fkeys.h), which orders the values as
 * f64_key does (-0 below +0). A block holding a NaN goes the gathered
 * way (fother_block), which leaves the NaN out and flags it; so does the
 * tail of fewer than MM_BLOCK.
 */
#define MM_BLOCK 1024

#define KEY_ID(x) (x)

/* The least and greatest key of a block, and 0 where it holds a NaN (INF:
 * a float format's +inf, 0 for integers). */
#define MM_KEYS(name, ATTR, T, K, KEY, INF)                                \
ATTR static int name(const void *data, K *lo, K *hi)                      \
{                                                                         \
	const T *u = data;                                                \
	K a = KEY(u[0]), z = a;                                           \
	T nan = 0;                                                        \
                                                                          \
	for (size_t i = 0; i < MM_BLOCK; i++) {                           \
		K k = KEY(u[i]);                                          \
                                                                          \
		a = k < a ? k : a;                                        \
		z = k > z ? k : z;                                        \
		nan |= (T)(INF && ieee_is_nan(u[i], INF));                \
	}                                                                 \
	*lo = a;                                                          \
	*hi = z;                                                          \
	return !nan;                                                      \
}

/* A block with a NaN, and the tail: gathered, the slow way. */
static void mm_gathered(const struct gs_job *job, struct red_col *c,
			struct red_scratch *sc, const void *data, size_t r0,
			size_t n)
{
	if (type_is_float(job->dtype.type)) {
		gather_f64(job->dtype.type, data, 1, 0, r0, n, sc->buf.f);
		fother_block(job->op, c, sc->buf.f, n);
	} else {
		gather_int(job->dtype.type, data, 1, 0, r0, n, sc->buf.i);
		iother_block(job, c, sc->buf.i, n);
	}
}

/* Type name's one-column min or max: K its key, SET(v, k) the value of key
 * k into union gs_scalar v. */
#define MM_FLAT(name, T, K, KEY, INF, SET)                                 \
MM_KEYS(name##_c, , T, K, KEY, INF)                                       \
MM_KEYS(name##_avx2, AVX2_FN, T, K, KEY, INF)                             \
static void name(const struct gs_job *job, struct red_col *c,             \
		 struct red_scratch *sc, const void *data, size_t nrec)   \
{                                                                         \
	int (*keys)(const void *, K *, K *) =                             \
		cpu_avx2() ? name##_avx2 : name##_c;                      \
	struct red_col s = { 0 };                                         \
	bool any = false;                                                 \
	K lo = 0, hi = 0, a, z;                                           \
	size_t r = 0;                                                     \
                                                                          \
	for (; nrec - r >= MM_BLOCK; r += MM_BLOCK) {                     \
		if (!keys((const T *)data + r, &a, &z)) {                 \
			mm_gathered(job, c, sc, data, r, MM_BLOCK);       \
			continue;                                         \
		}                                                         \
		lo = any && lo < a ? lo : a;                              \
		hi = any && hi > z ? hi : z;                              \
		any = true;                                               \
	}                                                                 \
	if (any) {                                                        \
		SET(s.u.mm.v, job->op == OP_MIN ? lo : hi);               \
		mm_fold(job, c, &s);                                      \
	}                                                                 \
	mm_gathered(job, c, sc, data, r, nrec - r);                       \
}

#define SET_U(v, k) ((v).u = (uint64_t)(k))
#define SET_I(v, k) ((v).i = (int64_t)(k))
#define SET_F16(v, k) ((v).f = f16_to_f32((uint16_t)key16((uint16_t)(k))))
#define SET_BF16(v, k) ((v).f = bf16_to_f32((uint16_t)key16((uint16_t)(k))))
#define SET_F32(v, k) ((v).f = key32_to_f64(k))
#define SET_F64(v, k) ((v).f = key64_to_f64(k))

MM_FLAT(mm_u8, uint8_t, uint8_t, KEY_ID, 0, SET_U)
MM_FLAT(mm_i8, int8_t, int8_t, KEY_ID, 0, SET_I)
MM_FLAT(mm_u16, uint16_t, uint16_t, KEY_ID, 0, SET_U)
MM_FLAT(mm_i16, int16_t, int16_t, KEY_ID, 0, SET_I)
MM_FLAT(mm_u32, uint32_t, uint32_t, KEY_ID, 0, SET_U)
MM_FLAT(mm_i32, int32_t, int32_t, KEY_ID, 0, SET_I)
MM_FLAT(mm_u64, uint64_t, uint64_t, KEY_ID, 0, SET_U)
MM_FLAT(mm_i64, int64_t, int64_t, KEY_ID, 0, SET_I)
MM_FLAT(mm_f16, uint16_t, int16_t, key16, 0x7c00, SET_F16)
MM_FLAT(mm_bf16, uint16_t, int16_t, key16, 0x7f80, SET_BF16)
MM_FLAT(mm_f32, uint32_t, int32_t, key32, 0x7f800000, SET_F32)
MM_FLAT(mm_f64, uint64_t, int64_t, key64, 0x7ff0000000000000ull, SET_F64)

typedef void mm_fn(const struct gs_job *, struct red_col *,
		   struct red_scratch *, const void *, size_t);
static mm_fn *const mm_flat[GS_NTYPES] = {
	[GS_U8] = mm_u8, [GS_I8] = mm_i8, [GS_U16] = mm_u16,
	[GS_I16] = mm_i16, [GS_U32] = mm_u32, [GS_I32] = mm_i32,
	[GS_U64] = mm_u64, [GS_I64] = mm_i64, [GS_F16] = mm_f16,
	[GS_BF16] = mm_bf16, [GS_F32] = mm_f32, [GS_F64] = mm_f64,
};

/* Everything but sums: a block at a time through the gather buffer. */
static void other_add(const struct gs_job *job, struct red_col *c,
		      struct red_scratch *sc, const void *data, unsigned col,
		      size_t nrec)
{
	enum gs_type t = job->dtype.type;
	bool flt = type_is_float(t);

	if (flt && job->op > OP_MAX)
		return;		/* bit ops on floats: refused by the CLI */
	if (job->columns == 1 && (job->op == OP_MIN || job->op == OP_MAX)) {
		mm_flat[t](job, c, sc, data, nrec);
		return;
	}
	for (size_t r0 = 0; r0 < nrec; r0 += RED_BLOCK) {
		size_t n = nrec - r0 < RED_BLOCK ? nrec - r0 : RED_BLOCK;

		if (!flt && job->op == OP_PROD && (c->u.ip.p.flags & PROD_ZERO))
			return;	/* zero wins over anything after it */
		if (flt) {
			gather_f64(t, data, job->columns, col, r0, n, sc->buf.f);
			fother_block(job->op, c, sc->buf.f, n);
		} else {
			gather_int(t, data, job->columns, col, r0, n, sc->buf.i);
			iother_block(job, c, sc->buf.i, n);
		}
	}
}

/* The integer sums of columns (a divisor of ISUM_LANES, more than one)
 * of whole blocks of rows: the records they took. */
static size_t isum_laned_add(const struct gs_job *job, struct red_col *cols,
			     const void *data, size_t nrec)
{
	enum gs_type t = job->dtype.type;
	unsigned C = job->columns;
	size_t per = ISUM_LANES * ISUM_ROWS / C, nb = nrec / per;
	__int128 col[ISUM_LANES] = { 0 };

	if (C < 2 || ISUM_LANES % C != 0 || t >= GS_U64 || nb == 0)
		return 0;
	isum_laned[cpu_avx2()][t](data, nb, C, col);
	for (unsigned c = 0; c < C; c++)
		xsum_add_i128(&cols[c].u.sum, col[c], 0);
	return nb * per;
}

void acc_note_negzero(const struct gs_job *job, struct xsum *x,
		      uint64_t before, uint64_t terms, const void *data,
		      unsigned col, size_t nrec, bool skip_nan)
{
	size_t sz = type_size(job->dtype.type);
	bool all = false;

	if (terms == 0 || (before && !x->negzero))
		return;		/* the sign stays as it is */
	all = xsum_negzero_run((const char *)data + col * sz, nrec,
			       sz * job->columns, type_xfmt(job->dtype.type),
			       false, skip_nan) == nrec;
	xsum_note_negzero(x, before, terms, all);
}

static void red_cpu_add(const struct gs_job *job, void *acc, void *scratch,
			const void *data, const void *data2, size_t nrec)
{
	struct red_col *cols = acc;
	bool flt = type_is_float(job->dtype.type);

	if (job->op == OP_SUM && !flt) {
		size_t done = isum_laned_add(job, cols, data, nrec);

		for (unsigned c = 0; c < job->columns; c++)
			cols[c].count += done;
		data = (const char *)data + done * job_record_size(job);
		nrec -= done;
	}
	for (unsigned c = 0; c < job->columns; c++) {
		if (job->op == OP_SUM && flt) {
			fsum_add(job, &cols[c], scratch, data, c, nrec);
			acc_note_negzero(job, &cols[c].u.sum, cols[c].count,
					 nrec, data, c, nrec, false);
		} else if (job->op == OP_SUM)
			isum_add(job->dtype.type, &cols[c].u.sum, data,
				 job->columns, c, nrec);
		else
			other_add(job, &cols[c], scratch, data, c, nrec);
		cols[c].count += nrec;
	}
}

const struct acc_kernels reduce_kernels = {
	.acc_size = red_acc_size,
	.acc_init = red_acc_init,
	.acc_merge = red_acc_merge,
	.scratch_size = red_scratch_size,
	.cpu_add = red_cpu_add,
};

/* ---- results ------------------------------------------------------------ */

static int fresult(const struct gs_job *job, const struct red_col *c,
		   struct result *r, struct gs_err *err)
{
	uint64_t bits;

	r->kind = RES_F64;
	switch (job->op) {
	case OP_SUM:
		r->f = xsum_to_f64(&c->u.sum);
		return 0;
	case OP_PROD:
		if (!fprod_round(&c->u.fp, XF_F64, &bits))
			return gs_fail(err, GS_ERUNTIME, "",
				       "product cannot be rounded exactly");
		memcpy(&r->f, &bits, sizeof(r->f));
		return 0;
	case OP_MIN:
	case OP_MAX:
		r->f = c->u.mm.nan ? NAN : c->u.mm.v.f;
		return 0;
	default:
		return gs_fail(err, GS_EUSAGE, "", "--op %s needs an integer type",
			       op_name(job->op));
	}
}

static int iresult(const struct gs_job *job, const struct red_col *c,
		   struct result *r, struct gs_err *err)
{
	bool sgn = type_is_signed(job->dtype.type);
	const struct iprod *ip = &c->u.ip.p;
	uint64_t v;

	r->kind = RES_INT_DEC;
	switch (job->op) {
	case OP_SUM:
		if (!xsum_to_dec(&c->u.sum, r->dec))
			return gs_fail(err, GS_ERUNTIME, "", "integer sum is not exact");
		return 0;
	case OP_PROD:
		if (ip->flags & PROD_ZERO) {
			strcpy(r->dec, "0");
			return 0;
		}
		if ((ip->flags & PROD_OVER) && c->u.ip.at != UINT64_MAX)
			return gs_fail(err, GS_ERUNTIME, "",
				       "record %llu column %llu: integer product "
				       "overflows 128 bits",
				       (unsigned long long)(c->u.ip.at / job->columns),
				       (unsigned long long)(c->u.ip.at % job->columns));
		if (ip->flags & PROD_OVER)	/* the GPU does not say where */
			return gs_fail(err, GS_ERUNTIME, "",
				       "integer product overflows 128 bits");
		u128_to_dec((unsigned __int128)ip->mag[1] << 64 | ip->mag[0],
			    ip->flags & PROD_NEG, r->dec);
		return 0;
	case OP_MIN:
	case OP_MAX:
		v = c->u.mm.v.u;
		break;
	default:
		v = c->u.bits;
		break;
	}
	if (sgn && (int64_t)v < 0)
		u128_to_dec(-(unsigned __int128)(int64_t)v, true, r->dec);
	else
		u128_to_dec(v, false, r->dec);
	return 0;
}

int red_result(const struct gs_job *job, const struct red_col *c,
	       struct result *r, struct gs_err *err)
{
	memset(r, 0, sizeof(*r));
	if (c->count == 0 && (job->op == OP_MIN || job->op == OP_MAX)) {
		r->kind = RES_NONE;
		return 0;
	}
	if (type_is_float(job->dtype.type))
		return fresult(job, c, r, err);
	return iresult(job, c, r, err);
}

/* ---- byte order --------------------------------------------------------- */

#define SWAP_LOOP(T, BSWAP) do {                                          \
	T *p = data, v;                                                   \
	for (size_t i = 0; i < n; i++) {                                  \
		memcpy(&v, p + i, sizeof(v));                             \
		v = BSWAP(v);                                             \
		memcpy(p + i, &v, sizeof(v));                             \
	}                                                                 \
} while (0)

void swap_bytes(void *data, size_t n, size_t sz)
{
	switch (sz) {
	case 2: SWAP_LOOP(uint16_t, __builtin_bswap16); break;
	case 4: SWAP_LOOP(uint32_t, __builtin_bswap32); break;
	case 8: SWAP_LOOP(uint64_t, __builtin_bswap64); break;
	default: break;
	}
}
