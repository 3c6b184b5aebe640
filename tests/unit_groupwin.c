/*
 * unit_groupwin.c - --by's fast fold (group_fold.c) holds its threads'
 * direct arrays (windows) against the limit: 128 threads' accumulators of
 * one run (folded here one after another), with a limit of 16 MiB whose
 * sixty-fourth is each one's window, take no more memory than the generic
 * fold of the same records (their bytes swapped: cpu_group.c's own loop)
 * plus the quarter of the limit the windows may have, where 128 windows
 * would be twice the limit; and the keys' state is the generic fold's,
 * byte for byte. Heap bytes in use are glibc's (mallinfo2); elsewhere, or
 * under ASan, only the bytes are compared.
 */
#include <stdlib.h>
#include <string.h>
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33)
#include <malloc.h>
#define HEAP_KNOWN 1
#endif
#include "unit.h"
#include "cpu_group.h"

#define LIMIT ((uint64_t)16 << 20)
#define THREADS 128
#define NREC 4096

static size_t heap_in_use(void)
{
#ifdef HEAP_KNOWN
	struct mallinfo2 m = mallinfo2();

	return m.uordblks + m.hblkhd;
#else
	return 0;
#endif
}

/* NREC records of an 8-byte key and an f64 value, in the byte order of
 * swap: 16 keys spread over a window's span, values of a few magnitudes. */
static unsigned char *records(bool swap)
{
	unsigned char *d = malloc(NREC * 16);

	for (size_t i = 0; i < NREC; i++) {
		uint64_t k = (i * 7 % 16) * 128, v;
		double x = (double)(i % 37) * 0.375 - (double)(i % 5) * 1e-9;

		memcpy(&v, &x, 8);
		if (swap) {
			k = __builtin_bswap64(k);
			v = __builtin_bswap64(v);
		}
		memcpy(d + i * 16, &k, 8);
		memcpy(d + i * 16 + 8, &v, 8);
	}
	return d;
}

/* THREADS accumulators of one run fold the records; the heap's growth
 * while they live into *grew; then merged into the command's, whose state
 * bytes are returned (*n of them). */
/* A state's bytes into a buffer of the length group_state_bytes said. */
struct into {
	unsigned char *p;
	size_t at, n;
};

static bool put_into(void *ctx, const void *p, size_t n)
{
	struct into *to = ctx;

	if (to->at + n > to->n)
		return false;
	memcpy(to->p + to->at, p, n);
	to->at += n;
	return true;
}

static unsigned char *run(const char *types, bool swap, size_t *grew, size_t *n)
{
	static const unsigned key[1] = { 0 }, val[1] = { 1 };
	struct gs_group gr = { 1, 1, key, val, GROUP_SUM, LIMIT, NULL, false };
	static struct group_acc acc[THREADS];
	struct group_acc all;
	struct gs_record r;
	struct gs_job job;
	unsigned char *d = records(swap), *state, *scratch;
	struct into to;
	size_t bad, badlen, before, after;

	CHECK(record_parse(types, &r, &bad, &badlen) == 0);
	memset(&job, 0, sizeof(job));
	job.cmd = CMD_GROUP;
	job.columns = r.n;
	job.rec = &r;
	job.dtype = r.type[0];
	job.group = &gr;
	scratch = malloc(group_kernels.scratch_size(&job) + 1);
	before = heap_in_use();
	for (unsigned t = 0; t < THREADS; t++) {
		group_kernels.acc_init(&job, &acc[t]);
		group_kernels.cpu_add(&job, &acc[t], scratch, d, NULL, NREC);
	}
	after = heap_in_use();
	*grew = after > before ? after - before : 0;
	group_kernels.acc_init(&job, &all);
	for (unsigned t = 0; t < THREADS; t++) {
		group_kernels.acc_merge(&job, &all, &acc[t]);
		group_kernels.acc_free(&job, &acc[t]);
	}
	*n = group_state_bytes(&job, &all);
	state = malloc(*n ? *n : 1);
	to = (struct into){ state, 0, *n };
	group_state_write(&job, &all, &(struct gs_sink){ put_into, &to });
	if (to.at != *n)
		*n = 0;	/* fewer bytes than the length said: no state */
	group_kernels.acc_free(&job, &all);
	free(scratch);
	free(d);
	return state;
}

int main(void)
{
	size_t generic, fast, ng, nf;
	unsigned char *want = run(">i8,>f8", true, &generic, &ng);
	unsigned char *got = run("i64,f64", false, &fast, &nf);

	CHECKF(ng && ng == nf && !memcmp(want, got, ng),
	       "the fast fold's state differs from the generic one's (%zu, %zu bytes)",
	       nf, ng);
	CHECKF(fast <= generic + LIMIT / 4 + LIMIT / 8,
	       "%d threads' windows took %.2f MiB (the generic fold %.2f MiB) "
	       "with a limit of %.0f MiB", THREADS, fast / 1048576.0,
	       generic / 1048576.0, LIMIT / 1048576.0);
#ifndef HEAP_KNOWN
	printf("unit_groupwin: note: no mallinfo2: the memory is not checked\n");
#endif
	free(want);
	free(got);
	UNIT_END();
}
