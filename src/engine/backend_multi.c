/*
 * backend_multi.c - --devices: one CUDA pipeline per listed GPU (each with
 * its own streams, device buffers and release thread: backend_cuda opened
 * once per device), chunk k to pipeline k % N. A GPU listed twice runs two
 * independent pipelines on it. The engine's buffers are pinned for every
 * GPU (portable pinned memory), whichever pipeline copies them.
 *
 * Accumulating commands: every pipeline folds its chunks into its own
 * device accumulators, and finish() merges them all into the command's
 * accumulator: exact merges, so the bits are those of one GPU, or of the
 * CPU, whatever the split.
 *
 * Scans: the pipelines are lanes (gpustat_cuda.h). Chunk k's carry is the
 * exact reduction of every record before it, a struct red_col per column
 * as the CPU's scan state: carry(k) = carry(k-1) merged with chunk k-1's
 * total, which its lane reduced as soon as it was copied in. The host
 * keeps that chain, one chunk behind the copies: submitting chunk k merges
 * chunk k-2's total (reduced long since), loads chunk k, and queues chunk
 * k-1's scan from its carry; finish() queues the last. So consecutive
 * chunks are scanned at once on different GPUs, each from its own carry,
 * and the lanes write their output in turn, in stream order. Reductions
 * are exact and commutative, and the carry is converted exactly (as for
 * --backend auto's hand-over), so the output is one GPU's, and the CPU's,
 * bit for bit. Products are not spread (backend.c): a float product's
 * brackets depend on how it was grouped. One pipeline (--devices all on a
 * one-GPU host) scans as backend_cuda alone, with no reductions.
 */
#include <stdlib.h>
#include <string.h>
#include "acc.h"
#include "backend.h"
#include "operation.h"
#ifdef GS_HAVE_CUDA
#include "gpustat_cuda.h"

struct multi {
	int n;
	int devices[GS_MAX_DEVICES];
	void *gpu[GS_MAX_DEVICES];
	uint64_t next;
	struct backend_env env;

	/* scans on several lanes */
	struct scan_order *order;
	struct red_col *carry;		/* [columns]: before chunk `merged` */
	uint64_t loaded, merged;	/* chunks loaded; totals in carry */
};

/* Make the pipelines lanes and the carry the empty prefix. */
static int lanes_open(struct multi *m, struct gs_err *err)
{
	const struct gs_job *job = m->env.job;

	m->order = cuda_scan_order_new();
	m->carry = malloc(reduce_kernels.acc_size(job));
	if (!m->order || !m->carry)
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	reduce_kernels.acc_init(job, m->carry);
	for (int i = 0; i < m->n; i++)
		if (cuda_lane_open(m->gpu[i], m->order, err) < 0)
			return -1;
	return 0;
}

static int multi_open(void **ctxp, const struct backend_env *env,
		      struct gs_err *err)
{
	struct multi *m = calloc(1, sizeof(*m));

	*ctxp = m;
	if (!m)
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	m->env = *env;
	m->n = env->ndevices;
	if (m->n < 0)		/* all */
		m->n = cuda_device_count();
	if (m->n > GS_MAX_DEVICES)
		m->n = GS_MAX_DEVICES;
	for (int i = 0; i < m->n; i++) {
		struct backend_env e = *env;
		char why[300];

		m->devices[i] = env->ndevices < 0 ? i : env->devices[i];
		e.device = m->devices[i];
		if (cuda_probe(e.device, why, sizeof(why)) < 0)
			return gs_fail(err, GS_ERUNTIME, "cuda", "GPU %d: %s",
				       e.device, why);
		if (backend_cuda.open(&m->gpu[i], &e, err) < 0)
			return -1;
	}
	if (m->n < 1)
		return gs_fail(err, GS_ERUNTIME, "cuda", "no GPU");
	if (operation_of(env->job)->stream && m->n > 1)
		return lanes_open(m, err);
	return 0;
}

