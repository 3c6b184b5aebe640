/*
 * backend_cpu.c - the CPU backend: every command on -j threads.
 *
 * Reductions (hist, stats, dot, sum, reduce): each thread folds its slice of
 * every chunk into its own accumulator; finish() merges them (hist2d's
 * tables a part of the bins per thread). The merges are exact, so the
 * thread count never changes a bit of the result.
 *
 * scan: a chunk is cut into pieces whose output fits a fixed output buffer.
 * With one thread a piece is scanned straight through. With T threads:
 * (1) each thread reduces its slice to a total, (2) the totals are chained
 * into each slice's carry-in (exact merges, so carry-ins are exact prefixes),
 * (3) each thread scans its slice from its carry-in. The data is read twice,
 * by T threads at once. Output goes to the sink in order.
 *
 * Threads are no more than the chunk has slices of MIN_SLICE_RECORDS:
 * every pool_run wakes all of them, and with --chunk-size 1 -j 64 on two
 * cores a 100 KB hist took 52 s waking 64 threads per one-record chunk
 * (0.7 s with one).
 *
 * Integer products (reduce) fold each chunk's slices into one running
 * product in stream order, so that an overflow names its record (a
 * thread's own accumulator holds slices of every chunk).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "acc.h"
#include "backend.h"
#include "engine.h"
#include "operation.h"
#include "pool.h"

#define MIN_SLICE_RECORDS ENGINE_MIN_SLICE_RECORDS
#define SCAN_OUT_BYTES (16u << 20)	/* output buffer; bounds memory for u8 -> u64 */

struct cpu {
	struct backend_env env;
	const struct gs_job *job;
	const struct acc_kernels *k;
	struct pool pool;
	int nthreads;
	size_t acc_sz;
	void **acc;			/* [nthreads] accumulators */
	bool acc_made;			/* each t_init'd: t_free them */
	/* their kernels: acc_* or thread_* (acc.h) */
	void (*t_init)(const struct gs_job *, void *);
	void (*t_free)(const struct gs_job *, void *);
	int (*t_error)(const struct gs_job *, const void *, struct gs_err *);
	void **scratch;			/* [nthreads] */

	bool scan;			/* a scan: output through the sink */
	bool locate;			/* an integer product: see the top */

	/* scan, and the integer product */
	struct red_col *state;		/* [columns]: everything so far */
	struct red_col **carry;		/* [nthreads][columns] */
	uint64_t before;		/* records a --carry-in counts */
	unsigned char *out;
	size_t out_rec;			/* output bytes per record */
	size_t piece;			/* records per output buffer */

	void *final;			/* the accumulator finish() fills */

	/* the work of the current pool_run */
	const unsigned char *d, *d2;
	size_t n;
	int rc[64];
	size_t bad[64];
	struct gs_err errs[64];
};

#define MAX_THREADS 64

/* Buffers are mapped whole and asked for huge pages: the reader threads
 * fill a fresh buffer with a few hundred page faults instead of tens of
 * thousands. The mapping's length sits in the first page. */
#define PAGE_HEAD 4096

void *host_pages_alloc(size_t n)
{
	size_t len = n + PAGE_HEAD;
	unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	(void)madvise(p, len, MADV_HUGEPAGE);	/* a hint: fine if refused */
	memcpy(p, &len, sizeof(len));
	return p + PAGE_HEAD;
}

void host_pages_free(void *v)
{
	unsigned char *p = v;
	size_t len;

	if (!p)
		return;
	memcpy(&len, p - PAGE_HEAD, sizeof(len));
	munmap(p - PAGE_HEAD, len);
}

static void slice(size_t n, int i, int t, size_t *lo, size_t *cnt)
{
	size_t a = n * (size_t)i / (size_t)t, b = n * (size_t)(i + 1) / (size_t)t;

	*lo = a;
	*cnt = b - a;
}

/* Threads worth using for n records. */
static int active(const struct cpu *c, size_t n)
{
	size_t want = (n + MIN_SLICE_RECORDS - 1) / MIN_SLICE_RECORDS;

	return want < (size_t)c->nthreads ? (want ? (int)want : 1) : c->nthreads;
}

static void swap_task(void *v, int i, int t)
{
	struct cpu *c = v;
	const struct gs_job *job = c->job;
	size_t sz = type_size(job->dtype.type), rec = job_record_size(job);
	size_t lo, cnt;

	slice(c->n, i, t, &lo, &cnt);
	swap_bytes((unsigned char *)c->d + lo * rec, cnt * job->columns, sz);
	if (c->d2)
		swap_bytes((unsigned char *)c->d2 + lo * rec, cnt * job->columns, sz);
}

