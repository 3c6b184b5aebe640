/*
 * multi_host_check.c - backend_multi.c's scans over several lanes, on the
 * host, no GPU needed. The lane API of cuda/gpustat_cuda.h is played by CPU
 * lanes with the contract of backend_cuda_scan.cu: a chunk's total is the
 * reduce kernels' (reduce_kernels), its scan is cpu_scan from the carry the
 * host gives, run later by the lane's writer thread after a random delay,
 * and written in its turn; a lane refuses a chunk on a stream whose last
 * chunk was not yet scanned and merged, and its stream buffer is reused only
 * once that scan ran (the stream order of the real lanes). Every run must
 * write what one cpu_scan of the whole stream writes, byte for byte, and
 * fail with its message: so the host's carry chain (each chunk scanned from
 * the totals of every chunk before it), the turns, empty chunks, a
 * carry-in, an overflow many chunks in and one pipeline are checked, on
 * 2 to 5 lanes of 1 to 3 streams.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "acc.h"
#include "backend.h"
#include "operation.h"
#include "gpustat_cuda.h"

#define NSTREAMS 16
#define SLOTS 3

static int pass, fail;

/* ---- what backend_multi.c calls, played on the CPU ---------------------- */

const struct operation *operation_of(const struct gs_job *job)
{
	static const struct operation scan = { .name = "scan", .stream = true };

	(void)job;
	return &scan;
}

int cuda_probe(int device, char *why, size_t n)
{
	(void)device, (void)why, (void)n;
	return 0;
}

int cuda_device_count(void)
{
	return 2;
}

void *cuda_pinned_alloc(size_t n)
{
	return malloc(n);
}

void cuda_pinned_free(void *p)
{
	free(p);
}

struct scan_order {
	pthread_mutex_t lock;
	pthread_cond_t cv;
	uint64_t next;
	bool stop;
	struct gs_err err;
};

struct scan_order *cuda_scan_order_new(void)
{
	struct scan_order *o = calloc(1, sizeof(*o));

	pthread_mutex_init(&o->lock, NULL);
	pthread_cond_init(&o->cv, NULL);
	return o;
}

void cuda_scan_order_stop(struct scan_order *o)
{
	if (!o)
		return;
	pthread_mutex_lock(&o->lock);
	if (!o->stop)
		gs_fail(&o->err, GS_ERUNTIME, "scan", "stopped");
	o->stop = true;
	pthread_cond_broadcast(&o->cv);
	pthread_mutex_unlock(&o->lock);
}

void cuda_scan_order_free(struct scan_order *o)
{
	free(o);
}

struct lane_chunk {
	uint64_t seq, first_rec;
	size_t nrec;
	bool unscanned, unmerged, busy;	/* busy: its buffer is being scanned */
	struct red_col *tot;
	void *buf;
};

struct job_q {
	uint64_t seq, first_rec;
	size_t nrec;
	int k;
	struct red_col *carry;
};

struct lane {
	struct backend_env env;
	const struct gs_job *job;
	int ns, next;
	size_t colb;
	struct lane_chunk ch[NSTREAMS];
	struct scan_order *order;
	struct red_col *state;		/* one pipeline: its own carry */
	pthread_mutex_t lock;
	pthread_cond_t cv;
	pthread_t th;
	bool started, quit, failed;
	struct job_q q[SLOTS];
	uint64_t queued, written;
	struct gs_err err;
	unsigned seed;
	void *out, *scratch, *rscratch;
};

/* A chunk's scan and write, in its turn: 0, or -1 with err. */
static int lane_write(struct lane *l, struct job_q *j, struct gs_err *err)
{
	struct lane_chunk *c = &l->ch[j->k];
	size_t out_rec = l->job->columns * type_size(l->job->out_type), bad = 0;
	struct scan_order *o = l->order;
	struct gs_err we;
	int rc;

	usleep(rand_r(&l->seed) % 400);
	rc = cpu_scan(l->job, j->carry, l->scratch, c->buf, j->nrec, l->out,
		      &bad, err);
	pthread_mutex_lock(&l->lock);
	c->busy = false;		/* the stream moves on */
	pthread_cond_broadcast(&l->cv);
	pthread_mutex_unlock(&l->lock);
	if (rc == 0)
		bad = j->nrec;
	pthread_mutex_lock(&o->lock);
	while (!o->stop && o->next != j->seq)
		pthread_cond_wait(&o->cv, &o->lock);
	if (o->stop) {
		*err = o->err;
		pthread_mutex_unlock(&o->lock);
		return -1;
	}
	pthread_mutex_unlock(&o->lock);
	if (bad && l->env.sink->write(l->env.sink->ctx, l->out, bad * out_rec,
				      &we) < 0 && rc == 0) {
		*err = we;
		rc = -1;
	}
	pthread_mutex_lock(&o->lock);
	if (rc < 0 && !o->stop) {
		o->stop = true;
		o->err = *err;
	} else if (rc == 0) {
		o->next++;
	}
	pthread_cond_broadcast(&o->cv);
	pthread_mutex_unlock(&o->lock);
	return rc;
}

