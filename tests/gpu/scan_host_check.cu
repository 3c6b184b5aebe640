/*
 * scan_host_check.cu - host-only check of the GPU scan's (cuda/scan/)
 * __host__ __device__ pieces against the CPU code; no GPU needed.
 *
 *   1. ieee.h's ieee_round (one rounding of (m + d) * 2^e), which the scan
 *      shares with the CPU, and ieee_round_fast and scan_round_f64 against
 *      a slow reference written here (guard, round and sticky bits one at a
 *      time), itself checked against the host's long double conversions,
 *      every format;
 *   2. the scan's sums against the one core (numerics/xsum_core.h's
 *      exact_limbs_round, which sum_round and xsum_round both call, is
 *      checked against a slow reference by tests/unit_xsum_core.c): a
 *      narrow window's value against the wide one it widens to;
 *      scan_sum_hw's element and output conversions (the hardware's)
 *      against scan_sum_window<T, 1>'s at random window lsbs of its range;
 *      the wide out kernel's walk (agent_wide.cuh: its limbs, where its
 *      sign, top and lowest limb are, its rounding from three limbs in
 *      shared memory) against scan_sum_wide's K-limb adds and sum_round;
 *   3. the prod monoids: a factor's bracket and a chain of them against
 *      xprod.c's element steps (fprod_mul_f64, iprod_mul), the one-factor
 *      step against the full merge (the rounding is xprod_core.h's
 *      fprod_round_fmt on both sides: unit_xprod).
 * Whole scans (the kernels' phases, chunks, --algorithm's block scans,
 * auto's hand-over) are checked on the GPU itself against cpu_scan
 * (tests/gpu/run.sh's scans and hybrid parts), not replayed here.
 *
 * Build and run (after make): sh tests/gpu/scan_host_check.sh; make check
 * runs it through tests/test_gpu_host.sh wherever nvcc is found.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <algorithm>
#include <limits>
#include <vector>
#include "scan_handle.cuh"
extern "C" {
#include "algorithm.h"
#include "cpu_red.h"
}

static unsigned long long fails, checks;

#define EXPECT(cond, ...) do {                                            \
	checks++;                                                         \
	if (!(cond) && fails++ < 20) {                                    \
		printf("FAIL %s:%d: ", __FILE__, __LINE__);               \
		printf(__VA_ARGS__);                                      \
		printf("\n");                                             \
	}                                                                 \
} while (0)

static u64 rng_state = 0x9e3779b97f4a7c15ull;

static u64 rnd(void)
{
	u64 z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static u64 rnd_bits(int nb)
{
	return nb <= 0 ? 0 : nb >= 64 ? rnd() : rnd() & ((1ull << nb) - 1);
}

#include "scan_check_round.cuh"

int main(void)
{
	check_round();
	check_sum_round();
	check_wide_walk();
	check_prod_monoids();
	printf("scan_host_check: %llu checks, %llu failed\n", checks, fails);
	return fails != 0;
}