static bool lanes(const struct multi *m)
{
	return m->order != NULL;
}

/* The totals of every chunk before chunk k - 1 into the carry: then
 * chunk k - 1 can be scanned, and chunk k - 2's stream takes a new one. */
static int merge_upto(struct multi *m, uint64_t k, struct gs_err *err)
{
	for (; m->merged + 1 < k; m->merged++)
		if (cuda_lane_total(m->gpu[m->merged % (uint64_t)m->n],
				    m->merged, m->carry, err) < 0)
			return -1;
	return 0;
}

/* Queue chunk k's scan (its carry in m->carry). */
static int scan_queue(struct multi *m, uint64_t k, struct gs_err *err)
{
	return cuda_lane_scan(m->gpu[k % (uint64_t)m->n], k, m->carry, err);
}

static int lanes_submit(struct multi *m, const struct chunk *ch,
			struct gs_err *err)
{
	uint64_t k = m->loaded;

	if (ch->nrec == 0) {	/* nothing to scan: no turn at the sink */
		m->env.release(m->env.engine, ch->id);
		return 0;
	}
	if (merge_upto(m, k, err) < 0 ||
	    cuda_lane_load(m->gpu[k % (uint64_t)m->n], ch, k, err) < 0)
		return -1;
	m->loaded++;
	return k > 0 ? scan_queue(m, k - 1, err) : 0;
}

static int multi_submit(void *v, const struct chunk *ch, struct gs_err *err)
{
	struct multi *m = v;

	if (lanes(m))
		return lanes_submit(m, ch, err);
	return backend_cuda.submit(m->gpu[m->next++ % (uint64_t)m->n], ch, err);
}

static int multi_finish(void *v, void *acc, struct gs_err *err)
{
	struct multi *m = v;
	uint64_t k = m->loaded;

	if (lanes(m) && k > 0 &&
	    (merge_upto(m, k, err) < 0 || scan_queue(m, k - 1, err) < 0))
		return -1;
	for (int i = 0; i < m->n; i++)
		if (backend_cuda.finish(m->gpu[i], acc, err) < 0)
			return -1;
	return 0;
}

static void multi_close(void *v)
{
	struct multi *m = v;

	if (!m)
		return;
	/* after an error, writers waiting for a turn that will not come */
	cuda_scan_order_stop(m->order);
	for (int i = 0; i < m->n; i++)
		if (m->gpu[i])
			backend_cuda.close(m->gpu[i]);
	cuda_scan_order_free(m->order);
	free(m->carry);
	free(m);
}

/* The pipelines' busy times added up. */
static void multi_times(void *v, struct stage_times *t)
{
	struct multi *m = v;

	*t = (struct stage_times){ 0 };
	for (int i = 0; i < m->n; i++) {
		struct stage_times s;

		backend_cuda.times(m->gpu[i], &s);
		t->h2d += s.h2d;
		t->kernel += s.kernel;
		t->d2h += s.d2h;
		t->write += s.write;
	}
}

/* A --carry-in: the first chunk's carry. */
static int multi_scan_seed(void *v, const struct red_col *state,
			   struct gs_err *err)
{
	struct multi *m = v;

	if (!lanes(m))
		return backend_cuda.scan_seed(m->gpu[0], state, err);
	if (m->loaded)
		return gs_fail(err, GS_ERUNTIME, "cuda", "a scan's carry can "
			       "only be set before its first chunk");
	memcpy(m->carry, state, reduce_kernels.acc_size(m->env.job));
	return 0;
}

const struct backend backend_multi = {
	.name = "cuda (several GPUs)",
	.host_alloc = cuda_pinned_alloc,
	.host_free = cuda_pinned_free,
	.open = multi_open,
	.submit = multi_submit,
	.finish = multi_finish,
	.close = multi_close,
	.times = multi_times,
	.scan_seed = multi_scan_seed,
};
#endif
