/*
 * acc.h - the accumulators of every command, and the CPU kernels that fold
 * records into them.
 *
 * An accumulator is a plain value with an exact merge: merging partial
 * accumulators of any split of the stream, in any grouping, gives the same
 * bits as one pass over the whole stream. That is what lets chunks, CPU
 * threads, CUDA streams and GPUs work independently. The GPU backend fills
 * the same structs, so the CLI formats results without knowing who computed
 * them.
 *
 * Every command's accumulator is one block of memory of acc_size(job) bytes
 * (columns and bins included), made by acc_init and combined by acc_merge.
 * CPU kernels take records already in native byte order.
 *
 * CPU code: src/cpu/cpu_hist.c, cpu_stats.c, cpu_dot.c, cpu_reduce.c (sum,
 * reduce, and the per-op state of scan), cpu_scan.c.
 */
#ifndef ACC_H
#define ACC_H

#include "gs.h"
#include "xprod.h"
#include "ksum.h"
#include "xsum.h"

/* Whether the AVX2 loops of the CPU kernels may run (cpu_avx2.c); tests
 * set cpu_portable to run the portable C loops where AVX2 ones would. */
bool cpu_avx2(void);
extern bool cpu_portable;
/* The attribute of a loop's AVX2 clone (none where there is no AVX2). */
#if defined(__x86_64__) && defined(__GNUC__)
#define AVX2_FN __attribute__((target("avx2")))
#else
#define AVX2_FN
#endif

/* ---- hist ---------------------------------------------------------------
 * Per-value bins (8/16-bit integers, !job->ranged): nbins = 2^bits, bin i
 * counts value (i + min of the type), i.e. i8 bin 0 is -128.
 * Ranged bins: nbins = job->bins, numpy.histogram's rules (see cpu_hist.c);
 * values outside [lo, hi] go to below/above, NaN to nan.
 * counts is laid out [column][bin]. */
struct hist_acc {
	uint64_t nbins;
	uint64_t columns;
	uint64_t v[];		/* below[C], above[C], nan[C], counts[C][nbins] */
};
static inline uint64_t *hist_below(struct hist_acc *h) { return h->v; }
static inline uint64_t *hist_above(struct hist_acc *h) { return h->v + h->columns; }
static inline uint64_t *hist_nan(struct hist_acc *h) { return h->v + 2 * h->columns; }
static inline uint64_t *hist_counts(struct hist_acc *h, uint64_t col)
{
	return h->v + 3 * h->columns + col * h->nbins;
}

/* A weighted hist (job->weighted, cpu_hist_w.c) has the same header and
 * below, above and nan counts, of the value columns (every column but
 * job->wcol: columns is one less than the job's); in place of the counts,
 * each bin holds the exact sum of the weights of the values in it: for
 * float weights a struct xsum, for integer weights a 128-bit two's
 * complement integer as two words, the low one first (a bin sums fewer
 * than 2^63 weights below 2^64). */
static inline struct xsum *histw_xsum(struct hist_acc *h, uint64_t col)
{
	return (struct xsum *)(h->v + 3 * h->columns) + col * h->nbins;
}
static inline uint64_t *histw_isum(struct hist_acc *h, uint64_t col)
{
	return h->v + 3 * h->columns + 2 * col * h->nbins;
}
/* Whether job's weights are floats (xsum bins) and signed. */
bool histw_float(const struct gs_job *job);
bool histw_signed(const struct gs_job *job);

/* The bins of m values v[0..m) of a ranged hist (each exact in double),
 * as the ranged hist finds them: 0..bins-1, or bins + 0 below the range,
 * bins + 1 above, bins + 2 NaN. */
void hist_codes(const struct gs_job *job, const double *v, size_t m,
		uint32_t *code);

/* The bin edges of a ranged hist, as numpy computes them: linspace(lo, hi,
 * bins + 1) in double (in the bin type for job->data_range), the last edge
 * exactly hi, then rounded to the bin
 * type numpy would use (f16 for f16 data, f32 for f32 and bf16, f64 for f64
 * and integers) and returned as doubles. Values are compared as that type
 * too (integers converted to double, as numpy does). edges has bins + 1
 * entries. */
