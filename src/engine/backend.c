/*
 * backend.c - choosing a backend (the probe chain).
 *
 * --backend cpu: the CPU. --backend cuda: the GPU or an error. auto: the CPU
 * alone when the input is a file too small to gain from a GPU, when the
 * command has no CUDA kernels, or in a build without CUDA; otherwise the
 * hybrid of backend_auto.c, which starts on the CPU at once while the GPU
 * starts in the background, and moves to the GPU when it is ready (a scan
 * hands the GPU its carry then). Products (reduce and scan) stay on the CPU.
 * The kernels of a job are its operation's (operation.c).
 */
#include <stdio.h>
#include "acc.h"
#include "operation.h"
#include "backend.h"
#ifdef GS_HAVE_CUDA
#include "gpustat_cuda.h"
#endif

/* Below this a file is done on the CPU before a GPU context exists (about
 * 355 ms on the H100 machine, where the CPU reads 5.6 GB/s from cache). */
#define AUTO_GPU_MIN_BYTES ((int64_t)1 << 30)

#ifdef GS_HAVE_CUDA
/* --devices: every chunk to the next GPU of the list. A scan's carry goes
 * from chunk to chunk, so a scan keeps to one GPU. */
static const struct backend *select_multi(const struct gs_job *job,
					  int device, const char **why,
					  struct gs_err *err)
{
	static char reason[300];

	if (cuda_probe(device, reason, sizeof(reason)) < 0) {
		gs_fail(err, GS_ERUNTIME, "cuda", "%s", reason);
		return NULL;
	}
	if (operation_of(job)->stream) {
		*why = "--devices: a scan runs on the first GPU (its carry "
		       "passes from chunk to chunk)";
		return &backend_cuda;
	}
	*why = "--devices: chunks spread over the GPUs";
	return &backend_multi;
}

static const struct backend *select_cuda(enum backend_choice choice,
					 const struct gs_job *job,
					 int64_t input_bytes, int device,
					 const char **why, struct gs_err *err)
{
	static char reason[300];
	const char *no;

	if (!cuda_supports(job, &no)) {
		if (choice == BACKEND_CUDA) {
			gs_fail(err, GS_ERUNTIME, "cuda", "%s", no);
			return NULL;
		}
		*why = no;
		return &backend_cpu;
	}
	if (choice == BACKEND_CUDA) {
		if (cuda_probe(device, reason, sizeof(reason)) < 0) {
			gs_fail(err, GS_ERUNTIME, "cuda", "%s (--backend auto or "
				"cpu runs without a GPU)", reason);
			return NULL;
		}
		*why = "--backend cuda";
		return &backend_cuda;
	}
	if (job->op == OP_PROD) {	/* reduce and scan --op prod */
		/* the hybrid's split between CPU and GPU chunks depends on
		 * when the GPU is ready, and so do a float product's brackets:
		 * a near-tie could round in one run and stop in the next */
		*why = "products stay on the CPU unless --backend cuda";
		return &backend_cpu;
	}
	if (input_bytes >= 0 && input_bytes < AUTO_GPU_MIN_BYTES) {
		snprintf(reason, sizeof(reason), "a %lld-byte input is done before "
			 "a GPU could start", (long long)input_bytes);
		*why = reason;
		return &backend_cpu;
	}
	*why = input_bytes < 0 ? "input of unknown length: the CPU starts, the "
				 "GPU takes over once it is ready"
			       : "large input: the CPU starts, the GPU takes over "
				 "once it is ready";
	return &backend_auto;
}
#endif

const struct backend *backend_select(enum backend_choice choice,
				     const struct gs_job *job,
				     int64_t input_bytes, int device,
				     int ndevices, const char **why,
				     struct gs_err *err)
{
	if (choice == BACKEND_CPU && ndevices) {
		gs_fail(err, GS_EUSAGE, "", "--devices spreads chunks over GPUs; "
			"it does not go with --backend cpu");
		return NULL;
	}
	if (choice == BACKEND_CPU) {
		*why = "--backend cpu";
		return &backend_cpu;
	}
	if (operation_of(job)->cpu_only) {	/* quantile, median, mode */
		if (choice == BACKEND_AUTO && !ndevices) {
			*why = "this command does not run on the GPU yet";
			return &backend_cpu;
		}
		gs_fail(err, GS_ERUNTIME, "cuda", "this command does not run on "
			"the GPU yet (--backend auto or cpu runs it on the CPU)");
		return NULL;
	}
#ifdef GS_HAVE_CUDA
	const char *no;

	if (ndevices && !cuda_supports(job, &no)) {
		gs_fail(err, GS_ERUNTIME, "cuda", "--devices: %s", no);
		return NULL;
	}
	if (ndevices)
		return select_multi(job, device, why, err);
	return select_cuda(choice, job, input_bytes, device, why, err);
#else
	(void)job;
	(void)input_bytes;
	(void)device;
	if (ndevices) {
		gs_fail(err, GS_ERUNTIME, "cuda", "--devices: this gpustat was "
			"built without CUDA support");
		return NULL;
	}
	if (choice == BACKEND_CUDA) {
		gs_fail(err, GS_ERUNTIME, "cuda",
			"this gpustat was built without CUDA support");
		return NULL;
	}
	*why = "built without CUDA support";
	return &backend_cpu;
#endif
}
