/*
 * dot_algos.cuh - dot by --algorithm atomic and block-tree
 * (exact_algos.cuh), each thread's share being the default's dot_fold.
 * Compiled as the end of dot_kernels.cu, whose dot_fold, dot_map and
 * accumulator (n exact sums, then the record count) it uses; the
 * algorithm's scratch follows the accumulator.
 */
#include "exact_algos.cuh"
#include "algos.h"

/* Thread t of nthr (a multiple of m.n) of nrec records at a and b. */
template <typename T>
struct dot_piece {
	const T *a, *b;
	size_t nrec;
	struct dot_map m;

	__host__ __device__ bool operator()(struct exact_thr *s, size_t t,
					    size_t nthr, long long *slots) const
	{
		return dot_fold(s, a, b, nrec, m, t, nthr, slots);
	}
};

static size_t dot_algo_acc_bytes(const struct gs_job *job)
{
	size_t head = (dot_dev_acc_bytes(job) + 15) / 16 * 16;

	return head + exact_algo_scratch(job->algo, dot_map_of(job).n);
}

static cudaError_t dot_algo_launch(const struct gs_job *job, void *dacc,
				   const void *d, const void *d2, size_t nrec,
				   int nsm, cudaStream_t s)
{
	struct dot_map m = dot_map_of(job);
	struct exact_acc *g = (struct exact_acc *)dacc;
	unsigned long long *count = (unsigned long long *)(g + m.n);
	long long *scratch = (long long *)((char *)dacc +
		(dot_dev_acc_bytes(job) + 15) / 16 * 16);

	if (nrec == 0)
		return cudaSuccess;
	if (job->two_inputs && !d2)
		return cudaErrorInvalidValue;
	return dtype_dispatch(job->dtype.type, [&](auto tag) {
		typedef DTYPE_OF(tag) T;
		const T *a = (const T *)d, *b = (const T *)(job->two_inputs ? d2 : d);

		return exact_algo_launch(job->algo, nrec, m.n, m.n, g, scratch,
					 count, nsm, s, [&](size_t r0, size_t k) {
			return dot_piece<T>{ a + r0 * m.C, b + r0 * m.C, k, m };
		});
	});
}

const struct gpu_ops gpu_dot_algo_ops = {
	dot_supports,
	dot_algo_acc_bytes,
	dot_algo_launch,
	dot_merge_host,
	NULL,			/* init_dev: zeroed */
};
