/*
 * backend_cuda_scan.cu - the CUDA backend's scans (scan.h): the carry, a
 * ring of pinned output buffers and the writer thread; and the lanes of a
 * scan spread over several GPUs (--devices: gpustat_cuda.h, driven by
 * backend_multi.c).
 *
 * On one GPU the carry is chained from chunk to chunk on the device: each
 * chunk's scan waits (an event, not the host) for the previous chunk's, so
 * copies still overlap kernels. It starts as the empty prefix, or as a CPU
 * state (cuda_scan_seed, before the first chunk: --backend auto's hand-over,
 * a --carry-in). The output comes back into a ring of pinned buffers, and a
 * writer thread waits for each chunk's copy-back event and writes them to
 * the sink in order while later chunks compute; it checks each chunk's
 * overflow status first, and writes only the records before a failing one.
 * A float sum's zero outputs whose prefix holds -0 terms only are made -0
 * there (the kernels see no sign of zero): the chunk's runs of -0 are
 * noted as it is loaded, and its slot keeps them with the prefix's state.
 *
 * A lane scans every N-th chunk of the stream, so the carry of its chunk is
 * not on its device. It is the exact reduction of every earlier record: the
 * lane reduces each chunk as soon as it is copied in (the reduce kernels,
 * into the struct red_col the CPU's scan state is made of), the host merges
 * the chunks' totals in stream order (backend_multi.c), and each chunk's
 * scan starts from its carry, copied in just before (gpu_scan_seed_async,
 * the hand-over's exact conversion). Consecutive chunks are then scanned at
 * once on different GPUs; only the reductions, many times faster than a
 * scan, and the host's merges lie between them. The lanes' writers take
 * turns (struct scan_order): chunk k is written after chunk k - 1, and the
 * first failure in stream order stops every lane with its own message.
 */
#include <new>
#include <system_error>
#include <stdio.h>
#include <string.h>
#include "backend_cuda.cuh"

/* Pinned scan output buffers: chunks in flight between the kernels and the
 * writer. Two when each is large (a u8 -> u64 scan writes 8x its input). */
#define SCAN_SLOTS 3
#define SCAN_SLOT_BIG ((size_t)256 << 20)

/* The lanes' turns at the sink: chunk `next` (counted over the stream) is
 * written next; once stopped, nothing more is. */
struct scan_order {
	std::mutex lock;
	std::condition_variable cv;
	uint64_t next;
	bool stop;
	struct gs_err err;		/* why it stopped */
};

/* What a float sum's prefix holds, per column: no terms, -0 terms only,
 * or others (its zeros are +0). */
enum { ZS_NONE, ZS_NEG0, ZS_OTHER };

struct scan_slot {
	void *host, *status;		/* pinned: output records, scan status */
	unsigned char *zpre;		/* [columns]: the prefix before it */
	size_t *zrun;			/* [columns]: its runs of -0 */
	void *carry;			/* pinned, lanes: the chunk's carry */
	size_t nrec;
	uint64_t first_rec;
	uint64_t seq;			/* lanes: the chunk's turn */
	cudaEvent_t done;		/* after the copy back */
};

/* A lane's chunk on stream k, from its copy to its scan and the merge of
 * its total. */
struct lane_chunk {
	uint64_t seq;
	size_t nrec;
	uint64_t first_rec;
	struct loaded at;
	bool unscanned, unmerged;
};

struct scan_lane {
	struct gs_job rjob;		/* the scan's job as a reduction */
	size_t tot_bytes;		/* its device accumulator */
	void *dtot[MAX_STREAMS], *htot[MAX_STREAMS];	/* device, pinned */
	cudaEvent_t reduced[MAX_STREAMS];	/* after htot's copy */
	struct lane_chunk ch[MAX_STREAMS];
	size_t *zrun;			/* [stream][column]: chunk's runs */
};

struct scan_out {
	struct gpu_scan *g;
	void *dout[MAX_STREAMS];
	cudaEvent_t scanned;		/* after the last chunk's scan */
	struct scan_slot slot[SCAN_SLOTS];
	int nslots;
	size_t out_rec;
	unsigned long long queued, written;	/* chunks */

	std::mutex lock;
	std::condition_variable cv;
	std::thread writer;
	bool quit, failed;
	struct gs_err err;
	const struct gs_job *job;
	struct sink *sink;
	struct scan_order *order;	/* lanes only */
	struct scan_lane *lane;
	unsigned char *zsign;		/* [columns]: float sums, the prefix */
};