static void *lane_writer(void *v)
{
	struct lane *l = v;

	pthread_mutex_lock(&l->lock);
	for (;;) {
		while (!l->quit && !l->failed && l->written == l->queued)
			pthread_cond_wait(&l->cv, &l->lock);
		if (l->failed || l->written == l->queued)
			break;
		struct job_q *j = &l->q[l->written % SLOTS];
		struct gs_err e;

		pthread_mutex_unlock(&l->lock);
		int rc = lane_write(l, j, &e);
		pthread_mutex_lock(&l->lock);
		if (rc < 0) {
			l->err = e;
			l->failed = true;
		} else {
			l->written++;
		}
		pthread_cond_broadcast(&l->cv);
	}
	pthread_mutex_unlock(&l->lock);
	return NULL;
}

static int fake_open(void **ctx, const struct backend_env *env, struct gs_err *err)
{
	struct lane *l = calloc(1, sizeof(*l));
	size_t cap = env->chunk_records * job_record_size(env->job);

	*ctx = l;
	l->env = *env;
	l->job = env->job;
	l->ns = env->streams;
	l->colb = reduce_kernels.acc_size(env->job);
	l->seed = (unsigned)(uintptr_t)l;
	l->out = malloc(env->chunk_records * env->job->columns * 8);
	l->scratch = malloc(cpu_scan_scratch_size(env->job));
	l->rscratch = malloc(reduce_kernels.scratch_size(env->job) + 1);
	l->state = malloc(l->colb);
	reduce_kernels.acc_init(env->job, l->state);
	for (int k = 0; k < l->ns; k++) {
		l->ch[k].buf = malloc(cap ? cap : 1);
		l->ch[k].tot = malloc(l->colb);
	}
	for (int i = 0; i < SLOTS; i++)
		l->q[i].carry = malloc(l->colb);
	pthread_mutex_init(&l->lock, NULL);
	pthread_cond_init(&l->cv, NULL);
	if (pthread_create(&l->th, NULL, lane_writer, l) != 0)
		return gs_fail(err, GS_ERUNTIME, "", "cannot start a thread");
	l->started = true;
	return 0;
}

/* One pipeline (not a lane): scan at once from its own carry. */
static int fake_submit(void *v, const struct chunk *ch, struct gs_err *err)
{
	struct lane *l = v;
	size_t bad = 0, out_rec = l->job->columns * type_size(l->job->out_type);
	int rc = cpu_scan(l->job, l->state, l->scratch, ch->data, ch->nrec,
			  l->out, &bad, err);
	struct gs_err we;

	l->env.release(l->env.engine, ch->id);
	if (rc == 0)
		bad = ch->nrec;
	if (bad && l->env.sink->write(l->env.sink->ctx, l->out, bad * out_rec, &we) < 0) {
		*err = we;
		return -1;
	}
	return rc;
}

static int fake_finish(void *v, void *acc, struct gs_err *err)
{
	struct lane *l = v;

	(void)acc;
	pthread_mutex_lock(&l->lock);
	while (!l->failed && l->written < l->queued)
		pthread_cond_wait(&l->cv, &l->lock);
	pthread_mutex_unlock(&l->lock);
	if (l->failed)
		*err = l->err;
	return l->failed ? -1 : 0;
}

static void fake_close(void *v)
{
	struct lane *l = v;

	if (!l)
		return;
	if (l->started) {
		pthread_mutex_lock(&l->lock);
		l->quit = true;
		pthread_cond_broadcast(&l->cv);
		pthread_mutex_unlock(&l->lock);
		pthread_join(l->th, NULL);
	}
	for (int k = 0; k < l->ns; k++) {
		free(l->ch[k].buf);
		free(l->ch[k].tot);
	}
	for (int i = 0; i < SLOTS; i++)
		free(l->q[i].carry);
	free(l->out);
	free(l->scratch);
	free(l->rscratch);
	free(l->state);
	free(l);
}

