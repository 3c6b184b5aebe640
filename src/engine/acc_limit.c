/*
 * acc_limit.c - the accumulators' memory (engine.h): every accumulator a
 * run makes, the command's and each CPU thread's with its scratch, is
 * counted against ENGINE_ACC_LIMIT before any is allocated, fewer threads
 * first, so that many columns or bins fail at once with one line instead of
 * after gigabytes.
 */
#include <stdlib.h>
#include "acc.h"
#include "engine.h"
#include "operation.h"

/* Bytes of accumulators with t CPU threads, the command's copy (own) and
 * extra included; 128-bit, as a hist's bins times columns may not fit
 * size_t. A CPU scan's output buffer (16 MiB at most) is not counted. */
static unsigned __int128 acc_bytes(const struct gs_job *job, int t, bool own,
				   uint64_t extra)
{
	const struct acc_kernels *k = acc_kernels_for(job);
	unsigned __int128 acc = k->acc_size(job), scratch = k->scratch_size(job);
	unsigned __int128 fixed = extra + (own ? acc : 0);
	/* a thread's accumulator: its own kind (hist2d's 16-bit counts) */
	unsigned __int128 thread = k->thread_size ? k->thread_size(job) : acc;

	if (operation_of(job)->stream) {
		if (cpu_scan_scratch_size(job) > scratch)
			scratch = cpu_scan_scratch_size(job);
		scratch += acc;		/* each thread's carry-in */
		fixed += acc;		/* the state after every chunk */
	}
	return fixed + (unsigned __int128)t * (thread + scratch);
}

static double gib(unsigned __int128 n)
{
	return (double)n / (double)((uint64_t)1 << 30);
}

int engine_fit_threads(const struct gs_job *job, int *threads, bool own,
		       uint64_t extra, struct gs_err *err)
{
	unsigned __int128 one = acc_bytes(job, 1, own, extra);

	if (one > ENGINE_ACC_LIMIT)
		return gs_fail(err, GS_ERUNTIME, "",
			       "%u columns need %.2f GiB of accumulators, over "
			       "the limit of %.0f GiB (use fewer columns)",
			       job->columns, gib(one), gib(ENGINE_ACC_LIMIT));
	while (*threads > 1 && acc_bytes(job, *threads, own, extra) > ENGINE_ACC_LIMIT)
		(*threads)--;
	return 0;
}

void *engine_acc_new(const struct gs_job *job, struct engine_opts *eo,
		     uint64_t extra, struct gs_err *err)
{
	const struct acc_kernels *k = acc_kernels_for(job);
	size_t chunk_records = eo->chunk_size / job_record_size(job);
	size_t slices = (chunk_records + ENGINE_MIN_SLICE_RECORDS - 1) /
			ENGINE_MIN_SLICE_RECORDS;	/* as backend_cpu.c */
	void *acc;

	if (slices < (size_t)eo->threads)
		eo->threads = slices ? (int)slices : 1;
	if (engine_fit_threads(job, &eo->threads, true, extra, err) < 0)
		return NULL;
	acc = malloc(k->acc_size(job));
	if (!acc) {
		gs_fail(err, GS_ERUNTIME, "", "out of memory");
		return NULL;
	}
	k->acc_init(job, acc);
	return acc;
}
