/*
 * cpu_select.c - the CPU kernels of the select pass (radix select's digit
 * histograms) and of the mode pass (exact counts of distinct keys), see
 * select.h.
 *
 * Keys: numpy sorts floats by value with -0 equal to +0 and NaNs last, so
 * -0 becomes +0 before the key is made and NaNs are counted apart; the key
 * order is then the value order, and a key read back is the value numpy's
 * sorted array holds at that position (for zeros, +0).
 */
#include <string.h>

#include "fkeys.h"
#include "select.h"

unsigned select_key_bits(enum gs_type t)
{
	return (unsigned)type_size(t) * 8;
}

/* The key of one element; each returns false for a NaN. */
#define KEY_FN(name, T, expr, isnan)					\
	static inline bool name(const void *p, uint64_t *key)		\
	{								\
		T b;							\
		memcpy(&b, p, sizeof(b));				\
		(void)b;						\
		if (isnan)						\
			return false;					\
		*key = (expr);						\
		return true;						\
	}
KEY_FN(key_u8, uint8_t, b, 0)
KEY_FN(key_i8, uint8_t, (uint8_t)(b ^ 0x80u), 0)
KEY_FN(key_u16, uint16_t, b, 0)
KEY_FN(key_i16, uint16_t, (uint16_t)(b ^ 0x8000u), 0)
KEY_FN(key_u32, uint32_t, b, 0)
KEY_FN(key_i32, uint32_t, b ^ 0x80000000u, 0)
KEY_FN(key_u64, uint64_t, b, 0)
KEY_FN(key_i64, uint64_t, b ^ 0x8000000000000000ull, 0)
KEY_FN(key_f16, uint16_t, fkey_nz(b, 0x8000u), ieee_is_nan(b, 0x7c00))
KEY_FN(key_bf16, uint16_t, fkey_nz(b, 0x8000u), ieee_is_nan(b, 0x7f80))
KEY_FN(key_f32, uint32_t, fkey_nz(b, 0x80000000u), ieee_is_nan(b, 0x7f800000))
KEY_FN(key_f64, uint64_t, fkey_nz(b, 0x8000000000000000ull),
       ieee_is_nan(b, 0x7ff0000000000000ull))

bool select_key(enum gs_type t, const void *p, uint64_t *key)
{
	switch (t) {
	case GS_U8: return key_u8(p, key);
	case GS_I8: return key_i8(p, key);
	case GS_U16: return key_u16(p, key);
	case GS_I16: return key_i16(p, key);
	case GS_U32: return key_u32(p, key);
	case GS_I32: return key_i32(p, key);
	case GS_U64: return key_u64(p, key);
	case GS_I64: return key_i64(p, key);
	case GS_F16: return key_f16(p, key);
	case GS_BF16: return key_bf16(p, key);
	case GS_F32: return key_f32(p, key);
	default: return key_f64(p, key);
	}
}

/* A float key's bits back (the inverse of float_key for non-negative
 * zero). */
static uint64_t key_bits(uint64_t key, uint64_t s)
{
	return key & s ? key & ~s : ~key & (s | (s - 1));
}

double select_key_value(enum gs_type t, uint64_t key, int64_t *i, uint64_t *u)
{
	unsigned bits = select_key_bits(t);
	uint64_t s = (uint64_t)1 << (bits - 1);

	*i = 0;
	*u = 0;
	if (type_is_float(t)) {
		uint64_t b = key_bits(key, s);

		if (t == GS_F16)
			return f16_to_f32((uint16_t)b);
		if (t == GS_BF16)
			return bf16_to_f32((uint16_t)b);
		if (t == GS_F32)
			return ieee_f32_from_bits((uint32_t)b);
		return ieee_f64_from_bits(b);
	}
	if (!type_is_signed(t)) {
		*u = key;
		return (double)key;
	}
	/* flip the sign bit back and sign-extend from the type's width */
	uint64_t v = key ^ s;

	*i = bits == 64 ? (int64_t)v : (int64_t)(v ^ s) - (int64_t)s;
	return (double)*i;
}

/* ---- the select pass ------------------------------------------------------ */