static void fake_times(void *v, struct stage_times *t)
{
	(void)v;
	*t = (struct stage_times){ 0 };
}

static int fake_seed(void *v, const struct red_col *state, struct gs_err *err)
{
	struct lane *l = v;

	(void)err;
	memcpy(l->state, state, l->colb);
	return 0;
}

const struct backend backend_cuda = {
	.name = "fake cuda",
	.open = fake_open,
	.submit = fake_submit,
	.finish = fake_finish,
	.close = fake_close,
	.times = fake_times,
	.scan_seed = fake_seed,
};

int cuda_lane_open(void *gpu, struct scan_order *o, struct gs_err *err)
{
	(void)err;
	((struct lane *)gpu)->order = o;
	return 0;
}

int cuda_lane_load(void *gpu, const struct chunk *ch, uint64_t seq,
		   struct gs_err *err)
{
	struct lane *l = gpu;
	int k = l->next++ % l->ns;
	struct lane_chunk *c = &l->ch[k];

	if (c->unscanned || c->unmerged)
		return gs_fail(err, GS_ERUNTIME, "cuda", "scan lane: chunk %llu "
			       "arrived before chunk %llu was done",
			       (unsigned long long)seq, (unsigned long long)c->seq);
	pthread_mutex_lock(&l->lock);	/* stream order: after its last scan */
	while (c->busy && !l->failed)
		pthread_cond_wait(&l->cv, &l->lock);
	pthread_mutex_unlock(&l->lock);
	if (l->failed) {	/* a real lane's next CUDA call would fail */
		*err = l->err;
		return -1;
	}
	memcpy(c->buf, ch->data, ch->nrec * job_record_size(l->job));
	l->env.release(l->env.engine, ch->id);
	c->seq = seq;
	c->nrec = ch->nrec;
	c->first_rec = ch->first_rec;
	c->unscanned = c->unmerged = true;
	reduce_kernels.acc_init(l->job, c->tot);
	reduce_kernels.cpu_add(l->job, c->tot, l->rscratch, c->buf, NULL, c->nrec);
	return 0;
}

static struct lane_chunk *chunk_of(struct lane *l, uint64_t seq, int *k,
				   struct gs_err *err)
{
	for (*k = 0; *k < l->ns; ++*k)
		if ((l->ch[*k].unscanned || l->ch[*k].unmerged) && l->ch[*k].seq == seq)
			return &l->ch[*k];
	gs_fail(err, GS_ERUNTIME, "cuda", "scan lane: no chunk %llu",
		(unsigned long long)seq);
	return NULL;
}

int cuda_lane_total(void *gpu, uint64_t seq, struct red_col *acc,
		    struct gs_err *err)
{
	struct lane *l = gpu;
	int k;
	struct lane_chunk *c = chunk_of(l, seq, &k, err);

	if (!c)
		return -1;
	reduce_kernels.acc_merge(l->job, acc, c->tot);
	c->unmerged = false;
	return 0;
}

int cuda_lane_scan(void *gpu, uint64_t seq, const struct red_col *carry,
		   struct gs_err *err)
{
	struct lane *l = gpu;
	int k;
	struct lane_chunk *c = chunk_of(l, seq, &k, err);
	struct job_q *j;

	if (!c)
		return -1;
	pthread_mutex_lock(&l->lock);
	while (!l->failed && l->queued - l->written >= SLOTS)
		pthread_cond_wait(&l->cv, &l->lock);
	if (l->failed) {
		*err = l->err;
		pthread_mutex_unlock(&l->lock);
		return -1;
	}
	j = &l->q[l->queued % SLOTS];
	j->seq = seq;
	j->nrec = c->nrec;
	j->first_rec = c->first_rec;
	j->k = k;
	memcpy(j->carry, carry, l->colb);
	c->unscanned = false;
	c->busy = true;
	l->queued++;
	pthread_cond_broadcast(&l->cv);
	pthread_mutex_unlock(&l->lock);
	return 0;
}

/* ---- the runs ------------------------------------------------------------ */

struct outbuf {
	unsigned char *p;
	size_t n, cap;
	long fail_at;		/* the write that fails (from 1), or 0 */
	long writes;
};