static void add_task(void *v, int i, int t)
{
	struct cpu *c = v;
	size_t rec = job_record_size(c->job), lo, cnt;

	slice(c->n, i, active(c, c->n), &lo, &cnt);
	if (i >= active(c, c->n) || cnt == 0)
		return;
	c->k->cpu_add(c->job, c->acc[i], c->scratch[i], c->d + lo * rec,
		      c->d2 ? c->d2 + lo * rec : NULL, cnt);
}

/* scan phase 1: each slice's total into acc[i] */
static void total_task(void *v, int i, int t)
{
	struct cpu *c = v;
	size_t rec = job_record_size(c->job), lo, cnt;

	reduce_kernels.acc_init(c->job, c->acc[i]);
	slice(c->n, i, t, &lo, &cnt);
	if (cnt)
		reduce_kernels.cpu_add(c->job, c->acc[i], c->scratch[i],
				       c->d + lo * rec, NULL, cnt);
}

/* cpu_scan names a failing element by the records its carry counts: this
 * stream's, not a --carry-in's before it, since a shard's overflow names
 * the element within the shard (docs/STATE.md). The counts are moved back
 * by `before` around the call, except a float sum's: it cannot fail, and
 * its count tells whether its prefix has terms (the sign of a zero). */
static void shift_counts(const struct cpu *c, struct red_col *s, bool back)
{
	if (c->job->op == OP_SUM && type_is_float(c->job->dtype.type))
		return;
	for (unsigned col = 0; col < c->job->columns; col++)
		s[col].count = back ? s[col].count + c->before
				    : s[col].count - c->before;
}

/* scan phase 3: each slice from its carry-in */
static void scan_task(void *v, int i, int t)
{
	struct cpu *c = v;
	size_t rec = job_record_size(c->job), lo, cnt;

	slice(c->n, i, t, &lo, &cnt);
	c->rc[i] = 0;
	if (cnt) {
		shift_counts(c, c->carry[i], false);
		c->rc[i] = cpu_scan(c->job, c->carry[i], c->scratch[i],
				    c->d + lo * rec, cnt, c->out + lo * c->out_rec,
				    &c->bad[i], &c->errs[i]);
		shift_counts(c, c->carry[i], true);
	}
	if (c->rc[i] < 0)
		c->bad[i] += lo;
}

/* cpu_scan's message already names the record (counted from the start of
 * the stream: scan_task). The records before the failing one are right and
 * are written first, as the GPU backend does: slices before slice i are
 * whole, and slice i is stored up to its failing record in every column. */
static int scan_error(struct cpu *c, int i, struct gs_err *err)
{
	struct gs_err werr;

	*err = c->errs[i];
	if (!err->where[0])
		snprintf(err->where, sizeof(err->where), "scan");
	if (c->bad[i] > 0)
		(void)c->env.sink->write(c->env.sink->ctx, c->out,
					 c->bad[i] * c->out_rec, &werr);
	return -1;
}

/* Scan n records at d into c->out and write them to the sink. */
static int scan_piece(struct cpu *c, struct gs_err *err)
{
	const struct gs_job *job = c->job;
	size_t cols = job->columns * sizeof(struct red_col);
	/* all threads or one: the pool always runs every thread */
	int t = active(c, c->n) < c->nthreads ? 1 : c->nthreads;

	if (t == 1) {
		memcpy(c->carry[0], c->state, cols);
		scan_task(c, 0, 1);
		if (c->rc[0] < 0)
			return scan_error(c, 0, err);
		memcpy(c->state, c->carry[0], cols);
	} else {
		pool_run(&c->pool, total_task, c);
		memcpy(c->carry[0], c->state, cols);
		for (int i = 1; i < t; i++) {
			memcpy(c->carry[i], c->carry[i - 1], cols);
			reduce_kernels.acc_merge(job, c->carry[i], c->acc[i - 1]);
		}
		/* the state after this piece: the last carry-in plus its slice */
		memcpy(c->state, c->carry[t - 1], cols);
		reduce_kernels.acc_merge(job, c->state, c->acc[t - 1]);
		pool_run(&c->pool, scan_task, c);
		for (int i = 0; i < t; i++)
			if (c->rc[i] < 0)
				return scan_error(c, i, err);
	}
	return c->env.sink->write(c->env.sink->ctx, c->out, c->n * c->out_rec, err);
}

