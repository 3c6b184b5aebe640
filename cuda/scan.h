/*
 * scan.h - prefix scans on the GPU (cuda/scan/), bit-identical to
 * src/cpu/cpu_scan.c: every output is the exact prefix of its column over
 * the whole stream, rounded once to job->out_type, and an output that cannot
 * be written (an integer that does not fit, an integer product past
 * 2^128, a float product that cannot be rounded exactly) is reported with
 * cpu_scan's own message.
 *
 * C++/CUDA only (like gpu.h); the backend (backend_cuda_scan.cu) drives it:
 *
 *   gpu_scan_open(job, max_records, nsm, &g);       once, carry = empty prefix
 *   gpu_scan_seed(g, state);                        optional, before the first
 *                                                   launch: carry = state
 *   per chunk, in stream order on one stream s (or with an event between
 *   streams, so that chunk k's launch follows chunk k-1's):
 *     gpu_scan_seed_async(g, state, hbuf, s);       optional: carry = state
 *     gpu_scan_launch(g, d_in, d_out, nrec, s);     d_in: native byte order
 *     gpu_scan_status_copy(g, hstatus, s);          before the next launch
 *     ... after s reaches that point:
 *     gpu_scan_status_check(job, hstatus, first_rec, &bad, &err);
 *   gpu_scan_close(g);
 *
 * The device status is one buffer, reset by every launch: copy it after a
 * chunk's launch and before the next one is enqueued. After a failure the
 * run ends; later chunks need not be right. job->algo picks the block
 * scan (--algorithm hillis-steele or blelloch; the warp scan otherwise):
 * the same output either way.
 */
#ifndef GPU_SCAN_H
#define GPU_SCAN_H

#include "gpu.h"

struct gpu_scan;		/* opaque */

/* Can the GPU scan job (op, types, columns)? If not, *why says so. */
bool gpu_scan_supports(const struct gs_job *job, const char **why);

/* Device allocations for chunks of up to max_records records; nsm sizes
 * the grids. The carry starts as the empty prefix. */
cudaError_t gpu_scan_open(const struct gs_job *job, size_t max_records,
			  int nsm, struct gpu_scan **out);

/* Start from the CPU's state instead of the empty prefix (--backend auto
 * hands a scan to the GPU mid-stream): state is a struct red_col per column,
 * the reduction of every earlier record (cpu_scan's, acc.h), converted
 * exactly and copied synchronously into the carry. Call it before the
 * first launch. cudaErrorInvalidValue for prod (not seeded: see
 * cuda/scan/scan_seed.cu) or a state with no exact carry. */
cudaError_t gpu_scan_seed(struct gpu_scan *g, const struct red_col *state);

/* gpu_scan_seed on stream s, for a carry set before every chunk (a
 * --devices lane scans every N-th chunk of the stream): the converted carry
 * is staged in host_pinned, gpu_scan_carry_bytes(g) of pinned memory that
 * must stay untouched until s has passed this point. Enqueue it after the
 * previous launch and before the next. */
size_t gpu_scan_carry_bytes(const struct gpu_scan *g);
cudaError_t gpu_scan_seed_async(struct gpu_scan *g, const struct red_col *state,
				void *host_pinned, cudaStream_t s);

/* Scan nrec (<= max_records) records at d_in into d_out (job->out_type,
 * interleaved like the input), continuing from the carry of the previous
 * launch and leaving the carry after d_in for the next. Resets the status
 * and records the first record whose output cannot be written (integer
 * outputs, products). nrec == 0 launches nothing (the status still says
 * "ok"). */
cudaError_t gpu_scan_launch(struct gpu_scan *g, const void *d_in, void *d_out,
			    size_t nrec, cudaStream_t s);

/* Bytes of the status, for the pinned host buffer it is copied into. */
size_t gpu_scan_status_bytes(void);
/* Copy the status of the last launch into host_pinned_dst, on stream s. */
cudaError_t gpu_scan_status_copy(struct gpu_scan *g, void *host_pinned_dst,
				 cudaStream_t s);

/* After the status has arrived on the host: 0, or -1 with err filled like
 * the CPU backend's ("scan: element E column C: prefix sum D overflows T
 * (try --out-type)", "... prefix prod overflows 128 bits", "... prefix
 * product cannot be rounded exactly"; E counted from the stream's start:
 * first_rec is the chunk's first record) and *bad the failing record's
 * index in the chunk. */
int gpu_scan_status_check(const struct gs_job *job, const void *hstatus,
			  uint64_t first_rec, size_t *bad, struct gs_err *err);

void gpu_scan_close(struct gpu_scan *g);

#endif
