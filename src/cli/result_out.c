/*
 * result_out.c - see result_out.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "result_out.h"

static const char *tmp_dir(void)
{
	const char *dir = getenv("TMPDIR");

	return dir && *dir ? dir : "/tmp";
}

static int spool_error(struct result_out *r)
{
	return gs_fail(&r->err, GS_ERUNTIME, tmp_dir(), "keeping the result "
		       "for a pipe until it is whole: %s", strerror(errno));
}

/* Whether fd is /dev/null (nothing to take back there). */
static bool dev_null(int fd)
{
	struct stat a, b;

	return fstat(fd, &a) == 0 && S_ISCHR(a.st_mode) &&
	       stat("/dev/null", &b) == 0 && a.st_rdev == b.st_rdev;
}

/* The output, at the first drain, and where what is written cannot be
 * taken back (a pipe, a socket, a terminal, a file opened to append),
 * the spool it waits in. */
static int open_out(struct result_out *r)
{
	char path[4096];

	if (out_open(&r->o, r->c->output, &r->err) < 0)
		return -1;
	r->open = true;
	if (r->o.tmp || r->o.seekable || dev_null(r->o.fd))
		return 0;
	snprintf(path, sizeof(path), "%s/gpustat-out-XXXXXX", tmp_dir());
	r->spool = mkostemp(path, O_CLOEXEC);
	if (r->spool >= 0)
		unlink(path);
	r->hold = r->spool < 0;	/* no spool: held in memory, as before */
	return 0;
}

static int put(struct result_out *r, const char *p, size_t n)
{
	uint64_t at = r->spooled;

	if (r->spool < 0)
		return out_write(&r->o, p, n, &r->err);
	while (n) {
		ssize_t w = pwrite(r->spool, p, n, (off_t)at);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {	/* the spool keeps what it had before */
			if (w == 0)
				errno = ENOSPC;
			return spool_error(r);
		}
		p += w;
		n -= (size_t)w;
		at += (uint64_t)w;
	}
	r->spooled = at;
	return 0;
}

/* The spool, whole, to the pipe. */
static int unspool(struct result_out *r)
{
	char *buf = malloc(RESULT_OUT_BUFFER);
	uint64_t at = 0;
	int rc = 0;

	if (!buf)
		return gs_fail(&r->err, GS_ERUNTIME, "", "out of memory");
	while (rc == 0 && at < r->spooled) {
		size_t n = r->spooled - at < RESULT_OUT_BUFFER ?
			   (size_t)(r->spooled - at) : RESULT_OUT_BUFFER;
		ssize_t got = pread(r->spool, buf, n, (off_t)at);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			if (got == 0)
				errno = EIO;	/* ours: cut short */
			rc = spool_error(r);
			break;
		}
		rc = out_write(&r->o, buf, (size_t)got, &r->err);
		at += (uint64_t)got;
	}
	free(buf);
	return rc;
}

/* A spool that cannot take more (a full $TMPDIR): what it holds back in
 * front of b's bytes, held in memory from now on, as without a spool.
 * false: out of memory too (err says why the spool failed). */
static bool unspool_to_memory(struct result_out *r, struct sbuf *b)
{
	size_t n = (size_t)r->spooled, cap = n + b->len + 1;
	char *p = malloc(cap);

	if (!p || pread(r->spool, p, n, 0) != (ssize_t)n) {
		free(p);
		return false;
	}
	memcpy(p + n, b->p, b->len);
	free(b->p);
	b->p = p;
	b->len += n;
	b->cap = cap;
	close(r->spool);
	r->spool = -1;
	r->spooled = 0;
	r->hold = true;
	b->drain = NULL;
	return true;
}

