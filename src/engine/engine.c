/*
 * engine.c - see engine.h.
 *
 * Two threads: the reader (reader_main) fills free buffers and queues them
 * as chunks; the caller's thread submits queued chunks to the backend, which
 * gives each buffer back through release() when it no longer needs it. One
 * mutex guards the free list and the queue; both are tiny (ENGINE_NBUF).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "acc.h"
#include "engine.h"
#include "sig.h"

struct engine {
	const struct gs_job *job;
	const struct backend *be;
	struct input *in, *in2;
	size_t rec;			/* bytes per record */
	size_t cap;			/* bytes per buffer: whole records */
	size_t chunk_records;		/* records per chunk: cap / rec */
	int stall_ms;
	_Atomic uint64_t *counter;
	void *buf[ENGINE_NBUF], *buf2[ENGINE_NBUF];
	/* Views: a CPU run takes a regular file's bytes mapped in place
	 * (input_view) instead of copied into buf[id]; view[id] is what chunk
	 * id holds. The reader unmaps it when it takes id again: unmapping
	 * 64 MiB of page tables takes about 1.5 ms, which the consumer's
	 * thread would otherwise spend between chunks (0.2 s per 8 GiB). */
	_Atomic bool views;		/* off, or back on, by set_views */
	bool views_ok;			/* whether views were on at first */
	const void *view[ENGINE_NBUF];
	size_t view_len[ENGINE_NBUF];
	uint64_t viewed;		/* chunks published in place */
	unsigned char *tail;		/* carried partial record */
	size_t ntail;
	uint64_t next_rec;
	uint64_t got1, got2;		/* dot A B: bytes read from each */

	pthread_mutex_t lock;
	pthread_cond_t cv;
	int free_ids[ENGINE_NBUF], nfree;
	struct chunk queue[ENGINE_NBUF];
	int qhead, qlen;
	bool reader_done;		/* no more chunks will be queued */
	bool stop;			/* the consumer gave up */
	int signo;			/* stopped by this signal (sig.h) */
	int rc;				/* reader's result */
	struct gs_err rerr;
	double t_read, t_read_wait;	/* the reader's stage times */

	bool no_teardown;		/* ENGINE_NO_TEARDOWN_ENV */

	struct sink *sink, timed;	/* scan output, timed on its way */
	double t_write;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int timed_write(void *v, const void *buf, size_t n, struct gs_err *err)
{
	struct engine *e = v;
	double t0 = now();
	int rc = e->sink->write(e->sink->ctx, buf, n, err);

	e->t_write += now() - t0;	/* only ever one writer at a time */
	return rc;
}

/* The backend's env->set_views: the reader sees it before its next
 * chunk; chunks already mapped stay so until released. */
static void set_views(void *v, bool on)
{
	struct engine *e = v;

	atomic_store(&e->views, on && e->views_ok);
}

static void release(void *v, int id)
{
	struct engine *e = v;

	pthread_mutex_lock(&e->lock);
	e->free_ids[e->nfree++] = id;
	pthread_cond_broadcast(&e->cv);
	pthread_mutex_unlock(&e->lock);
}

/* Wait for a free buffer; -1 when the consumer has stopped. The views of
 * the other free buffers are given back too: the free list is a stack, so
 * where the consumer keeps up (a decode-bound run) the reader takes the
 * same buffer again and again, and the views of those below it would stay
 * out (a zstd frame's buffer, kept from the ring for a whole run). */
static int take_free(struct engine *e)
{
	const void *stale[ENGINE_NBUF];
	size_t stale_len[ENGINE_NBUF];
	int id = -1, n = 0;
	double t0 = now();

	pthread_mutex_lock(&e->lock);
	while (!e->stop && e->nfree == 0)
		pthread_cond_wait(&e->cv, &e->lock);
	if (!e->stop)
		id = e->free_ids[--e->nfree];
	for (int k = 0; id >= 0 && k < e->nfree; k++) {
		int f = e->free_ids[k];

		if (e->view[f]) {	/* only the reader sets view[] */
			stale[n] = e->view[f];
			stale_len[n++] = e->view_len[f];
			e->view[f] = NULL;
		}
	}
	pthread_mutex_unlock(&e->lock);
	e->t_read_wait += now() - t0;
	while (n--)
		input_unview(stale[n], stale_len[n]);
	return id;
}

