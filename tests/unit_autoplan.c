/*
 * unit_autoplan.c - the shape of auto's plan (src/engine/auto_plan.c), not
 * its fitted constants: a tiny input never starts a GPU; a GPU that pays
 * for B bytes pays for more; more CPU threads never make the GPU more
 * worth it; with -j 1 a large input goes to the GPU; the reason names the
 * predicted times; an unknown length runs on the CPU, watched against the
 * input's rate; the tests' hook, GPUSTAT_AUTO_CPU_CHUNKS, starts the GPU
 * whatever the size; an operation whose GPU rate is 0 (kernels not yet run
 * on a GPU) never does.
 *
 * The revision (auto_plan_late) where the plan picked the CPU: a CPU at
 * the plan's rate never starts the GPU it did not start; a CPU far slower
 * does, with much to go, and a slower one never less; nothing to go, or
 * too few seconds measured, never; the first start has a margin (the CPU
 * predicted at least 10% slower, so noise does not start GPUs); its hook,
 * GPUSTAT_AUTO_CPU_GBS, decides from any evidence. auto_plan_watch: known
 * lengths and unknown ones (not empty), not zstd, not a job whose GPU rate
 * is 0.
 *
 * An unknown length (auto_plan_stream): a CPU that never waits for its
 * input (wall time = its own) starts the GPU; one that waits half the time
 * does not; between, the start stops once the CPU computes 1.25 times as
 * fast as the input comes, and never comes back for a CPU that waits
 * longer; too few seconds measured never start it; the reason says both
 * rates and, where the CPU kept up, so; the hook fakes the CPU's rate.
 *
 * hist2d (check_hist2d): the plan picks what bench/RESULTS.md measured on
 * the H200 (f32 points, 1024x1024 bins, 16 threads): the CPU at 1e8
 * points (0.31 s against 0.59 with --backend cuda) and at 2.5e8 (about
 * the CPU's time for what a GPU's start takes), the GPU at 1e9 (1.52 s on
 * the CPU, 1.01 with --backend cuda); at 4096x4096 the GPU at 5e8 points
 * on the 6 threads that 64-bit counts left (2.028 s on the CPU, 0.936
 * with cuda), and the same as 1024x1024 on the 16 that 16-bit counts
 * leave (the CPU's rate a thread held at 4096x4096); the reason names
 * the bins and the threads.
 *
 * A cold file (job->cold_input) comes at its disk's rate: never the GPU
 * in the plan, watched as a pipe is.
 *
 * --by (check_group), (i32, f32) records on 16 threads, as
 * bench/bench_group.sh measured on the H200: 1e8 records on the CPU (0.23 s
 * against 0.63 with --backend cuda at 1,000 keys), 1e9 on the GPU (1.94 s
 * against 0.69), the reason naming the records' types and the keys past
 * the GPU's table; f64 sums stay on the CPU; the revisions never start a
 * GPU for keys the table may not hold, and do for 16-bit keys.
 */
#include <stdio.h>
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
	/* unknown length: the CPU, watched against the input */
	for (int th = 1; th <= 64; th *= 2) {
		CHECK(!auto_plan_gpu(j, -1, false, th, why, sizeof(why)));
		CHECK(strstr(why, "input of unknown length: the CPU, watched "
			      "against the input's rate") != NULL);
	}
	/* zstd: the cores decode it, whatever its length */
	for (int64_t b = -1; b <= big; b = b < 1 ? 1 << 20 : b * 8) {
		CHECKF(!auto_plan_gpu(j, b, true, 16, why, sizeof(why)),
		       "zstd, %lld bytes: %s", (long long)b, why);
		CHECK(strstr(why, "compressed input") != NULL);
	}
}

/* The plan's CPU rate for j on th threads, from its time for 64 GiB
 * ("... about 2.336 s on 16 CPU threads ..."). */
static double plan_rate(const struct gs_job *j, int th)
{
	char why[300];
	double b = (double)((int64_t)64 << 30), t = 0;
	const char *p;

	auto_plan_gpu(j, (int64_t)b, false, th, why, sizeof(why));
	p = strstr(why, "about ");
	return p && sscanf(p, "about %lf s on", &t) == 1 && t > 0 ? b / t : 0;
}

/* auto_plan_late for a CPU that ran at rate bytes/s for a second. */
static bool late(const struct gs_job *j, int th, double rate, double left,
		 char *why, size_t n)
{
	return auto_plan_late(j, th, (uint64_t)rate, 1.0, (uint64_t)left, why, n);
}