static size_t no_scratch(const struct gs_job *job)
{
	(void)job;
	return 0;
}

static size_t select_acc_size(const struct gs_job *job)
{
	return (2 * (size_t)job->columns +
		((size_t)job->select->nhist << job->select->digit_bits)) * 8;
}

static void select_acc_init(const struct gs_job *job, void *acc)
{
	memset(acc, 0, select_acc_size(job));
}

static void add_u64s(void *acc, const void *src, size_t bytes)
{
	uint64_t *a = acc;
	const uint64_t *b = src;

	for (size_t i = 0; i < bytes / 8; i++)
		a[i] += b[i];
}

static void select_acc_merge(const struct gs_job *job, void *acc, const void *src)
{
	add_u64s(acc, src, select_acc_size(job));
}

/* The histogram of the prefix p among column k's, or -1: prefixes are
 * few (two per wanted quantile), so a short scan, else a binary search. */
static inline int64_t find_prefix(const struct select_plan *pl, unsigned k,
				  uint64_t p)
{
	uint64_t lo = pl->first_of[k], hi = pl->first_of[k + 1];

	while (hi - lo > 8) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (pl->prefix[mid] <= p)
			lo = mid;
		else
			hi = mid;
	}
	for (; lo < hi; lo++)
		if (pl->prefix[lo] == p)
			return (int64_t)lo;
	return -1;
}

/* One column of nrec records for one key type: KEY the key function. */
#define SELECT_COLUMN(name, KEY)					\
	static void name(const struct gs_job *job, void *acc,		\
			 const unsigned char *data, size_t nrec, unsigned k) \
	{								\
		const struct select_plan *pl = job->select;		\
		size_t esz = type_size(job->dtype.type);		\
		size_t stride = esz * job->columns;			\
		uint64_t mask = ((uint64_t)1 << pl->digit_bits) - 1;	\
		unsigned up = pl->shift + pl->digit_bits;		\
		uint64_t nan = 0, key;					\
		const unsigned char *p = data + esz * k;		\
		uint64_t *h0 = select_hist(acc, job, k);		\
									\
		for (size_t r = 0; r < nrec; r++, p += stride) {	\
			if (!KEY(p, &key)) {				\
				nan++;					\
				continue;				\
			}						\
			if (pl->first) {				\
				h0[(key >> pl->shift) & mask]++;	\
				continue;				\
			}						\
			int64_t h = find_prefix(pl, k, key >> up);	\
			if (h >= 0)					\
				select_hist(acc, job, (uint64_t)h)	\
					[(key >> pl->shift) & mask]++;	\
		}							\
		select_count(acc)[k] += nrec;				\
		select_nan(acc, job->columns)[k] += nan;		\
	}
SELECT_COLUMN(select_u8, key_u8)
SELECT_COLUMN(select_i8, key_i8)
SELECT_COLUMN(select_u16, key_u16)
SELECT_COLUMN(select_i16, key_i16)
SELECT_COLUMN(select_u32, key_u32)
SELECT_COLUMN(select_i32, key_i32)
SELECT_COLUMN(select_u64, key_u64)
SELECT_COLUMN(select_i64, key_i64)
SELECT_COLUMN(select_f16, key_f16)
SELECT_COLUMN(select_bf16, key_bf16)
SELECT_COLUMN(select_f32, key_f32)
SELECT_COLUMN(select_f64, key_f64)

typedef void (*column_fn)(const struct gs_job *job, void *acc,
			  const unsigned char *data, size_t nrec, unsigned k);

static const column_fn select_fns[GS_NTYPES] = {
	[GS_U8] = select_u8, [GS_I8] = select_i8, [GS_U16] = select_u16,
	[GS_I16] = select_i16, [GS_U32] = select_u32, [GS_I32] = select_i32,
	[GS_U64] = select_u64, [GS_I64] = select_i64, [GS_F16] = select_f16,
	[GS_BF16] = select_bf16, [GS_F32] = select_f32, [GS_F64] = select_f64,
};

