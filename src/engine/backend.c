/*
 * backend.c - choosing a backend (the probe chain).
 *
 * --backend cpu: the CPU. --backend cuda: the GPU or an error. auto: the CPU
 * alone when the command has no CUDA kernels, or in a build without CUDA;
 * the hybrid of backend_auto.c where a GPU is predicted to finish sooner
 * (auto_plan.c), which starts on the CPU at once while the GPU starts in
 * the background, and moves to the GPU when it is ready (a scan hands the
 * GPU its carry then); otherwise the CPU, watched where the CPU's measured
 * rate may still call for the GPU (backend_auto_late: it starts the GPU
 * then, and hands over the same way), a pipe always (its rate against the
 * input's). Products (reduce and scan) stay on the CPU.
 * --devices takes the GPUs from the first chunk, whatever --backend says
 * (but cpu). The kernels of a job are its operation's (ops.def).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "acc.h"
#include "operation.h"
#include "backend.h"
#include "auto_plan.h"
#include "algorithm.h"
#ifdef GS_HAVE_CUDA
#include "gpustat_cuda.h"
#endif

#ifdef GS_HAVE_CUDA
/* --devices: every chunk to the next GPU of the list, a scan's too (each
 * chunk scanned from its carry: backend_multi.c), but for a product scan:
 * its carry cannot be set mid-stream (cuda/scan/scan_seed.cu). The GPUs
 * take every chunk, with auto too: no CPU start, no hand-over. */
static const struct backend *select_multi(const struct gs_job *job,
					  int device, const char **why,
					  struct gs_err *err)
{
	static char reason[300];

	if (cuda_probe(device, reason, sizeof(reason)) < 0) {
		gs_fail(err, GS_ERUNTIME, "cuda", "%s", reason);
		return NULL;
	}
	if (operation_of(job)->stream && job->op == OP_PROD) {
		*why = "--devices: a product scan runs on the first GPU (its "
		       "carry passes from chunk to chunk on the device)";
		return &backend_cuda;
	}
	*why = operation_of(job)->stream
	       ? "--devices: chunks spread over the GPUs, each scanned from "
		 "its carry"
	       : "--devices: chunks spread over the GPUs";
	return &backend_multi;
}

static const struct backend *select_cuda(enum backend_choice choice,
					 const struct gs_job *job,
					 int64_t input_bytes, bool compressed,
					 int threads, int device,
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
	/* a model of both sides' times (auto_plan.c) */
	bool gpu = auto_plan_gpu(job, input_bytes, compressed, threads, reason,
				 sizeof(reason));

	*why = reason;
	if (gpu)
		return &backend_auto;
	if (!auto_plan_watch(job, input_bytes, compressed))
		return &backend_cpu;
	/* the plan's rate is one kind of data's: the CPU's own revises it (a
	 * pipe's reason already says it is watched, against the input) */
	size_t len = strlen(reason);

	if (input_bytes > 0)
		snprintf(reason + len, sizeof(reason) - len, ", unless its "
			 "measured rate calls for a GPU later");
	return &backend_auto_late;
}
#endif

/* --algorithm (algorithm.h): cpu is the CPU's loop and goes to the CPU;
 * every other name but default is a GPU kernel, so auto means cuda for it,
 * and the GPU kernels must have one for this job (a usage error naming the
 * algorithm otherwise). 0, or -1 with err. */
static int algo_backend(enum backend_choice *choice, const struct gs_job *job,
			int ndevices, struct gs_err *err)
{
	const char *a = algo_name(job->algo);

	if (job->algo == ALGO_DEFAULT)
		return 0;
	if (job->algo == ALGO_CPU) {
		if (*choice == BACKEND_CUDA || ndevices)
			return gs_fail(err, GS_EUSAGE, "", "--algorithm cpu is "
				       "the CPU's loop: it does not go with "
				       "--backend cuda or --devices");
		*choice = BACKEND_CPU;
		return 0;
	}
	if (*choice == BACKEND_CPU)
		return gs_fail(err, GS_EUSAGE, "", "--algorithm %s runs on the "
			       "GPU; --backend cpu runs %s", a,
			       job->cmd == CMD_HIST || job->cmd == CMD_MINMAX
			       ? "default and cpu" : "default");
	*choice = BACKEND_CUDA;
#ifdef GS_HAVE_CUDA
	const char *no;

	if (!cuda_algo_supports(job, &no))
		return gs_fail(err, GS_EUSAGE, "", "--algorithm %s: %s", a, no);
#endif
	return 0;
}

