/*
 * gvals_pick.h - a key's order statistics among its collected values
 * (gvals_out.c): selection on a copy of the values (quickselect), or, for
 * a long run, by the values' top bits read where the records are, so
 * that only the few values in the wanted buckets are copied; or, records
 * on a device, by reading back the words at the ranks alone.
 */
#ifndef GVALS_PICK_H
#define GVALS_PICK_H

#include "gvals.h"
#include "quantile_math.h"

/* Runs of at least this many values take the radix path first. */
#define GVALS_RADIX_MIN 256

/* v[0, n) sorted, by insertion (for few values). */
void gvals_isort(uint64_t *v, size_t n);
/* v[lo, hi) rearranged so that v[k] is the element a sort puts there,
 * none after it smaller and none before it larger (tmp: as many). */
void gvals_nth(uint64_t *v, uint64_t *tmp, size_t lo, size_t hi, size_t k);
/* Each rank the nq picks read (lo and hi, those below m) brought to its
 * place in v[0, m) by gvals_nth. */
void gvals_pick_ranks(uint64_t *v, uint64_t *tmp, size_t m,
		      const struct qpick *picks, unsigned nq);

/* Column j of a key's n records at rec (form f, wd words apart), its
 * values' select keys of `bits` bits (NaN: GVALS_NAN where fl). */
struct gvals_col {
	const struct gvals_form *f;
	const uint64_t *rec;
	size_t wd, n;
	unsigned j, bits;
	unsigned rb;		/* the radix path's bits: GVALS_RADIX_BITS at most */
	bool fl;
};

/* Counts of the top rb bits of c's values into h (1 << c->rb of them;
 * NaNs left out): the NaNs' count. */
#define GVALS_RADIX_BITS 11
uint64_t gvals_col_hist(const struct gvals_col *c, uint64_t *h);
/* The elements of ranks rk[0, nr) (ascending, below the non-NaN count)
 * into key[], from h (gvals_col_hist's): the values in the buckets that
 * hold a rank copied into v (tmp: as many) and selected there. false
 * when those buckets hold over half the values (nothing to gain: the
 * caller selects on a copy of them all). */
bool gvals_col_ranks(const struct gvals_col *c, const uint64_t *h,
		     const uint64_t *rk, unsigned nr, uint64_t *v,
		     uint64_t *tmp, uint64_t *key);

/* Records on a device (gvals.h): sorted there and their runs into r (its
 * arrays the caller's to free, also on failure); past half the limit,
 * each key's values must fit it, as on the CPU. 0, or -1 with err set. */
int gvals_dev_runs(struct gvals_dev *d, const struct gvals_form *f,
		   uint64_t limit, struct gvals_dev_runs *r, struct gs_err *err);
/* Records on a device (gvals.h), its runs r found: each run's cells
 * [run][q] of quantile state qs (values of type t, form f), the ranks
 * computed here (on pool's threads; NULL: this one) and the words there
 * read back in batches. 0, or -1 with err set. */
struct quantile_state;
struct qcell;
struct pool;
int gvals_dev_cells(struct gvals_dev *d, const struct gvals_form *f,
		    enum gs_type t, const struct quantile_state *qs,
		    const struct gvals_dev_runs *r, struct qcell *cells,
		    struct pool *pool, struct gs_err *err);

#endif