void hist_edges(const struct gs_job *job, double *edges);

/* x rounded to the nearest f16, ties to even, as its bits (numpy's
 * double-to-half): how --edges writes f16 edges. */
uint16_t hist_half_bits(double x);

/* ---- hist2d --------------------------------------------------------------
 * numpy.histogram2d of the first two columns (x, y): job->bins x job->ybins
 * counts laid out [x bin][y bin] as numpy's H, and the records in no bin:
 * those with a NaN in x or y, and the others outside the range. */
struct hist2d_acc {
	uint64_t nx, ny;
	uint64_t nan, outside;
	uint64_t counts[];	/* counts[ix * ny + iy] */
};

/* A weighted hist2d (job->weighted, CMD_HIST2DW, cpu_hist2d_w.c) has the
 * same header, then two words (a failed allocation, 0) and each bin's exact
 * sum of its records' weights, [x bin][y bin]: for float weights a struct
 * ksum, for integer weights a 128-bit two's complement integer as two
 * words, the low one first. The records' x and y are the first two columns
 * other than job->wcol (hist2dw_xy). */
static inline uint64_t *hist2dw_failed(struct hist2d_acc *h)
{
	return h->counts;
}
static inline struct ksum *hist2dw_ksum(struct hist2d_acc *h)
{
	return (struct ksum *)(h->counts + 2);
}
static inline uint64_t *hist2dw_isum(struct hist2d_acc *h)
{
	return h->counts + 2;
}
/* The columns of x and y of a weighted hist2d's records. */
static inline void hist2dw_xy(const struct gs_job *job, unsigned *x,
			      unsigned *y)
{
	*x = job->wcol == 0;
	*y = *x + 1 + (job->wcol == *x + 1);
}

/* A weighted hist2d's state (cpu_hist2d_w.c, docs/STATE.md): its bytes,
 * and reading bytes of them at p into acc (made by acc_init): 0, or -1
 * for a payload no run writes. */
size_t hist2dw_state_bytes(const struct gs_job *job, const void *acc);
void hist2dw_state_put(const struct gs_job *job, const void *acc,
		       unsigned char *p);
int hist2dw_state_get(struct gs_job *job, void *acc, const unsigned char *p,
		      size_t bytes);

/* The edges of axis (0: x, 1: y) as np.histogram2d makes them (np.linspace
 * of the range: in double for a given range, in the data's type for its
 * own; cpu_hist2d.c), as doubles; edges has that axis's bins + 1. */
void hist2d_edges(const struct gs_job *job, int axis, double *edges);
/* The bins [*lo, *hi) of part `part` of `parts` of n bins that
 * merge_part merges (cpu_hist2d.c): the parts cover 0..n once. */
void hist2d_part(uint64_t n, int part, int parts, uint64_t *lo, uint64_t *hi);

/* ---- stats --------------------------------------------------------------
 * Per column. Integers: min/max as exact int64/uint64 (in .i/.u by
 * signedness); floats: min/max as double, NaNs counted and skipped; -0.0
 * counts as less than +0.0 so min/max do not depend on order. */
union gs_scalar {
	int64_t i;
	uint64_t u;
	double f;
};

struct stats_col {
	uint64_t count;		/* every element, NaNs included */
	uint64_t nan;
	union gs_scalar min, max;	/* meaningful when count > nan */
	struct xsum s1, s2;	/* exact sum and sum of squares of non-NaN values */
};

/* ---- dot ----------------------------------------------------------------
 * Per column (dot A B with -c N gives N dot products; --pairs gives one: the
 * job then has columns == 2 and one xsum). */
struct dot_col {
	uint64_t count;
	struct xsum s;
};

/* ---- reduce (sum is reduce --op sum) and the state of scan ---------------
 * Per column; which member is live depends on job->op and the type (the
 * products: numerics/xprod.h). */
struct red_col {
	uint64_t count;
	union {
		struct xsum sum;	/* OP_SUM, every type */
		struct fprod fp;	/* OP_PROD, floats */
		struct iprod_at ip;	/* OP_PROD, integers */
		struct {		/* OP_MIN/OP_MAX (none while count == 0) */
			bool nan;	/* floats: NaN propagates, like numpy */
			union gs_scalar v;
		} mm;
		uint64_t bits;		/* OP_AND/OR/XOR: two's complement bits */
	} u;
};