static int out_write(void *ctx, const void *buf, size_t n, struct gs_err *err)
{
	struct outbuf *o = ctx;

	if (++o->writes == o->fail_at)
		return gs_fail(err, GS_ERUNTIME, "stdout", "write error");
	if (o->n + n > o->cap) {
		o->cap = 2 * (o->n + n);
		o->p = realloc(o->p, o->cap);
	}
	memcpy(o->p + o->n, buf, n);
	o->n += n;
	return 0;
}

static void release(void *engine, int id)
{
	(void)id;
	++*(long *)engine;
}

struct run {
	const struct gs_job *job;
	const unsigned char *data;
	size_t nrec;
	int ndev, streams;
	size_t chunk;			/* records per chunk at most */
	const struct red_col *seed;	/* or NULL */
	unsigned rnd;			/* chunk sizes (0 included) */
};

/* Run r through backend_multi: 0 or -1 with err; out gets the output. */
static int run_multi(const struct run *r, struct outbuf *out, long *released,
		     long *chunks, struct gs_err *err)
{
	int devices[GS_MAX_DEVICES] = { 0 };
	struct sink sink = { out_write, out };
	struct backend_env env = {
		.job = r->job, .chunk_records = r->chunk, .threads = 1,
		.devices = devices, .ndevices = r->ndev, .streams = r->streams,
		.sink = &sink, .release = release, .engine = released,
	};
	size_t rec = job_record_size(r->job);
	unsigned rnd = r->rnd;
	void *ctx = NULL;
	int rc = -1;

	if (backend_multi.open(&ctx, &env, err) < 0 ||
	    (r->seed && backend_multi.scan_seed(ctx, r->seed, err) < 0))
		goto out;
	for (size_t at = 0; at < r->nrec;) {
		size_t n = rand_r(&rnd) % (r->chunk + 1);
		struct chunk ch;

		n = n > r->nrec - at ? r->nrec - at : n;
		ch = (struct chunk){ .id = (int)(*chunks % 4),
				     .data = (void *)(r->data + at * rec),
				     .nrec = n, .first_rec = at };
		++*chunks;
		if (backend_multi.submit(ctx, &ch, err) < 0)
			goto out;
		at += n;
	}
	rc = backend_multi.finish(ctx, NULL, err);
out:
	backend_multi.close(ctx);
	return rc;
}

/* cpu_scan of the whole stream from seed: its output and result. */
static int run_ref(const struct run *r, struct outbuf *out, struct gs_err *err)
{
	size_t colb = reduce_kernels.acc_size(r->job), bad = 0;
	size_t out_rec = r->job->columns * type_size(r->job->out_type);
	struct red_col *st = malloc(colb);
	void *scratch = malloc(cpu_scan_scratch_size(r->job));
	int rc;

	out->cap = r->nrec * out_rec + 1;
	out->p = malloc(out->cap);
	if (r->seed)
		memcpy(st, r->seed, colb);
	else
		reduce_kernels.acc_init(r->job, st);
	rc = cpu_scan(r->job, st, scratch, r->data, r->nrec, out->p, &bad, err);
	out->n = (rc == 0 ? r->nrec : bad) * out_rec;
	free(st);
	free(scratch);
	return rc;
}

static void check(const char *name, const struct run *r, long fail_at)
{
	struct outbuf want = { 0 }, got = { .fail_at = fail_at };
	struct gs_err we = { 0 }, ge = { 0 };
	long released = 0, chunks = 0;
	int wrc = run_ref(r, &want, &we);
	int grc = run_multi(r, &got, &released, &chunks, &ge);
	bool ok;

	if (fail_at)	/* a prefix, and the sink's error (or an earlier one) */
		ok = grc < 0 && (strcmp(ge.what, "write error") == 0 ||
				 (wrc < 0 && strcmp(ge.what, we.what) == 0)) &&
		     got.n <= want.n && (got.n == 0 || memcmp(got.p, want.p, got.n) == 0);
	else
		ok = grc == wrc && got.n == want.n &&
		     (got.n == 0 || memcmp(got.p, want.p, got.n) == 0) &&
		     (wrc == 0 || strcmp(ge.what, we.what) == 0);
	/* every buffer handed back, whatever happened */
	ok = ok && (grc < 0 || released == chunks);
	if (ok) {
		pass++;
	} else {
		fail++;
		printf("FAIL %s, %d lanes of %d streams, chunks of %zu: rc %d "
		       "(cpu %d), %zu bytes (cpu %zu), %ld of %ld released: %s "
		       "(cpu: %s)\n", name, r->ndev, r->streams, r->chunk, grc,
		       wrc, got.n, want.n, released, chunks, ge.what, we.what);
	}
	free(want.p);
	free(got.p);
}

