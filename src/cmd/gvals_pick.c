/*
 * gvals_pick.c - a key's order statistics among its collected values
 * (gvals_pick.h).
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include "gvals_pick.h"
#include "pool.h"
#include "quantile.h"

void gvals_isort(uint64_t *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		uint64_t x = v[i];
		size_t j = i;

		for (; j && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

/* Quickselect with three-way partitions (runs of equal values cost one
 * pass), its pivot the median of three; past 2 log2 + 8 rounds (a
 * pattern against the pivots) the range left is sorted instead. */
void gvals_nth(uint64_t *v, uint64_t *tmp, size_t lo, size_t hi, size_t k)
{
	unsigned rounds = 8;

	for (size_t m = hi - lo; m > 1; m >>= 1)
		rounds += 2;
	while (hi - lo > 16) {
		uint64_t a = v[lo], b = v[lo + (hi - lo) / 2], c = v[hi - 1];
		uint64_t p = a < b ? (b < c ? b : a < c ? c : a) :
				     (a < c ? a : b < c ? c : b);
		size_t lt = lo, i = lo, gt = hi;

		if (!rounds--) {
			(void)gvals_sort(v + lo, tmp, hi - lo, 1, 1, 0);
			return;
		}
		while (i < gt) {	/* [lo,lt) < p, [lt,i) == p, [gt,hi) > p */
			uint64_t x = v[i];

			if (x < p) {
				v[i++] = v[lt];
				v[lt++] = x;
			} else if (x > p) {
				v[i] = v[--gt];
				v[gt] = x;
			} else {
				i++;
			}
		}
		if (k < lt)
			hi = lt;
		else if (k >= gt)
			lo = gt;
		else
			return;
	}
	gvals_isort(v + lo, hi - lo);
}

/* Each rank once, ascending (a rank's range begins past the one before
 * it: the partitions leave every smaller rank before it). */
void gvals_pick_ranks(uint64_t *v, uint64_t *tmp, size_t m,
		      const struct qpick *picks, unsigned nq)
{
	size_t from = 0;

	for (;;) {
		uint64_t k = UINT64_MAX;

		for (unsigned q = 0; q < nq; q++) {
			if (picks[q].lo >= from && picks[q].lo < k)
				k = picks[q].lo;
			if (picks[q].hi >= from && picks[q].hi < k)
				k = picks[q].hi;
		}
		if (k >= m)
			return;
		gvals_nth(v, tmp, from, m, (size_t)k);
		from = (size_t)k + 1;
	}
}

/* ---- by the values' top bits ----------------------------------------------- */

static unsigned digit_shift(const struct gvals_col *c)
{
	return c->bits > c->rb ? c->bits - c->rb : 0;
}

/* Record i's value: a loop per form, so the packed one's stays tight. */
#define EACH_VALUE(c, x, body) do {					\
	if ((c)->f->packed) {						\
		for (size_t i_ = 0; i_ < (c)->n; i_++) {		\
			uint64_t x = (c)->rec[i_] & UINT32_MAX;		\
			if ((c)->fl && x == UINT32_MAX)			\
				x = GVALS_NAN;				\
			body;						\
		}							\
	} else {							\
		for (size_t i_ = 0; i_ < (c)->n; i_++) {		\
			uint64_t x = gvals_rec_val((c)->f,		\
						   (c)->rec + i_ * (c)->wd, \
						   (c)->j);		\
			body;						\
		}							\
	}								\
} while (0)

uint64_t gvals_col_hist(const struct gvals_col *c, uint64_t *h)
{
	unsigned s = digit_shift(c);
	uint64_t nan = 0;

	for (size_t b = 0; b < ((size_t)1 << c->rb); b++)
		h[b] = 0;
	EACH_VALUE(c, x, {
		if (c->fl && x == GVALS_NAN)
			nan++;
		else
			h[x >> s]++;
	});
	return nan;
}

#define MAX_BUCKETS 256		/* ranks at once: two per quantile */

bool gvals_col_ranks(const struct gvals_col *c, const uint64_t *h,
		     const uint64_t *rk, unsigned nr, uint64_t *v,
		     uint64_t *tmp, uint64_t *key)
{
	unsigned s = digit_shift(c), nb = 0;
	size_t bucket[MAX_BUCKETS], first[MAX_BUCKETS], at[MAX_BUCKETS];
	uint64_t below[MAX_BUCKETS];	/* values in the buckets before */
	uint16_t slot[1u << GVALS_RADIX_BITS];	/* its bucket's place + 1 */
	size_t b = 0, held = 0;
	uint64_t cum = 0;

	if (nr > MAX_BUCKETS)
		return false;
	/* each rank's bucket, ascending: the buckets in order */
	for (unsigned r = 0; r < nr; r++) {
		while (cum + h[b] <= rk[r])
			cum += h[b++];
		if (!nb || bucket[nb - 1] != b) {
			bucket[nb] = b;
			below[nb] = cum;
			first[nb] = held;
			held += h[b];
			nb++;
		}
	}
	if (held > c->n / 2)
		return false;
	for (size_t i = 0; i < ((size_t)1 << c->rb); i++)
		slot[i] = 0;
	for (unsigned k = 0; k < nb; k++) {
		slot[bucket[k]] = (uint16_t)(k + 1);
		at[k] = first[k];
	}
	EACH_VALUE(c, x, {
		unsigned k = c->fl && x == GVALS_NAN ? 0 : slot[x >> s];

		if (k)
			v[at[k - 1]++] = x;
	});
	/* a rank in the bucket of the one before it is looked for past that
	 * one's place (nothing smaller is left after it), as
	 * gvals_pick_ranks does */
	for (unsigned r = 0, k = 0, last = UINT_MAX; r < nr; r++) {
		while (rk[r] >= below[k] + h[bucket[k]])
			k++;
		size_t lo = first[k], at_r = lo + (size_t)(rk[r] - below[k]);

		if (last == k)
			lo = (size_t)(rk[r - 1] - below[k]) + first[k] + 1;
		gvals_nth(v, tmp, lo, first[k] + (size_t)h[bucket[k]], at_r);
		key[r] = v[at_r];
		last = k;
	}
	return true;
}

