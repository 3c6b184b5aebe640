/*
 * cpu_group.h - what cpu_group.c and group_state.c share of a group-by's
 * table: the payload per key and value column, and the table's growth
 * counted against the limit.
 */
#ifndef CPU_GROUP_H
#define CPU_GROUP_H

#include <string.h>
#include "acc.h"
#include "ksum.h"
#include "ktable.h"
#include "group_scatter.h"

/* What a key keeps per value column; a payload holds the first fields
 * that job->group->what needs (col_size). */
struct gcol {
	uint64_t count, nan;
	union gs_scalar min, max;	/* of the non-NaN values: not COUNT */
	struct ksum s1;			/* SUM and STATS */
	struct ksum s2;			/* STATS */
};

enum { FAIL_NONE, FAIL_OOM, FAIL_SPILL };

/* Bytes of a struct gcol in job's payloads (what job->group->what keeps). */
size_t gcol_size(const struct gs_job *job);

/* Value column j of a payload. */
static inline struct gcol *col_of(const struct gs_job *job, void *pay, unsigned j)
{
	return (struct gcol *)((char *)pay + j * gcol_size(job));
}

/* An element of type t at p as a double, an int64 or a uint64 (by
 * the type's kind). */
static inline double as_f64(enum gs_type t, const unsigned char *p)
{
	uint16_t h;
	float f;
	double d;

	switch (t) {
	case GS_F16: memcpy(&h, p, 2); return f16_to_f32(h);
	case GS_BF16: memcpy(&h, p, 2); return bf16_to_f32(h);
	case GS_F32: memcpy(&f, p, 4); return f;
	default: memcpy(&d, p, 8); return d;
	}
}

static inline int64_t as_i64(enum gs_type t, const unsigned char *p)
{
	int8_t a; int16_t b; int32_t c; int64_t d;

	switch (t) {
	case GS_I8: memcpy(&a, p, 1); return a;
	case GS_I16: memcpy(&b, p, 2); return b;
	case GS_I32: memcpy(&c, p, 4); return c;
	default: memcpy(&d, p, 8); return d;
	}
}

static inline uint64_t as_u64(enum gs_type t, const unsigned char *p)
{
	uint8_t a; uint16_t b; uint32_t c; uint64_t d;

	switch (t) {
	case GS_U8: memcpy(&a, p, 1); return a;
	case GS_U16: memcpy(&b, p, 2); return b;
	case GS_U32: memcpy(&c, p, 4); return c;
	default: memcpy(&d, p, 8); return d;
	}
}
/* g's table, made where it has none; false once g failed. */
bool group_table(const struct gs_job *job, struct group_acc *g);
/* The payload of key in g's table (zeroed if new), for one thread alone;
 * NULL once g failed. */
void *group_payload(const struct gs_job *job, struct group_acc *g,
		    const uint64_t *key);
/* A payload's (struct gcol per value column) widened ksums; freed; src
 * merged into dst exactly, src's widened ksums then freed (false: out of
 * memory). */
unsigned group_pay_wides(const struct gs_job *job, const void *pay);
void group_pay_free(const struct gs_job *job, void *pay);
bool group_pay_merge(const struct gs_job *job, void *dst, void *src);
/* g fails (unless it failed already): records that a GPU's table of keys
 * keys could not take overflowed its spill area; records 0: out of
 * memory. */
/* The thread's table (g->loc) into the run's (false: that failed, the
 * run's table has the error); g fails for want of memory (group_fold.c). */
bool group_flush(const struct gs_job *job, struct group_acc *g);
/* The thread's full table into the run's, as group_flush; where it held
 * too few records a key to pay, g->scat is made (entries of vbytes of
 * values, folded by by) and the thread's records go there from then
 * on. */
bool group_full(const struct gs_job *job, struct group_acc *g,
		size_t vbytes, gscatter_fold by);
/* g after g->scat failed (group_scatter.h): failed for want of memory
 * unless the run's table has the error; false. */
bool group_scatter_failed(struct group_acc *g);
void group_fail_oom(struct group_acc *g);
void group_fail_spill(struct group_acc *g, uint64_t records, uint64_t keys);

#endif