static struct gs_job mkjob(enum gs_type in, enum gs_type out, enum gs_op op,
			   bool excl, unsigned columns)
{
	struct gs_job job = { .cmd = CMD_SCAN, .op = op, .exclusive = excl,
			      .columns = columns, .out_type = out };

	job.dtype.type = in;
	return job;
}

/* Random elements of type t with magnitudes over many binades (floats),
 * a NaN somewhere when nan. */
static void fill(unsigned char *p, size_t n, enum gs_type t, unsigned seed,
		 bool nan)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t u = (uint64_t)rand_r(&seed) << 33 ^ (uint64_t)rand_r(&seed) << 10 ^
			     (uint64_t)rand_r(&seed);
		double d = ldexp((double)(int32_t)u, (int)(u >> 40) % 60 - 50);

		switch (t) {
		case GS_F32: { float f = (float)d; memcpy(p + 4 * i, &f, 4); break; }
		case GS_F64: memcpy(p + 8 * i, &d, 8); break;
		default: memcpy(p + type_size(t) * i, &u, type_size(t)); break;
		}
	}
	if (nan && t == GS_F32) {
		float f = NAN;

		memcpy(p + 4 * (n / 2), &f, 4);
	}
}

int main(void)
{
	static const struct { const char *name; enum gs_type in, out; enum gs_op op;
			      bool excl, nan; unsigned cols; } cases[] = {
		{ "sum f32", GS_F32, GS_F32, OP_SUM, false, false, 1 },
		{ "sum f64 --exclusive", GS_F64, GS_F64, OP_SUM, true, false, 1 },
		{ "sum f32 -c3 to f64, a NaN", GS_F32, GS_F64, OP_SUM, false, true, 3 },
		{ "min f32, a NaN", GS_F32, GS_F32, OP_MIN, false, true, 1 },
		{ "max i16 -c2", GS_I16, GS_I16, OP_MAX, false, false, 2 },
		{ "sum i32 to i64", GS_I32, GS_I64, OP_SUM, false, false, 1 },
		{ "sum u16 to i32, overflowing", GS_U16, GS_I32, OP_SUM, false, false, 1 },
		{ "sum i64 to i32, overflowing at once", GS_I64, GS_I32, OP_SUM, false, false, 1 },
	};
	size_t n = 150000;
	unsigned char *data = malloc(n * 8 * 3);

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct gs_job job = mkjob(cases[c].in, cases[c].out, cases[c].op,
					  cases[c].excl, cases[c].cols);
		size_t nrec = n / cases[c].cols;

		fill(data, n, cases[c].in, 7 + (unsigned)c, cases[c].nan);
		for (int ndev = 1; ndev <= 5; ndev++)
			for (int ns = 1; ns <= 3; ns++) {
				struct run r = { &job, data, nrec, ndev, ns,
						 ndev == 4 ? 64 : 777 * (size_t)ns,
						 NULL, (unsigned)(ndev * 10 + ns) };

				check(cases[c].name, &r, 0);
			}
		/* a carry-in: the state after the first third */
		size_t third = nrec / 3, colb = reduce_kernels.acc_size(&job), bad;
		struct red_col *seed = malloc(colb);
		void *scratch = malloc(cpu_scan_scratch_size(&job));
		void *out = malloc(third * cases[c].cols * 8);
		struct gs_err e;

		reduce_kernels.acc_init(&job, seed);
		if (cpu_scan(&job, seed, scratch, data, third, out, &bad, &e) == 0) {
			struct run r = { &job, data + third * job_record_size(&job),
					 nrec - third, 3, 2, 1000, seed, 5 };

			check(cases[c].name, &r, 0);
		}
		/* the sink fails at its 5th write */
		struct run r = { &job, data, nrec, 3, 2, 3000, NULL, 9 };

		check(cases[c].name, &r, 5);
		free(seed);
		free(scratch);
		free(out);
	}
	free(data);
	printf("multi_host_check: %d passed, %d failed\n", pass, fail);
	return fail != 0;
}