bool backend_in_place(const struct backend *be)
{
	return be == &backend_cpu || be == &backend_auto_late;
}

const struct backend *backend_select(enum backend_choice choice,
				     const struct gs_job *job,
				     int64_t input_bytes, bool compressed,
				     int threads, int device, int ndevices,
				     const char **why, struct gs_err *err)
{
	if (algo_backend(&choice, job, ndevices, err) < 0)
		return NULL;
	/* the CPU runs each column of mixed records in its own type
	 * (cpu_mixed.c); the GPU's kernels take one type, but a group-by's,
	 * which read each record whole (cuda/group_kernels.cu,
	 * gvals_kernels.cu) */
	bool whole = job->cmd == CMD_GROUP || job->cmd == CMD_GVALS;

	if (job->rec && !whole && (choice == BACKEND_CUDA || ndevices)) {
		gs_fail(err, GS_EUSAGE, "", "records of mixed types run on the "
			"CPU only: --backend cpu or auto");
		return NULL;
	}
	if (job->rec && !whole) {
		*why = "records of mixed types run on the CPU";
		return &backend_cpu;
	}
	if (choice == BACKEND_CPU && ndevices) {
		gs_fail(err, GS_EUSAGE, "", "--devices spreads chunks over GPUs; "
			"it does not go with --backend cpu");
		return NULL;
	}
	if (choice == BACKEND_CPU) {
		*why = "--backend cpu";
		return &backend_cpu;
	}
#ifdef GS_HAVE_CUDA
	const char *no;

	if (ndevices && !cuda_supports(job, &no)) {
		gs_fail(err, GS_ERUNTIME, "cuda", "--devices: %s", no);
		return NULL;
	}
	if (ndevices)
		return select_multi(job, device, why, err);
	return select_cuda(choice, job, input_bytes, compressed, threads,
			   device, why, err);
#else
	(void)job;
	(void)input_bytes;
	(void)compressed;
	(void)threads;
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

#ifdef GS_HAVE_CUDA
static void *prestart_main(void *v)
{
	char why[300];

	cuda_probe((int)(intptr_t)v, why, sizeof(why));
	return NULL;
}

/* Whether backend_select would open a GPU for job (its cuda_probe, or
 * auto's start thread). */
static bool wants_gpu(enum backend_choice choice, const struct gs_job *job,
		      int64_t input_bytes, bool compressed, int threads,
		      int ndevices)
{
	char why[300];
	const char *no;

	if (choice == BACKEND_CPU)
		return false;
	if (choice == BACKEND_CUDA || ndevices)
		return true;	/* it probes the GPU, whatever the job */
	if (job->algo != ALGO_DEFAULT || job->op == OP_PROD ||
	    (job->rec && job->cmd != CMD_GROUP) || !cuda_supports(job, &no))
		return false;
	return auto_plan_gpu(job, input_bytes, compressed, threads, why,
			     sizeof(why));
}
#endif

bool backend_prestart(enum backend_choice choice, const struct gs_job *job,
		      int64_t input_bytes, bool compressed, int threads,
		      int device, int ndevices)
{
#ifdef GS_HAVE_CUDA
	static bool started;
	pthread_t t;

	if (started || !wants_gpu(choice, job, input_bytes, compressed,
				  threads, ndevices))
		return false;
	/* detached: main() ends the process with _exit, never waiting in
	 * CUDA's exit handlers for a context still being made */
	if (pthread_create(&t, NULL, prestart_main, (void *)(intptr_t)device))
		return false;
	pthread_detach(t);
	started = true;
	return true;
#else
	(void)choice;
	(void)job;
	(void)input_bytes;
	(void)compressed;
	(void)threads;
	(void)device;
	(void)ndevices;
	return false;
#endif
}
