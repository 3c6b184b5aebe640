/*
 * group_gpu.h - the host's side of --by's device form (group_dev.h): the
 * layout a job's device accumulator takes, and its merge into the CPU's
 * accumulator (struct group_acc, cpu_group.c), for cuda/group_kernels.cu
 * and the tests.
 */
#ifndef GROUP_GPU_H
#define GROUP_GPU_H

#include "acc.h"
#include "group_dev.h"

/* GPUSTAT_GROUP_GPU_SLOTS=N (a power of two, 4 or more) sets the device
 * table's slots: small tables for the tests of the spill. */
#define GROUP_GPU_SLOTS_ENV "GPUSTAT_GROUP_GPU_SLOTS"
/* GPUSTAT_GROUP_GPU_SPILL=N: records a stream's spill area holds (the
 * tests of its drain; default: a 64 MiB chunk's). */
#define GROUP_GPU_SPILL_ENV "GPUSTAT_GROUP_GPU_SPILL"
/* GPUSTAT_GROUP_GPU_THREADS=N: host threads that merge a table read back
 * (and fold a drained spill area; the tests'; default: one per 32,768
 * keys or 65,536 records, at most the online CPUs). */
#define GROUP_GPU_THREADS_ENV "GPUSTAT_GROUP_GPU_THREADS"

/* Whether the device form takes job; if not, *why says so. */
bool group_gpu_supports(const struct gs_job *job, const char **why);
/* job's device accumulator: its head (h) and bytes. slots 0: the default
 * (or GROUP_GPU_SLOTS_ENV). */
size_t group_gpu_layout(const struct gs_job *job, uint64_t slots,
			struct gd_head *h);
/* The most keys the device table takes for job (auto's plan, -v). */
uint64_t group_gpu_max_keys(const struct gs_job *job);
/* Whether --backend auto may run job on the GPU: where its keys are
 * bounded by their types below the table's keys (8- and 16-bit keys) and
 * its values always fit the window (no f64 values), so nothing can spill
 * and no run can fail; why[n] says what it found. */
bool group_gpu_auto(const struct gs_job *job, char *why, size_t n);
/* Whether auto may plan job for the GPU from the input's known size:
 * group_gpu_auto's checks but the keys' width (keys past the table are
 * folded on the CPU: correct, and no faster than the CPU alone, so the
 * plan weighs the GPU against the CPU's best rate, that of few keys). */
bool group_gpu_auto_sized(const struct gs_job *job, char *why, size_t n);
/* acc += the device accumulator at dev (a host copy of group_gpu_layout's
 * bytes; its table whole, or, where the head says compact, its used
 * slots alone, gd_compact's): every key of its table through
 * group_absorb, on several threads where there are many, its spilled
 * records through the CPU's fold, exactly. acc fails (acc_error) where
 * the spill area overflowed. */
void group_gpu_merge(const struct gs_job *job, struct group_acc *acc,
		     const void *dev);
/* acc += n spilled records at recs, folded by the CPU (on several
 * threads where they are many) into a table of acc's own (a drain of the
 * spill area before it could overflow); false once acc failed. */
bool group_gpu_fold_spill(const struct gs_job *job, struct group_acc *acc,
			  const void *recs, size_t n);
/* Spilled records to fold on the host (and empty the area of) before a
 * launch of n records, where the area holds spilled: 0 where n more fit
 * (a launch takes spill_cap records at most). */
uint64_t group_gpu_drain(const struct gd_head *h, uint64_t spilled,
			 size_t n);
/* Host threads for work items, per of them a thread at most (the merge's
 * keys, the drain's records); GROUP_GPU_THREADS_ENV overrides. */
unsigned group_gpu_threads(uint64_t work, uint64_t per);

#endif