static void publish(struct engine *e, int id, size_t nrec)
{
	pthread_mutex_lock(&e->lock);
	struct chunk *c = &e->queue[(e->qhead + e->qlen) % ENGINE_NBUF];

	c->id = id;
	c->data = e->view[id] ? (void *)e->view[id] : e->buf[id];
	c->in_place = e->view[id] != NULL;
	c->data2 = e->in2 ? e->buf2[id] : NULL;
	c->nrec = nrec;
	c->first_rec = e->next_rec;
	e->next_rec += nrec;
	e->qlen++;
	pthread_cond_broadcast(&e->cv);
	pthread_mutex_unlock(&e->lock);
}

static int trailing_error(struct engine *e, size_t n)
{
	const struct gs_job *job = e->job;
	const char *t = type_name(job->dtype.type);

	const char *s = n == 1 ? " does" : "s do";

	/* an operand cut short was named already: its tail says nothing new */
	if (input_failed(e->in) || (e->in2 && input_failed(e->in2)))
		return gs_fail(&e->rerr, GS_ERUNTIME, "", "%s", "");
	if (job->columns == 1)
		return gs_fail(&e->rerr, GS_ERUNTIME, input_name(e->in),
			       "trailing %zu byte%s not make a whole element "
			       "(%s is %zu bytes)", n, s, t, e->rec);
	if (job->rec) {	/* the whole record, where -F picked columns */
		char r[200];

		return gs_fail(&e->rerr, GS_ERUNTIME, input_name(e->in),
			       "trailing %zu byte%s not make a whole record "
			       "(%s is %zu bytes)", n, s,
			       record_name(input_record(e->in) ?
					   input_record(e->in) : job->rec,
					   r, sizeof(r)), e->rec);
	}
	return gs_fail(&e->rerr, GS_ERUNTIME, input_name(e->in),
		       "trailing %zu byte%s not make a whole record "
		       "(%u x %s is %zu bytes)", n, s, job->columns, t, e->rec);
}

static void count(struct engine *e, ssize_t n)
{
	if (e->counter)
		atomic_fetch_add_explicit(e->counter, (uint64_t)n,
					  memory_order_relaxed);
}

/*
 * Fill buffer id from one stream. Returns the bytes in it (the carried tail
 * included), with *eof set at the end of the input; -1 on error. When stall
 * is allowed, a stalled pipe ends the fill early once a record is in hand.
 */
static ssize_t fill_one(struct engine *e, struct input *in, unsigned char *buf,
			size_t fill, bool allow_stall, bool *eof)
{
	*eof = false;
	while (fill < e->cap) {
		int stall = allow_stall && fill >= e->rec ? e->stall_ms : -1;
		double t0 = now();
		ssize_t r = input_read(in, buf + fill, e->cap - fill, stall,
				       &e->rerr);

		e->t_read += now() - t0;

		if (r == INPUT_STALL)
			break;
		if (r < 0)
			return -1;
		if (r == 0) {
			*eof = true;
			break;
		}
		fill += (size_t)r;
		count(e, r);
	}
	return (ssize_t)fill;
}

/* A chunk of a single stream mapped in place for buffer id: 1 to go on,
 * -1, or 0 where the input has no view to give (read it instead). */
