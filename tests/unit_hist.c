/*
 * unit_hist.c - hist_kernels and hist_edges against numpy.histogram's
 * choices (tests/kernel_vectors.h, made by tests/gen_kernel_vectors.py),
 * per-value bins against plain counting, and merged accumulators of every
 * split of the data against one pass; weighted bins (histw_kernels) of
 * the same values against numpy's bins of each.
 */
#include <stdlib.h>
#include <string.h>

#include "acc.h"
#include "kernel_vectors.h"
#include "unit.h"

static void *pack(enum gs_type t, const uint64_t *bits, size_t n)
{
	size_t sz = type_size(t);
	uint8_t *buf = malloc(n * sz + 1);

	for (size_t i = 0; i < n; i++)	/* little-endian host */
		memcpy(buf + i * sz, &bits[i], sz);
	return buf;
}

struct run {
	const struct gs_job *job;
	size_t size;
	void *scratch;
};

static struct hist_acc *run_hist(struct run *r, const uint8_t *data, size_t nrec)
{
	struct hist_acc *h = malloc(r->size);

	hist_kernels.acc_init(r->job, h);
	hist_kernels.cpu_add(r->job, h, r->scratch, data, NULL, nrec);
	return h;
}

/* Merged accumulators of data[0, k) and data[k, nrec) equal the whole. */
static void check_split(struct run *r, const uint8_t *data, size_t nrec,
			const struct hist_acc *whole, size_t k)
{
	size_t rs = job_record_size(r->job);
	struct hist_acc *a = run_hist(r, data, k);
	struct hist_acc *b = run_hist(r, data + k * rs, nrec - k);

	hist_kernels.acc_merge(r->job, a, b);
	CHECKF(memcmp(a, whole, r->size) == 0, "split at %zu of %zu", k, nrec);
	free(a);
	free(b);
}

static void check_splits(struct run *r, const uint8_t *data, size_t nrec,
			 const struct hist_acc *whole)
{
	/* every position when cheap, else a spread of them */
	size_t step = r->size * nrec > (64u << 20) ? nrec / 40 + 1 : 1;

	for (size_t k = 0; k <= nrec; k += step)
		check_split(r, data, nrec, whole, k);
	check_split(r, data, nrec, whole, nrec);
}

static void check_vec(const struct hist_vec *v, unsigned C)
{
	struct gs_job job = {
		.cmd = CMD_HIST, .dtype = { v->type, false }, .columns = C,
		.ranged = true, .bins = v->bins, .lo = v->lo, .hi = v->hi,
	};
	size_t nrec = v->n / C;
	uint8_t *data = pack(v->type, v->bits, nrec * C);
	struct run r = { &job, hist_kernels.acc_size(&job), NULL };
	struct hist_acc *h, *want;

	r.scratch = malloc(hist_kernels.scratch_size(&job) + 1);
	h = run_hist(&r, data, nrec);
	want = calloc(1, r.size);
	want->nbins = v->bins;
	want->columns = C;
	for (size_t i = 0; i < nrec * C; i++) {
		int32_t b = v->bin[i];
		if (b >= 0)
			hist_counts(want, i % C)[b]++;
		else
			want->v[(uint64_t)(-b - 1) * C + i % C]++;
	}
	CHECKF(memcmp(h, want, r.size) == 0, "%s bins %llu range %g:%g C %u",
	       type_name(v->type), (unsigned long long)v->bins, v->lo, v->hi, C);
	check_splits(&r, data, nrec, h);
	free(want);
	free(h);
	free(r.scratch);
	free(data);
}

/* hist --weights (histw_kernels) over records (value of v's type, weight
 * of type wt): each bin's weight sum against numpy's bin of each value
 * (v->bin), the values in no bin counted, and merged halves equal to
 * one pass. Weights i % 7 - 3 (+ 0.5 for floats): every sum exact in a
 * double, so plain adds here are the reference. */
