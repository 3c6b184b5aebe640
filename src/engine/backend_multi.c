/*
 * backend_multi.c - --devices: one CUDA pipeline per listed GPU (each with
 * its own streams, device buffers and release thread: backend_cuda opened
 * once per device), chunk k to pipeline k % N. Every pipeline folds its
 * chunks into its own device accumulators, and finish() merges them all
 * into the command's accumulator: exact merges, so the bits are those of
 * one GPU, or of the CPU, whatever the split. A GPU listed twice runs two
 * independent pipelines on it. The engine's buffers are pinned for every
 * GPU (portable pinned memory), whichever pipeline copies them.
 *
 * Scans do not come here (backend.c): their carry passes from chunk to
 * chunk, and they keep to one GPU.
 */
#include <stdlib.h>
#include "backend.h"
#ifdef GS_HAVE_CUDA
#include "gpustat_cuda.h"

struct multi {
	int n;
	int devices[GS_MAX_DEVICES];
	void *gpu[GS_MAX_DEVICES];
	uint64_t next;
};

static int multi_open(void **ctxp, const struct backend_env *env,
		      struct gs_err *err)
{
	struct multi *m = calloc(1, sizeof(*m));

	*ctxp = m;
	if (!m)
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	m->n = env->ndevices;
	if (m->n < 0)		/* all */
		m->n = cuda_device_count();
	if (m->n > GS_MAX_DEVICES)
		m->n = GS_MAX_DEVICES;
	for (int i = 0; i < m->n; i++) {
		struct backend_env e = *env;
		char why[300];

		m->devices[i] = env->ndevices < 0 ? i : env->devices[i];
		e.device = m->devices[i];
		if (cuda_probe(e.device, why, sizeof(why)) < 0)
			return gs_fail(err, GS_ERUNTIME, "cuda", "GPU %d: %s",
				       e.device, why);
		if (backend_cuda.open(&m->gpu[i], &e, err) < 0)
			return -1;
	}
	return m->n > 0 ? 0 : gs_fail(err, GS_ERUNTIME, "cuda", "no GPU");
}

static int multi_submit(void *v, const struct chunk *ch, struct gs_err *err)
{
	struct multi *m = v;

	return backend_cuda.submit(m->gpu[m->next++ % (uint64_t)m->n], ch, err);
}

static int multi_finish(void *v, void *acc, struct gs_err *err)
{
	struct multi *m = v;

	for (int i = 0; i < m->n; i++)
		if (backend_cuda.finish(m->gpu[i], acc, err) < 0)
			return -1;
	return 0;
}

static void multi_close(void *v)
{
	struct multi *m = v;

	if (!m)
		return;
	for (int i = 0; i < m->n; i++)
		if (m->gpu[i])
			backend_cuda.close(m->gpu[i]);
	free(m);
}

/* The pipelines' busy times added up. */
static void multi_times(void *v, struct stage_times *t)
{
	struct multi *m = v;

	*t = (struct stage_times){ 0 };
	for (int i = 0; i < m->n; i++) {
		struct stage_times s;

		backend_cuda.times(m->gpu[i], &s);
		t->h2d += s.h2d;
		t->kernel += s.kernel;
		t->d2h += s.d2h;
		t->write += s.write;
	}
}

const struct backend backend_multi = {
	.name = "cuda (several GPUs)",
	.host_alloc = cuda_pinned_alloc,
	.host_free = cuda_pinned_free,
	.open = multi_open,
	.submit = multi_submit,
	.finish = multi_finish,
	.close = multi_close,
	.times = multi_times,
};
#endif
