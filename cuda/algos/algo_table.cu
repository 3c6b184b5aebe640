/*
 * algo_table.cu - which GPU kernels run each --algorithm (algos.h), and
 * what cuda_algo_supports says of the rest. A scan's algorithms are not
 * a struct gpu_ops: the scan binds its block scan at open (scan.h).
 */
#include "algos.h"
#include "scan.h"
extern "C" {
#include "algorithm.h"
#include "gpustat_cuda.h"
}

/* The ops of algorithm a for a pass of operation cmd, or NULL (the
 * default's): hist's range pass (CMD_MINMAX) and every pass of another
 * operation keep the default kernels. */
static const struct gpu_ops *algo_ops(enum gs_cmd cmd, enum gs_algo a)
{
	switch (a) {
	case ALGO_GLOBAL_ATOMIC:
	case ALGO_SHARED_ATOMIC:
	case ALGO_SORT:
		return cmd == CMD_HIST ? &gpu_hist_algo_ops : NULL;
	case ALGO_ATOMIC:
	case ALGO_BLOCK_TREE:
		return cmd == CMD_REDUCE ? &gpu_reduce_algo_ops :
		       cmd == CMD_DOT ? &gpu_dot_algo_ops : NULL;
	default:
		return NULL;
	}
}

const struct gpu_ops *gpu_algo_ops(const struct gs_job *job)
{
	return algo_ops(job->cmd, job->algo);
}

extern "C" bool cuda_algo_supports(const struct gs_job *job, const char **why)
{
	const struct gpu_ops *ops = algo_ops(job->cmd, job->algo);

	if (job->algo == ALGO_HILLIS_STEELE || job->algo == ALGO_BLELLOCH) {
		if (job->cmd == CMD_SCAN)
			return gpu_scan_supports(job, why);
		*why = job->cmd == CMD_HIST ? "a scan's block scan (hist has: "
					     HIST_ALGORITHMS ")"
		     : job->cmd == CMD_REDUCE || job->cmd == CMD_DOT
		     ? "a scan's block scan (sums and dots have: "
		       REDUCE_ALGORITHMS ")"
		     : "a scan's block scan (this command has: default)";
		return false;
	}
	return !ops || ops->supports(job, why);
}