static void check_weighted(const struct hist_vec *v, enum gs_type wt)
{
	size_t sz = type_size(v->type), n = v->n;
	struct gs_record rec = { .n = 2, .size = sz + 8,
				 .type = { { v->type }, { wt } },
				 .off = { 0, sz } };
	struct gs_job job = {
		.cmd = CMD_HISTW, .dtype = { v->type, false }, .columns = 2,
		.ranged = true, .bins = v->bins, .lo = v->lo, .hi = v->hi,
		.weighted = true, .wcol = 1, .rec = &rec,
	};
	const struct acc_kernels *k = &histw_kernels;
	size_t size = k->acc_size(&job);
	uint8_t *data = malloc(n * rec.size + 1);
	void *scratch = malloc(k->scratch_size(&job));
	struct hist_acc *h = malloc(size), *a = malloc(size), *b = malloc(size);
	double *want = calloc(v->bins, sizeof(*want));
	uint64_t out[3] = { 0, 0, 0 };
	bool fl = type_is_float(wt), good = true;

	for (size_t i = 0; i < n; i++) {
		int64_t wi = (int64_t)(i % 7) - 3;
		double wf = (double)wi + 0.5;

		memcpy(data + i * rec.size, &v->bits[i], sz);
		memcpy(data + i * rec.size + sz, fl ? (void *)&wf : (void *)&wi, 8);
		if (v->bin[i] >= 0)
			want[v->bin[i]] += fl ? wf : (double)wi;
		else
			out[-v->bin[i] - 1]++;
	}
	k->acc_init(&job, h);
	k->cpu_add(&job, h, scratch, data, NULL, n);
	for (uint64_t j = 0; j < v->bins; j++) {
		const uint64_t *w = histw_isum(h, 0) + 2 * j;
		double got = fl ? xsum_to_f64(&histw_xsum(h, 0)[j])
				: (double)(int64_t)w[0];

		good = good && got == want[j] && (fl || w[1] == (w[0] >> 63) * ~0ull);
	}
	for (int j = 0; j < 3; j++)
		good = good && h->v[j] == out[j];
	CHECKF(good, "weighted (%s) %s bins %llu range %g:%g", type_name(wt),
	       type_name(v->type), (unsigned long long)v->bins, v->lo, v->hi);
	k->acc_init(&job, a);
	k->acc_init(&job, b);
	k->cpu_add(&job, a, scratch, data, NULL, n / 3);
	k->cpu_add(&job, b, scratch, data + n / 3 * rec.size, NULL, n - n / 3);
	k->acc_merge(&job, a, b);
	CHECKF(memcmp(a, h, size) == 0, "weighted (%s) %s: halves merged",
	       type_name(wt), type_name(v->type));
	free(want);
	free(a);
	free(b);
	free(h);
	free(scratch);
	free(data);
}

static void check_edges(const struct hist_vec *v)
{
	struct gs_job job = {
		.cmd = CMD_HIST, .dtype = { v->type, false }, .columns = 1,
		.ranged = true, .bins = v->bins, .lo = v->lo, .hi = v->hi,
	};
	double *e = malloc((v->bins + 1) * sizeof *e);
	size_t bad = 0;

	hist_edges(&job, e);
	for (size_t i = 0; i < v->nedges; i++)
		bad += memcmp(&e[v->edge_i[i]], &v->edge_v[i], sizeof *e) != 0;
	CHECKF(bad == 0, "%s bins %llu: %zu edges differ", type_name(v->type),
	       (unsigned long long)v->bins, bad);
	free(e);
}

