/*
 * timeline.c - see timeline.h. One process, one timeline: statics.
 */
#include <stdbool.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "timeline.h"

static const char *const part_name[TL_NPARTS] = {
	[TL_SELECT] = "backend choice",
	[TL_BUFFERS] = "buffers",
	[TL_OPEN] = "backend open",
	[TL_RUN] = "run",
	[TL_TEARDOWN] = "teardown",
};

static struct {
	bool on;
	double t_main, boot_main;	/* main's first line, two clocks */
	double first_run, last_end;	/* 0: no run yet */
	double part[TL_NPARTS];
} tl;

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

double timeline_now(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

void timeline_start(void)
{
	tl.t_main = timeline_now();
	tl.boot_main = clock_s(CLOCK_BOOTTIME);
}

void timeline_enable(void)
{
	tl.on = true;
}

void timeline_add(enum tl_part part, double seconds)
{
	tl.part[part] += seconds;
}

void timeline_run_begin(void)
{
	if (tl.first_run == 0)
		tl.first_run = timeline_now();
}

void timeline_run_end(void)
{
	tl.last_end = timeline_now();
}

/* Seconds from the process's start (the kernel's, in clock ticks since
 * boot) to main's first line; -1 when /proc does not say. */
static double before_main(void)
{
	char buf[1024], *p;
	unsigned long long start;
	long hz = sysconf(_SC_CLK_TCK);
	FILE *f = fopen("/proc/self/stat", "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = '\0';
	/* field 22, starttime; the name (field 2) may hold spaces */
	p = strrchr(buf, ')');
	for (int field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	if (!p || hz <= 0 || sscanf(p, "%llu", &start) != 1)
		return -1;
	double d = tl.boot_main - (double)start / (double)hz;

	return d < 0 ? 0 : d;
}

void timeline_report(FILE *f)
{
	double end = timeline_now(), total = end - tl.t_main, other = total;
	double first = tl.first_run ? tl.first_run : end;
	double last = tl.last_end ? tl.last_end : end;
	double pre = before_main();

	if (!tl.on)
		return;
	fprintf(f, "gpustat: process: %.3f s from main to exit = before the "
		"first run %.3f", total, first - tl.t_main);
	other -= first - tl.t_main;
	for (int i = 0; i < TL_NPARTS; i++) {
		fprintf(f, " + %s %.3f", part_name[i], tl.part[i]);
		other -= tl.part[i];
	}
	other -= end - last;
	fprintf(f, " + after the last run %.3f + other %.3f", end - last,
		other);
	if (pre >= 0)
		fprintf(f, "; before main about %.2f s (exec, loading)", pre);
	fputc('\n', f);
}