static void select_cpu_add(const struct gs_job *job, void *acc, void *scratch,
			   const void *data, const void *data2, size_t nrec)
{
	(void)scratch;
	(void)data2;
	/* the first pass of a column without prefixes still counts it */
	for (unsigned k = 0; k < job->columns; k++)
		select_fns[job->dtype.type](job, acc, data, nrec, k);
}

const struct acc_kernels select_kernels = {
	.acc_size = select_acc_size,
	.acc_init = select_acc_init,
	.acc_merge = select_acc_merge,
	.scratch_size = no_scratch,
	.cpu_add = select_cpu_add,
};

/* ---- the collect pass: the keys of a few buckets, whole -------------------- */

static size_t collect_acc_size(const struct gs_job *job)
{
	const struct select_plan *pl = job->select;

	return (2 * (size_t)job->columns + pl->nhist + pl->coff[pl->nhist]) * 8;
}

static void collect_acc_init(const struct gs_job *job, void *acc)
{
	/* the slots are written before they are read */
	memset(acc, 0, (2 * (size_t)job->columns + job->select->nhist) * 8);
}

/* key into bucket h: counted always, kept while the bucket has room */
static inline void collect_put(const struct gs_job *job, void *acc, uint64_t h,
			       uint64_t key)
{
	uint64_t *fill = collect_fill(acc, job);
	const uint64_t *coff = job->select->coff;

	if (fill[h] < coff[h + 1] - coff[h])
		collect_keys(acc, job, h)[fill[h]] = key;
	fill[h]++;
}

static void collect_acc_merge(const struct gs_job *job, void *acc, const void *src)
{
	void *s = (void *)src;
	const uint64_t *fill = collect_fill(s, job);

	add_u64s(acc, src, 2 * (size_t)job->columns * 8);
	for (uint64_t h = 0; h < job->select->nhist; h++) {
		const uint64_t *keys = collect_keys(s, job, h);
		uint64_t room = job->select->coff[h + 1] - job->select->coff[h];

		for (uint64_t i = 0; i < fill[h]; i++)
			collect_put(job, acc, h, i < room ? keys[i] : 0);
	}
}

#define COLLECT_COLUMN(name, KEY)					\
	static void name(const struct gs_job *job, void *acc,		\
			 const unsigned char *data, size_t nrec, unsigned k) \
	{								\
		const struct select_plan *pl = job->select;		\
		size_t esz = type_size(job->dtype.type);		\
		size_t stride = esz * job->columns;			\
		uint64_t nan = 0, key;					\
		const unsigned char *p = data + esz * k;		\
									\
		for (size_t r = 0; r < nrec; r++, p += stride) {	\
			if (!KEY(p, &key)) {				\
				nan++;					\
				continue;				\
			}						\
			int64_t h = find_prefix(pl, k, key >> pl->shift); \
			if (h >= 0)					\
				collect_put(job, acc, (uint64_t)h, key); \
		}							\
		select_count(acc)[k] += nrec;				\
		select_nan(acc, job->columns)[k] += nan;		\
	}
COLLECT_COLUMN(collect_u32, key_u32)
COLLECT_COLUMN(collect_i32, key_i32)
COLLECT_COLUMN(collect_f32, key_f32)
COLLECT_COLUMN(collect_u64, key_u64)
COLLECT_COLUMN(collect_i64, key_i64)
COLLECT_COLUMN(collect_f64, key_f64)

/* 8- and 16-bit keys never leave more than one digit to find */
static const column_fn collect_fns[GS_NTYPES] = {
	[GS_U32] = collect_u32, [GS_I32] = collect_i32, [GS_F32] = collect_f32,
	[GS_U64] = collect_u64, [GS_I64] = collect_i64, [GS_F64] = collect_f64,
};

static void collect_cpu_add(const struct gs_job *job, void *acc, void *scratch,
			    const void *data, const void *data2, size_t nrec)
{
	(void)scratch;
	(void)data2;
	for (unsigned k = 0; k < job->columns; k++)
		collect_fns[job->dtype.type](job, acc, data, nrec, k);
}

