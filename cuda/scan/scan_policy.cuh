/*
 * scan_policy.cuh - the scan's tuning constants in one place, with the
 * measurements behind them (bench/RESULTS.md: build/bench_gpu, 1 GiB on an
 * H100). The tile kernels (agent_scan.cuh, agent_window.cuh) take their
 * shape from here; dispatch_scan.cuh cuts each chunk for the kernels'
 * occupancy, at most SCAN_MAX_BLOCKS_PER_SM.
 *
 * What was measured around these numbers (ms per GiB of f32 unless named):
 * - cutting each column into parts, one block per part (the carry kernel
 *   scans a few hundred parts instead of a chunk's tiles): 5.28 -> 3.10,
 *   i32 1.66 -> 1.41;
 * - register caps for 3 or 4 blocks per SM on the generic out kernel:
 *   1.92-1.96 against 1.845 without, and i32 slower: the grid follows the
 *   kernels' own occupancy instead;
 * - cutting float sums for the hardware-conversion out kernel's occupancy
 *   (scan_sum_hw, 58-62 registers) and the totals kernel's, the fewer of
 *   the two: 4 blocks per SM for f32, 3 for f64, 1.435 -> 1.211 (f64
 *   1.474 at 3 against 1.448 at 2, within noise: the rule stays simple).
 */
#ifndef SCAN_POLICY_CUH
#define SCAN_POLICY_CUH

/* 256 threads of 8 records: a tile of 2048 records keeps the carry kernel's
 * serial loop short (a 64 MiB chunk of f32 is 8192 tiles, 32 block scans)
 * while a thread's items stay in registers. */
#define SCAN_THREADS 256
#define SCAN_ITEMS 8
#define SCAN_TILE (SCAN_THREADS * SCAN_ITEMS)
#define SCAN_WARPS (SCAN_THREADS / 32)
/* The most blocks per SM the tile kernels get (as many as fit, up to this:
 * each block holds a part of a column). */
#define SCAN_MAX_BLOCKS_PER_SM 8
/* The most tiles in a part: 2^27 records, so that a float sum's part stays
 * within exact.cuh's bounds (scan_win_totals_kernel). */
#define SCAN_MAX_TPP (1u << 16)
/* Columns are scanned in one launch each phase; more run on the CPU. */
#define SCAN_MAX_COLUMNS 16

#endif