static void check_late(const struct gs_job *j)
{
	char why[300];
	double big = (double)((int64_t)64 << 30);

	for (int th = 1; th <= 64; th *= 4) {
		double plan = plan_rate(j, th);

		CHECKF(plan > 0, "no rate in the plan's reason on %d threads", th);
		/* at the plan's rate, the CPU where the plan put it */
		for (double b = 1 << 20; b <= big; b *= 2) {
			char pwhy[300];

			if (auto_plan_gpu(j, (int64_t)b, false, th, pwhy, sizeof(pwhy)))
				continue;
			for (double left = b; left >= 1; left /= 16)
				CHECKF(!late(j, th, plan, left, why, sizeof(why)),
				       "%.0f of %.0f bytes left at the plan's "
				       "rate on %d threads: %s", left, b, th, why);
		}
		/* 1000x slower, 64 GiB to go: the GPU; the reason says why */
		CHECKF(late(j, th, plan / 1000, big, why, sizeof(why)),
		       "1000x slower on %d threads: %s", th, why);
		CHECK(strstr(why, "the CPU ran at ") != NULL);
		CHECK(strstr(why, " s left on it against ") != NULL);
		CHECK(!late(j, th, plan / 1000, 0, why, sizeof(why)));
		/* measured for too short a time: not yet */
		CHECK(!auto_plan_late(j, th, 1, 1e-6, (uint64_t)big, why,
				      sizeof(why)));
		/* slower never undoes a start; the first start has a margin */
		bool prev = false, first = true;

		for (double rate = plan; rate > plan / 1e4; rate *= 0.97) {
			bool gpu = late(j, th, rate, big / 8, why, sizeof(why));
			double t_cpu = 0, t_gpu = 0;

			CHECKF(gpu || !prev, "%.3g B/s starts the GPU, %.3g does "
			       "not", rate / 0.97, rate);
			if (gpu && first) {
				const char *p = strstr(why, ": ");

				first = false;
				CHECK(p && sscanf(p, ": %lf s left on it against "
						  "%lf s", &t_cpu, &t_gpu) == 2);
				CHECKF(t_cpu >= 1.1 * t_gpu, "%s", why);
			}
			prev = gpu;
		}
		CHECK(!first);
	}
}

/* An unknown length: a second of the CPU's work over wall seconds. */
static void check_stream(const struct gs_job *j)
{
	char why[300];
	double rate = 4e9;
	uint64_t d = (uint64_t)rate;

	/* the CPU the bottleneck: it never waited */
	CHECKF(auto_plan_stream(j, d, 1.0, 1.0, why, sizeof(why)), "%s", why);
	CHECK(strcmp(why, "computed at 4.00 GB/s, the input came at 4.00 "
		     "GB/s") == 0);
	/* idle half the time: it keeps up, and says so */
	CHECKF(!auto_plan_stream(j, d, 1.0, 2.0, why, sizeof(why)), "%s", why);
	CHECK(strcmp(why, "kept up: it computed at 4.00 GB/s, the input came "
		     "at 2.00 GB/s") == 0);
	/* from never waiting to waiting 3x its work: the start stops once,
	 * at the margin, and does not come back */
	bool prev = true;
	double stop = 0;

	for (double w = 1.0; w <= 4.0; w *= 1.01) {
		bool gpu = auto_plan_stream(j, d, 1.0, w, why, sizeof(why));

		CHECKF(!gpu || prev, "starts at %.3f s of wall, not at less", w);
		if (prev && !gpu)
			stop = w;
		prev = gpu;
	}
	CHECKF(stop >= 1.2 && stop <= 1.3, "the CPU kept up from %.3f s of "
	       "wall a second of its work", stop);
	/* too little evidence: not yet, whatever the rates */
	CHECK(!auto_plan_stream(j, d / 1000, 1e-3, 1e-3, why, sizeof(why)));
	CHECK(strstr(why, "too briefly measured") != NULL);
	CHECK(!auto_plan_stream(j, 0, 0, 0, why, sizeof(why)));
	CHECK(!auto_plan_stream(j, d, 1.0, 0, why, sizeof(why)));
}

/* hist2d of f32 points over nx x nx bins */
static struct gs_job hist2d_job(uint64_t nx)
{
	struct gs_job j = job_of(CMD_HIST2D, GS_F32, true);

	j.columns = 2;
	j.bins = j.ybins = nx;
	return j;
}