static int view_single(struct engine *e, int id)
{
	const unsigned char *p;
	double t0 = now();
	ssize_t r = input_view(e->in, e->cap, type_size(e->job->dtype.type),
			       (const void **)&p, &e->rerr);
	size_t nrec;

	e->t_read += now() - t0;
	if (r <= 0)
		return (int)r;
	count(e, r);
	nrec = (size_t)r / e->rec;
	e->ntail = (size_t)r % e->rec;	/* the file ends inside a record */
	memcpy(e->tail, p + nrec * e->rec, e->ntail);
	e->view[id] = p;
	e->view_len[id] = (size_t)r;
	if (nrec) {
		e->viewed++;
		publish(e, id, nrec);
	}
	else
		release(e, id);
	return 1;
}

/* One chunk from a single stream. Returns 1 to go on, 0 at the end, -1. */
static int read_single(struct engine *e, int id)
{
	unsigned char *buf = e->buf[id];
	bool eof;
	int v;

	if (e->view[id]) {
		input_unview(e->view[id], e->view_len[id]);
		e->view[id] = NULL;
	}
	if (atomic_load_explicit(&e->views, memory_order_relaxed) &&
	    e->ntail == 0 && (v = view_single(e, id)) != 0)
		return v;

	memcpy(buf, e->tail, e->ntail);
	ssize_t fill = fill_one(e, e->in, buf, e->ntail, true, &eof);

	if (fill < 0)
		return -1;
	size_t nrec = (size_t)fill / e->rec;

	e->ntail = (size_t)fill % e->rec;
	memcpy(e->tail, buf + nrec * e->rec, e->ntail);
	if (nrec)
		publish(e, id, nrec);
	else
		release(e, id);
	if (eof && e->ntail)
		return trailing_error(e, e->ntail);
	return eof ? 0 : 1;
}

/* Read up to n bytes from in into buf until full or the end. */
static ssize_t read_full(struct engine *e, struct input *in, unsigned char *buf,
			 size_t n)
{
	size_t got = 0;

	while (got < n) {
		double t0 = now();
		ssize_t r = input_read(in, buf + got, n - got, -1, &e->rerr);

		e->t_read += now() - t0;

		if (r < 0)
			return -1;
		if (r == 0)
			break;
		got += (size_t)r;
		count(e, r);
	}
	return (ssize_t)got;
}

/* Past the shorter side's end, the longer one is read this much further to
 * give its length; a longer one (or a pipe without end) is "more than". */
#define DRAIN_MAX ((uint64_t)256 << 20)

/* "a.f32 has 1200 bytes (300 elements)", the length in elements where whole. */
static void side_len(const struct engine *e, const struct input *in,
		     uint64_t n, bool more, char *buf, size_t size)
{
	size_t t = type_size(e->job->dtype.type);

	if (n % t)
		snprintf(buf, size, "%s has %s%llu bytes", input_name(in),
			 more ? "more than " : "", (unsigned long long)n);
	else
		snprintf(buf, size, "%s has %s%llu bytes (%llu elements)",
			 input_name(in), more ? "more than " : "",
			 (unsigned long long)n, (unsigned long long)(n / t));
}

/* The two inputs differ in length: name both lengths, reading the longer
 * side (in, whose got bytes are read; into buf) on to its end. */
static int length_mismatch(struct engine *e, struct input *in, uint64_t got,
			   unsigned char *buf)
{
	/* after an operand error (already reported) the lengths differ by
	 * that operand: one line per error, so fail without a second one */
	if (input_failed(e->in) || input_failed(e->in2)) {
		e->rerr = (struct gs_err){ .code = GS_ERUNTIME };
		return -1;
	}
	uint64_t more = 0;
	ssize_t r;

	do {
		r = read_full(e, in, buf, e->cap);
		if (r < 0)
			return -1;
		more += (uint64_t)r;
	} while ((size_t)r == e->cap && more < DRAIN_MAX);

	char a[300], b[300];
	bool long_a = in == e->in, cut = (size_t)r == e->cap;

	side_len(e, e->in, long_a ? got + more : e->got2, long_a && cut, a,
		 sizeof(a));
	side_len(e, e->in2, long_a ? e->got2 : got + more, !long_a && cut, b,
		 sizeof(b));
	return gs_fail(&e->rerr, GS_ERUNTIME, "dot",
		       "the two inputs differ in length: %s, %s", a, b);
}

