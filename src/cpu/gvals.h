/*
 * gvals.h - the accumulator of a group-by of quantile, median and mode
 * (--by COLS, cpu_gvals.c): every record's key and values, to be sorted.
 *
 * A record is kept as nkeys + nvals words: each key column's order key
 * (ktable.h: integers and floats by value, -0 and +0 one key, every NaN
 * one key after +inf), then each value column's select key (select.h:
 * its value's order in its own type, -0 as +0), a NaN of a float column
 * as GVALS_NAN, above every other key of its type; or, one key and one
 * value of 32 bits at most, both in one word (struct gvals_form). Threads
 * collect their own records and merging appends them (their arrays moved
 * over as parts, joined at the end), so the collection is the same
 * multiset whatever the threads and chunks; the result sorts it (by key,
 * then each key's values), which makes every order the same.
 *
 * The records' bytes count against job->group->limit, all threads
 * together: past half of it (the other half is the sort's) a thread sorts
 * its records by key and writes them as a run to a temp file in $TMPDIR
 * (gvals_spill.c), keeping at least GVALS_SLICE records in memory. At the
 * end the runs are merged by key into one sorted run that the results read
 * mapped, so a key's values are together; one key's values must fit in the
 * limit (16 bytes a value to sort), or the result fails naming them. A
 * spill that fails fails the accumulator (acc_error), naming the records,
 * the memory and the error.
 */
#ifndef GVALS_H
#define GVALS_H

#include "acc.h"

#define GVALS_NAN UINT64_MAX

#define GVALS_SLICE 1024	/* records added at a time; a thread holds as many */

struct gvals_run {
	uint64_t off, n;	/* n records, sorted, at byte off of the file */
};

struct gvals_part {
	uint64_t *w;		/* n records; cap allocated */
	size_t n, cap;
};

struct gvals_dev;

struct gvals_acc {
	struct gvals_dev *dev;	/* more records, on a device (NULL: none) */
	uint64_t *w;		/* n records of nkeys + nvals words */
	size_t n, cap;
	struct gvals_part *parts;	/* more arrays, moved over by merges */
	size_t nparts;
	struct gvals_run *runs;	/* spilled, in the spill file */
	size_t nruns;
	uint64_t spilled;	/* records in runs */
	void *map;		/* the merged run, mapped (gvals_sorted) */
	size_t map_bytes;
	int threads;		/* the sort's, to free the array on */
	int failed;		/* 0, or why it stopped */
	int err;		/* a failed spill's errno */
	char why[160];		/* a failed device's error */
	uint64_t fail_n, fail_bytes;
};

/* How job's records are laid out. The common shape, one key column of an
 * integer type of at most 32 bits and one value column of at most 32
 * bits, is packed in one word: key << 32 | value, the key its order key
 * less its type's least (kbias), the value its select key (a float
 * column's NaN: UINT32_MAX, above every other key of its type). Half the
 * bytes to collect, sort and read; the words compare as (key, value). */
struct gvals_form {
	size_t w;		/* words per record */
	size_t nk;		/* key words the sort and merges compare */
	unsigned ks;		/* a key word's key: its bits from ks up */
	uint64_t kbias;		/* packed: the key's order key less this */
	bool packed, vfloat;	/* vfloat: the packed value is a float's */
};

struct gvals_form gvals_form_of(const struct gs_job *job);
/* Why the GPU (cuda/gvals_kernels.cu) cannot collect job's records: not
 * the packed form, or big-endian mixed records; NULL where it can. */
const char *gvals_gpu_refusal(const struct gs_job *job);
/* Whether --backend auto may collect job's records on a GPU: quantile and
 * median (gs_group.ranks) that the GPU can collect; why[n] says what it
 * found. */
bool gvals_gpu_auto(const struct gs_job *job, char *why, size_t n);

/* Words per record of job. */
static inline size_t gvals_width(const struct gs_job *job)
{
	return gvals_form_of(job).w;
}

/* Whether records a and b (sorted, of form f) have the same key. */
static inline bool gvals_same_key(const struct gvals_form *f,
				  const uint64_t *a, const uint64_t *b)
{
	if (f->nk == 1)
		return (a[0] ^ b[0]) >> f->ks == 0;
	for (size_t k = 0; k < f->nk; k++)
		if (a[k] != b[k])
			return false;
	return true;
}

/* Record r's key column k as its order key (ktable.h). */
static inline uint64_t gvals_rec_key(const struct gvals_form *f,
				     const uint64_t *r, unsigned k)
{
	return f->packed ? (r[0] >> 32) + f->kbias : r[k];
}

/* Record r's value column j as its select key (NaN: GVALS_NAN). */
static inline uint64_t gvals_rec_val(const struct gvals_form *f,
				     const uint64_t *r, unsigned j)
{
	uint64_t v = r[0] & UINT32_MAX;

	if (!f->packed)
		return r[f->nk + j];
	return f->vfloat && v == UINT32_MAX ? GVALS_NAN : v;
}

/* Sort n records of w words at a by their first nk words, as unsigned
 * lexicographic keys, each word's bits from ks up (LSD radix over the
 * bytes that differ; tmp holds n records too). false: no memory to count
 * in (nk > 1). */
bool gvals_sort(uint64_t *a, uint64_t *tmp, size_t n, size_t w, size_t nk,
		unsigned ks);
/* g's records in memory (its parts joined) sorted by key on threads
 * threads (each pass's slices counted and scattered apart, offsets thread
 * by thread within a bucket: the same order), in whichever array the
 * sort ends in (the other freed): 0, or -1 when out of memory (the run
 * fails; g's records may be gone). */
