/*
 * select_kernels.cuh - what one thread of quantile's, median's and mode's
 * passes does on the GPU (select_kernels.cu), and how their device
 * accumulators are laid out and merged, written once for the device and
 * the host, so that tests/gpu/select_host_check.cu replays the kernels'
 * threads, blocks and warps on the host against src/cpu/cpu_select.c.
 *
 * An element becomes its ordered key exactly as cpu_select.c makes it (-0
 * taken as +0, NaNs counted apart), then a "slot": the index of the one
 * 64-bit counter of the accumulator it adds 1 to. The accumulator is the
 * CPU's (cpu/select.h), word for word:
 *   select:  count[C] nan[C] hist[nhist][2^digit_bits]
 *   collect: count[C] nan[C] fill[nhist] keys[coff[nhist]]
 * A NaN's slot is nan[col]; a key's is the bin of its digit in its
 * bucket's histogram (select) or its bucket's fill (collect, where the
 * value the counter had is the key's place among the bucket's slots); a
 * key in no wanted bucket has none (NO_SLOT). count[] is not a slot: a
 * launch adds its records to it once. A bucket is found as the CPU finds
 * it: column col's sorted, distinct prefixes, prefix[first_of[col] ..
 * first_of[col + 1]), equal to the key's bits above the digit.
 *
 * Mode of 32- and 64-bit types counts each distinct key in a hash table
 * per column, as cpu_select.c does, merged by the CPU's insert.
 *
 * Lanes walk the chunk's elements with a warp-uniform grid stride (every
 * lane of a warp makes the same trips, as __match_any_sync needs), each
 * knowing its element's column by modular stepping.
 */
#ifndef SELECT_KERNELS_CUH
#define SELECT_KERNELS_CUH

#include <stdint.h>
#include "dtype.cuh"
#include "fkeys.h"
extern "C" {
#include "select.h"
}

#define SELECT_NO_SLOT UINT64_MAX
#define MODE_FREE UINT64_MAX	/* a free slot's key in mode's device tables */

/* The plan of a pass as the kernels read it: job->select's numbers, and
 * its tables in device memory (at the end of the device accumulator). */
struct select_dev {
	unsigned columns;
	unsigned digit_bits;	/* 0: a collect pass */
	unsigned shift;		/* digit = (key >> shift) & mask */
	unsigned up;		/* select: prefix = key >> up; collect: shift */
	bool first;		/* every key counts in its column's histogram */
	uint64_t mask;
	const uint64_t *prefix, *first_of, *coff;
};

/* ---- the device accumulator (host code) -------------------------------- */

/* The CPU's accumulator of the pass: its bytes. */
static inline size_t select_host_acc_bytes(const struct gs_job *job)
{
	return job->cmd == CMD_COLLECT ? collect_kernels.acc_size(job)
				       : select_kernels.acc_size(job);
}

/* The tables after it, in order: prefix[nhist], first_of[C + 1] and a
 * collect's coff[nhist + 1]; none for a first pass (every key counts).
 * Returns how many parts, each from src (job->select's, on the host). */
struct select_table_part {
	const uint64_t *src;
	size_t words;
};
static inline unsigned select_table_parts(const struct gs_job *job,
					  struct select_table_part part[3])
{
	const struct select_plan *pl = job->select;

	if (job->cmd == CMD_SELECT && pl->first)
		return 0;
	part[0] = { pl->prefix, (size_t)pl->nhist };
	part[1] = { pl->first_of, (size_t)job->columns + 1 };
	part[2] = { pl->coff, (size_t)pl->nhist + 1 };
	return job->cmd == CMD_COLLECT ? 3 : 2;
}

static inline size_t select_table_words(const struct gs_job *job)
{
	struct select_table_part part[3];
	unsigned n = select_table_parts(job, part);
	size_t w = 0;

	for (unsigned i = 0; i < n; i++)
		w += part[i].words;
	return w;
}

/* The plan as the kernels read it, its tables in the device accumulator
 * dacc. */
static inline struct select_dev select_dev_of(const struct gs_job *job,
					      void *dacc)
{
	const struct select_plan *pl = job->select;
	const uint64_t *t = (const uint64_t *)((char *)dacc +
					       select_host_acc_bytes(job));
	struct select_dev d;

	d.columns = job->columns;
	d.first = job->cmd == CMD_SELECT && pl->first;
	d.digit_bits = job->cmd == CMD_COLLECT ? 0 : pl->digit_bits;
	d.shift = pl->shift;
	d.up = pl->shift + d.digit_bits;
	d.mask = ((uint64_t)1 << d.digit_bits) - 1;
	d.prefix = t;
	d.first_of = t + pl->nhist;
	d.coff = d.first_of + job->columns + 1;
	return d;
}

/* acc += hacc (a device accumulator's host copy), exactly: the CPU's
 * merges; a mode key MODE_FREE from its word (mode_dev_insert). */