/* One chunk of each of two streams of equal length (dot A B). No tail is
 * carried: both sides are read to the same byte count. */
static int read_pair(struct engine *e, int id)
{
	unsigned char *a = e->buf[id], *b = e->buf2[id];
	ssize_t na = read_full(e, e->in, a, e->cap);

	if (na < 0)
		return -1;
	e->got1 += (uint64_t)na;
	ssize_t nb = read_full(e, e->in2, b, (size_t)na);

	if (nb < 0)
		return -1;
	e->got2 += (uint64_t)nb;
	if (nb < na)
		return length_mismatch(e, e->in, e->got1, a);
	bool eof = (size_t)na < e->cap;

	if (eof) {
		ssize_t r = read_full(e, e->in2, b, 1);

		if (r < 0)
			return -1;
		if (r > 0)
			return length_mismatch(e, e->in2, e->got2 + 1, b);
	}
	size_t nrec = (size_t)na / e->rec;

	if (nrec)
		publish(e, id, nrec);
	else
		release(e, id);
	if (eof && (size_t)na % e->rec)
		return trailing_error(e, (size_t)na % e->rec);
	return eof ? 0 : 1;
}

static void *reader_main(void *v)
{
	struct engine *e = v;
	int rc;

	do {
		int id = take_free(e);

		if (id < 0) {
			rc = 0;
			break;
		}
		rc = e->in2 ? read_pair(e, id) : read_single(e, id);
	} while (rc > 0);

	pthread_mutex_lock(&e->lock);
	e->rc = rc;
	e->reader_done = true;
	pthread_cond_broadcast(&e->cv);
	pthread_mutex_unlock(&e->lock);
	return NULL;
}

/* Next queued chunk; false when the reader is done and the queue empty, or
 * when a signal stopped the run. */
static bool next_chunk(struct engine *e, struct chunk *c)
{
	bool got = false;

	pthread_mutex_lock(&e->lock);
	while (e->qlen == 0 && !e->reader_done && !e->signo)
		pthread_cond_wait(&e->cv, &e->lock);
	if (e->qlen > 0 && !e->signo) {
		*c = e->queue[e->qhead];
		e->qhead = (e->qhead + 1) % ENGINE_NBUF;
		e->qlen--;
		got = true;
	}
	pthread_mutex_unlock(&e->lock);
	return got;
}

static int alloc_buffers(struct engine *e, struct gs_err *err)
{
	for (int i = 0; i < ENGINE_NBUF; i++) {
		e->buf[i] = e->be->host_alloc(e->cap);
		if (e->in2)
			e->buf2[i] = e->be->host_alloc(e->cap);
		if (!e->buf[i] || (e->in2 && !e->buf2[i]))
			return gs_fail(err, GS_ERUNTIME, "",
				       "cannot allocate %d buffers of %zu bytes "
				       "(try a smaller --chunk-size)",
				       ENGINE_NBUF, e->cap);
		e->free_ids[e->nfree++] = i;
	}
	e->tail = malloc(e->rec);
	if (!e->tail)
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	return 0;
}

static void free_buffers(struct engine *e)
{
	for (int i = 0; i < ENGINE_NBUF; i++) {
		if (e->view[i])
			input_unview(e->view[i], e->view_len[i]);
		if (e->buf[i])
			e->be->host_free(e->buf[i]);
		if (e->buf2[i])
			e->be->host_free(e->buf2[i]);
	}
	free(e->tail);
}

/* From the signal thread (sig.h): stop reading and submitting. */
static void on_signal(void *v, int signo)
{
	struct engine *e = v;

	pthread_mutex_lock(&e->lock);
	e->signo = signo;
	e->stop = true;
	pthread_cond_broadcast(&e->cv);
	pthread_mutex_unlock(&e->lock);
}