int gvals_sort_held(const struct gs_job *job, struct gvals_acc *g,
		    int threads);

/* cpu_gvals.c, for the sort: an array of n records of rb bytes counted
 * against the limit (NULL: no memory); such an array freed (bytes of it);
 * g's arrays freed. Big arrays' pages are let go on pool's threads first
 * (NULL: none). */
struct pool;
uint64_t *gvals_array(size_t n, size_t rb);
void gvals_array_free(struct pool *pool, uint64_t *p, size_t bytes);
void gvals_let_go(const struct gs_job *job, struct gvals_acc *g,
		  struct pool *pool);

/* The records g holds in memory: its array's and its parts'. */
size_t gvals_held(const struct gvals_acc *g);
/* g's parts into its array, copied (spill false: the sort on one
 * thread, of few records), or each spilled as a run (true); the parts
 * then freed. 0, or -1 with errno. */
int gvals_join(const struct gs_job *job, struct gvals_acc *g, bool spill);

/* gvals_spill.c: g's records sorted and written as a run, g emptied: 0,
 * or -1 with errno. */
int gvals_spill(const struct gs_job *job, struct gvals_acc *g);
/* Every record of g, the runs' and memory's, sorted by key: *w and *n,
 * valid until gvals_release or the next call. In memory where nothing
 * spilled and the sort's copy fits the limit, else merged from the runs
 * into one run, mapped; g keeps every record either way (it may be merged
 * on). 0, or -1 with err set. */
int gvals_sorted(const struct gs_job *job, struct gvals_acc *g, int threads,
		 const uint64_t **w, size_t *n, struct gs_err *err);
/* g's runs let go (the file's space punched out) and its map unmapped. */
void gvals_release(const struct gs_job *job, struct gvals_acc *g);

/* ---- records on a device ------------------------------------------------- */

/* The packed form's records held in a device's memory (the CUDA backend
 * collects them there: cuda/gvals_kernels.cu), so that quantile and median
 * sort them there and read back only each key's run and the words at the
 * ranks they pick. The host code sees it through ops alone (a build
 * without CUDA never makes one). Each call is 0, or -1 with err set (the
 * records still held where they were). */
struct gvals_dev_runs {
	size_t nrun;
	uint64_t *word;		/* [run] its first word (the key: word >> 32) */
	uint64_t *first, *n;	/* [run] where it starts in the sorted words,
				 * and its records */
	uint64_t *nan;		/* [run] its NaNs (words of value UINT32_MAX
				 * where vfloat; else 0) */
};
struct gvals_dev_ops {
	/* d's n words sorted (as whole words: by key, then value) and their
	 * runs of one key into r (malloc'ed arrays, the caller's to free). */
	int (*runs)(struct gvals_dev *d, bool vfloat, struct gvals_dev_runs *r,
		    struct gs_err *err);
	/* The sorted words at[0, n) into out (after runs). */
	int (*gather)(struct gvals_dev *d, const uint64_t *at, size_t n,
		      uint64_t *out, struct gs_err *err);
	/* n more words from the host at w. */
	int (*put)(struct gvals_dev *d, const uint64_t *w, size_t n,
		   struct gs_err *err);
	/* src's words appended to d's (src emptied, not freed). */
	int (*append)(struct gvals_dev *d, struct gvals_dev *src,
		      struct gs_err *err);
	/* Words [at, at + n) into the host at out. */
	int (*take)(struct gvals_dev *d, uint64_t at, size_t n, uint64_t *out,
		    struct gs_err *err);
	void (*release)(struct gvals_dev *d);
};
struct gvals_dev {
	const struct gvals_dev_ops *ops;
	uint64_t n;		/* words held */
};

/* n words of the packed form added to g as its kernel adds them (counted
 * against the limit, spilled past it): false once g failed. */
bool gvals_add_words(const struct gs_job *job, struct gvals_acc *g,
		     const uint64_t *w, size_t n);
/* d's words added to g (d keeps them: the caller empties or releases
 * it): false once g failed (a read back that failed fails g, naming the
 * device's error). */
bool gvals_dev_take(const struct gs_job *job, struct gvals_acc *g,
		    struct gvals_dev *d);
/* Whether the values of a key of `longest` records fit the limit to be
 * selected (16 bytes each), as they must where the records did not (the
 * merged runs' keys, gvals_spill.c; on a device, past half the limit):
 * 0, or -1 with err naming them. */
int gvals_longest_fits(uint64_t longest, uint64_t limit, struct gs_err *err);
/* Where g's records are to be read (g->dev set; cpu_gvals.c): on the
 * device where want (quantile and median of the packed form), nothing
 * spilled and the device has room for the host's records too: 1, every
 * record then on the device; else each taken to the host (g->dev
 * released): 0. -1 with err set on a failure. */
int gvals_dev_place(const struct gs_job *job, struct gvals_acc *g, bool want,
		    struct gs_err *err);

/* The tests' device in host memory (gvals_hostdev.c): the words
 * GPUSTAT_GVALS_HOSTDEV gives it room for (0: none), and where m more of
 * g's records go in g's (made at the first call; its words read back to
 * g first where they and m would not fit room): NULL, out of memory or g
 * failed. */
uint64_t gvals_hostdev_room(void);
uint64_t *gvals_hostdev_tail(const struct gs_job *job, struct gvals_acc *g,
			     uint64_t room, size_t m);

/* Key column k's order key as the value it is: .f for a float key, .i
 * or .u by the signedness of an integer key (a NaN key: the quiet NaN). */
union gs_scalar gvals_key(const struct gs_job *job, unsigned k, uint64_t key);

#endif