/* The sign of a float sum's zero after a kernel folded nrec records at
 * data into x, column col of them: terms of those were added (stats leave
 * NaNs out: skip_nan) to a sum of before terms (xsum_note_negzero). */
void acc_note_negzero(const struct gs_job *job, struct xsum *x,
		      uint64_t before, uint64_t terms, const void *data,
		      unsigned col, size_t nrec, bool skip_nan);

/* ---- group-by (--by COLS, cpu_group.c) -----------------------------------
 * The accumulator points to a table (cpu/ktable.h) of the keys seen, each
 * with a struct gcol per value column; what a column keeps is
 * job->group->what's: count and nan (GROUP_COUNT), min and max of its
 * non-NaN values (GROUP_MINMAX), their exact sum (GROUP_SUM) and the
 * exact sum of their squares (GROUP_STATS) -- the quantities of struct
 * stats_col, per key. */
struct ktable;
struct gshared;
struct gdense;
struct group_acc {
	struct gshared *sh;	/* the keys (group_shared.h); NULL until the first */
	struct ktable *loc;	/* a CPU thread's own, flushed into sh */
	uint32_t *order;	/* scratch of the flush */
	size_t cap;		/* loc's keys at most */
	struct gdense *dense;	/* the thread's window of keys (group_fold.c) */
	struct gscatter *scat;	/* or, its keys too many: group_scatter.h */
	uint64_t held;		/* loc's and scat's bytes, held
				 * against the limit (sh->windows) */
	int failed;		/* 0, or why it stopped (cpu_group.c) */
	uint64_t fail_keys;
	uint64_t fail_records;	/* FAIL_SPILL's: what the GPU could not take */
};
/* The keys of acc in ascending order, a row at a time, without an index
 * of them all (the results stream: group_out.c): group_rows makes the
 * table final (its partitions sorted on pool's threads, where pool is not
 * NULL) and counts its *n rows (NULL: out of memory, or a spilled table's
 * failed merge, which acc_check reports); group_row gives row r's entry, r
 * read in ascending order, from 0 again as often as wanted. */
struct group_rows;
struct pool;
struct group_rows *group_rows(const struct gs_job *job,
			      const struct group_acc *acc, struct pool *pool,
			      uint64_t *n);
size_t group_row(struct group_rows *rows, uint64_t r);
/* Rows [r0, r0 + m)'s entries into ids, as group_row gives them, merged
 * on pool's threads (NULL: this one) where they follow the last row read
 * (a table in memory: group_entries_direct). */
void group_rows_take(struct group_rows *rows, uint64_t r0, uint64_t *ids,
		     size_t m, struct pool *pool);
void group_rows_free(struct group_rows *rows);
/* Key column k of entry i: .f for a float key, .i or .u for an integer
 * key by its signedness (a NaN key is the type's quiet NaN). */
union gs_scalar group_key(const struct gs_job *job,
			  const struct group_acc *acc, size_t i, unsigned k);
/* Entry i copied out of the table into dst (group_entry_size bytes,
 * 16-aligned): the functions below read such a copy on any thread, where
 * a spilled table's entries are read through one window at a time. */
size_t group_entry_size(const struct gs_job *job);
void group_entry_copy(const struct gs_job *job, const struct group_acc *acc,
		      size_t i, void *dst);
/* Key column k of a copied entry, as group_key. */
union gs_scalar group_entry_key(const struct gs_job *job, const void *entry,
				unsigned k);
/* Value column j of a copied entry as the ungrouped state of that key's
 * records: a stats_col (count, nan, min, max, s1, s2, as far as what
 * keeps them) and a red_col of reduce --op op (sum, min, max). */
void group_stats(const struct gs_job *job, const void *entry, unsigned j,
		 struct stats_col *s);
void group_reduce(const struct gs_job *job, const void *entry, unsigned j,
		  enum gs_op op, struct red_col *r);
