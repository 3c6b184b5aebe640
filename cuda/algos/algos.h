/*
 * algos.h - --algorithm's GPU kernels (src/ops/algorithm.h has the
 * names): one struct gpu_ops per command, with the default's accumulator
 * layout first (so merge_host is the default's and the bits are its), and
 * the table that backend_cuda.cu consults (algo_table.cu). C++/CUDA only.
 *
 *   hist    global-atomic, shared-atomic, sort   hist_algos.cuh (compiled
 *           inside hist_kernels.cu: it shares its bins and slots)
 *   sum, reduce --op sum: atomic, block-tree     reduce_algos.cu
 *   dot     atomic, block-tree                   dot_algos.cuh (compiled
 *           inside dot_kernels.cu: it shares dot_fold)
 *   scan    hillis-steele, blelloch              the scan's own block
 *           scans (cuda/scan/block_scan_classic.cuh), bound at gpu_scan_open
 * atomic and block-tree are exact_algos.cuh's, on the exact sums.
 */
#ifndef ALGOS_H
#define ALGOS_H

#include "gpu.h"

extern const struct gpu_ops gpu_hist_algo_ops;	/* hist_algos.cuh */
extern const struct gpu_ops gpu_reduce_algo_ops;	/* reduce_algos.cu */
extern const struct gpu_ops gpu_dot_algo_ops;	/* dot_algos.cuh */

/* The kernels of job->algo for job's pass, or NULL: the default's (the
 * algorithm is not for this pass, or it is ALGO_DEFAULT). */
const struct gpu_ops *gpu_algo_ops(const struct gs_job *job);

/* The kernels the CUDA backend runs for job (backend_cuda.cu): the
 * algorithm's, else the default's; NULL for a scan or a CPU-only pass. */
const struct gpu_ops *gpu_ops_of(const struct gs_job *job);

#endif