static int stopped(struct engine *e, struct gs_err *err)
{
	int signo;

	pthread_mutex_lock(&e->lock);
	signo = e->signo;
	pthread_mutex_unlock(&e->lock);
	if (!signo)
		return 0;
	return gs_fail(err, GS_ESIGNAL + signo, "", "stopped by signal %d", signo);
}

/* Submit every chunk the reader queues; stop at the first backend error. */
static int consume(struct engine *e, void *ctx, struct engine_stats *st,
		   struct gs_err *err)
{
	struct chunk c;
	double t0 = now(), t1;

	while (next_chunk(e, &c)) {
		t1 = now();
		st->submit_wait += t1 - t0;
		if (e->be->submit(ctx, &c, err) < 0)
			return -1;
		t0 = now();
		st->submit += t0 - t1;
		st->records += c.nrec;
		st->chunks++;
	}
	st->submit_wait += now() - t0;
	return 0;
}

/* The engine of one run, its chunks sized from eo. On the heap: after a
 * backend error the reader is left running (it may sit in a blocking read
 * of a pipe), so on that path the engine is deliberately not freed. */
static struct engine *engine_new(const struct gs_job *job,
				 const struct engine_opts *eo,
				 const struct backend *be, struct input *in,
				 struct input *in2, struct sink *sink)
{
	struct engine *ep = calloc(1, sizeof(*ep));

	if (!ep)
		return NULL;
	ep->job = job;
	ep->be = be;
	ep->in = in;
	ep->in2 = in2;
	ep->rec = job_record_size(job);
	ep->stall_ms = eo->stall_ms;
	ep->counter = eo->counter;
	ep->chunk_records = eo->chunk_size / ep->rec;
	if (ep->chunk_records == 0)
		ep->chunk_records = 1;
	ep->cap = ep->chunk_records * ep->rec;
	ep->sink = sink;
	ep->timed = (struct sink){ timed_write, ep };
	const char *keep = getenv(ENGINE_NO_TEARDOWN_ENV);

	ep->no_teardown = keep && strcmp(keep, "1") == 0;
	const char *nov = getenv(ENGINE_NO_VIEWS_ENV);

	/* the GPU's backends copy from their own (pinned) buffers */
	ep->views_ok = backend_in_place(be) && !in2 &&
		       !(nov && strcmp(nov, "1") == 0);
	atomic_init(&ep->views, ep->views_ok);
	pthread_mutex_init(&ep->lock, NULL);
	pthread_cond_init(&ep->cv, NULL);
	return ep;
}

/* After an error: stop the reader without waiting for it (it may sit in a
 * blocking read of a pipe); the process is about to report the error and
 * exit. */
static void abandon(struct engine *ep, pthread_t reader, void *ctx)
{
	pthread_mutex_lock(&ep->lock);
	ep->stop = true;
	pthread_cond_broadcast(&ep->cv);
	pthread_mutex_unlock(&ep->lock);
	pthread_detach(reader);
	ep->be->close(ctx);
}

/* Read and submit every chunk, then finish and close the backend: 0, or
 * -1 with err filled; *abandoned when the reader was left running. */
static int run_chunks(struct engine *ep, void *ctx, void *acc,
		      struct engine_stats *st, bool *abandoned,
		      struct gs_err *err)
{
	pthread_t reader;
	int rc, e = pthread_create(&reader, NULL, reader_main, ep);

