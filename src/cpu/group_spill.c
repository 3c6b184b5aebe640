/*
 * group_spill.c - a group-by table past its memory (group_shared.h):
 * sorted runs in a temp file, merged at the end.
 *
 * A run is records of sh->rec bytes, each the key's payload (16-aligned,
 * so a ksum reads in place) then its order key words, in ascending key
 * order. Spilling merges the partitions' sorted entries (a key is in one
 * partition) into a new run at the file's end; the final merge takes the
 * runs and the partitions at once, folding a key's records into one with
 * the exact payload merge (group_pay_merge), and writes one run that the
 * results read through a window. The runs it read are then punched out of
 * the file, so the disk holds about one copy of the keys.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cpu_group.h"
#include "group_shared.h"
#include "kheap.h"
#include "spill_io.h"

#define IO_BYTES (1u << 20)	/* the writer's buffer and the window */
#define JUMP_BYTES (4u << 10)	/* a jump's window (gs_window) */

struct cursor {
	struct kcur k;		/* the record's key; NULL once done */
	unsigned char *pay;
	const struct ktable *t;	/* memory: a partition in key order */
	size_t *idx, i;
	uint64_t off, left;	/* file: a run, read a block at a time */
	unsigned char *buf;
	size_t cap, bn, bi;	/* records */
};

struct writer {
	struct gshared *sh;
	unsigned char *buf;
	size_t cap, n;		/* records */
	uint64_t start, recs, wides;
};

const char *spill_dir(void)
{
	const char *dir = getenv("TMPDIR");

	return dir && *dir ? dir : "/tmp";
}

int spill_tmpfile(void)
{
	char tmpl[4096];
	int fd;

	snprintf(tmpl, sizeof(tmpl), "%s/gpustat-by-XXXXXX", spill_dir());
	fd = mkostemp(tmpl, O_CLOEXEC);
	if (fd >= 0)
		unlink(tmpl);
	return fd;
}

int spill_read(int fd, void *buf, size_t n, uint64_t off)
{
	unsigned char *p = buf;

	while (n) {
		ssize_t r = pread(fd, p, n, (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r == 0)
				errno = EIO;	/* the file is ours: cut short */
			return -1;
		}
		p += r;
		n -= (size_t)r;
		off += (uint64_t)r;
	}
	return 0;
}

int spill_write(int fd, const void *buf, size_t n, uint64_t off)
{
	const unsigned char *p = buf;

	while (n) {
		ssize_t w = pwrite(fd, p, n, (off_t)off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (w == 0)
				errno = ENOSPC;
			return -1;
		}
		p += w;
		n -= (size_t)w;
		off += (uint64_t)w;
	}
	return 0;
}

void spill_punch(int fd, uint64_t off, uint64_t n)
{
	if (n)
		(void)fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				(off_t)off, (off_t)n);
}

/* sh's file, made at the first spill. */
static int file_of(struct gshared *sh)
{
	if (sh->fd >= 0)
		return 0;
	sh->fd = spill_tmpfile();
	return sh->fd < 0 ? -1 : 0;
}

/* ---- cursors and their heap ------------------------------------------------ */

static int advance(struct gshared *sh, struct cursor *c)
{
	if (c->t) {
		c->k.key = NULL;
		if (c->i < c->t->n) {
			c->k.key = ktable_key(c->t, c->idx[c->i]);
			c->pay = ktable_pay(c->t, c->idx[c->i++]);
		}
		return 0;
	}
	if (c->bi == c->bn) {
		size_t k = c->left < c->cap ? (size_t)c->left : c->cap;

		c->k.key = NULL;
		if (!k)
			return 0;
		if (spill_read(sh->fd, c->buf, k * sh->rec, c->off) < 0)
			return -1;
		c->off += (uint64_t)k * sh->rec;
		c->left -= k;
		c->bn = k;
		c->bi = 0;
	}
	c->pay = c->buf + c->bi++ * sh->rec;
	c->k.key = (const uint64_t *)(c->pay + sh->psize);
	return 0;
}

/* ---- the writer ------------------------------------------------------------- */

static int flush(struct writer *w)
{
	struct gshared *sh = w->sh;
	size_t b = w->n * sh->rec;

	if (b && spill_write(sh->fd, w->buf, b, sh->end) < 0)
		return -1;
	sh->end += b;
	w->n = 0;
	return 0;
}

/* The record at (key, pay) out: merged into the last one where the keys
 * are equal (pay's widened sums freed), else appended (pay's moved). */