/* ---- records on a device -------------------------------------------------- */

#define DEV_PICKS ((size_t)1 << 18)	/* picks read back at a time */

int gvals_dev_runs(struct gvals_dev *d, const struct gvals_form *f,
		   uint64_t limit, struct gvals_dev_runs *r, struct gs_err *err)
{
	uint64_t longest = 0;

	if (d->ops->runs(d, f->vfloat, r, err) < 0)
		return -1;
	for (size_t i = 0; i < r->nrun; i++)
		longest = r->n[i] > longest ? r->n[i] : longest;
	/* the CPU would have sorted them apart, in runs (gvals_sorted) */
	if (d->n * 16 > limit && gvals_longest_fits(longest, limit, err) < 0)
		return -1;
	return 0;
}

/* A batch of picks: runs r0 to r1, each's nq quantiles. */
struct devb {
	const struct gvals_dev_runs *r;
	const struct quantile_state *qs;
	const struct gvals_form *f;
	enum gs_type t;
	size_t r0, r1;
	struct qpick *pick;	/* [run - r0][q] */
	uint64_t *at, *v;	/* [2 ([run - r0][q])]: where, and the words */
	struct qcell *cells;	/* [run][q] */
	bool cell;		/* the cells (else the places) */
};

static void devb_task(void *arg, int i, int nt)
{
	const struct devb *b = arg;
	unsigned nq = b->qs->nq;
	size_t m = b->r1 - b->r0;
	size_t lo = b->r0 + m / (size_t)nt * (size_t)i;
	size_t hi = i == nt - 1 ? b->r1 : b->r0 + m / (size_t)nt * (size_t)(i + 1);

	for (size_t r = lo; r < hi; r++) {
		uint64_t k = b->r->n[r] - b->r->nan[r];

		for (unsigned q = 0; q < nq; q++) {
			size_t p = (r - b->r0) * nq + q;
			struct qpick *pk = &b->pick[p];
			struct qcell *c = &b->cells[r * nq + q];

			if (!k && b->cell) {
				c->f = NAN;
				c->is_int = false;
			} else if (b->cell) {
				quantile_cell(b->t, pk,
					      gvals_rec_val(b->f, &b->v[2 * p], 0),
					      gvals_rec_val(b->f, &b->v[2 * p + 1], 0),
					      c);
			} else if (k) {
				qpick_of(b->qs->method, &b->qs->q[q], k, pk);
				b->at[2 * p] = b->r->first[r] + pk->lo;
				b->at[2 * p + 1] = b->r->first[r] + pk->hi;
			} else {	/* nothing to read: the first word */
				b->at[2 * p] = b->at[2 * p + 1] = b->r->first[r];
			}
		}
	}
}

int gvals_dev_cells(struct gvals_dev *d, const struct gvals_form *f,
		    enum gs_type t, const struct quantile_state *qs,
		    const struct gvals_dev_runs *r, struct qcell *cells,
		    struct pool *pool, struct gs_err *err)
{
	size_t per = DEV_PICKS / qs->nq ? DEV_PICKS / qs->nq : 1;
	struct devb b = { .r = r, .qs = qs, .f = f, .t = t, .cells = cells };
	int rc = 0;

	b.pick = malloc(per * qs->nq * sizeof(*b.pick));
	b.at = malloc(2 * per * qs->nq * sizeof(*b.at));
	b.v = malloc(2 * per * qs->nq * sizeof(*b.v));
	if (!b.pick || !b.at || !b.v)
		rc = gs_fail(err, GS_ERUNTIME, "", "out of memory");
	for (b.r0 = 0; rc == 0 && b.r0 < r->nrun; b.r0 = b.r1) {
		b.r1 = r->nrun - b.r0 < per ? r->nrun : b.r0 + per;
		for (int pass = 0; rc == 0 && pass < 2; pass++) {
			b.cell = pass;
			if (pool && b.r1 - b.r0 >= 4096)
				pool_run(pool, devb_task, &b);
			else
				devb_task(&b, 0, 1);
			if (!pass)
				rc = d->ops->gather(d, b.at, 2 * (b.r1 - b.r0) *
						    qs->nq, b.v, err);
		}
	}
	free(b.pick);
	free(b.at);
	free(b.v);
	return rc;
}