/* ---- the lanes' turns ---------------------------------------------------- */

/* Wait for chunk seq's turn: true, or false with err when the run stopped
 * first (an earlier chunk failed). */
static bool order_wait(struct scan_order *o, uint64_t seq, struct gs_err *err)
{
	std::unique_lock<std::mutex> lk(o->lock);

	o->cv.wait(lk, [&] { return o->stop || o->next == seq; });
	if (o->stop)
		*err = o->err;
	return !o->stop;
}

/* The chunk whose turn it was is written (err NULL), or failed with err:
 * then no later chunk is written. */
static void order_pass(struct scan_order *o, const struct gs_err *err)
{
	std::lock_guard<std::mutex> g(o->lock);

	if (err && !o->stop) {
		o->stop = true;
		o->err = *err;
	} else if (!err) {
		o->next++;
	}
	o->cv.notify_all();
}

/* ---- scan output: a ring of pinned buffers and the writer thread --------- */

/* The first n outputs of a slot's chunk with their signs of zero. */
static void zero_signs(struct scan_out *so, struct scan_slot *sl, size_t n)
{
	const struct gs_job *job = so->job;
	size_t osz = type_size(job->out_type);

	for (unsigned col = 0; col < job->columns; col++)
		if (sl->zpre[col] != ZS_OTHER)
			xsum_scan_negzero((char *)sl->host + col * osz, n,
					  so->out_rec, type_xfmt(job->out_type),
					  job->exclusive,
					  sl->zpre[col] == ZS_NEG0,
					  sl->zrun[col]);
}

/* Wait for a slot's chunk, check its status, and write the records that
 * are right (a lane's in its turn). 0, or -1 with err filled. */
static int scan_write(struct scan_out *so, struct scan_slot *sl,
		      struct gs_err *err)
{
	struct gs_err we;
	size_t bad = 0;		/* records to write */
	cudaError_t ce = cudaEventSynchronize(sl->done);
	int rc = ce != cudaSuccess
		 ? cuda_fail(err, ce, "cudaEventSynchronize(copy back)",
			     __FILE__, __LINE__)
		 : gpu_scan_status_check(so->job, sl->status, sl->first_rec,
					 &bad, err);

	if (rc == 0)
		bad = sl->nrec;
	if (so->order && !order_wait(so->order, sl->seq, err))
		return -1;
	if (so->zsign && bad > 0)
		zero_signs(so, sl, bad);
	/* the records before a failing one are right: keep them */
	if (bad > 0 && so->sink->write(so->sink->ctx, sl->host,
				       bad * so->out_rec, &we) < 0 && rc == 0) {
		*err = we;
		rc = -1;
	}
	if (so->order)
		order_pass(so->order, rc < 0 ? err : NULL);
	return rc;
}

/* Write chunk outputs in order; stop at the first overflow or write error. */
static void scan_writer(struct scan_out *so, int device)
{
	cudaSetDevice(device);		/* the current device is per thread */
	std::unique_lock<std::mutex> lk(so->lock);

	for (;;) {
		struct scan_slot *sl = &so->slot[so->written % so->nslots];
		struct gs_err e;

		so->cv.wait(lk, [&] { return so->quit || so->failed ||
				      so->written < so->queued; });
		if (so->failed || so->written == so->queued)
			return;
		lk.unlock();
		int rc = scan_write(so, sl, &e);
		lk.lock();
		if (rc < 0) {
			so->err = e;
			so->failed = true;
			so->cv.notify_all();
			return;
		}
		so->written++;
		so->cv.notify_all();
	}
}

static void lane_free(struct scan_lane *ln)
{
	if (!ln)
		return;
	free(ln->zrun);
	for (int k = 0; k < MAX_STREAMS; k++) {
		cudaFree(ln->dtot[k]);
		cudaFreeHost(ln->htot[k]);
		if (ln->reduced[k])
			cudaEventDestroy(ln->reduced[k]);
	}
	delete ln;
}

void scan_close(struct scan_out *so)
{
	if (!so)
		return;
	if (so->writer.joinable()) {
		{
			std::lock_guard<std::mutex> g(so->lock);
			so->quit = true;
			so->cv.notify_all();
		}
		so->writer.join();
	}
	for (int i = 0; i < SCAN_SLOTS; i++) {
		cudaFreeHost(so->slot[i].host);
		cudaFreeHost(so->slot[i].status);
		cudaFreeHost(so->slot[i].carry);
		free(so->slot[i].zpre);
		free(so->slot[i].zrun);
	}
	free(so->zsign);
	for (int k = 0; k < MAX_STREAMS; k++)
		cudaFree(so->dout[k]);
	if (so->scanned)
		cudaEventDestroy(so->scanned);
	lane_free(so->lane);
	gpu_scan_close(so->g);
	delete so;
}

