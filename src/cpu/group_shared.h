/*
 * group_shared.h - the one table of a group-by run (group_shared.c,
 * group_spill.c): every key's exact payload (struct gcol per value
 * column, cpu_group.h), held once whatever the threads.
 *
 * Threads fold records into small tables of their own (bounded, so they
 * stay in cache) and hand them over here in batches (gs_absorb): the
 * table is partitioned by the keys' hash, a lock per partition, so
 * threads flushing at once mostly take different locks. Its bytes are
 * bounded: past job->group->limit the partitions are written to a temp
 * file under $TMPDIR as one run sorted by order key, and emptied; at the
 * end (gs_final) the runs and what is still in memory are merged, equal
 * keys exactly, into one sorted run that is read back through a window.
 * So memory is the limit plus a window, and the keys' count is bounded
 * by the disk.
 *
 * The file is unlinked as soon as it is made: it never outlives the
 * process. A widened key's xsum (ksum.h) stays on the heap, its record
 * keeping the pointer (rare: counted against the limit while in memory).
 */
#ifndef GROUP_SHARED_H
#define GROUP_SHARED_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include "gs.h"
#include "kheap.h"
#include "ktable.h"

/* Partitions with a limit of 128 MiB or more: many, so that a
 * partition's table stays small enough for a core's L2 while a batch of
 * records folds into it (group_scatter.h): at a million keys of a sum,
 * about 4,000 keys and 330 KB a partition. 256, with group_scatter.c's
 * batches of 4,096, folded a million keys in half the CPU time of 64
 * partitions with batches of 512. */
#define GS_PARTS_MAX 256
#define GS_PART_MIN (256u << 10)	/* a partition's share of the limit, at least */

struct gs_part {
	pthread_mutex_t mu;
	struct ktable t;
};

struct gs_run {
	uint64_t off, n;	/* byte offset, records */
};

struct gshared {
	const struct gs_job *job;	/* the one it was made for */
	size_t kw, psize, rec;	/* key words, payload bytes, record bytes */
	uint64_t limit;
	unsigned nparts;	/* a power of two */
	struct gs_part part[GS_PARTS_MAX];
	_Atomic uint64_t bytes;	/* partitions' and widened keys' in memory */
	_Atomic uint64_t windows;	/* the threads' own arrays (group_fold.c's
				 * windows, cpu_group.c's tables and scatter
				 * buffers): held against the limit, never
				 * spilled */
	_Atomic int refs;
	pthread_mutex_t spill_mu;	/* one spill at a time */
	int fd;			/* -1 until the first spill */
	uint64_t end;		/* the file's length */
	struct gs_run *runs;
	size_t nruns;
	uint64_t spilled;	/* records in runs (a key may be in several) */
	uint64_t wides_out;	/* xsum pointers in the file's records */
	/* the first failure: 0, or an errno (spilling, reading back) */
	_Atomic int err;
	uint64_t err_keys, err_bytes;
	bool broken;		/* a merge stopped half-way: leak, never free twice */
	/* the final run read back: records [win_lo, win_lo + win_n) */
	unsigned char *win;
	uint64_t win_lo, win_n, win_cap;
};

/* The bytes held against sh's limit: its table's and the windows'. */
static inline uint64_t gs_held(struct gshared *sh)
{
	return atomic_load(&sh->bytes) + atomic_load(&sh->windows);
}

/* The partition of the key whose ktable_hash is h. */
static inline unsigned gs_part(const struct gshared *sh, uint64_t h)
{
	return (unsigned)(h >> 56) & (sh->nparts - 1);
}

/* A table for job's grouping, one reference held; NULL: out of memory. */
struct gshared *gs_new(const struct gs_job *job);
void gs_ref(struct gshared *sh);
/* Drop a reference; the last frees the table, the widened keys' xsums
 * and the file. */
void gs_unref(const struct gs_job *job, struct gshared *sh);

