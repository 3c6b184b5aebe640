/*
 * state.h - a command's exact partial result as bytes (-f state) and back
 * (gpustat merge). docs/STATE.md is the format: a text header of
 * "key value" lines that names the command and every option the result
 * depends on, then the accumulator, little-endian.
 */
#ifndef STATE_H
#define STATE_H

#include <sys/types.h>
#include "cli.h"
#include "report.h"

#define STATE_MAGIC "GPUSTATE"
#define STATE_VERSION 1

/* One state read back: what it was computed by and over, and its
 * accumulator (malloc'd, made by acc_init and filled from the bytes). */
struct state {
	char command[24];
	struct gs_job job;
	struct gs_record rec;	/* job.rec points here for a "type" list */
	uint64_t records;
	void *acc;
};

/* c's result, acc after its last pass over c->records records, into b. */
int state_write(const struct cli *c, const void *acc, struct sbuf *b,
		struct gs_err *err);

/* The header at p[0..n) (where: its place, for messages) into s, cleared
 * first, and *payload the length of the payload after it: the header's
 * bytes, or -1 with err filled (not a state, another version, truncated,
 * an impossible header). */
ssize_t state_header(const unsigned char *p, size_t n, const char *where,
		     struct state *s, uint64_t *payload, struct gs_err *err);
/* A payload of a length the header's options set (every state's but a
 * group-by's: state_load.c reads those a key at a time), at p[0..n), into
 * s->acc (made here). -1 with err filled: cut short, not what a run
 * makes. */
int state_payload(struct state *s, const unsigned char *p, size_t n,
		  uint64_t payload, const char *where, struct gs_err *err);
/* The errors of a payload cut short (have of its payload bytes), or not
 * what job's state holds. */
int state_truncated(const char *where, uint64_t have, uint64_t payload,
		    struct gs_err *err);
int state_malformed(const struct gs_job *job, const char *where,
		    struct gs_err *err);

/* Whether b can merge into a: the same command, type, columns and options.
 * -1 with err naming the first that differs. */
int state_check(const struct state *a, const char *aname,
		const struct state *b, const char *bname, struct gs_err *err);

/* Merge accumulator acc of job into total, exactly; the element index of
 * an integer product's overflow is forgotten (it is relative to a shard,
 * and the shards may come in any order). */
void state_merge_acc(const struct gs_job *job, void *total, void *acc);

/* Every state in the file at path ("-": stdin), merged in order into
 * *total (read a piece at a time: a group-by's keys go straight into the
 * total's table, never held whole): the first one read becomes it when total->acc is NULL (*first
 * then names where it came from, for later messages). -1 with err filled:
 * unreadable, not states, or states that cannot merge. The element index
 * of an integer product's overflow is forgotten once two states merge. */
int state_load(const char *path, struct state *total, const char **first,
	       struct gs_err *err);
/* The same, a group-by's table (a new one: the first state's) bounded
 * by limit bytes in memory (state_load's: group_limit()). */
int state_load_within(const char *path, struct state *total,
		      const char **first, uint64_t limit, struct gs_err *err);
/* The memory a group-by's table (its run's, or a merge's of its states)
 * may hold before it spills to $TMPDIR: half the machine's (at least the
 * accumulators' 1 GiB), or GPUSTAT_GROUP_LIMIT's (the tests' small one). */
uint64_t group_limit(void);
/* Fold a copy of s (read from name) into *total as state_load folds
 * each state it reads; s stays as it was. */
int state_fold_copy(struct state *total, const char **first,
		    const struct state *s, const char *name,
		    struct gs_err *err);

#endif