static int put(const struct gs_job *job, struct writer *w,
	       const uint64_t *key, unsigned char *pay)
{
	struct gshared *sh = w->sh;
	size_t kb = sh->kw * sizeof(*key);
	unsigned char *last = w->n ? w->buf + (w->n - 1) * sh->rec : NULL;

	if (last && !memcmp(last + sh->psize, key, kb)) {
		if (!group_pay_merge(job, last, pay)) {
			errno = ENOMEM;
			return -1;
		}
		return 0;
	}
	if (last)
		w->wides += group_pay_wides(job, last);
	if (w->n == w->cap && flush(w) < 0)
		return -1;
	last = w->buf + w->n++ * sh->rec;
	memset(last, 0, sh->rec);
	memcpy(last, pay, sh->psize);
	memcpy(last + sh->psize, key, kb);
	w->recs++;
	return 0;
}

/* The cursors' records merged into one new run at the file's end. */
static int merge(const struct gs_job *job, struct gshared *sh,
		 struct kcur **h, size_t n)
{
	struct writer w = { .sh = sh, .start = sh->end };
	struct gs_run *r;
	int rc = 0;

	w.cap = IO_BYTES / sh->rec ? IO_BYTES / sh->rec : 1;
	if (!(w.buf = malloc(w.cap * sh->rec))) {
		errno = ENOMEM;
		return -1;
	}
	kheap_make(h, n, sh->kw);
	while (n && rc == 0) {
		struct cursor *c = (struct cursor *)h[0];

		rc = put(job, &w, c->k.key, c->pay);
		if (rc == 0)
			rc = advance(sh, c);
		if (!c->k.key)
			h[0] = h[--n];
		kheap_sift(h, n, 0, sh->kw);
	}
	if (rc == 0 && w.n)
		w.wides += group_pay_wides(job, w.buf + (w.n - 1) * sh->rec);
	if (rc == 0)
		rc = flush(&w);
	free(w.buf);
	r = rc ? NULL : realloc(sh->runs, (sh->nruns + 1) * sizeof(*r));
	if (rc || !r) {
		if (!rc)
			errno = ENOMEM;
		return -1;
	}
	sh->runs = r;
	sh->runs[sh->nruns++] = (struct gs_run){ w.start, w.recs };
	sh->spilled += w.recs;
	sh->wides_out += w.wides;
	return 0;
}

/* Memory cursors over the partitions that hold keys, from *at on. */
static int part_cursors(struct gshared *sh, struct cursor *c, size_t *at)
{
	for (unsigned p = 0; p < sh->nparts; p++) {
		const struct ktable *t = &sh->part[p].t;

		if (!t->n)
			continue;
		c[*at] = (struct cursor){ .t = t, .idx = ktable_sorted(t) };
		if (!c[*at].idx) {
			errno = ENOMEM;
			return -1;
		}
		advance(sh, &c[(*at)++]);
	}
	return 0;
}

static int failed(struct gshared *sh, int e)
{
	int none = 0;

	if (atomic_compare_exchange_strong(&sh->err, &none, e ? e : EIO)) {
		sh->err_keys = gs_keys(sh);
		sh->err_bytes = atomic_load(&sh->bytes);
	}
	return -1;
}

/* The partitions emptied (their payloads now the file's). */
static int clear_parts(struct gshared *sh)
{
	uint64_t b = 0;
	int rc = 0;

	for (unsigned p = 0; p < sh->nparts; p++) {
		struct ktable *t = &sh->part[p].t;

		ktable_free(t);
		if (ktable_init(t, sh->kw, sh->psize) < 0) {
			rc = failed(sh, ENOMEM);	/* no use of sh now */
			break;
		}
		b += ktable_bytes(t);
	}
	atomic_store(&sh->bytes, b);
	return rc;
}

/* The merge of cursors c[0..n) into a new run; cursors freed. */
static int run_of(const struct gs_job *job, struct gshared *sh,
		  struct cursor *c, size_t n)
{
	struct kcur **h = malloc((n ? n : 1) * sizeof(*h));
	int rc = -1;

	if (h) {
		for (size_t i = 0; i < n; i++)
			h[i] = &c[i].k;
		rc = merge(job, sh, h, n);
	} else {
		errno = ENOMEM;
	}
	free(h);
	return rc;
}

static void free_cursors(struct cursor *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(c[i].idx);
		free(c[i].buf);
	}
	free(c);
}

