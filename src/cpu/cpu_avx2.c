/*
 * cpu_avx2.c - whether the CPU kernels' AVX2 loops may run (cpu_fsum32.c,
 * the ranged bins of cpu_hist.c, the one-column min and max of
 * cpu_reduce.c, the f32 stages of cpu_stats.c and cpu_dot.c): the CPU
 * has AVX2 and no test has set cpu_portable, which runs the portable C
 * loops in their place (the same bits).
 */
#include <pthread.h>
#include "acc.h"

bool cpu_portable;

#if defined(__x86_64__) && defined(__GNUC__)
/* asked once, whichever thread asks first: the workers ask at once */
static pthread_once_t avx2_once = PTHREAD_ONCE_INIT;
static bool avx2_have;

static void avx2_probe(void)
{
	avx2_have = __builtin_cpu_supports("avx2");
}

bool cpu_avx2(void)
{
	pthread_once(&avx2_once, avx2_probe);
	return avx2_have && !cpu_portable;
}
#else
bool cpu_avx2(void)
{
	return false;
}
#endif