/* Merge n keys (keys: n * kw words) with their payloads (n * psize bytes,
 * taken over: a widened ksum moves or is freed) into sh, exactly; order
 * is scratch of n entries or NULL (then allocated). Safe from any number
 * of threads at once. Then spills if sh is past its limit. 0, or -1 with
 * sh->err set (ENOMEM, or the spill's errno). */
int gs_absorb(const struct gs_job *job, struct gshared *sh,
	      const uint64_t *keys, unsigned char *pays, size_t n,
	      uint32_t *order);
/* The payload of key in sh (zeroed if new; *fresh tells), spilling first
 * if sh is past its limit: for one thread alone (state_get, merging a
 * finished state). NULL with sh->err set. */
void *gs_payload(const struct gs_job *job, struct gshared *sh,
		 const uint64_t *key, bool *fresh);
/* Keys held now, in memory and spilled (a spilled key may count twice
 * until gs_final). */
uint64_t gs_keys(struct gshared *sh);

/* ---- the end: every key once, in ascending order ------------------------- */

/* Merge the runs and the memory into one sorted run where sh spilled
 * (once; again after more keys came); job NULL: sh's own. 0, or -1 with
 * sh->err set. */
int gs_final(const struct gs_job *job, struct gshared *sh);
/* Entry ids in ascending key order, *n of them (after gs_final; malloc'd;
 * NULL for none or out of memory: *oom). */
size_t *gs_sorted(struct gshared *sh, size_t *n, bool *oom);
/* The same order one entry at a time, without an index of every key:
 * each partition put in key order (on pool's threads where pool is not
 * NULL: a copy of a partition per thread at once), then merged as they
 * are read (a spilled table's one run is in order already). gs_iter_start:
 * after gs_final; 0, or -1 out of memory (sh's keys unchanged). gs_iter_next:
 * the next entry id into *id, false at the end; gs_iter_rewind: at the
 * first again. The heap points into the iterator: it is not to be copied. */
struct gs_icur {
	struct kcur k;		/* the partition's next key */
	unsigned p;
	size_t at;		/* its next entry */
};
struct gs_iter {
	struct gshared *sh;
	uint64_t next;			/* a spilled table's next record */
	unsigned n;			/* partitions left in the heap */
	struct kcur *heap[GS_PARTS_MAX];	/* by their next key */
	struct gs_icur cur[GS_PARTS_MAX];
};
struct pool;
int gs_iter_start(struct gshared *sh, struct gs_iter *it, struct pool *pool);
void gs_iter_rewind(struct gs_iter *it);
bool gs_iter_next(struct gs_iter *it, uint64_t *id);
/* The next m entry ids into ids, as m calls of gs_iter_next give them (m
 * of them are left). With pool's threads, each merges its share of the m:
 * a search of the partitions' sorted keys finds where the share begins
 * and ends, so the heap's one-at-a-time merge is no thread's alone. */
void gs_iter_take(struct gs_iter *it, uint64_t *ids, size_t m,
		  struct pool *pool);
/* Key and payload of entry id. A spilled table's are read through a
 * window: valid until the next call for another entry. */
const uint64_t *gs_key(struct gshared *sh, uint64_t id);
unsigned char *gs_pay(struct gshared *sh, uint64_t id);
/* Every entry, in no order (after gs_final): fn(ctx, key, payload);
 * false stops. */
bool gs_walk(struct gshared *sh,
	     bool (*fn)(void *ctx, const uint64_t *key, unsigned char *pay),
	     void *ctx);

/* group_spill.c: sh's partitions written as one sorted run and emptied,
 * where sh is past its limit (another thread may have spilled it
 * already). 0, or -1 with sh->err set. */
int gs_spill(const struct gs_job *job, struct gshared *sh);
/* The file's record id into sh->win; false with sh->err set. */
bool gs_window(struct gshared *sh, uint64_t id);

#endif
