/*
 * scan_base.cuh - what every part of the GPU scan shares: the job's
 * configuration as the kernels see it (struct scan_cfg, with the block
 * scan --algorithm picks) and the loop unrolling that keeps a value's
 * limbs in registers. The element types (the half types as raw bits) are
 * dtype.cuh's, the output formats and their one rounding ieee.h's, as for
 * every other kernel and the CPU.
 */
#ifndef SCAN_BASE_CUH
#define SCAN_BASE_CUH

#include <limits.h>
#include <string.h>
#include <type_traits>
#include "dtype.cuh"
#include "exact.cuh"
#include "prod.cuh"
#include "scan_policy.cuh"

/* Unroll the loops over limbs on the device, so that a value's limbs stay
 * in registers (the host check compiles the same code without it). */
#ifdef __CUDA_ARCH__
#define SCAN_UNROLL _Pragma("unroll")
#else
#define SCAN_UNROLL
#endif

#define SCAN_SIGN (1ull << 63)
#define SCAN_NONE (~0ull)

typedef unsigned long long u64;
typedef unsigned __int128 u128;

/* ---- the job's configuration ----------------------------------------- */

/* The block-wide scan the tile kernels run (--algorithm). */
enum scan_block_algo {
	SCAN_BLOCK_WARP,	/* default: warp shuffles, then warp 0 over the
				 * warps' totals (block_scan.cuh) */
	SCAN_BLOCK_HS,		/* hillis-steele: step doubling in shared memory */
	SCAN_BLOCK_BLELLOCH,	/* blelloch: up-sweep, then down-sweep in shared
				 * memory (block_scan_classic.cuh) */
};

/* What the kernels need to know of the job, fixed at open. */
struct scan_cfg {
	int op;			/* OP_SUM, OP_MIN ... OP_XOR */
	bool excl;
	bool can_fail;		/* an integer scan into an integer type, or a
				 * product (overflow, a bracket that cannot
				 * round) */
	bool ofloat, osigned;
	unsigned osize;		/* bytes of an output element */
	struct ieee_fmt fmt;	/* the output's (ieee.h), when ofloat */
	u64 ident;		/* word ops: the empty prefix's word */
	int w;			/* narrow sums: the chunk's window lsb */
	int block;		/* enum scan_block_algo */
};

#endif
