/*
 * cpu_mixed.c - records of mixed types (-t i32,f32, a structured .npy):
 * each column through the kernels of its own type.
 *
 * A block of records is gathered column by column into a contiguous
 * buffer in native byte order (bools made 0 or 1), and the operation's
 * kernels fold that buffer as they fold `-t T` data of one column: the
 * column's job is the record's job with that column's type and one column
 * (job_column, gs.h). The states are exact, so folding a column in blocks
 * gives the bits of one pass over the column alone, and a column's result
 * is the same bytes as the command's on that column extracted.
 *
 * The accumulator is the columns' accumulators one after another, each
 * acc_size(its column's job) bytes. Only operations whose state is one
 * struct per column (stats, reduce) run here, so that
 * this is the layout of the same state with -c N of one type, and the
 * commands format it as they do that one, column k in its own type.
 */
#include <string.h>
#include "acc.h"

/* Records gathered at a time: a column of them is at most 64 KiB. */
#define MIXED_BLOCK 8192

/* Each operation's own kernels, by its row of ops.def. */
static const struct acc_kernels *const own[] = {
#define OPERATION(id, name, cpu, ...) &cpu,
#include "ops.def"
#undef OPERATION
};

bool mixed_supports(enum gs_cmd cmd)
{
	return cmd == CMD_STATS || cmd == CMD_REDUCE;
}

/* Column k's accumulator in acc. */
static size_t col_at(const struct gs_job *job, unsigned k)
{
	size_t at = 0;

	for (unsigned j = 0; j < k; j++) {
		struct gs_job cj = job_column(job, j);

		at += own[job->cmd]->acc_size(&cj);
	}
	return at;
}

static size_t mixed_acc_size(const struct gs_job *job)
{
	return col_at(job, job->rec->n);
}

static void mixed_acc_init(const struct gs_job *job, void *acc)
{
	for (unsigned k = 0; k < job->rec->n; k++) {
		struct gs_job cj = job_column(job, k);

		own[job->cmd]->acc_init(&cj, (char *)acc + col_at(job, k));
	}
}

static void mixed_acc_merge(const struct gs_job *job, void *acc,
			    const void *src)
{
	for (unsigned k = 0; k < job->rec->n; k++) {
		struct gs_job cj = job_column(job, k);
		size_t at = col_at(job, k);

		own[job->cmd]->acc_merge(&cj, (char *)acc + at,
					 (const char *)src + at);
	}
}

/* The largest of the columns' scratch, rounded to 64 bytes. */
static size_t col_scratch(const struct gs_job *job)
{
	size_t most = 0;

	for (unsigned k = 0; k < job->rec->n; k++) {
		struct gs_job cj = job_column(job, k);
		size_t s = own[job->cmd]->scratch_size ?
			   own[job->cmd]->scratch_size(&cj) : 0;

		most = s > most ? s : most;
	}
	return (most + 63) / 64 * 64;
}

/* The column buffer first, then the columns' scratch (one at a time). */
static size_t mixed_scratch_size(const struct gs_job *job)
{
	return (size_t)MIXED_BLOCK * 8 + col_scratch(job);
}

#define GATHER(SZ) do {                                                   \
	for (size_t i = 0; i < n; i++)                                    \
		memcpy(out + i * (SZ), p + i * rs, (SZ));                  \
} while (0)

/* Column k of n records at data into out, native byte order. */
static void gather(const struct gs_record *r, unsigned k,
		   const unsigned char *data, size_t n, unsigned char *out)
{
	const unsigned char *p = data + r->off[k];
	size_t sz = type_size(r->type[k].type), rs = r->size;

	if (r->type[k].boolean) {
		for (size_t i = 0; i < n; i++)
			out[i] = p[i * rs] != 0;
		return;
	}
	/* a constant size each, so that the copies are plain loads */
	switch (sz) {
	case 1: GATHER(1); break;
	case 2: GATHER(2); break;
	case 4: GATHER(4); break;
	default: GATHER(8); break;
	}
	if (r->type[k].big_endian && sz > 1)
		swap_bytes(out, n, sz);
}

static void mixed_cpu_add(const struct gs_job *job, void *acc, void *scratch,
			  const void *data, const void *data2, size_t nrec)
{
	const struct gs_record *r = job->rec;
	unsigned char *buf = scratch, *own_scratch = buf + MIXED_BLOCK * 8;
	const unsigned char *d = data;

	for (size_t done = 0; done < nrec; done += MIXED_BLOCK) {
		size_t n = nrec - done < MIXED_BLOCK ? nrec - done : MIXED_BLOCK;

		for (unsigned k = 0; k < r->n; k++) {
			struct gs_job cj = job_column(job, k);

			gather(r, k, d + done * r->size, n, buf);
			own[job->cmd]->cpu_add(&cj, (char *)acc +
					       col_at(job, k), own_scratch,
					       buf, NULL, n);
		}
	}
}

const struct acc_kernels mixed_kernels = {
	.acc_size = mixed_acc_size,
	.acc_init = mixed_acc_init,
	.acc_merge = mixed_acc_merge,
	.scratch_size = mixed_scratch_size,
	.cpu_add = mixed_cpu_add,
};