const struct acc_kernels collect_kernels = {
	.acc_size = collect_acc_size,
	.acc_init = collect_acc_init,
	.acc_merge = collect_acc_merge,
	.scratch_size = no_scratch,
	.cpu_add = collect_cpu_add,
};

/* ---- the mode pass: a hash table of distinct keys per column --------------- */

static size_t mode_acc_size(const struct gs_job *job)
{
	return (size_t)job->columns * (sizeof(struct mode_col) +
		job->select->cap * sizeof(struct mode_slot));
}

static void mode_acc_init(const struct gs_job *job, void *acc)
{
	memset(acc, 0, mode_acc_size(job));
}

/* A 64-bit mix (the finalizer of MurmurHash3): keys that differ in any
 * bit land far apart, so runs of close integers do not cluster. */
static inline uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

/* Add n to key's count in column c (linear probing); a key that finds no
 * room once the table is at its load limit is counted in c->full. */
static inline void mode_insert(struct mode_col *c, uint64_t cap, uint64_t key,
			       uint64_t n)
{
	struct mode_slot *s = mode_slots(c);
	uint64_t i = mix(key) & (cap - 1);

	while (s[i].count && s[i].key != key)
		i = (i + 1) & (cap - 1);
	if (!s[i].count) {
		if (c->used >= cap / MODE_LOAD_DEN * MODE_LOAD_NUM) {
			c->full += n;
			return;
		}
		c->used++;
		s[i].key = key;
	}
	s[i].count += n;
}

void mode_add(const struct gs_job *job, void *acc, unsigned k, uint64_t key,
	      uint64_t n)
{
	mode_insert(mode_col(acc, job, k), job->select->cap, key, n);
}

static void mode_acc_merge(const struct gs_job *job, void *acc, const void *src)
{
	uint64_t cap = job->select->cap;

	for (unsigned k = 0; k < job->columns; k++) {
		struct mode_col *a = mode_col(acc, job, k);
		struct mode_col *b = mode_col((void *)src, job, k);
		const struct mode_slot *s = mode_slots(b);

		a->count += b->count;
		a->nan += b->nan;
		a->full += b->full;
		for (uint64_t i = 0; i < cap && !a->full; i++)
			if (s[i].count)
				mode_insert(a, cap, s[i].key, s[i].count);
	}
}

#define MODE_COLUMN(name, KEY)						\
	static void name(const struct gs_job *job, void *acc,		\
			 const unsigned char *data, size_t nrec, unsigned k) \
	{								\
		size_t esz = type_size(job->dtype.type);		\
		size_t stride = esz * job->columns;			\
		struct mode_col *c = mode_col(acc, job, k);		\
		const unsigned char *p = data + esz * k;		\
		uint64_t key;						\
									\
		for (size_t r = 0; r < nrec; r++, p += stride) {	\
			if (KEY(p, &key))				\
				mode_insert(c, job->select->cap, key, 1); \
			else						\
				c->nan++;				\
		}							\
		c->count += nrec;					\
	}
MODE_COLUMN(mode_u32, key_u32)
MODE_COLUMN(mode_i32, key_i32)
MODE_COLUMN(mode_u64, key_u64)
MODE_COLUMN(mode_i64, key_i64)
MODE_COLUMN(mode_f32, key_f32)
MODE_COLUMN(mode_f64, key_f64)

static const column_fn mode_fns[GS_NTYPES] = {
	[GS_U32] = mode_u32, [GS_I32] = mode_i32, [GS_U64] = mode_u64,
	[GS_I64] = mode_i64, [GS_F32] = mode_f32, [GS_F64] = mode_f64,
};

static void mode_cpu_add(const struct gs_job *job, void *acc, void *scratch,
			 const void *data, const void *data2, size_t nrec)
{
	(void)scratch;
	(void)data2;
	for (unsigned k = 0; k < job->columns; k++)
		mode_fns[job->dtype.type](job, acc, data, nrec, k);
}

const struct acc_kernels mode_kernels = {
	.acc_size = mode_acc_size,
	.acc_init = mode_acc_init,
	.acc_merge = mode_acc_merge,
	.scratch_size = no_scratch,
	.cpu_add = mode_cpu_add,
};
