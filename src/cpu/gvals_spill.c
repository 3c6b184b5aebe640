/*
 * gvals_spill.c - the collected records of quantile, median and mode with
 * --by past the memory limit (gvals.h): sorted runs in one temp file of the
 * process (spill_io.h), merged by key at the end into one sorted run that
 * the results read mapped. Runs are placed by an atomic offset, so threads
 * spill at once; an accumulator owns its runs (merging moves them) and
 * punches them out when freed.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "gvals.h"
#include "kheap.h"
#include "spill_io.h"

#define IO_BYTES (1u << 20)	/* a cursor's buffer at most, and the writer's */

static pthread_mutex_t file_mu = PTHREAD_MUTEX_INITIALIZER;
static int file_fd = -1;
static _Atomic uint64_t file_end;

static int spill_fd(void)
{
	pthread_mutex_lock(&file_mu);
	if (file_fd < 0)
		file_fd = spill_tmpfile();
	pthread_mutex_unlock(&file_mu);
	return file_fd;
}

/* Room for bytes at the file's end, from an offset aligned to align. */
static uint64_t place(uint64_t bytes, uint64_t align)
{
	uint64_t off = atomic_fetch_add(&file_end, bytes + align - 1);

	return (off + align - 1) / align * align;
}

static int add_run(struct gvals_acc *g, uint64_t off, uint64_t n)
{
	struct gvals_run *r = realloc(g->runs, (g->nruns + 1) * sizeof(*r));

	if (!r) {
		errno = ENOMEM;
		return -1;
	}
	g->runs = r;
	g->runs[g->nruns++] = (struct gvals_run){ off, n };
	g->spilled += n;
	return 0;
}

int gvals_spill(const struct gs_job *job, struct gvals_acc *g)
{
	struct gvals_form f = gvals_form_of(job);
	size_t w = f.w, bytes = g->n * w * sizeof(*g->w);
	uint64_t *tmp, off;
	int fd = spill_fd();

	if (fd < 0)
		return -1;
	if (!g->n)
		return 0;
	if (!(tmp = malloc(bytes)) ||
	    !gvals_sort(g->w, tmp, g->n, w, f.nk, f.ks)) {
		free(tmp);
		errno = ENOMEM;
		return -1;
	}
	free(tmp);
	off = place(bytes, 8);
	if (spill_write(fd, g->w, bytes, off) < 0 || add_run(g, off, g->n) < 0)
		return -1;
	g->n = 0;
	return 0;
}

void gvals_release(const struct gs_job *job, struct gvals_acc *g)
{
	size_t rb = gvals_width(job) * sizeof(uint64_t);

	for (size_t i = 0; i < g->nruns; i++)
		spill_punch(file_fd, g->runs[i].off, g->runs[i].n * rb);
	free(g->runs);
	g->runs = NULL;
	g->nruns = 0;
	g->spilled = 0;
	if (g->map)
		munmap(g->map, g->map_bytes);
	g->map = NULL;
	g->map_bytes = 0;
}

/* ---- the merge ------------------------------------------------------------ */

struct cursor {
	struct kcur k;		/* the record, key first; NULL: done */
	uint64_t off, left;	/* records of the run still in the file */
	uint64_t *buf;
	size_t cap, bn, bi;	/* records */
};

static int advance(struct cursor *c, size_t w)
{
	if (c->bi == c->bn) {
		size_t k = c->left < c->cap ? (size_t)c->left : c->cap;

		c->k.key = NULL;
		if (!k)
			return 0;
		if (spill_read(file_fd, c->buf, k * w * sizeof(*c->buf),
			       c->off) < 0)
			return -1;
		c->off += (uint64_t)k * w * sizeof(*c->buf);
		c->left -= k;
		c->bn = k;
		c->bi = 0;
	}
	c->k.key = c->buf + c->bi++ * w;
	return 0;
}

/* g's runs merged by key into `total` records at off; *longest: the most
 * records of one key. 0, or -1 with errno. */
