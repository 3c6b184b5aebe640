/*
 * gvals_hostdev.c - a device for gvals.h's records that is host memory,
 * for the tests of the host's side of records on a device on machines
 * without a GPU (tests/test_gvals_dev.sh).
 *
 * GPUSTAT_GVALS_HOSTDEV=WORDS makes the CPU backend collect the packed
 * form's records of a job the GPU would take into one of these, as the
 * CUDA backend collects them into a GPU's memory (cuda/gvals_kernels.cu):
 * at most WORDS words, the room a GPU's memory gives, read back to the
 * host when a chunk finds no room, then gvals_dev_place, the merges' moves
 * and appends (which fail past WORDS, as on a full device), gvals_dev_runs
 * and gvals_dev_cells on it. Its ops do what the device's do, by the
 * plainest code: a sort of the whole words, runs by their keys, a run's
 * NaNs its words of value UINT32_MAX.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "gvals.h"

struct hostdev {
	struct gvals_dev pub;
	uint64_t *w;
	uint64_t cap, room;
};

static int no_room(struct gs_err *err, uint64_t n)
{
	return gs_fail(err, GS_ERUNTIME, "hostdev", "no room on the device "
		       "for %llu more records", (unsigned long long)n);
}

/* Room for need words (at most v->room): the array grown by doubling. */
static bool grow(struct hostdev *v, uint64_t need)
{
	uint64_t cap = v->cap ? v->cap : 1024, *w;

	if (need > v->room)
		return false;
	if (need <= v->cap)
		return true;
	while (cap < need)
		cap *= 2;
	cap = cap > v->room ? v->room : cap;
	if (!(w = realloc(v->w, cap * sizeof(*w))))
		return false;
	v->w = w;
	v->cap = cap;
	return true;
}

static int cmp_words(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static int hd_runs(struct gvals_dev *d, bool vfloat, struct gvals_dev_runs *r,
		   struct gs_err *err)
{
	struct hostdev *v = (struct hostdev *)d;
	uint64_t n = v->pub.n, nrun = 0;

	*r = (struct gvals_dev_runs){ 0 };
	qsort(v->w, n, sizeof(*v->w), cmp_words);
	for (uint64_t i = 0; i < n; i++)
		nrun += i == 0 || v->w[i] >> 32 != v->w[i - 1] >> 32;
	r->word = malloc(nrun * 8 + 1);
	r->first = malloc(nrun * 8 + 1);
	r->n = malloc(nrun * 8 + 1);
	r->nan = malloc(nrun * 8 + 1);
	if (!r->word || !r->first || !r->n || !r->nan) {
		free(r->word);
		free(r->first);
		free(r->n);
		free(r->nan);
		*r = (struct gvals_dev_runs){ 0 };
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	}
	r->nrun = nrun;
	for (uint64_t i = 0, k = 0; i < n; k++) {
		uint64_t e = i;

		r->word[k] = v->w[i];
		r->first[k] = i;
		r->nan[k] = 0;
		for (; e < n && v->w[e] >> 32 == v->w[i] >> 32; e++)
			r->nan[k] += vfloat && (uint32_t)v->w[e] == UINT32_MAX;
		r->n[k] = e - i;
		i = e;
	}
	return 0;
}

static int hd_gather(struct gvals_dev *d, const uint64_t *at, size_t n,
		     uint64_t *out, struct gs_err *err)
{
	struct hostdev *v = (struct hostdev *)d;

	for (size_t i = 0; i < n; i++) {
		if (at[i] >= v->pub.n)
			return gs_fail(err, GS_ERUNTIME, "hostdev", "rank %llu "
				       "of %llu words", (unsigned long long)at[i],
				       (unsigned long long)v->pub.n);
		out[i] = v->w[at[i]];
	}
	return 0;
}

static int hd_put(struct gvals_dev *d, const uint64_t *w, size_t n,
		  struct gs_err *err)
{
	struct hostdev *v = (struct hostdev *)d;

	if (!grow(v, v->pub.n + n))
		return no_room(err, n);
	if (n)
		memcpy(v->w + v->pub.n, w, n * sizeof(*w));
	v->pub.n += n;
	return 0;
}

static int hd_append(struct gvals_dev *d, struct gvals_dev *src,
		     struct gs_err *err)
{
	struct hostdev *s = (struct hostdev *)src;

	if (hd_put(d, s->w, s->pub.n, err) < 0)
		return -1;
	s->pub.n = 0;
	return 0;
}

static int hd_take(struct gvals_dev *d, uint64_t at, size_t n, uint64_t *out,
		   struct gs_err *err)
{
	struct hostdev *v = (struct hostdev *)d;

	if (at + n > v->pub.n)
		return gs_fail(err, GS_ERUNTIME, "hostdev", "words past the end");
	if (n)
		memcpy(out, v->w + at, n * sizeof(*out));
	return 0;
}

static void hd_release(struct gvals_dev *d)
{
	struct hostdev *v = (struct hostdev *)d;

	free(v->w);
	free(v);
}

static const struct gvals_dev_ops hostdev_ops = {
	hd_runs, hd_gather, hd_put, hd_append, hd_take, hd_release,
};

uint64_t gvals_hostdev_room(void)
{
	const char *env = getenv("GPUSTAT_GVALS_HOSTDEV");
	char *end;
	unsigned long long v;

	/* digits alone, and at most what a size_t array holds */
	if (!env || *env < '0' || *env > '9')
		return 0;
	v = strtoull(env, &end, 10);
	return *end || v > SIZE_MAX / 16 ? 0 : v;
}

uint64_t *gvals_hostdev_tail(const struct gs_job *job, struct gvals_acc *g,
			     uint64_t room, size_t m)
{
	struct hostdev *v = (struct hostdev *)g->dev;

	if (g->failed || (v && v->pub.ops != &hostdev_ops))
		return NULL;
	if (!v) {
		if (!(v = calloc(1, sizeof(*v))))
			return NULL;
		v->pub.ops = &hostdev_ops;
		v->room = room;
		g->dev = &v->pub;
	}
	if (v->pub.n + m > v->room) {	/* full: its words to the host */
		if (!gvals_dev_take(job, g, &v->pub))
			return NULL;
		v->pub.n = 0;
	}
	if (!grow(v, v->pub.n + m))
		return NULL;
	v->pub.n += m;
	return v->w + v->pub.n - m;
}
