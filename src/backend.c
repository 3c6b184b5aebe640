/*
 * backend.c - choosing a backend (the probe chain) and the kernels of a job.
 */
#include "acc.h"
#include "backend.h"

const struct acc_kernels *acc_kernels_for(const struct gs_job *job)
{
	switch (job->cmd) {
	case CMD_HIST:
		return &hist_kernels;
	case CMD_STATS:
	case CMD_MINMAX:
		return &stats_kernels;
	case CMD_DOT:
		return &dot_kernels;
	case CMD_REDUCE:
	case CMD_SCAN:
		return &reduce_kernels;
	}
	return &reduce_kernels;
}

const struct backend *backend_select(enum backend_choice choice,
				     const struct gs_job *job,
				     int64_t input_bytes, const char **why,
				     struct gs_err *err)
{
	(void)job;
	(void)input_bytes;
	if (choice == BACKEND_CUDA) {
		gs_fail(err, GS_ERUNTIME, "cuda",
			"this gpustat was built without CUDA support");
		return NULL;
	}
	*why = choice == BACKEND_CPU ? "--backend cpu"
				     : "built without CUDA support";
	return &backend_cpu;
}