	if (e != 0) {
		gs_fail(err, GS_ERUNTIME, "", "cannot start the reader: %s",
			strerror(e));
		ep->be->close(ctx);
		return -1;
	}
	sig_watch(on_signal, ep);
	rc = consume(ep, ctx, st, err);
	/* after a signal, finish what was submitted (a scan writes it out) */
	if (rc == 0)
		rc = ep->be->finish(ctx, acc, err);
	sig_unwatch();
	if (rc == 0)
		rc = stopped(ep, err);
	if (rc < 0) {
		abandon(ep, reader, ctx);
		*abandoned = true;
		return -1;
	}
	pthread_join(reader, NULL);
	if (ep->rc < 0) {
		*err = ep->rerr;
		rc = -1;
	}
	st->read = ep->t_read;
	st->read_wait = ep->t_read_wait;
	st->viewed = ep->viewed;
	st->write = ep->t_write;
	if (ep->be->times)
		ep->be->times(ctx, &st->be);
	double t0 = now();

	if (!ep->no_teardown)
		ep->be->close(ctx);
	st->teardown = now() - t0;
	return rc;
}

/* A scan's carry-in, into the backend before its first chunk. */
static int seed(const struct backend *be, void *ctx,
		const struct red_col *carry, struct gs_err *err)
{
	if (!carry)
		return 0;
	if (!be->scan_seed)
		return gs_fail(err, GS_ERUNTIME, be->name, "cannot start a scan "
			       "from a carry-in");
	return be->scan_seed(ctx, carry, err);
}

int engine_run(const struct gs_job *job, const struct engine_opts *eo,
	       const struct backend *be, struct input *in, struct input *in2,
	       struct sink *sink, void *acc, struct engine_stats *st,
	       struct gs_err *err)
{
	struct engine *ep = engine_new(job, eo, be, in, in2, sink);
	double t_start = now();
	int threads = eo->threads;
	void *ctx = NULL;
	bool abandoned = false;
	int rc = -1;

	if (!ep)
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	memset(st, 0, sizeof(*st));
	/* again here for the commands that made their copy themselves */
	if (engine_fit_threads(job, &threads, acc != NULL, 0, err) < 0) {
		free(ep);
		return -1;
	}
	struct backend_env env = {
		.job = job, .chunk_records = ep->chunk_records,
		.threads = threads, .device = eo->device,
		.devices = eo->devices, .ndevices = eo->ndevices,
		.streams = eo->streams, .input_bytes = eo->input_bytes,
		.sink = sink ? &ep->timed : NULL,
		.release = release, .set_views = set_views, .engine = ep,
	};

	if (alloc_buffers(ep, err) < 0)
		goto out;
	st->alloc = now() - t_start;
	if (be->open(&ctx, &env, err) < 0 || seed(be, ctx, eo->carry_in, err) < 0) {
		be->close(ctx);
		goto out;
	}
	st->setup = now() - t_start;
	st->open = st->setup - st->alloc;
	rc = run_chunks(ep, ctx, acc, st, &abandoned, err);
	if (abandoned)
		return -1;	/* not freed: see engine_new */
	double t0 = now();

	if (!ep->no_teardown)
		free_buffers(ep);
	free(ep);
	st->teardown += now() - t0;
	st->wall = now() - t_start;
	return rc;
out:
	free_buffers(ep);
	free(ep);
	return rc;
}

void engine_stats_line(const struct engine_stats *st, char *buf, size_t n)
{
	char inplace[64] = "";

	if (st->viewed)
		snprintf(inplace, sizeof(inplace), "; %llu of %llu chunks in "
			 "place", (unsigned long long)st->viewed,
			 (unsigned long long)st->chunks);
	snprintf(buf, n, "busy seconds in %.3f s wall (setup %.3f: buffers "
		 "%.3f, backend open %.3f; teardown %.3f): read %.3f "
		 "(waited for buffers %.3f%s), submit %.3f (waited for chunks "
		 "%.3f), h2d %.3f, kernel %.3f, d2h %.3f, write %.3f", st->wall,
		 st->setup, st->alloc, st->open, st->teardown, st->read,
		 st->read_wait, inplace, st->submit, st->submit_wait,
		 st->be.h2d, st->be.kernel, st->be.d2h,
		 st->write + st->be.write);
}