static inline void select_merge(const struct gs_job *job, void *acc,
				const void *hacc)
{
	if (job->cmd == CMD_MODECOUNT) {
		const uint64_t *free = (const uint64_t *)((const char *)hacc +
			mode_kernels.acc_size(job));

		mode_kernels.acc_merge(job, acc, hacc);
		for (unsigned k = 0; k < job->columns; k++)
			if (free[k])
				mode_add(job, acc, k, MODE_FREE, free[k]);
	} else if (job->cmd == CMD_COLLECT) {
		collect_kernels.acc_merge(job, acc, hacc);
	} else {
		select_kernels.acc_merge(job, acc, hacc);
	}
}

/* 48 KB of 32-bit counters: the most a block may use without opting in. */
#define SELECT_SHARED_SLOTS 12288u

/* The slots a select pass's block counts in shared memory, or 0 where they
 * do not fit (global atomics then); a collect is global. */
static inline unsigned select_shared_slots(const struct gs_job *job)
{
	uint64_t n;

	if (job->cmd != CMD_SELECT)
		return 0;
	n = 2 * (uint64_t)job->columns +
	    (job->select->nhist << job->select->digit_bits);
	return n <= SELECT_SHARED_SLOTS ? (unsigned)n : 0;
}

/* ---- keys: cpu_select.c's, per element type --------------------------- */

/* raw: the element's bits; key(): false for a NaN. flip: the sign bit of a
 * signed integer. exp, man: a float's exponent and significand fields. */
template <typename R, uint64_t flip>
struct select_int_key {
	typedef R raw;
	__host__ __device__ static bool key(R b, uint64_t *k)
	{
		*k = (uint64_t)b ^ flip;
		return true;
	}
};
template <typename R, uint64_t exp, uint64_t man>
struct select_flt_key {
	typedef R raw;
	__host__ __device__ static bool key(R b, uint64_t *k)
	{
		uint64_t v = b;

		if ((v & exp) == exp && (v & man))
			return false;
		*k = fkey_nz(v, (uint64_t)1 << (8 * sizeof(R) - 1));
		return true;
	}
};

/* The key of each element type dtype_dispatch names. */
template <typename T> struct select_key_of;
template <> struct select_key_of<unsigned char> : select_int_key<uint8_t, 0> {};
template <> struct select_key_of<signed char> : select_int_key<uint8_t, 0x80> {};
template <> struct select_key_of<unsigned short> : select_int_key<uint16_t, 0> {};
template <> struct select_key_of<short> : select_int_key<uint16_t, 0x8000> {};
template <> struct select_key_of<unsigned> : select_int_key<uint32_t, 0> {};
template <> struct select_key_of<int> : select_int_key<uint32_t, 0x80000000u> {};
template <> struct select_key_of<unsigned long long>
	: select_int_key<unsigned long long, 0> {};
template <> struct select_key_of<long long>
	: select_int_key<unsigned long long, 0x8000000000000000ull> {};
template <> struct select_key_of<f16_bits>
	: select_flt_key<uint16_t, 0x7c00, 0x03ff> {};
template <> struct select_key_of<bf16_bits>
	: select_flt_key<uint16_t, 0x7f80, 0x007f> {};
template <> struct select_key_of<float>
	: select_flt_key<uint32_t, 0x7f800000u, 0x007fffffu> {};
template <> struct select_key_of<double>
	: select_flt_key<unsigned long long, 0x7ff0000000000000ull,
			 0x000fffffffffffffull> {};

/* ---- slots -------------------------------------------------------------- */

/* The index of prefix p among column col's, or -1 (a binary search: the
 * prefixes are sorted and distinct, so it finds cpu_select.c's index). */
