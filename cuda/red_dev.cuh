/*
 * red_dev.cuh - reduce's side of the CUDA backend that is not a kernel: the
 * launch geometry, the device accumulator's layout and its order-preserving
 * keys, what the GPU reduce supports, and the exact merge of a device
 * accumulator into the CPU's struct red_col. Shared by reduce_kernels.cu
 * and the host checks (tests/gpu/prod_host_check.cu), which replay the
 * kernels' grouping on the host and merge as the backend does.
 *
 * The device accumulator: struct red_dev_head (the record count), then per
 * column a struct exact_acc (sum), a struct red_dev_word, or (prod) a
 * struct fprod / iprod followed by RED_PROD_BLOCKS per column of
 * block scratch.
 */
#ifndef RED_DEV_CUH
#define RED_DEV_CUH

#include <stdint.h>
#include <type_traits>
#include "exact.cuh"
#include "prod.cuh"

extern "C" {
#include "xprod.h"	/* iprod_at_merge */
}

/* 256 threads and 4 blocks per SM: enough resident warps to cover memory
 * latency on H100 with the 128-bit registers of the sum path. */
#define RED_THREADS 256
#define RED_BLOCKS_PER_SM 4
/* Shared slots per column: 64 columns of sums take 64 * 144 * 8 = 72 KiB
 * of shared memory, three blocks per SM. More columns run on the CPU. */
#define RED_MAX_COLUMNS 64
/* Dynamic shared memory beyond this needs the kernel's opt-in. */
#define RED_SMEM_DEFAULT (48 * 1024)
/* 1: one-column f32/f64 sums take the vector + window kernel; 0: the
 * generic one, kept to compare. On an H100 at 1 GiB the generic f32
 * kernel runs at 0.26x CUB's plain float sum: about 80 instructions and
 * one 4-byte load in flight per element. */
#ifndef RED_SUM_WINDOW
#define RED_SUM_WINDOW 1
#endif

#define RED_SIGN (1ull << 63)

struct red_dev_head {
	unsigned long long count;	/* records folded in */
	unsigned long long pad;		/* keeps what follows 16-byte aligned */
};

struct red_dev_word {
	unsigned long long word;	/* min: ~key, max: key, and: ~bits ... */
	unsigned long long nan;		/* floats: a NaN was seen */
};

/* The key of x, or false for a NaN. */
template <typename T>
static __host__ __device__ inline bool red_key(T x, unsigned long long *k)
{
	if constexpr (dtype_is_float<T>::value) {
		double v = exact_elem_f64(x);

		if (v != v)
			return false;
		*k = f64_ukey(v);
	} else if constexpr (std::is_signed<T>::value) {
		*k = (unsigned long long)(long long)x ^ RED_SIGN;
	} else {
		*k = (unsigned long long)x;
	}
	return true;
}

/* Blocks of one prod kernel at most: the accumulator keeps a partial per
 * block and column. H100/H200 grids are 132 SMs * RED_BLOCKS_PER_SM = 528
 * blocks; 1024 leaves room for larger GPUs (64 columns of struct fprod: 3 MiB
 * per stream). */
#define RED_PROD_BLOCKS 1024

/* ---- what runs on the GPU, and where ------------------------------------ */

static inline bool red_supports(const struct gs_job *job, const char **why)
{
	if (job->cmd == CMD_SCAN) {
		*why = "scan runs on the CPU";
		return false;
	}
	if (job->cmd != CMD_REDUCE) {
		*why = "not a reduction";
		return false;
	}
	if (type_is_float(job->dtype.type) && job->op > OP_MAX) {
		*why = "bit operations need an integer type";
		return false;
	}
	if (job->columns > RED_MAX_COLUMNS) {
		*why = "more than 64 columns run on the CPU";
		return false;
	}
	return true;
}

static inline size_t red_dev_acc_bytes(const struct gs_job *job)
{
	size_t col = sizeof(struct red_dev_word);

	if (job->op == OP_SUM)
		col = sizeof(struct exact_acc);
	else if (job->op == OP_PROD)	/* the column, then its scratch */
		col = (1 + RED_PROD_BLOCKS) *
		      (type_is_float(job->dtype.type) ? sizeof(struct fprod)
						      : sizeof(struct iprod));
	return sizeof(struct red_dev_head) + col * job->columns;
}

static inline unsigned red_blocks(size_t n, int nsm)
{
	size_t want = (n + RED_THREADS - 1) / RED_THREADS;
	size_t most = (size_t)nsm * RED_BLOCKS_PER_SM;

	return (unsigned)(want < most ? (want ? want : 1) : most);
}

/* Blocks of a prod kernel: as many as for the others, within the scratch. */
static inline unsigned red_prod_blocks(size_t n, int nsm)
{
	unsigned b = red_blocks(n, nsm);

	return b < RED_PROD_BLOCKS ? b : RED_PROD_BLOCKS;
}

/* ---- merging into the CPU accumulator ------------------------------------ */

/* Fold a device min/max word (not 0) into c the way cpu_reduce.c's mm_fold
 * does: only a strictly better value replaces the current one. */
static inline void red_merge_mm(const struct gs_job *job, struct red_col *c,
			 unsigned long long w)
{
	enum gs_type t = job->dtype.type;
	bool mn = job->op == OP_MIN;
	unsigned long long k = mn ? ~w : w, kc;
	union gs_scalar *v = &c->u.mm.v;

	if (type_is_float(t)) {
		kc = f64_ukey(v->f);		/* the CPU never stores a NaN */
		if (mn ? k < kc : k > kc)
			v->f = ukey_to_f64(k);
	} else if (type_is_signed(t)) {
		long long x = (long long)(k ^ RED_SIGN);

		if (mn ? x < v->i : x > v->i)
			v->i = x;
	} else {
		if (mn ? k < v->u : k > v->u)
			v->u = k;
	}
}

static inline void red_merge_word(const struct gs_job *job, struct red_col *c,
			   const struct red_dev_word *d)
{
	switch (job->op) {
	case OP_MIN:
	case OP_MAX:
		if (type_is_float(job->dtype.type))
			c->u.mm.nan |= d->nan != 0;
		if (d->word)
			red_merge_mm(job, c, d->word);
		break;
	case OP_AND: c->u.bits &= ~d->word; break;
	case OP_OR: c->u.bits |= d->word; break;
	case OP_XOR: c->u.bits ^= d->word; break;
	default: break;
	}
}

/* A device column's integer product into c, where it passed 2^128 not
 * known. (A float product merges as it is: the struct is the CPU's.) */
static inline void red_merge_iprod(struct iprod_at *c, const struct iprod *d)
{
	struct iprod_at q = { *d, UINT64_MAX };

	iprod_at_merge(c, &q);
}

static inline void red_merge_host(const struct gs_job *job, void *acc,
				  const void *hacc)
{
	const struct red_dev_head *h = (const struct red_dev_head *)hacc;
	struct red_col *c = (struct red_col *)acc;
	bool flt = type_is_float(job->dtype.type);

	for (unsigned i = 0; i < job->columns; i++) {
		if (job->op == OP_SUM)
			exact_to_xsum((const struct exact_acc *)(h + 1) + i,
				      &c[i].u.sum);
		else if (job->op == OP_PROD && flt)
			fprod_merge(&c[i].u.fp,
				    (const struct fprod *)(h + 1) + i);
		else if (job->op == OP_PROD)
			red_merge_iprod(&c[i].u.ip,
					(const struct iprod *)(h + 1) + i);
		else
			red_merge_word(job, &c[i],
				       (const struct red_dev_word *)(h + 1) + i);
		c[i].count += h->count;
	}
}

#endif
