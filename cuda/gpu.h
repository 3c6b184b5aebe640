/*
 * gpu.h - what the CUDA backend (backend_cuda.cu) needs from each command's
 * kernels (*_kernels.cu). C++/CUDA only: src/ never sees this file; it
 * reaches the backend through cuda/gpustat_cuda.h.
 *
 * A command keeps a device accumulator per CUDA stream: dev_acc_bytes() of
 * device memory that the backend zeroes once at open (cudaMemsetAsync), that
 * launch() folds chunks into (kernels on the given stream, no host sync, no
 * allocation), and that merge_host() adds, after a copy to the host, into
 * the command's CPU accumulator (src/cpu/acc.h) exactly. Because every merge is
 * exact, the GPU result has the same bits as the CPU backend's. A command
 * whose kernels read a table of the pass (quantile's prefixes) keeps it in
 * its device accumulator, where init_dev puts it instead of the zeroing.
 */
#ifndef GPU_H
#define GPU_H

#include <cuda_runtime.h>

extern "C" {
#include "acc.h"
}

struct gpu_ops {
	/* Can these kernels do job? If not, *why says so (for -v). */
	bool (*supports)(const struct gs_job *job, const char **why);
	size_t (*dev_acc_bytes)(const struct gs_job *job);
	/* Fold nrec records at d (and d2 for dot A B), native byte order,
	 * into dacc. nsm: the device's multiprocessor count, to size grids. */
	cudaError_t (*launch)(const struct gs_job *job, void *dacc,
			      const void *d, const void *d2, size_t nrec,
			      int nsm, cudaStream_t s);
	/* hacc: a host copy of a device accumulator; acc: made by the
	 * command's acc_init (acc.h). acc += hacc, exactly. */
	void (*merge_host)(const struct gs_job *job, void *acc, const void *hacc);
	/* Optional (NULL: zeroed): make a device accumulator at open, on s. */
	cudaError_t (*init_dev)(const struct gs_job *job, void *dacc,
				cudaStream_t s);
};

/* What few commands need beyond gpu_ops (a group-by's, whose device
 * table holds only so many keys); a NULL member: the default. */
struct gpu_hooks {
	/* In place of the copy of dev_acc_bytes at finish: dacc into hacc
	 * (dev_acc_bytes of host memory), after s's kernels, in the form
	 * merge_host reads (a group-by's used slots alone); synchronous. */
	cudaError_t (*read_back)(const struct gs_job *job, void *dacc,
				 void *hacc, int nsm, cudaStream_t s);
	/* In place of launch: it may wait for s (or the whole device) and
	 * move what dacc cannot take into part, a host accumulator of the
	 * backend's (acc_init'd at open, merged into the result at finish),
	 * through hacc (theirs while it runs); it may allocate, and leave in
	 * part device memory that outlives the backend (gvals_kernels.cu's
	 * records, struct gvals_dev). launch's rules (no host sync, no
	 * allocation) are launch's alone. */
	cudaError_t (*launch_part)(const struct gs_job *job, void *dacc,
				   void *part, void *hacc, const void *d,
				   size_t nrec, int nsm, cudaStream_t s);
};

/* The hooks of ops, or NULL (backend_cuda.cu: group_kernels.cu's and
 * gvals_kernels.cu's). */
const struct gpu_hooks *gpu_hooks_of(const struct gpu_ops *ops);
extern const struct gpu_hooks gpu_group_hooks, gpu_gvals_hooks;

/* Each operation's entry points: the GPU(x) of its row of ops.def, defined
 * by its *_kernels.cu. */
#define OPERATION(id, name, cpu, gpu, ...) gpu
#define GPU(x) extern const struct gpu_ops x;
#define NO_GPU
#include "ops.def"
#undef OPERATION
#undef GPU
#undef NO_GPU

/* Check a CUDA call: on failure, return its error (the caller turns it into
 * a struct gs_err with the call's text and file:line, see CUDA_TRY). */
#define CUDA_RET(call) do {                                               \
	cudaError_t e_ = (call);                                          \
	if (e_ != cudaSuccess)                                            \
		return e_;                                                \
} while (0)

/* After a launch: the launch's own error. */
#define CUDA_LAUNCHED() CUDA_RET(cudaGetLastError())

#endif