int scan_open(struct cuda_ctx *c, struct gs_err *err)
{
	const struct gs_job *job = c->job;
	size_t nrec = c->env.chunk_records;
	struct scan_out *so = new (std::nothrow) scan_out();

	if (!so)
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	c->scan = so;
	so->job = job;
	so->sink = c->env.sink;
	so->out_rec = job->columns * type_size(job->out_type);
	size_t cap = nrec * so->out_rec;

	so->nslots = cap > SCAN_SLOT_BIG ? 2 : SCAN_SLOTS;
	CUDA_TRY(err, gpu_scan_open(job, nrec, c->nsm, &so->g));
	CUDA_TRY(err, cudaEventCreateWithFlags(&so->scanned, cudaEventDisableTiming));
	for (int k = 0; k < c->nstreams; k++)
		if (cudaMalloc(&so->dout[k], cap) != cudaSuccess) {
			cudaGetLastError();
			return gs_fail(err, GS_ERUNTIME, "cuda", "out of GPU memory "
				       "for %d scan outputs of %zu bytes (try a "
				       "smaller --chunk-size)", c->nstreams, cap);
		}
	for (int i = 0; i < so->nslots; i++) {
		CUDA_TRY(err, cudaHostAlloc(&so->slot[i].host, cap, cudaHostAllocDefault));
		CUDA_TRY(err, cudaHostAlloc(&so->slot[i].status,
					    gpu_scan_status_bytes(), cudaHostAllocDefault));
	}
	for (int i = 0; c->zrun && i < so->nslots; i++) {
		so->slot[i].zpre = (unsigned char *)malloc(job->columns);
		so->slot[i].zrun = (size_t *)malloc(job->columns * sizeof(size_t));
		if (!so->slot[i].zpre || !so->slot[i].zrun)
			return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	}
	if (c->zrun && !(so->zsign = (unsigned char *)calloc(job->columns, 1)))
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	try {
		so->writer = std::thread(scan_writer, so, c->env.device);
	} catch (const std::system_error &) {
		return gs_fail(err, GS_ERUNTIME, "cuda", "cannot start a thread");
	}
	return 0;
}

/* A writer failure, as this thread's error. */
static int scan_failed(struct scan_out *so, struct gs_err *err)
{
	*err = so->err;
	if (!err->where[0])
		snprintf(err->where, sizeof(err->where), "scan");
	return -1;
}

/* What the prefix of a state holds (a carry: a struct red_col per
 * column), per column. */
static void zero_state(struct scan_out *so, const struct red_col *st)
{
	for (unsigned col = 0; col < so->job->columns; col++)
		so->zsign[col] = st[col].count == 0 ? ZS_NONE
			       : st[col].u.sum.negzero ? ZS_NEG0 : ZS_OTHER;
}

/* Queue a chunk's scan on stream at.k after its input copy: wait for a
 * free output buffer, chain to the previous chunk's scan (and on a lane,
 * set the chunk's carry), copy back, hand on to the writer. */
