/*
 * colrd.h - one column of a record as --by's CPU kernels read it
 * (cpu_group.c, cpu_gvals.c): where its elements are and how to read one.
 */
#ifndef COLRD_H
#define COLRD_H

#include <stdbool.h>
#include <string.h>
#include "acc.h"

/* Where a column's elements are in a record and how to read them, made
 * once per call of a kernel's add (in its scratch). */
struct colrd {
	size_t off, sz;
	enum gs_type t;
	bool swap, boolean;
};

static inline struct colrd colrd_of(const struct gs_job *job, unsigned k)
{
	struct gs_dtype d = job_col_dtype(job, k);
	size_t sz = type_size(d.type);

	return (struct colrd){
		.off = job->rec ? job->rec->off[k] : k * sz, .sz = sz,
		.t = d.type, .boolean = d.boolean,
		/* one type's records were swapped already (backend_cpu.c) */
		.swap = job->rec && d.big_endian && sz > 1,
	};
}

/* Whether some column of job's mixed records is big-endian (and wider
 * than a byte): the GPU's --by kernels read little-endian records alone. */
#define GROUP_GPU_LE_ONLY "--by on the GPU takes little-endian mixed records"
static inline bool job_rec_swapped(const struct gs_job *job)
{
	for (unsigned c = 0; job->rec && c < job->columns; c++)
		if (job->rec->type[c].big_endian &&
		    type_size(job->rec->type[c].type) > 1)
			return true;
	return false;
}

/* The column's element of the record at rec, in native order at out (a
 * bool as 0 or 1). */
static inline void colrd_element(const struct colrd *c,
				 const unsigned char *rec, unsigned char *out)
{
	if (c->boolean) {
		out[0] = rec[c->off] != 0;
		return;
	}
	memcpy(out, rec + c->off, c->sz);
	if (c->swap)
		swap_bytes(out, 1, c->sz);
}

#endif