/* Per-value bins of 8/16-bit data against counting by hand. */
static void check_perval(enum gs_type t, unsigned C, size_t nrec, unsigned seed)
{
	struct gs_job job = {
		.cmd = CMD_HIST, .dtype = { t, false }, .columns = C,
	};
	size_t sz = type_size(t), n = nrec * C;
	uint64_t nb = (uint64_t)1 << (8 * sz);
	uint8_t *data = malloc(n * sz + 1);
	struct run r = { &job, hist_kernels.acc_size(&job), NULL };
	struct hist_acc *h, *want;

	srand(seed);
	for (size_t i = 0; i < n * sz; i++)	/* skewed: many repeats */
		data[i] = rand() % 3 ? (uint8_t)(rand() % 5) : (uint8_t)rand();
	r.scratch = malloc(hist_kernels.scratch_size(&job) + 1);
	h = run_hist(&r, data, nrec);
	want = calloc(1, r.size);
	want->nbins = nb;
	want->columns = C;
	for (size_t i = 0; i < n; i++) {
		uint64_t u = 0;
		memcpy(&u, data + i * sz, sz);
		if (type_is_signed(t))	/* bin 0 is the type's minimum */
			u ^= nb >> 1;
		hist_counts(want, i % C)[u]++;
	}
	CHECKF(memcmp(h, want, r.size) == 0, "per-value %s C %u n %zu",
	       type_name(t), C, nrec);
	check_splits(&r, data, nrec, h);
	free(want);
	free(h);
	free(r.scratch);
	free(data);
}

/* Every finite f16 lands in the bin whose edges hold it, also where v - lo
 * overflows f16 (numpy fails there; we bisect). */
static void check_f16_containment(uint64_t bins, double lo, double hi)
{
	struct gs_job job = {
		.cmd = CMD_HIST, .dtype = { GS_F16, false }, .columns = 1,
		.ranged = true, .bins = bins, .lo = lo, .hi = hi,
	};
	size_t size = hist_kernels.acc_size(&job), bad = 0;
	struct hist_acc *h = malloc(size);
	double *e = malloc((bins + 1) * sizeof *e);

	hist_edges(&job, e);
	for (uint32_t x = 0; x < 0x10000; x++) {
		uint16_t bits = (uint16_t)x;
		double v = f16_to_f32(bits);
		uint64_t want = bins;	/* below */
		if (v != v)
			want = bins + 2;
		else if (v > e[bins])
			want = bins + 1;
		else if (v >= e[0])
			for (want = 0; want < bins - 1 && v >= e[want + 1]; want++)
				;
		hist_kernels.acc_init(&job, h);
		hist_kernels.cpu_add(&job, h, NULL, &bits, NULL, 1);
		bad += h->v[want < bins ? 3 + want : want - bins] != 1;
	}
	CHECKF(bad == 0, "f16 containment, %llu bins %g:%g: %zu wrong",
	       (unsigned long long)bins, lo, hi, bad);
	free(e);
	free(h);
}

int main(void)
{
	size_t nv = sizeof hist_vecs / sizeof hist_vecs[0];
	static const enum gs_type pv[] = { GS_U8, GS_I8, GS_U16, GS_I16 };
	static const size_t sizes[] = { 0, 1, 2, 3, 5, 8, 1001 };

	for (int portable = 0; portable < 2; portable++) {
		cpu_portable = portable;	/* the AVX2 loop, then the other */
		for (size_t i = 0; i < nv; i++) {
			check_edges(&hist_vecs[i]);
			check_vec(&hist_vecs[i], 1);
			check_vec(&hist_vecs[i], 3);
			check_weighted(&hist_vecs[i], GS_F64);
			check_weighted(&hist_vecs[i], GS_I64);
		}
	}
	cpu_portable = false;
	check_f16_containment(1000, -60000, 60000);
	check_f16_containment(2001, -1000, 1000);
	check_f16_containment(7, -5, 5);
	for (size_t i = 0; i < 4; i++)
		for (size_t j = 0; j < sizeof sizes / sizeof sizes[0]; j++)
			for (unsigned C = 1; C <= 3; C += 2)
				check_perval(pv[i], C, sizes[j], (unsigned)(i * 10 + j));
	UNIT_END();
}