static void *writer_main(void *arg)
{
	struct result_out *r = arg;

	pthread_mutex_lock(&r->mu);
	for (;;) {
		while (!r->busy && !r->quit)
			pthread_cond_wait(&r->cv, &r->mu);
		if (!r->busy)
			break;
		pthread_mutex_unlock(&r->mu);
		int rc = out_write(&r->o, r->fly.p, r->fly.len, &r->err);

		pthread_mutex_lock(&r->mu);
		r->fly_rc = rc;
		r->fly.len = 0;
		r->busy = false;
		pthread_cond_broadcast(&r->cv);
	}
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

/* The write in flight done: false where it (or one before) failed, err
 * saying why. */
static bool settle(struct result_out *r)
{
	int rc;

	if (!r->writer_on)
		return true;
	pthread_mutex_lock(&r->mu);
	while (r->busy)
		pthread_cond_wait(&r->cv, &r->mu);
	rc = r->fly_rc;
	pthread_mutex_unlock(&r->mu);
	return rc == 0;
}

static void writer_stop(struct result_out *r)
{
	if (!r->writer_on)
		return;
	pthread_mutex_lock(&r->mu);
	r->quit = true;
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
	pthread_join(r->writer, NULL);
	pthread_mutex_destroy(&r->mu);
	pthread_cond_destroy(&r->cv);
	r->writer_on = false;
	sb_free(&r->fly);
}

/* b's bytes to the output on the writer thread, b left with the buffer
 * written before (or none); false: a write failed. Without a thread, as
 * put. */
static bool put_behind(struct result_out *r, struct sbuf *b)
{
	struct sbuf t;

	if (!r->writer_on) {
		sb_init(&r->fly);
		r->fly_rc = 0;
		r->busy = r->quit = false;
		pthread_mutex_init(&r->mu, NULL);
		pthread_cond_init(&r->cv, NULL);
		r->writer_on = pthread_create(&r->writer, NULL, writer_main,
					      r) == 0;
		if (!r->writer_on) {
			pthread_mutex_destroy(&r->mu);
			pthread_cond_destroy(&r->cv);
			if (put(r, b->p, b->len) < 0)
				return false;
			b->len = 0;
			return true;
		}
	}
	if (!settle(r))
		return false;
	pthread_mutex_lock(&r->mu);
	t = r->fly;
	r->fly.p = b->p;
	r->fly.cap = b->cap;
	r->fly.len = b->len;
	b->p = t.p;
	b->cap = t.cap;
	b->len = 0;
	if (b->p)
		b->p[0] = '\0';
	r->busy = true;
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
	return true;
}

static bool drain(struct sbuf *b)
{
	struct result_out *r = b->drain_ctx;

	if (r->failed)
		return false;
	if (r->c->operand_failed) {	/* no result will be written */
		b->len = 0;
		return true;
	}
	if (!r->open && open_out(r) < 0) {
		r->failed = true;
		return false;
	}
	if (r->hold) {
		b->drain = NULL;
		return true;
	}
	if (r->spool < 0) {
		if (put_behind(r, b))
			return true;
		r->failed = true;
		return false;
	}
	if (put(r, b->p, b->len) < 0) {
		if (r->spool >= 0 && unspool_to_memory(r, b))
			return true;
		r->failed = true;
		return false;
	}
	b->len = 0;
	return true;
}

void result_out_start(struct result_out *r, struct cli *c, struct sbuf *b)
{
	*r = (struct result_out){ .c = c, .spool = -1 };
	b->drain = drain;
	b->drain_ctx = r;
	b->drain_at = RESULT_OUT_BUFFER;
}

void result_out_abort(struct result_out *r)
{
	settle(r);
	writer_stop(r);
	if (r->spool >= 0)
		close(r->spool);
	r->spool = -1;
	if (r->open)
		out_abort(&r->o);
	r->open = false;
}

int result_out_finish(struct result_out *r, struct sbuf *b)
{
	b->drain = NULL;
	if (!settle(r))
		r->failed = true;
	writer_stop(r);
	if (!r->open && !r->failed)
		return cli_finish(r->c, b);
	if (r->hold && !r->failed) {	/* held whole: written as any result */
		r->open = false;
		out_abort(&r->o);	/* nothing was written to it */
		return cli_finish(r->c, b);
	}
	if (!r->failed && r->c->operand_failed) {
		result_out_abort(r);
		return GS_ERUNTIME;
	}
	if (!r->failed && b->oom) {
		gs_fail(&r->err, GS_ERUNTIME, "", "out of memory for the output");
		r->failed = true;
	}
	if (!r->failed && (put(r, b->p, b->len) < 0 ||
			   (r->spool >= 0 && unspool(r) < 0)))
		r->failed = true;
	if (r->failed) {
		result_out_abort(r);
		return cli_report(r->c, &r->err);
	}
	if (r->spool >= 0)
		close(r->spool);
	r->spool = -1;
	r->open = false;
	return out_close(&r->o, &r->err) < 0 ? cli_report(r->c, &r->err) : 0;
}