static int merge(const struct gs_job *job, struct gvals_acc *g, uint64_t off,
		 uint64_t *longest)
{
	struct gvals_form f = gvals_form_of(job);
	size_t w = f.w, nk = f.nk, rb = w * 8;
	size_t n = g->nruns, cap, wcap = IO_BYTES / rb ? IO_BYTES / rb : 1;
	uint64_t share = job->group->limit / 4 / n, run = 0;
	struct cursor *c = calloc(n, sizeof(*c));
	struct kcur **h = calloc(n, sizeof(*h));
	uint64_t *out = malloc(wcap * rb), *last = malloc(nk * 8);
	size_t on = 0;
	bool have = false;	/* last holds the last record's key */
	int rc = 0;

	cap = share > IO_BYTES ? IO_BYTES / rb : (size_t)(share / rb);
	if (cap < 16)
		cap = 16;
	if (!c || !h || !out || !last) {
		errno = ENOMEM;
		rc = -1;
	}
	for (size_t i = 0; rc == 0 && i < n; i++) {
		c[i] = (struct cursor){ .off = g->runs[i].off,
					.left = g->runs[i].n, .cap = cap };
		h[i] = &c[i].k;
		if (!(c[i].buf = malloc(cap * rb))) {
			errno = ENOMEM;
			rc = -1;
		} else {
			rc = advance(&c[i], w);
		}
	}
	if (rc == 0)
		kheap_make(h, n, nk);
	*longest = 0;
	while (rc == 0 && n) {
		if (on == wcap) {
			rc = spill_write(file_fd, out, on * rb, off);
			off += on * rb;
			on = 0;
			if (rc)
				break;
		}
		/* the heap orders packed records by their whole word: a key's
		 * records still come together */
		run = have && gvals_same_key(&f, last, h[0]->key) ? run + 1 : 1;
		*longest = run > *longest ? run : *longest;
		memcpy(last, h[0]->key, nk * 8);
		have = true;
		memcpy(out + on++ * w, h[0]->key, rb);
		rc = advance((struct cursor *)h[0], w);
		if (!h[0]->key)
			h[0] = h[--n];
		kheap_sift(h, n, 0, nk);
	}
	if (rc == 0 && on)
		rc = spill_write(file_fd, out, on * rb, off);
	for (size_t i = 0; c && i < g->nruns; i++)
		free(c[i].buf);
	free(c);
	free(h);
	free(out);
	free(last);
	return rc;
}

static double mib(uint64_t n)
{
	return (double)n / (double)((uint64_t)1 << 20);
}

/* The most records of one key among the n sorted records at w. */
static uint64_t longest_key(const uint64_t *w, size_t n,
			    const struct gvals_form *f)
{
	uint64_t most = 0, run = 0;
	size_t wd = f->w;

	for (size_t i = 0; i < n; i++) {
		run = i && gvals_same_key(f, w + i * wd, w + (i - 1) * wd) ?
		      run + 1 : 1;
		most = run > most ? run : most;
	}
	return most;
}

int gvals_longest_fits(uint64_t longest, uint64_t limit, struct gs_err *err)
{
	if (longest * 16 <= limit)
		return 0;
	return gs_fail(err, GS_ERUNTIME, "--by", "one key's %llu records need "
		       "%.2f MiB to sort its values, over the limit of %.2f MiB",
		       (unsigned long long)longest, mib(longest * 16),
		       mib(limit));
}

int gvals_sorted(const struct gs_job *job, struct gvals_acc *g, int threads,
		 const uint64_t **w, size_t *n, struct gs_err *err)
{
	struct gvals_form f = gvals_form_of(job);
	size_t rb = f.w * 8;
	uint64_t limit = job->group->limit, total, longest = 0, off, at;
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *map;

	/* the sort's second copy of the records counts as theirs did */
	if (!g->nruns && (uint64_t)gvals_held(g) * rb * 2 <= limit) {
		if (gvals_sort_held(job, g, threads) < 0)
			return gs_fail(err, GS_ERUNTIME, "", "out of memory");
		*w = g->w;
		*n = g->n;
		return 0;
	}
	/* g stays every record, as one sorted run (--per-file merges an
	 * operand's accumulator into the total after its result) */
	if (g->map)
		munmap(g->map, g->map_bytes);
	g->map = NULL;
	total = g->spilled + gvals_held(g);
	if (gvals_join(job, g, true) < 0 || gvals_spill(job, g) < 0)
		goto failed;
	if (g->nruns > 1) {
		off = place(total * rb, 8);
		if (merge(job, g, off, &longest) < 0)
			goto failed;
		/* the runs read are let go: the disk holds one copy */
		for (size_t i = 0; i < g->nruns; i++)
			spill_punch(file_fd, g->runs[i].off, g->runs[i].n * rb);
		g->runs[0] = (struct gvals_run){ off, total };
		g->nruns = 1;
	}
	if (page <= 0)
		page = 4096;
	off = g->runs[0].off;
	at = off / (uint64_t)page * (uint64_t)page;	/* mmap's alignment */
	map = mmap(NULL, off - at + total * rb, PROT_READ, MAP_PRIVATE,
		   file_fd, (off_t)at);
	if (map == MAP_FAILED)
		goto failed;
	g->map = map;
	g->map_bytes = off - at + total * rb;
	*w = (const uint64_t *)(map + (off - at));
	*n = total;
	if (!longest)
		longest = longest_key(*w, total, &f);
	return gvals_longest_fits(longest, limit, err);
failed:
	return gs_fail(err, GS_ERUNTIME, "--by", "%llu records of every key's "
		       "values need %.2f MiB, over half the limit of %.2f MiB, "
		       "and spilling them to %s failed: %s",
		       (unsigned long long)total, mib(total * rb), mib(limit),
		       spill_dir(), strerror(errno));
}