/* group_stats of GROUP_STATS without the xsums: count, nan, min and max
 * into s (its s1, s2 left alone), the compact sums themselves (ksum.h)
 * into *s1, *s2, pointing into entry. */
struct ksum;
void group_stats_compact(const struct gs_job *job, const void *entry,
			 unsigned j, struct stats_col *s,
			 const struct ksum **s1, const struct ksum **s2);
/* A state's bytes as they are made, in order (state.c's: the result's
 * buffer, which drains to the output): put false where it failed (its
 * owner says why). */
struct gs_sink {
	bool (*put)(void *ctx, const void *p, size_t n);
	void *ctx;
};
/* A state's payload as it is read: need(ctx, n) the next n bytes (valid
 * until the next call), NULL where fewer are left or they cannot be read;
 * take(ctx, n) moves past n of them. */
struct gs_src {
	const unsigned char *(*need)(void *ctx, size_t n);
	void (*take)(void *ctx, size_t n);
	void *ctx;
};
/* The accumulator as a state's payload (group_state.c, docs/STATE.md),
 * a key at a time, never held whole: its bytes, then the bytes into out.
 * Back: the grouping at src's front into job->group (malloc'd, its
 * table's limit limit; group_state_head_free frees it), and *entries the
 * keys that follow; then those keys into acc's table (made by acc_init,
 * or one that holds keys already: equal keys merge exactly), as one state
 * holds them, once each, in the order of the output. -1: not such a
 * payload, or out of memory. */
size_t group_state_bytes(const struct gs_job *job, const void *acc);
void group_state_write(const struct gs_job *job, const void *acc,
		       const struct gs_sink *out);
int group_state_head(struct gs_job *job, const struct gs_src *src,
		     uint64_t limit, uint64_t *entries);
void group_state_head_free(struct gs_job *job);
int group_state_entries(const struct gs_job *job, void *acc,
			const struct gs_src *src, uint64_t entries);
/* Whether group_entry_copy may run on several threads at once (the table
 * in memory, not read back through a spilled run's window). */
bool group_entries_direct(const struct group_acc *acc);
/* A float value column's sum of a copied entry, rounded once to a double
 * straight from its compact form: false where it must go through
 * group_reduce (a NaN or an infinity among the terms, a widened sum). The
 * same bits as group_reduce's sum rounded by red_result. */
bool group_sum_f64(const struct gs_job *job, const void *entry, unsigned j,
		   double *d);
/* The records of a copied entry's key. */
uint64_t group_count(const struct gs_job *job, const void *entry);
/* n keys (n * nkeys order keys, ascending or not) with their payloads (n
 * struct gcol per value column, cpu_group.h, 16-byte aligned) merged
 * exactly into g's table, as a CPU thread's flush is: safe beside the CPU
 * threads (another backend's results). The payloads are taken over (a
 * widened ksum's xsum moves or is freed; they are left empty). false once
 * g failed (acc_error says why). */
bool group_absorb(const struct gs_job *job, struct group_acc *g,
		  const void *keys, const void *payloads, size_t n);

/* ---- the kernel table -------------------------------------------------- */

struct acc_kernels {
	size_t (*acc_size)(const struct gs_job *job);
	void (*acc_init)(const struct gs_job *job, void *acc);
	void (*acc_merge)(const struct gs_job *job, void *acc, const void *src);
	/* Per-thread scratch for cpu_add, allocated once. May be 0. */
	size_t (*scratch_size)(const struct gs_job *job);
	/* Fold nrec records at data (and data2 for dot A B) into acc, a
	 * thread's accumulator (thread_size's where there is one). */
	void (*cpu_add)(const struct gs_job *job, void *acc, void *scratch,
			const void *data, const void *data2, size_t nrec);
	/* Where the state holds memory of its own (a group-by's table): free
	 * it (acc's block itself is the caller's); NULL for plain values. */
	void (*acc_free)(const struct gs_job *job, void *acc);
	/* Where folding can fail (a table past its memory): 0, or -1 with
	 * err filled once acc has failed; NULL: it cannot. */
	int (*acc_error)(const struct gs_job *job, const void *acc,
			 struct gs_err *err);
	/* A CPU thread's own accumulator, where it differs from acc (hist2d's
	 * 16-bit counts): its size, init, free and error as acc_size,
	 * acc_init, acc_free and acc_error are acc's; cpu_add folds into it,
	 * and only merge_part adds it into an acc. NULL: a thread's
	 * accumulator is an acc. */
	size_t (*thread_size)(const struct gs_job *job);
	void (*thread_init)(const struct gs_job *job, void *t);
	void (*thread_free)(const struct gs_job *job, void *t);
	int (*thread_error)(const struct gs_job *job, const void *t,
			    struct gs_err *err);
	/* Part `part` of `parts` of the merge of a thread's accumulator src
	 * into acc: every part once, in any order, adds all of src; parts
	 * write disjoint bytes of acc, so the CPU backend's threads merge a
	 * part each at once (hist2d's 4096 x 4096 bins: a thread's table is
	 * 32 MiB, the result 128). NULL: acc_merge, on one thread. */
	void (*merge_part)(const struct gs_job *job, void *acc, const void *src,
			   int part, int parts);
};