int scan_chunk(struct cuda_ctx *c, size_t nrec, uint64_t first_rec,
	       struct loaded at, const struct red_col *carry, uint64_t seq,
	       const size_t *zrun, struct gs_err *err)
{
	struct scan_out *so = c->scan;
	cudaStream_t s = c->s[at.k];
	struct scan_slot *sl;

	{
		std::unique_lock<std::mutex> lk(so->lock);

		so->cv.wait(lk, [&] { return so->failed ||
				      so->queued - so->written < (unsigned)so->nslots; });
		if (so->failed)
			return scan_failed(so, err);
		sl = &so->slot[so->queued % so->nslots];
	}
	sl->nrec = nrec;
	sl->first_rec = first_rec;
	sl->seq = seq;
	if (so->zsign && carry)
		zero_state(so, carry);
	for (unsigned col = 0; so->zsign && col < c->job->columns; col++) {
		sl->zpre[col] = so->zsign[col];
		sl->zrun[col] = zrun[col];
		if (so->zsign[col] != ZS_OTHER)
			so->zsign[col] = zrun[col] == nrec ? ZS_NEG0 : ZS_OTHER;
	}
	CUDA_TRY(err, cudaStreamWaitEvent(s, so->scanned, 0));
	if (carry)	/* the slot is free: so is its staging buffer */
		CUDA_TRY(err, gpu_scan_seed_async(so->g, carry, sl->carry, s));
	CUDA_TRY(err, gpu_scan_launch(so->g, c->din[at.k], so->dout[at.k], nrec, s));
	CUDA_TRY(err, gpu_scan_status_copy(so->g, sl->status, s));
	CUDA_TRY(err, cudaEventRecord(so->scanned, s));
	CUDA_TRY(err, cudaEventRecord(c->ev[at.ti][2], s));
	CUDA_TRY(err, cudaMemcpyAsync(sl->host, so->dout[at.k], nrec * so->out_rec,
				      cudaMemcpyDeviceToHost, s));
	CUDA_TRY(err, cudaEventRecord(c->ev[at.ti][3], s));
	sl->done = c->ev[at.ti][3];
	std::lock_guard<std::mutex> g(so->lock);
	so->queued++;
	so->cv.notify_all();	/* the writer waits for it */
	return 0;
}

/* Wait until the writer has written every queued chunk. */
int scan_finish(struct scan_out *so, struct gs_err *err)
{
	std::unique_lock<std::mutex> lk(so->lock);

	so->cv.wait(lk, [&] { return so->failed || so->written == so->queued; });
	if (so->failed)
		return scan_failed(so, err);
	return 0;
}

/* The hand-over (backend_auto.c) or a --carry-in: the scan goes on from a
 * CPU state. Only before the first chunk, when no kernel reads the carry. */
int cuda_scan_seed(void *v, const struct red_col *state, struct gs_err *err)
{
	struct cuda_ctx *c = (struct cuda_ctx *)v;

	if (!c->scan || c->nchunks)
		return gs_fail(err, GS_ERUNTIME, "cuda", "a scan's carry can "
			       "only be set before its first chunk");
	CUDA_TRY(err, cudaSetDevice(c->env.device));
	CUDA_TRY(err, gpu_scan_seed(c->scan->g, state));
	if (c->scan->zsign)
		zero_state(c->scan, state);
	return 0;
}

/* ---- lanes (--devices) --------------------------------------------------- */

extern "C" struct scan_order *cuda_scan_order_new(void)
{
	return new (std::nothrow) scan_order();
}

extern "C" void cuda_scan_order_stop(struct scan_order *o)
{
	if (!o)
		return;
	std::lock_guard<std::mutex> g(o->lock);

	if (!o->stop)
		gs_fail(&o->err, GS_ERUNTIME, "scan", "stopped");
	o->stop = true;
	o->cv.notify_all();
}

extern "C" void cuda_scan_order_free(struct scan_order *o)
{
	delete o;
}

extern "C" int cuda_lane_open(void *gpu, struct scan_order *o, struct gs_err *err)
{
	struct cuda_ctx *c = (struct cuda_ctx *)gpu;
	struct scan_out *so = c->scan;
	struct scan_lane *ln;

	if (!so || so->lane || c->nchunks)
		return gs_fail(err, GS_ERUNTIME, "cuda", "a scan lane is made "
			       "from a scan before its first chunk");
	ln = so->lane = new (std::nothrow) scan_lane();
	if (!ln)
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	so->order = o;
	CUDA_TRY(err, cudaSetDevice(c->env.device));
	ln->rjob = *c->job;
	ln->rjob.cmd = CMD_REDUCE;
	ln->tot_bytes = gpu_reduce_ops.dev_acc_bytes(&ln->rjob);
	for (int k = 0; k < c->nstreams; k++) {
		CUDA_TRY(err, cudaMalloc(&ln->dtot[k], ln->tot_bytes));
		CUDA_TRY(err, cudaHostAlloc(&ln->htot[k], ln->tot_bytes,
					    cudaHostAllocDefault));
		/* the host sleeps on it rather than spin a core */
		CUDA_TRY(err, cudaEventCreateWithFlags(&ln->reduced[k],
				cudaEventDisableTiming | cudaEventBlockingSync));
	}
	if (c->zrun && !(ln->zrun = (size_t *)malloc(MAX_STREAMS *
			c->job->columns * sizeof(size_t))))
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	for (int i = 0; i < so->nslots; i++)
		CUDA_TRY(err, cudaHostAlloc(&so->slot[i].carry,
					    gpu_scan_carry_bytes(so->g),
					    cudaHostAllocDefault));
	return 0;
}

