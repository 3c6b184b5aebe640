/*
 * gpustat_cuda.h - the one door between src/ (C11) and cuda/ (CUDA C++).
 * Plain C types only; the host code never includes a CUDA header.
 */
#ifndef GPUSTAT_CUDA_H
#define GPUSTAT_CUDA_H

#include "backend.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const struct backend backend_cuda;

/* Make GPU `device` current and check that it works (this creates the CUDA
 * context, the slow part of starting: hundreds of milliseconds). Returns 0,
 * or -1 with a reason in why. Thread-safe; later calls are cheap. */
int cuda_probe(int device, char *why, size_t n);

/* Whether the CUDA kernels do job; if not, *why says so. */
bool cuda_supports(const struct gs_job *job, const char **why);

/* The CUDA runtime, driver and GPUs, one per line, for --version. */
void cuda_describe(char *buf, size_t n);

/* How many GPUs the process sees (0 without a driver). */
int cuda_device_count(void);

/* Pinned host memory that every GPU copies from at full speed (the CUDA
 * backend's buffers), and its free. */
void *cuda_pinned_alloc(size_t n);
void cuda_pinned_free(void *p);

/* Pin memory that malloc() gave (cudaHostRegister), so copies from it run
 * at full speed; 0 or -1. */
int cuda_pin(void *p, size_t n);
void cuda_unpin(void *p);

#ifdef __cplusplus
}
#endif

#endif