/* Each operation's kernels: the cpu column of ops.def, defined by its
 * cpu_*.c. */
#define OPERATION(id, name, cpu, ...) extern const struct acc_kernels cpu;
#include "ops.def"
#undef OPERATION

/* Records of mixed types (job->rec, cpu_mixed.c): each column through
 * the kernels of job->cmd's operation in its own type; mixed_supports says
 * for which operations (those whose state is a struct per column). */
extern const struct acc_kernels mixed_kernels;
bool mixed_supports(enum gs_cmd cmd);

/* The kernels of job->cmd's operation (ops.def's cpu column: a scan's are
 * reduce_kernels, its state being the reduction of everything before it;
 * a ranged hist's range pass, CMD_MINMAX, uses stats_kernels). */
const struct acc_kernels *acc_kernels_for(const struct gs_job *job);
/* Free an accumulator of job (its kernels' acc_free, then the block);
 * NULL is nothing. acc_check: its kernels' acc_error, or 0 (operation.c). */
void acc_release(const struct gs_job *job, void *acc);
int acc_check(const struct gs_job *job, const void *acc, struct gs_err *err);

/* Integer products (reduce --op prod) in stream order: merge src, the
 * product of nrec records at data whose first is record first, into acc,
 * the product of every record before them. Where a column's |product|
 * first passes 2^128 there, the records are folded again one by one to
 * find the one that did it, for iprod_at.at. */
void iprod_merge_at(const struct gs_job *job, struct red_col *acc,
		    const struct red_col *src, const void *data,
		    uint64_t first, size_t nrec);

/* ---- scan ---------------------------------------------------------------
 * Write the scan of nrec records at data to out (job->out_type, native =
 * little-endian), starting from state (a red_col per column: the reduction
 * of everything before data), and advance state past data. Inclusive or
 * exclusive as job->exclusive says. Every output is the exact prefix
 * rounded once to the output type.
 * Returns 0, or -1 with err filled when an output does not fit the output
 * type (integers) or a product cannot be rounded exactly; *bad_index is then
 * the record index within data. */
int cpu_scan(const struct gs_job *job, struct red_col *state, void *scratch,
	     const void *data, size_t nrec, void *out, size_t *bad_index,
	     struct gs_err *err);
size_t cpu_scan_scratch_size(const struct gs_job *job);

/* ---- results ------------------------------------------------------------
 * Final values of a reduction column as the CLI prints them. */
enum result_kind { RES_F64, RES_INT_DEC, RES_NONE };
struct result {
	enum result_kind kind;
	double f;		/* RES_F64 */
	char dec[XSUM_DEC_MAX];	/* RES_INT_DEC: exact decimal integer */
};
/* Fill r from a reduction column (sum, prod, min, max, and, or, xor).
 * Returns -1 with err filled on an unrepresentable result (integer product
 * overflow, float product that cannot be rounded exactly). */
int red_result(const struct gs_job *job, const struct red_col *c,
	       struct result *r, struct gs_err *err);

/* Byte-swap n elements of size sz in place (big-endian input). */
void swap_bytes(void *data, size_t n, size_t sz);

#endif
