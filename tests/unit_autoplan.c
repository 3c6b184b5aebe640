/*
 * unit_autoplan.c - the shape of auto's plan (src/engine/auto_plan.c), not
 * its fitted constants: a tiny input never starts a GPU; a GPU that pays
 * for B bytes pays for more; more CPU threads never make the GPU more
 * worth it; with -j 1 a large input goes to the GPU; the reason names the
 * predicted times (or the pipe's rate for an unknown length); the tests'
 * hook, GPUSTAT_AUTO_CPU_CHUNKS, starts the GPU whatever the size; an
 * operation whose GPU rate is 0 (kernels not yet run on a GPU) never does.
 */
#include <stdlib.h>
#include <string.h>
#include "auto_plan.h"
#include "unit.h"

static struct gs_job job_of(enum gs_cmd cmd, enum gs_type t, bool ranged)
{
	struct gs_job j = { .cmd = cmd, .columns = 1, .op = OP_SUM,
			    .ranged = ranged };

	j.dtype.type = t;
	return j;
}

static void check_job(const struct gs_job *j)
{
	char why[300];
	int64_t small = 1 << 20, big = (int64_t)64 << 30;

	for (int th = 1; th <= 64; th *= 2)
		CHECKF(!auto_plan_gpu(j, small, false, th, why, sizeof(why)),
		       "1 MiB on %d threads: %s", th, why);
	CHECKF(auto_plan_gpu(j, big, false, 1, why, sizeof(why)), "64 GiB on one "
	       "thread: %s", why);
	CHECK(strstr(why, " s on 1 CPU thread ") != NULL);
	for (int th = 1; th <= 64; th *= 2) {
		bool prev = false;

		for (int64_t b = 1 << 20; b <= big; b *= 2) {
			bool gpu = auto_plan_gpu(j, b, false, th, why, sizeof(why));

			CHECKF(gpu || !prev, "%lld bytes on %d threads: the CPU "
			       "after the GPU for fewer", (long long)b, th);
			prev = gpu;
			/* twice the threads: never the GPU where one was not */
			CHECKF(!auto_plan_gpu(j, b, false, th * 2, why, sizeof(why)) ||
			       gpu, "%lld bytes: the GPU on %d threads, not "
			       "on %d", (long long)b, th * 2, th);
		}
	}
	auto_plan_gpu(j, -1, false, 16, why, sizeof(why));
	CHECK(strstr(why, "unknown length") != NULL);
	/* zstd: the cores decode it, whatever its length */
	for (int64_t b = -1; b <= big; b = b < 1 ? 1 << 20 : b * 8) {
		CHECKF(!auto_plan_gpu(j, b, true, 16, why, sizeof(why)),
		       "zstd, %lld bytes: %s", (long long)b, why);
		CHECK(strstr(why, "zstd input") != NULL);
	}
}

int main(void)
{
	const struct gs_job jobs[] = {
		job_of(CMD_REDUCE, GS_F32, false),
		job_of(CMD_REDUCE, GS_F64, false),
		job_of(CMD_STATS, GS_F32, false),
		job_of(CMD_DOT, GS_F32, false),
		job_of(CMD_HIST, GS_U8, false),
		job_of(CMD_HIST, GS_F32, true),
		job_of(CMD_MINMAX, GS_F32, false),
		job_of(CMD_SCAN, GS_F32, false),
		job_of(CMD_SCAN, GS_I16, false),
	};
	/* GPU kernels slower end to end where measured: auto keeps them on the CPU */
	const struct gs_job unmeasured[] = {
		job_of(CMD_SELECT, GS_F32, false),
		job_of(CMD_COLLECT, GS_F64, false),
		job_of(CMD_MODECOUNT, GS_U32, false),
	};

	char why[300];

	unsetenv(AUTO_CPU_CHUNKS_ENV);
	for (size_t i = 0; i < sizeof(jobs) / sizeof(jobs[0]); i++)
		check_job(&jobs[i]);
	for (size_t i = 0; i < sizeof(unmeasured) / sizeof(unmeasured[0]); i++)
		for (int64_t b = -1; b <= (int64_t)64 << 30; b = b < 1 ? 1 << 20 : b * 4) {
			CHECK(!auto_plan_gpu(&unmeasured[i], b, false, 1, why, sizeof(why)));
			CHECK(strstr(why, "its GPU kernels were slower") != NULL);
		}
	/* the tests' hook starts the GPU for any input */
	setenv(AUTO_CPU_CHUNKS_ENV, "1", 1);
	CHECK(auto_plan_gpu(&jobs[0], 1, false, 16, why, sizeof(why)));
	UNIT_END();
}
