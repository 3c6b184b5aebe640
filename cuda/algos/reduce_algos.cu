/*
 * reduce_algos.cu - sum and reduce --op sum by --algorithm atomic and
 * block-tree (exact_algos.cuh), each thread's share being the default's
 * red_sum_thread; the accumulator is reduce_kernels.cu's (red_dev.cuh),
 * followed by the algorithm's scratch.
 */
#include "red_sum.cuh"
#include "exact_algos.cuh"
#include "algos.h"

/* Thread t of nthr (a multiple of C): column t % C of nrec records. */
template <typename T>
struct red_sum_piece {
	const T *d;
	size_t n;
	unsigned C;

	__host__ __device__ bool operator()(struct exact_thr *s, size_t t,
					    size_t nthr, long long *slots) const
	{
		exact_thr_init(s, dtype_is_float<T>::value ? EXACT_EMIN : 0);
		if (t >= nthr)
			return false;
		red_sum_thread(s, d, n, t, nthr, slots + (t % C) * EXACT_SLOTS);
		return true;
	}
};

static size_t red_algo_head(const struct gs_job *job)
{
	return red_dev_acc_bytes(job);
}

static bool red_algo_supports(const struct gs_job *job, const char **why)
{
	if (!red_supports(job, why))
		return false;
	if (job->op != OP_SUM) {
		*why = "atomic and block-tree are for sums (other operations "
		       "have: default)";
		return false;
	}
	return true;
}

static size_t red_algo_acc_bytes(const struct gs_job *job)
{
	return red_algo_head(job) + exact_algo_scratch(job->algo, job->columns);
}

static cudaError_t red_algo_launch(const struct gs_job *job, void *dacc,
				   const void *dv, const void * /* d2 */,
				   size_t nrec, int nsm, cudaStream_t s)
{
	struct red_dev_head *h = (struct red_dev_head *)dacc;
	struct exact_acc *acc = (struct exact_acc *)(h + 1);
	long long *scratch = (long long *)((char *)dacc + red_algo_head(job));
	unsigned C = job->columns;

	if (nrec == 0)
		return cudaSuccess;
	return dtype_dispatch(job->dtype.type, [&](auto tag) {
		typedef DTYPE_OF(tag) T;
		const T *d = (const T *)dv;

		return exact_algo_launch(job->algo, nrec, C, C, acc, scratch,
					 &h->count, nsm, s,
					 [&](size_t r0, size_t k) {
			return red_sum_piece<T>{ d + r0 * C, k * C, C };
		});
	});
}

const struct gpu_ops gpu_reduce_algo_ops = {
	red_algo_supports,
	red_algo_acc_bytes,
	red_algo_launch,
	red_merge_host,
	NULL,			/* init_dev: zeroed */
};