int gs_spill(const struct gs_job *job, struct gshared *sh)
{
	struct cursor *c;
	size_t n = 0;
	int rc = 0;

	pthread_mutex_lock(&sh->spill_mu);
	if (atomic_load(&sh->err) || gs_held(sh) <= sh->limit) {
		pthread_mutex_unlock(&sh->spill_mu);
		return atomic_load(&sh->err) ? -1 : 0;
	}
	bool any = false;

	for (unsigned p = 0; p < sh->nparts; p++) {
		pthread_mutex_lock(&sh->part[p].mu);
		any |= sh->part[p].t.n > 0;
	}
	/* no keys: empty tables alone pass a tiny limit, and an empty run
	 * would have no first key to merge by */
	c = any ? calloc(sh->nparts, sizeof(*c)) : NULL;
	if (any && !c)
		errno = ENOMEM;
	if (!any)
		rc = 0;
	else if (!c || file_of(sh) < 0 || part_cursors(sh, c, &n) < 0 ||
		 run_of(job, sh, c, n) < 0)
		rc = failed(sh, errno);
	else
		rc = clear_parts(sh);
	if (c)
		free_cursors(c, n);
	for (unsigned p = sh->nparts; p-- > 0;)
		pthread_mutex_unlock(&sh->part[p].mu);
	pthread_mutex_unlock(&sh->spill_mu);
	return rc;
}

/* ---- the end ---------------------------------------------------------------- */

/* File cursors over the runs, each a buffer of its share of the limit. */
static int run_cursors(struct gshared *sh, struct cursor *c, size_t *at)
{
	uint64_t share = sh->limit / 4 / sh->nruns;
	size_t cap = share > IO_BYTES ? IO_BYTES / sh->rec : (size_t)share / sh->rec;

	if (cap < 16)
		cap = 16;
	for (size_t r = 0; r < sh->nruns; r++) {
		c[*at] = (struct cursor){ .off = sh->runs[r].off,
					  .left = sh->runs[r].n, .cap = cap };
		if (!(c[*at].buf = malloc(cap * sh->rec))) {
			errno = ENOMEM;
			return -1;
		}
		if (advance(sh, &c[(*at)++]) < 0)
			return -1;
	}
	return 0;
}

int gs_final(const struct gs_job *job, struct gshared *sh)
{
	size_t n = 0, old = sh->nruns;
	uint64_t done, wides = sh->wides_out;
	struct cursor *c;
	bool mem = false;

	if (!job)
		job = sh->job;
	if (atomic_load(&sh->err))
		return -1;
	for (unsigned p = 0; p < sh->nparts; p++)
		mem |= sh->part[p].t.n > 0;
	if (!old || (old == 1 && !mem))
		return 0;
	c = calloc(old + sh->nparts, sizeof(*c));
	if (!c)
		return failed(sh, ENOMEM);
	done = sh->end;		/* the runs read end here */
	if (run_cursors(sh, c, &n) < 0 || part_cursors(sh, c, &n) < 0 ||
	    run_of(job, sh, c, n) < 0) {
		/* equal keys' sums were merged and freed half-way */
		sh->broken = true;
		free_cursors(c, n);
		return failed(sh, errno);
	}
	free_cursors(c, n);
	sh->runs[0] = sh->runs[old];
	sh->nruns = 1;
	sh->spilled = sh->runs[0].n;
	sh->wides_out -= wides;		/* the merged run's alone */
	sh->win_n = 0;
	if (clear_parts(sh) < 0)
		return -1;
	/* the disk holds one copy: the runs read are let go */
	spill_punch(sh->fd, 0, done);
	return 0;
}

bool gs_window(struct gshared *sh, uint64_t id)
{
	uint64_t n = sh->runs[0].n;
	size_t k;

	if (id >= sh->win_lo && id - sh->win_lo < sh->win_n)
		return true;
	/* after a failed read, no more: the rows stop at the first */
	if (atomic_load(&sh->err))
		return false;
	if (!sh->win) {
		sh->win_cap = IO_BYTES / sh->rec ? IO_BYTES / sh->rec : 1;
		if (!(sh->win = malloc(sh->win_cap * sh->rec))) {
			failed(sh, ENOMEM);
			return false;
		}
	}
	/* a walk on from the window reads a whole window; a jump (rows in
	 * another order than the run's: text keys by their bytes) a page's
	 * records, else every row read a window of the file */
	k = (sh->win_n && id == sh->win_lo + sh->win_n) || id == 0 ?
	    (size_t)sh->win_cap : JUMP_BYTES / sh->rec ? JUMP_BYTES / sh->rec : 1;
	if (k > sh->win_cap)
		k = (size_t)sh->win_cap;
	if (n - id < k)
		k = (size_t)(n - id);
	sh->win_n = 0;
	if (id >= n || spill_read(sh->fd, sh->win, k * sh->rec,
				sh->runs[0].off + id * sh->rec) < 0) {
		failed(sh, id >= n ? EINVAL : errno);
		return false;
	}
	sh->win_lo = id;
	sh->win_n = k;
	return true;
}