__host__ __device__ static inline int64_t select_find(const struct select_dev &d,
						      unsigned col, uint64_t p)
{
	uint64_t lo = d.first_of[col], hi = d.first_of[col + 1];

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		uint64_t v = d.prefix[mid];

		if (v == p)
			return (int64_t)mid;
		if (v < p)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* Where a select pass counts an element of column col, or SELECT_NO_SLOT. */
template <typename K>
__host__ __device__ static inline uint64_t
select_slot(const struct select_dev &d, typename K::raw b, unsigned col)
{
	uint64_t key, h = col, C = d.columns;

	if (!K::key(b, &key))
		return C + col;
	if (!d.first) {
		int64_t i = select_find(d, col, key >> d.up);

		if (i < 0)
			return SELECT_NO_SLOT;
		h = (uint64_t)i;
	}
	return 2 * C + (h << d.digit_bits) + ((key >> d.shift) & d.mask);
}

/* Where a collect pass counts an element (nan[col] or its bucket's fill),
 * and its key in *key. */
template <typename K>
__host__ __device__ static inline uint64_t
collect_slot(const struct select_dev &d, typename K::raw b, unsigned col,
	     uint64_t *key)
{
	uint64_t C = d.columns;
	int64_t i;

	if (!K::key(b, key))
		return C + col;
	i = select_find(d, col, *key >> d.up);
	return i < 0 ? SELECT_NO_SLOT : 2 * C + (uint64_t)i;
}

/* A collect slot's counter had `at` before this key: the key goes to its
 * bucket's place at, while the bucket has room (more keys than room: the
 * input changed, which the pass reports from the fill). */
__host__ __device__ static inline void collect_store(const struct select_dev &d,
						     uint64_t *acc, uint64_t slot,
						     uint64_t at, uint64_t key)
{
	uint64_t C = d.columns, h;

	if (slot == SELECT_NO_SLOT || slot < 2 * C)
		return;
	h = slot - 2 * C;
	if (at < d.coff[h + 1] - d.coff[h])
		acc[2 * C + d.first_of[C] + d.coff[h] + at] = key;
}

/* ---- mode's hash tables ---------------------------------------------------- */

/* A device table per column, as cpu_select.c's (struct mode_col, then cap
 * slots of key and count), but a free slot's key is MODE_FREE, so that a
 * key is claimed by one compare-and-swap; a count of 0 still marks a free
 * slot for the merge. MODE_FREE is the key of no 32-bit or float element
 * (it would be a NaN's f64 key); a 64-bit integer whose key it is (2^64 -
 * 1, INT64_MAX) counts in the column's own word after the tables
 * (free[]). */

struct mode_dev {
	unsigned columns;
	uint64_t cap, limit;	/* slots; claimed ones at most (3/4) */
	size_t col_bytes;	/* a column's header and slots */
	char *acc;
	unsigned long long *free;	/* [columns] */
};

#ifdef __CUDA_ARCH__
#define MODE_ADD(p, n) atomicAdd((unsigned long long *)(p), (unsigned long long)(n))
#define MODE_CAS(p, was, v) atomicCAS((unsigned long long *)(p), (was), (v))
#define MODE_READ(p) (*(volatile unsigned long long *)(p))
#else	/* the host check replays the inserts one at a time */
static inline uint64_t mode_cas_host(uint64_t *p, uint64_t was, uint64_t v)
{
	uint64_t old = *p;

	if (old == was)
		*p = v;
	return old;
}
#define MODE_ADD(p, n) (*(p) += (n))
#define MODE_CAS(p, was, v) mode_cas_host((uint64_t *)(p), (was), (v))
#define MODE_READ(p) (*(p))
#endif

static inline struct mode_dev mode_dev_of(const struct gs_job *job, void *dacc)
{
	struct mode_dev d;

	d.columns = job->columns;
	d.cap = job->select->cap;
	d.limit = d.cap / MODE_LOAD_DEN * MODE_LOAD_NUM;
	d.col_bytes = sizeof(struct mode_col) + d.cap * sizeof(struct mode_slot);
	d.acc = (char *)dacc;
	d.free = (unsigned long long *)(d.acc + d.columns * d.col_bytes);
	return d;
}

/* cpu_select.c's mix (MurmurHash3's finalizer): where a key's probe
 * starts. */
__host__ __device__ static inline uint64_t mode_mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

/* Add n to key's count in column k's table (linear probing). A key is
 * claimed once, at the first free slot of its probe, and slots are never
 * freed, so a probe that meets a free slot has seen the key's only place.
 * A new key once limit keys are claimed (more distinct values than the
 * CPU's table holds), or a probe around the whole table (concurrent
 * claims past the limit), counts in full: then the column has more
 * distinct values than the limit, as the CPU finds in its merge too. */
__host__ __device__ static inline void mode_dev_insert(const struct mode_dev &d,
						       unsigned k, uint64_t key,
						       uint64_t n)
{
	struct mode_col *c = (struct mode_col *)(d.acc + k * d.col_bytes);
	struct mode_slot *s = (struct mode_slot *)(c + 1);
	uint64_t i = mode_mix(key) & (d.cap - 1);

	if (key == MODE_FREE) {
		MODE_ADD(&d.free[k], n);
		return;
	}
	for (uint64_t probe = 0; probe < d.cap; probe++, i = (i + 1) & (d.cap - 1)) {
		uint64_t was = MODE_READ(&s[i].key);

		if (was == MODE_FREE) {
			if (MODE_READ(&c->used) >= d.limit)
				break;
			was = MODE_CAS(&s[i].key, MODE_FREE, key);
			if (was == MODE_FREE)
				MODE_ADD(&c->used, 1);
		}
		if (was == MODE_FREE || was == key) {
			MODE_ADD(&s[i].count, n);
			return;
		}
	}
	MODE_ADD(&c->full, n);
}

/* ---- the walk ------------------------------------------------------------- */

/* Thread t of stride threads: fn(e, col, live) for elements t, t + stride,
 * ... of nelem, C columns; the loop runs on the warp's first element, so
 * every lane of a warp makes the same trips (live is false past the end).
 * stride is a multiple of 32. */
template <class Fn>
__host__ __device__ static inline void select_walk(size_t nelem, unsigned C,
						   size_t t, size_t stride,
						   Fn &&fn)
{
	size_t lane = t % 32;
	unsigned col = (unsigned)(t % C), step = (unsigned)(stride % C);

	for (size_t e0 = t - lane; e0 < nelem; e0 += stride) {
		size_t e = e0 + lane;

		fn(e, col, e < nelem);
		col += step;
		if (col >= C)
			col -= C;
	}
}

#endif
