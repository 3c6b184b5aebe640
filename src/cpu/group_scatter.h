/*
 * group_scatter.h - --by's fold for many keys (group_scatter.c): a
 * thread's records sent straight to the run's table, by partition.
 *
 * A thread's own table pays while its keys repeat; with more distinct
 * keys than it holds, every record became a key of its own, merged into
 * the run's table a second time. Here a thread instead copies each
 * record (its order keys, then its values) into a buffer of the key's
 * partition of the run's table (group_shared.h); a full buffer is folded
 * into that partition under its lock, the partition's memory loaded ahead
 * of the lookups (ktable_find). Folding a partition's records into its
 * payloads is what the thread's table and the merge did, in another
 * order: the sums are exact, so the bits are the same.
 */
#ifndef GROUP_SCATTER_H
#define GROUP_SCATTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "group_shared.h"

/* Fold n entries (ents, esize bytes each: the order keys, then the
 * values) into t's payloads idx[0..n) (the entries' keys' own): false,
 * out of memory. *wides counts the ksums it widened (their xsums). */
typedef bool (*gscatter_fold)(void *ctx, const struct gs_job *job,
			      struct ktable *t, const unsigned char *ents,
			      size_t esize, size_t n, const uint32_t *idx,
			      unsigned *wides);

struct gscatter {
	const struct gs_job *job;
	struct gshared *sh;
	gscatter_fold fold;
	void *ctx;			/* fold's, set by each call */
	size_t esize;			/* an entry's bytes, a multiple of 8 */
	bool hashed;			/* an entry's last word's high half:
					 * its key's hash's low 32 bits
					 * (group_fold.c's entries) */
	size_t batch, cap;		/* a partition's flush, its room */
	unsigned char *buf;		/* nparts * cap entries */
	uint32_t *n;			/* entries per partition */
	uint64_t *h;			/* a flush's scratch: cap each */
	uint32_t *idx;
};

/* The bytes of a thread's buffers into sh for entries of vbytes of
 * values after the keys, within budget bytes (budget 0, or one too small
 * for the smallest batch: that batch's). */
uint64_t gscatter_bytes(const struct gshared *sh, size_t vbytes,
			uint64_t budget);
/* Those buffers, folded by fold; NULL: out of memory. */
struct gscatter *gscatter_new(const struct gs_job *job, struct gshared *sh,
			      size_t vbytes, uint64_t budget,
			      gscatter_fold fold);
void gscatter_free(struct gscatter *s);

/* The partition of key (sh->kw order keys) and its next entry's room. */
static inline unsigned gscatter_part(const struct gscatter *s,
				     const uint64_t *key)
{
	return gs_part(s->sh, s->sh->kw == 1 ? ktable_hash1(key[0]) :
			      ktable_hash(key, s->sh->kw));
}

static inline unsigned char *gscatter_room(struct gscatter *s, unsigned p)
{
	return s->buf + ((size_t)p * s->cap + s->n[p]) * s->esize;
}

/* Partition p's buffer at its batch or more: folded if its lock is
 * free (or the buffer full), else left to fill (gscatter_push's result). */
bool gscatter_full(struct gscatter *s, unsigned p);

/* The entry written at gscatter_room(s, p) taken: true, or false where a
 * fold failed: the run's table has the error (a spill's), or, where it
 * has none, out of memory. Every partition's entries are then dropped
 * (the run has failed). */
static inline bool gscatter_push(struct gscatter *s, unsigned p)
{
	return ++s->n[p] < s->batch || gscatter_full(s, p);
}

/* Every buffer folded (the end of a call): as gscatter_push. */
bool gscatter_drain(struct gscatter *s);

#endif