extern "C" int cuda_lane_load(void *gpu, const struct chunk *ch, uint64_t seq,
			      struct gs_err *err)
{
	struct cuda_ctx *c = (struct cuda_ctx *)gpu;
	struct scan_lane *ln = c->scan->lane;
	struct lane_chunk *lc = &ln->ch[c->next % c->nstreams];
	struct loaded at;

	/* backend_multi.c scans a chunk and merges its total before the next
	 * chunk of the lane's stream arrives */
	if (lc->unscanned || lc->unmerged)
		return gs_fail(err, GS_ERUNTIME, "cuda", "scan lane: chunk %llu "
			       "arrived before chunk %llu was done",
			       (unsigned long long)seq, (unsigned long long)lc->seq);
	if (cuda_load(c, ch, &at, err) < 0)
		return -1;
	cudaStream_t s = c->s[at.k];

	*lc = lane_chunk{ seq, ch->nrec, ch->first_rec, at, true, true };
	if (ln->zrun)
		memcpy(ln->zrun + at.k * c->job->columns, c->zrun,
		       c->job->columns * sizeof(size_t));
	CUDA_TRY(err, cudaMemsetAsync(ln->dtot[at.k], 0, ln->tot_bytes, s));
	CUDA_TRY(err, gpu_reduce_ops.launch(&ln->rjob, ln->dtot[at.k], c->din[at.k],
					    NULL, ch->nrec, c->nsm, s));
	CUDA_TRY(err, cudaMemcpyAsync(ln->htot[at.k], ln->dtot[at.k], ln->tot_bytes,
				      cudaMemcpyDeviceToHost, s));
	CUDA_TRY(err, cudaEventRecord(ln->reduced[at.k], s));
	return 0;
}

/* The lane's chunk seq, or NULL with err filled. */
static struct lane_chunk *lane_chunk_of(struct cuda_ctx *c, uint64_t seq,
					struct gs_err *err)
{
	struct scan_lane *ln = c->scan->lane;

	for (int k = 0; k < c->nstreams; k++)
		if ((ln->ch[k].unscanned || ln->ch[k].unmerged) && ln->ch[k].seq == seq)
			return &ln->ch[k];
	gs_fail(err, GS_ERUNTIME, "cuda", "scan lane: no chunk %llu",
		(unsigned long long)seq);
	return NULL;
}

extern "C" int cuda_lane_total(void *gpu, uint64_t seq, struct red_col *acc,
			       struct gs_err *err)
{
	struct cuda_ctx *c = (struct cuda_ctx *)gpu;
	struct scan_lane *ln = c->scan->lane;
	struct lane_chunk *lc = lane_chunk_of(c, seq, err);

	if (!lc)
		return -1;
	CUDA_TRY(err, cudaSetDevice(c->env.device));
	CUDA_TRY(err, cudaEventSynchronize(ln->reduced[lc->at.k]));
	gpu_reduce_ops.merge_host(&ln->rjob, acc, ln->htot[lc->at.k]);
	for (unsigned col = 0; ln->zrun && col < c->job->columns; col++)
		xsum_note_negzero(&acc[col].u.sum, acc[col].count - lc->nrec,
				  lc->nrec, ln->zrun[lc->at.k * c->job->columns
						     + col] == lc->nrec);
	lc->unmerged = false;
	return 0;
}

/* A lane chunk's runs of -0 (NULL without). */
static const size_t *ln_zrun(struct cuda_ctx *c, const struct lane_chunk *lc)
{
	size_t *z = c->scan->lane->zrun;

	return z ? z + lc->at.k * c->job->columns : NULL;
}

extern "C" int cuda_lane_scan(void *gpu, uint64_t seq, const struct red_col *carry,
			      struct gs_err *err)
{
	struct cuda_ctx *c = (struct cuda_ctx *)gpu;
	struct scan_order *o = c->scan->order;
	struct lane_chunk *lc = lane_chunk_of(c, seq, err);

	if (!lc)
		return -1;
	{
		/* another lane failed: stop with its message */
		std::lock_guard<std::mutex> g(o->lock);

		if (o->stop) {
			*err = o->err;
			return -1;
		}
	}
	CUDA_TRY(err, cudaSetDevice(c->env.device));
	lc->unscanned = false;
	return scan_chunk(c, lc->nrec, lc->first_rec, lc->at, carry, seq,
			  ln_zrun(c, lc), err);
}
