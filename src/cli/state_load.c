/*
 * state_load.c - states read back (state.h): a file or stdin read a piece
 * at a time, never whole. A state's header and a fixed payload (sum's,
 * hist's: their size is the options') are read into a buffer; a
 * group-by's payload, whose keys are the data's (any number of them), a
 * key at a time straight into the total's table, which spills to $TMPDIR
 * past its limit as a run's does: a merge's memory is that table and a
 * buffer, whatever the states' sizes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "engine.h"
#include "operation.h"
#include "state.h"

/* A test's lower limit on the table's bytes (tests/test_group_spill.sh),
 * so that spilling can be tried on small inputs. */
#define GROUP_LIMIT_ENV "GPUSTAT_GROUP_LIMIT"

uint64_t group_limit(void)
{
	const char *v = getenv(GROUP_LIMIT_ENV);
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
	uint64_t n;

	if (v && *v && parse_size(v, &n) == 0)
		return n;
	if (pages > 0 && page > 0 &&
	    (uint64_t)pages / 2 > ENGINE_ACC_LIMIT / (uint64_t)page)
		return (uint64_t)pages / 2 * (uint64_t)page;
	return ENGINE_ACC_LIMIT;
}

/* The buffer a file of states is read through. */
struct reader {
	int fd;
	unsigned char *buf;
	size_t cap, lo, hi;	/* buf[lo, hi): read, not yet taken */
	bool eof;
	int err;		/* a read's errno, or ENOMEM */
	uint64_t at;		/* the offset of buf[lo] in the file */
	uint64_t left;		/* a group payload's bytes not yet taken */
};

#define READ_BYTES ((size_t)1 << 20)
/* every header fits: its 15 lines of a value of at most VALUE_MAX */
#define HEADER_MAX ((size_t)1 << 16)

/* At least n bytes at buf + lo, or all the file has left. -1: a read
 * failed, or out of memory (r->err). */
static int fill(struct reader *r, size_t n)
{
	if (r->hi - r->lo >= n || r->eof)
		return 0;
	if (r->lo + n > r->cap) {
		memmove(r->buf, r->buf + r->lo, r->hi - r->lo);
		r->hi -= r->lo;
		r->lo = 0;
	}
	if (n > r->cap) {
		size_t cap = n > 2 * r->cap ? n : 2 * r->cap;
		unsigned char *p = realloc(r->buf, cap);

		if (!p) {
			r->err = ENOMEM;
			return -1;
		}
		r->buf = p;
		r->cap = cap;
	}
	while (r->hi - r->lo < n) {
		ssize_t got = read(r->fd, r->buf + r->hi, r->cap - r->hi);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			r->err = errno;
			return -1;
		}
		if (got == 0) {
			r->eof = true;
			break;
		}
		r->hi += (size_t)got;
	}
	return 0;
}

static void take(struct reader *r, size_t n)
{
	r->lo += n;
	r->at += n;
}

/* A group payload's bytes (struct gs_src): within what is left of it. */
static const unsigned char *src_need(void *ctx, size_t n)
{
	struct reader *r = ctx;

	if (n > r->left || fill(r, n) < 0 || r->hi - r->lo < n)
		return NULL;
	return r->buf + r->lo;
}

static void src_take(void *ctx, size_t n)
{
	struct reader *r = ctx;

	take(r, n);
	r->left -= n;
}

static int read_error(const struct reader *r, const char *name,
		      struct gs_err *err)
{
	return gs_fail(err, GS_ERUNTIME, r->err == ENOMEM ? "" : name, "%s",
		       r->err == ENOMEM ? "out of memory" : strerror(r->err));
}

/* A group payload that did not read: cut short (its bytes counted to the
 * file's end), or not what a state holds. */
static int bad_payload(struct reader *r, const struct gs_job *job,
		       uint64_t payload, const char *name, const char *where,
		       struct gs_err *err)
{
	uint64_t have = payload - r->left;

	while (r->left && fill(r, r->left < READ_BYTES ? r->left : READ_BYTES) == 0) {
		size_t n = r->hi - r->lo < r->left ? r->hi - r->lo : r->left;

		if (!n)
			break;
		src_take(r, n);
		have += n;
	}
	if (r->err)
		return read_error(r, name, err);
	if (have < payload)
		return state_truncated(where, have, payload, err);
	return state_malformed(job, where, err);
}

/* An integer product's overflow index is its shard's own: the product of
 * the shards before it moves the element where the whole product passed
 * 2^128, and the shards may come in any order, so a merge knows none. */
static void forget_overflow_index(const struct gs_job *job, void *acc)
{
	struct red_col *r = acc;

	if (job->cmd != CMD_REDUCE || job->op != OP_PROD || job->rec ||
	    type_is_float(job->dtype.type))
		return;
	for (unsigned k = 0; k < job->columns; k++)
		r[k].u.ip.at = UINT64_MAX;
}

void state_merge_acc(const struct gs_job *job, void *total, void *acc)
{
	forget_overflow_index(job, total);
	forget_overflow_index(job, acc);
	acc_kernels_for(job)->acc_merge(job, total, acc);
}

/* Fold s (from name) into *total, or make it the total (its first,
 * name). */
static int fold(struct state *total, const char **first, struct state *s,
		const char *name, struct gs_err *err)
{
	if (!total->acc) {
		*total = *s;
		if (total->job.rec)	/* its own copy of the record */
			total->job.rec = &total->rec;
		*first = name;
		return 0;
	}
	if (state_check(total, *first, s, name, err) < 0) {
		acc_release(&s->job, s->acc);
		return -1;
	}
	if (total->records + s->records < total->records) {
		acc_release(&s->job, s->acc);
		return gs_fail(err, GS_ERUNTIME, name, "more than 2^64 records "
			       "in all");
	}
	state_merge_acc(&s->job, total->acc, s->acc);
	total->records += s->records;
	acc_release(&s->job, s->acc);
	return acc_check(&total->job, total->acc, err);
}