static void check_hist2d(void)
{
	struct gs_job j = hist2d_job(1024), big = hist2d_job(4096);
	char why[300];
	int64_t point = 8;	/* bytes: x and y */

	CHECKF(!auto_plan_gpu(&j, 100000000 * point, false, 16, why,
			      sizeof(why)), "1e8 points: %s", why);
	CHECK(strstr(why, "a 2-D histogram (1024x1024 bins) of ") == why);
	CHECKF(!auto_plan_gpu(&j, 250000000 * point, false, 16, why,
			      sizeof(why)), "2.5e8 points: %s", why);
	CHECKF(auto_plan_gpu(&j, 1000000000 * point, false, 16, why,
			     sizeof(why)), "1e9 points: %s", why);
	CHECK(strstr(why, "the CPU starts, the GPU takes over") != NULL);
	CHECKF(auto_plan_gpu(&big, 1000000000 * point, false, 7, why,
			     sizeof(why)), "1e9 points, 4096^2: %s", why);
	CHECK(strstr(why, "(4096x4096 bins)") != NULL);
	CHECKF(auto_plan_gpu(&big, 500000000 * point, false, 6, why,
			     sizeof(why)), "5e8 points, 4096^2, 6 threads: %s",
	       why);
	CHECK(strstr(why, "on 6 CPU threads") != NULL);
	for (int64_t n = 100000000; n <= 1000000000; n += 50000000) {
		bool small = auto_plan_gpu(&j, n * point, false, 16, why,
					   sizeof(why));

		CHECKF(auto_plan_gpu(&big, n * point, false, 16, why,
				     sizeof(why)) == small,
		       "%lld points, 4096^2 and 1024^2 on 16 threads: %s",
		       (long long)n, why);
	}
}

