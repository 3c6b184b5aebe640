/*
 * cpu_avx2.c - whether the CPU kernels' AVX2 loops may run (cpu_fsum32.c,
 * the ranged bins of cpu_hist.c, the one-column min and max of
 * cpu_reduce.c, the f32 stages of cpu_stats.c and cpu_dot.c): the CPU
 * has AVX2 and no test has set cpu_portable, which runs the portable C
 * loops in their place (the same bits).
 */
#include "acc.h"

bool cpu_portable;

#if defined(__x86_64__) && defined(__GNUC__)
bool cpu_avx2(void)
{
	static int have = -1;

	if (have < 0)
		have = __builtin_cpu_supports("avx2") ? 1 : 0;
	return have && !cpu_portable;
}
#else
bool cpu_avx2(void)
{
	return false;
}
#endif