/* A group-by's state (its header read into s): its grouping, then its
 * keys, a key at a time, into the total's table; the first state's table
 * is the total. */
static int load_group(struct reader *r, struct state *s, uint64_t payload,
		      struct state *total, const char **first, uint64_t limit,
		      const char *name, const char *where, struct gs_err *err)
{
	const struct state_codec *codec = state_codec_for(&s->job);
	const struct acc_kernels *k = acc_kernels_for(&s->job);
	struct gs_src src = { src_need, src_take, r };
	uint64_t entries;
	bool fresh = !total->acc;

	r->left = payload;
	if (codec->head(&s->job, &src, limit, &entries) < 0) {
		codec->head_free(&s->job);
		return bad_payload(r, &s->job, payload, name, where, err);
	}
	if (!fresh) {
		int rc = state_check(total, *first, s, where, err);

		codec->head_free(&s->job);
		if (rc < 0)
			return -1;
		if (total->records + s->records < total->records)
			return gs_fail(err, GS_ERUNTIME, where, "more than 2^64 "
				       "records in all");
		total->records += s->records;
	} else {
		if (!(s->acc = malloc(k->acc_size(&s->job)))) {
			codec->head_free(&s->job);
			return gs_fail(err, GS_ERUNTIME, "", "out of memory");
		}
		k->acc_init(&s->job, s->acc);
		*total = *s;
		if (total->job.rec)	/* its own copy of the record */
			total->job.rec = &total->rec;
		*first = where;
	}
	if (codec->entries(&total->job, total->acc, &src, entries) < 0 ||
	    r->left) {
		if (acc_check(&total->job, total->acc, err) < 0)
			return -1;	/* the table's: a spill that failed */
		return bad_payload(r, &total->job, payload, name, where, err);
	}
	return acc_check(&total->job, total->acc, err);
}

/* The state at r's front into *total. */
static int load_one(struct reader *r, struct state *total,
		    const char **first, uint64_t limit, const char *name,
		    const char *where, struct gs_err *err)
{
	struct state s;
	uint64_t payload;
	ssize_t h;

	if (fill(r, HEADER_MAX) < 0)
		return read_error(r, name, err);
	if ((h = state_header(r->buf + r->lo, r->hi - r->lo, where, &s,
			      &payload, err)) < 0)
		return -1;
	take(r, (size_t)h);
	if (state_codec_for(&s.job)->head)
		return load_group(r, &s, payload, total, first, limit, name,
				  where, err);
	/* a payload its options do not set (hist2d --weights'): what the
	 * file holds of it, its length checked as it is read */
	if ((state_codec_for(&s.job)->get_n ||
	     payload == state_codec_for(&s.job)->bytes(&s.job)) &&
	    fill(r, (size_t)payload) < 0)
		return read_error(r, name, err);
	if (state_payload(&s, r->buf + r->lo, r->hi - r->lo, payload, where,
			  err) < 0)
		return -1;
	take(r, (size_t)payload);
	return fold(total, first, &s, where, err);
}

int state_load(const char *path, struct state *total, const char **first,
	       struct gs_err *err)
{
	return state_load_within(path, total, first, group_limit(), err);
}

int state_load_within(const char *path, struct state *total,
		      const char **first, uint64_t limit, struct gs_err *err)
{
	bool in = strcmp(path, "-") == 0;
	const char *name = in ? "stdin" : path;
	struct reader r = { .fd = in ? STDIN_FILENO : open(path, O_RDONLY),
			    .buf = malloc(READ_BYTES), .cap = READ_BYTES };
	int rc = 0;

	if (r.fd < 0 || !r.buf) {
		rc = r.fd < 0 ? gs_fail(err, GS_ERUNTIME, name, "%s",
					strerror(errno))
			      : gs_fail(err, GS_ERUNTIME, "", "out of memory");
	} else if (fill(&r, 1) < 0) {
		rc = read_error(&r, name, err);
	} else if (r.hi == r.lo) {
		rc = gs_fail(err, GS_ERUNTIME, name, "empty: no state");
	}
	while (rc == 0 && r.hi > r.lo) {
		char *where = r.at ? malloc(strlen(name) + 32) : NULL;

		if (where)	/* the later states of one file: by offset */
			sprintf(where, "%s: byte %llu", name,
				(unsigned long long)r.at);
		rc = load_one(&r, total, first, limit, name,
			      where ? where : name, err);
		if (*first != where)
			free(where);
		if (rc == 0 && fill(&r, 1) < 0)
			rc = read_error(&r, name, err);
	}
	if (r.fd >= 0 && !in)
		close(r.fd);
	free(r.buf);
	return rc;
}

int state_fold_copy(struct state *total, const char **first,
		    const struct state *s, const char *name,
		    struct gs_err *err)
{
	size_t n = acc_kernels_for(&s->job)->acc_size(&s->job);
	struct state copy = *s;

	copy.acc = malloc(n);
	if (!copy.acc)
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	memcpy(copy.acc, s->acc, n);
	/* a state that owns memory (a group-by's table) is copied whole:
	 * merged into a fresh one */
	if (acc_kernels_for(&s->job)->acc_free) {
		acc_kernels_for(&s->job)->acc_init(&s->job, copy.acc);
		acc_kernels_for(&s->job)->acc_merge(&s->job, copy.acc, s->acc);
		if (acc_check(&s->job, copy.acc, err) < 0) {
			acc_release(&s->job, copy.acc);
			return -1;
		}
	}
	return fold(total, first, &copy, name, err);
}