static void check_group(void)
{
	static const unsigned key[] = { 0 }, val[] = { 1 };
	struct gs_record r, r64, r16;
	struct gs_group g = { .nkeys = 1, .nvals = 1, .key = key, .val = val,
			      .what = GROUP_SUM, .limit = 1ull << 30 };
	struct gs_job j = { .cmd = CMD_GROUP, .columns = 2, .group = &g };
	struct gs_job j64, j16;
	size_t bad, badlen;
	char why[400];
	int64_t rec = 8;

	CHECK(record_parse("i32,f32", &r, &bad, &badlen) == 0);
	CHECK(record_parse("i32,f64", &r64, &bad, &badlen) == 0);
	CHECK(record_parse("u16,f32", &r16, &bad, &badlen) == 0);
	j.rec = &r;
	j64 = j;
	j64.rec = &r64;
	j16 = j;
	j16.rec = &r16;
	CHECKF(!auto_plan_gpu(&j, 100000000 * rec, false, 16, why, sizeof(why)),
	       "1e8 records: %s", why);
	CHECKF(strstr(why, "bytes of i32,f32") != NULL, "%s", why);
	CHECKF(auto_plan_gpu(&j, 1000000000 * rec, false, 16, why, sizeof(why)),
	       "1e9 records: %s", why);
	CHECKF(strstr(why, "keys past the GPU's table") != NULL, "%s", why);
	CHECKF(!auto_plan_gpu(&j64, 1000000000 * 12ll, false, 16, why,
			      sizeof(why)), "f64 values: %s", why);
	CHECK(strstr(why, "f64 values") != NULL);
	CHECKF(auto_plan_gpu(&j16, 1000000000 * 6ll, false, 16, why,
			     sizeof(why)), "u16 keys: %s", why);
	CHECKF(strstr(why, "keys past") == NULL, "%s", why);
	/* a CPU far slower than planned: many keys, or few on a slow CPU */
	CHECK(!auto_plan_late(&j, 16, 100 << 20, 1.0, 8ull << 30, why,
			      sizeof(why)));
	CHECK(auto_plan_late(&j16, 16, 100 << 20, 1.0, 8ull << 30, why,
			     sizeof(why)));
	CHECK(!auto_plan_watch(&j, 8ll << 30, false));
	CHECK(auto_plan_watch(&j16, 8ll << 30, false));
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
		hist2d_job(1024),
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
	check_hist2d();
	check_group();
	/* a cold file: the disk's rate, planned as a pipe's, then watched */
	for (size_t i = 0; i < sizeof(jobs) / sizeof(jobs[0]); i++) {
		struct gs_job cold = jobs[i];

		cold.cold_input = true;
		CHECKF(!auto_plan_gpu(&cold, (int64_t)64 << 30, false, 1, why,
				      sizeof(why)), "cold 64 GiB: %s", why);
		CHECK(strstr(why, "a file mostly on disk") == why);
		CHECK(auto_plan_watch(&cold, (int64_t)64 << 30, false));
	}
	for (size_t i = 0; i < sizeof(unmeasured) / sizeof(unmeasured[0]); i++)
		for (int64_t b = -1; b <= (int64_t)64 << 30; b = b < 1 ? 1 << 20 : b * 4) {
			CHECK(!auto_plan_gpu(&unmeasured[i], b, false, 1, why, sizeof(why)));
			CHECK(strstr(why, "its GPU kernels were slower") != NULL);
		}
	/* the tests' hook starts the GPU for any input */
	setenv(AUTO_CPU_CHUNKS_ENV, "1", 1);
	CHECK(auto_plan_gpu(&jobs[0], 1, false, 16, why, sizeof(why)));
	unsetenv(AUTO_CPU_CHUNKS_ENV);

	/* the revision */
	unsetenv(AUTO_CPU_GBS_ENV);
	for (size_t i = 0; i < sizeof(jobs) / sizeof(jobs[0]); i++) {
		check_late(&jobs[i]);
		CHECK(auto_plan_watch(&jobs[i], 1, false));
		CHECK(auto_plan_watch(&jobs[i], (int64_t)1 << 40, false));
		CHECK(!auto_plan_watch(&jobs[i], 0, false));
		CHECK(auto_plan_watch(&jobs[i], -1, false));
		CHECK(!auto_plan_watch(&jobs[i], -1, true));
		CHECK(!auto_plan_watch(&jobs[i], 1 << 20, true));
		check_stream(&jobs[i]);
	}
	for (size_t i = 0; i < sizeof(unmeasured) / sizeof(unmeasured[0]); i++) {
		CHECK(!auto_plan_watch(&unmeasured[i], 1 << 20, false));
		CHECK(!auto_plan_watch(&unmeasured[i], -1, false));
		CHECK(!late(&unmeasured[i], 16, 1, (double)((int64_t)64 << 30),
			    why, sizeof(why)));
		CHECK(!auto_plan_stream(&unmeasured[i], 1 << 30, 1.0, 1.0, why,
					sizeof(why)));
	}
	/* its hook: any evidence, the hook's rate */
	setenv(AUTO_CPU_GBS_ENV, "0.000001", 1);
	CHECK(auto_plan_late(&jobs[0], 16, 1, 0, 1 << 20, why, sizeof(why)));
	CHECK(strstr(why, AUTO_CPU_GBS_ENV) != NULL);
	CHECK(!auto_plan_late(&jobs[0], 16, 1, 0, 0, why, sizeof(why)));
	setenv(AUTO_CPU_GBS_ENV, "1000", 1);
	CHECK(!auto_plan_late(&jobs[0], 16, 1, 1e-6, (uint64_t)1 << 36, why,
			      sizeof(why)));
	/* and against a pipe: far below the input, far above */
	CHECK(!auto_plan_stream(&jobs[0], 1 << 16, 1e-6, 1e-5, why, sizeof(why)));
	CHECK(strstr(why, "kept up: it computed at 1000.00 GB/s (" AUTO_CPU_GBS_ENV
		      "), the input came at 6.55 GB/s") == why);
	setenv(AUTO_CPU_GBS_ENV, "0.000001", 1);
	CHECK(auto_plan_stream(&jobs[0], 1 << 16, 1e-6, 1e-5, why, sizeof(why)));
	CHECK(strstr(why, AUTO_CPU_GBS_ENV) != NULL);
	/* a hook that is no finite rate above 0 is as if unset: the measured
	 * rate (here too briefly measured to start anything) */
	static const char *const junk[] = { "nan", "inf", "-1", "0", "x", "1x", "" };

	for (size_t i = 0; i < sizeof(junk) / sizeof(junk[0]); i++) {
		setenv(AUTO_CPU_GBS_ENV, junk[i], 1);
		CHECK(!auto_plan_late(&jobs[0], 16, 1, 0, 1 << 20, why, sizeof(why)));
		CHECK(strstr(why, AUTO_CPU_GBS_ENV) == NULL);
		CHECK(!auto_plan_stream(&jobs[0], 1 << 16, 0, 1e-5, why, sizeof(why)));
		CHECK(strstr(why, AUTO_CPU_GBS_ENV) == NULL);
	}
	unsetenv(AUTO_CPU_GBS_ENV);
	UNIT_END();
}