static int scan_chunk(struct cpu *c, const struct chunk *ch, struct gs_err *err)
{
	size_t rec = job_record_size(c->job);
	const unsigned char *base = ch->data;

	for (size_t off = 0; off < ch->nrec; off += c->piece) {
		c->d = base + off * rec;
		c->n = ch->nrec - off < c->piece ? ch->nrec - off : c->piece;
		if (scan_piece(c, err) < 0)
			return -1;
	}
	return 0;
}

static void prod_chunk(struct cpu *c, const struct chunk *ch)
{
	size_t rec = job_record_size(c->job), lo, cnt;

	pool_run(&c->pool, total_task, c);
	for (int i = 0; i < c->nthreads; i++) {
		slice(c->n, i, c->nthreads, &lo, &cnt);
		iprod_merge_at(c->job, c->state, c->acc[i], c->d + lo * rec,
			       ch->first_rec + lo, cnt);
	}
}

static int cpu_submit(void *ctx, const struct chunk *ch, struct gs_err *err)
{
	struct cpu *c = ctx;
	int rc = 0;

	c->d = ch->data;
	c->d2 = ch->data2;
	c->n = ch->nrec;
	if (c->job->dtype.big_endian && type_size(c->job->dtype.type) > 1)
		pool_run(&c->pool, swap_task, c);
	if (c->scan)
		rc = scan_chunk(c, ch, err);
	else if (c->locate)
		prod_chunk(c, ch);
	else
		pool_run(&c->pool, add_task, c);
	c->env.release(c->env.engine, ch->id);
	/* a kernel that can fail (a group-by's table past its memory) */
	for (int i = 0; rc == 0 && c->t_error && i < c->nthreads; i++)
		rc = c->t_error(c->job, c->acc[i], err);
	return rc;
}

/* submit() scans a chunk to the end (its output written), so the state is
 * that of every chunk submitted. */
static const struct red_col *cpu_scan_state(void *ctx)
{
	struct cpu *c = ctx;

	return c->state;
}

/* A scan's carry-in (scan --carry-in): before the first chunk. */
static int cpu_scan_seed(void *ctx, const struct red_col *state,
			 struct gs_err *err)
{
	struct cpu *c = ctx;

	memcpy(c->state, state, c->job->columns * sizeof(struct red_col));
	c->before = state[0].count;
	return 0;
}

/* finish: thread i merges part i of every thread's accumulator into
 * c->final (merge_part), so T tables of many bins are read by T threads
 * at once instead of by one. */
static void merge_task(void *v, int i, int t)
{
	struct cpu *c = v;

	for (int j = 0; j < c->nthreads; j++)
		c->k->merge_part(c->job, c->final, c->acc[j], i, t);
}

static int cpu_finish(void *ctx, void *acc, struct gs_err *err)
{
	struct cpu *c = ctx;

	if (c->scan)
		return 0;
	if (c->locate) {
		c->k->acc_merge(c->job, acc, c->state);
		return 0;
	}
	if (c->k->merge_part) {
		c->final = acc;
		pool_run(&c->pool, merge_task, c);
	} else {
		for (int i = 0; i < c->nthreads; i++)
			c->k->acc_merge(c->job, acc, c->acc[i]);
	}
	return c->k->acc_error ? c->k->acc_error(c->job, acc, err) : 0;
}

static void cpu_close(void *ctx)
{
	struct cpu *c = ctx;

	if (!c)
		return;
	pool_release(&c->pool);
	for (int i = 0; i < c->nthreads; i++) {
		if (c->acc_made && c->t_free)
			c->t_free(c->job, c->acc[i]);
		if (c->acc)
			free(c->acc[i]);
		if (c->scratch)
			free(c->scratch[i]);
		if (c->carry)
			free(c->carry[i]);
	}
	free(c->acc);
	free(c->scratch);
	free(c->carry);
	free(c->state);
	free(c->out);
	free(c);
}

/* Each thread makes its own accumulator: the pages of tables of many
 * bins (hist2d's 4096 x 4096: 32 MiB a thread) are faulted in and zeroed
 * by T threads at once, and first touched by the thread that fills them.
 * On 2 cores (5e7 points, 64-bit tables) one thread zeroed both 128 MiB
 * tables in 0.19-0.42 s before the first chunk. */
