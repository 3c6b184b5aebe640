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
#include "engine.h"
#include "sig.h"

struct engine {
	const struct gs_job *job;
	const struct backend *be;
	struct input *in, *in2;
	size_t rec;			/* bytes per record */
	size_t cap;			/* bytes per buffer: whole records */
	int stall_ms;
	_Atomic uint64_t *counter;
	void *buf[ENGINE_NBUF], *buf2[ENGINE_NBUF];
	unsigned char *tail;		/* carried partial record */
	size_t ntail;
	uint64_t next_rec;

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

static void release(void *v, int id)
{
	struct engine *e = v;

	pthread_mutex_lock(&e->lock);
	e->free_ids[e->nfree++] = id;
	pthread_cond_broadcast(&e->cv);
	pthread_mutex_unlock(&e->lock);
}

/* Wait for a free buffer; -1 when the consumer has stopped. */
static int take_free(struct engine *e)
{
	int id = -1;
	double t0 = now();

	pthread_mutex_lock(&e->lock);
	while (!e->stop && e->nfree == 0)
		pthread_cond_wait(&e->cv, &e->lock);
	if (!e->stop)
		id = e->free_ids[--e->nfree];
	pthread_mutex_unlock(&e->lock);
	e->t_read_wait += now() - t0;
	return id;
}

static void publish(struct engine *e, int id, size_t nrec)
{
	pthread_mutex_lock(&e->lock);
	struct chunk *c = &e->queue[(e->qhead + e->qlen) % ENGINE_NBUF];

	c->id = id;
	c->data = e->buf[id];
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

	if (job->columns == 1)
		return gs_fail(&e->rerr, GS_ERUNTIME, input_name(e->in),
			       "trailing %zu byte%s not make a whole element "
			       "(%s is %zu bytes)", n, s, t, e->rec);
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

/* One chunk from a single stream. Returns 1 to go on, 0 at the end, -1. */
static int read_single(struct engine *e, int id)
{
	unsigned char *buf = e->buf[id];
	bool eof;

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

static int length_mismatch(struct engine *e)
{
	/* after an operand error (already reported) the lengths differ by
	 * that operand: one line per error, so fail without a second one */
	if (input_failed(e->in) || input_failed(e->in2)) {
		e->rerr = (struct gs_err){ .code = GS_ERUNTIME };
		return -1;
	}
	return gs_fail(&e->rerr, GS_ERUNTIME, "dot",
		       "the two inputs differ in length");
}

/* One chunk of each of two streams of equal length (dot A B). No tail is
 * carried: both sides are read to the same byte count. */
static int read_pair(struct engine *e, int id)
{
	unsigned char *a = e->buf[id], *b = e->buf2[id];
	ssize_t na = read_full(e, e->in, a, e->cap);

	if (na < 0)
		return -1;
	ssize_t nb = read_full(e, e->in2, b, (size_t)na);

	if (nb < 0)
		return -1;
	if (nb < na)
		return length_mismatch(e);
	bool eof = (size_t)na < e->cap;

	if (eof) {
		unsigned char extra;
		ssize_t r = read_full(e, e->in2, &extra, 1);

		if (r < 0)
			return -1;
		if (r > 0)
			return length_mismatch(e);
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

int engine_run(const struct gs_job *job, const struct engine_opts *eo,
	       const struct backend *be, struct input *in, struct input *in2,
	       struct sink *sink, void *acc, struct engine_stats *st,
	       struct gs_err *err)
{
	/* On the heap: after a backend error the reader is left running (it
	 * may sit in a blocking read of a pipe), so on that path the engine is
	 * deliberately not freed. */
	struct engine *ep = calloc(1, sizeof(*ep));

	if (!ep)
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	ep->job = job;
	ep->be = be;
	ep->in = in;
	ep->in2 = in2;
	ep->rec = job_record_size(job);
	ep->stall_ms = eo->stall_ms;
	ep->counter = eo->counter;
	size_t chunk_records = eo->chunk_size / ep->rec;

	if (chunk_records == 0)
		chunk_records = 1;
	ep->cap = chunk_records * ep->rec;
	memset(st, 0, sizeof(*st));
	double t_start = now();

	ep->sink = sink;
	ep->timed = (struct sink){ timed_write, ep };
	pthread_mutex_init(&ep->lock, NULL);
	pthread_cond_init(&ep->cv, NULL);

	struct backend_env env = {
		.job = job, .chunk_records = chunk_records,
		.threads = eo->threads, .device = eo->device,
		.streams = eo->streams, .sink = sink ? &ep->timed : NULL,
		.release = release, .engine = ep,
	};
	void *ctx = NULL;
	pthread_t reader;
	int rc = -1;

	if (alloc_buffers(ep, err) < 0)
		goto out;
	if (be->open(&ctx, &env, err) < 0)
		goto out_close;
	st->setup = now() - t_start;
	if (pthread_create(&reader, NULL, reader_main, ep) != 0) {
		gs_fail(err, GS_ERUNTIME, "", "cannot start the reader: %s",
			strerror(errno));
		goto out_close;
	}
	sig_watch(on_signal, ep);
	rc = consume(ep, ctx, st, err);
	/* after a signal, finish what was submitted (a scan writes it out) */
	if (rc == 0)
		rc = be->finish(ctx, acc, err);
	sig_unwatch();
	if (rc == 0)
		rc = stopped(ep, err);
	if (rc < 0) {
		/* The reader may sit in a blocking read of a pipe: leave it;
		 * the process is about to report the error and exit. */
		pthread_mutex_lock(&ep->lock);
		ep->stop = true;
		pthread_cond_broadcast(&ep->cv);
		pthread_mutex_unlock(&ep->lock);
		pthread_detach(reader);
		be->close(ctx);
		return -1;
	}
	pthread_join(reader, NULL);
	if (ep->rc < 0) {
		*err = ep->rerr;
		rc = -1;
	}
	st->read = ep->t_read;
	st->read_wait = ep->t_read_wait;
	st->write = ep->t_write;
	st->wall = now() - t_start;
	if (be->times)
		be->times(ctx, &st->be);
out_close:
	be->close(ctx);
out:
	free_buffers(ep);
	free(ep);
	return rc;
}

void engine_stats_line(const struct engine_stats *st, char *buf, size_t n)
{
	snprintf(buf, n, "busy seconds in %.3f s wall (setup %.3f): read %.3f "
		 "(waited for buffers %.3f), submit %.3f (waited for chunks "
		 "%.3f), h2d %.3f, kernel %.3f, d2h %.3f, write %.3f", st->wall,
		 st->setup, st->read,
		 st->read_wait, st->submit, st->submit_wait, st->be.h2d,
		 st->be.kernel, st->be.d2h, st->write + st->be.write);
}