static void init_task(void *v, int i, int t)
{
	struct cpu *c = v;

	(void)t;
	c->t_init(c->job, c->acc[i]);
}

static int setup_scan(struct cpu *c)
{
	const struct gs_job *job = c->job;
	size_t cols = job->columns * sizeof(struct red_col);

	c->out_rec = type_size(job->out_type) * job->columns;
	c->piece = SCAN_OUT_BYTES / c->out_rec;
	if (c->piece == 0)
		c->piece = 1;
	if (c->piece > c->env.chunk_records)
		c->piece = c->env.chunk_records;
	c->out = malloc(c->piece * c->out_rec);
	c->state = malloc(cols);
	c->carry = calloc((size_t)c->nthreads, sizeof(*c->carry));
	if (!c->out || !c->state || !c->carry)
		return -1;
	reduce_kernels.acc_init(job, c->state);
	for (int i = 0; i < c->nthreads; i++)
		if (!(c->carry[i] = malloc(cols)))
			return -1;
	return 0;
}

/* c made for env; -1 with err where something could not be, c then
 * holding what was (cpu_close frees it). */
static int cpu_make(struct cpu *c, const struct backend_env *env,
		    struct gs_err *err)
{
	c->env = *env;
	c->job = env->job;
	c->k = acc_kernels_for(c->job);
	c->nthreads = env->threads < 1 ? 1 : env->threads > MAX_THREADS ? MAX_THREADS : env->threads;
	size_t slices = (env->chunk_records + MIN_SLICE_RECORDS - 1) / MIN_SLICE_RECORDS;

	if (slices < (size_t)c->nthreads)
		c->nthreads = (int)slices;
	c->scan = operation_of(c->job)->stream;
	/* reduce --op prod of integers: where it overflows */
	c->locate = !c->scan && c->job->op == OP_PROD && !c->job->rec &&
		    !type_is_float(c->job->dtype.type);
	if (pool_init(&c->pool, c->nthreads) < 0)
		return gs_fail(err, GS_ERUNTIME, "", "cannot start %d threads",
			       c->nthreads);

	size_t ssz = c->k->scratch_size(c->job);

	if (c->scan && cpu_scan_scratch_size(c->job) > ssz)
		ssz = cpu_scan_scratch_size(c->job);
	/* a thread's accumulator: the kernels' own kind, or an acc */
	bool own = c->k->thread_size != NULL;

	c->acc_sz = own ? c->k->thread_size(c->job) : c->k->acc_size(c->job);
	c->t_init = own ? c->k->thread_init : c->k->acc_init;
	c->t_free = own ? c->k->thread_free : c->k->acc_free;
	c->t_error = own ? c->k->thread_error : c->k->acc_error;
	c->acc = calloc((size_t)c->nthreads, sizeof(void *));
	c->scratch = calloc((size_t)c->nthreads, sizeof(void *));
	if (!c->acc || !c->scratch)
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	for (int i = 0; i < c->nthreads; i++) {
		c->acc[i] = calloc(1, c->acc_sz);
		c->scratch[i] = ssz ? malloc(ssz) : NULL;
		if (!c->acc[i] || (ssz && !c->scratch[i]))
			return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	}
	pool_run(&c->pool, init_task, c);
	c->acc_made = true;
	if (c->scan && setup_scan(c) < 0)
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	if (c->locate) {
		c->state = malloc(c->acc_sz);
		if (!c->state)
			return gs_fail(err, GS_ERUNTIME, "", "out of memory");
		c->k->acc_init(c->job, c->state);
	}
	return 0;
}

/* A failed open frees what it made and leaves *ctxp NULL: no half-made
 * backend for close (or anything else) to find. */
static int cpu_open(void **ctxp, const struct backend_env *env,
		    struct gs_err *err)
{
	struct cpu *c = calloc(1, sizeof(*c));

	*ctxp = NULL;
	if (!c)
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	if (cpu_make(c, env, err) < 0) {
		cpu_close(c);
		return -1;
	}
	*ctxp = c;
	return 0;
}

const struct backend backend_cpu = {
	.name = "cpu",
	.host_alloc = host_pages_alloc,
	.host_free = host_pages_free,
	.open = cpu_open,
	.submit = cpu_submit,
	.finish = cpu_finish,
	.close = cpu_close,
	.scan_state = cpu_scan_state,
	.scan_seed = cpu_scan_seed,
};
