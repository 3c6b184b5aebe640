/*
 * histw_host_check.cu - the weighted histograms' GPU kernels
 * (cuda/histw_kernels.cu) replayed on the host, no GPU needed: each
 * record through the kernels' own hw_record (weight_pieces, the bins),
 * grouped into blocks of a shared copy flushed with hw_flush (the shared
 * path) or straight into the accumulator (the global path), launches
 * ended by the carry (exact_slots_carry), and the accumulator merged with
 * hw_merge_host; its -f state bytes must equal those of the CPU's kernels
 * (cpu_hist_w.c, cpu_hist2d_w.c) over the same records. Weights of every
 * type: normal ones, NaN, +-inf, -0 and +0, extreme scales (1e300 with
 * 1e-300 and subnormals, f32's largest and smallest), integers at their
 * limits in one bin often enough to carry between slots; values on no bin
 * (outside, NaN); ranged and per-value bins, two value columns, 2-D bins.
 */
#include <vector>
#include "histw_kernels.cu"
#include "../unit.h"

extern "C" {
#include "operation.h"
}

static unsigned long long rng = 0x2545f4914f6cdd1dull;

static unsigned long long rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double unif(void)
{
	return (double)(rnd() >> 11) / 9007199254740992.0;
}

/* A value of type T as raw bits from a double (floats) or 64 bits. */
template <typename T>
static typename hist_elem<T>::raw make(double d, unsigned long long bits,
				       bool flt)
{
	typedef typename hist_elem<T>::raw R;

	if constexpr (std::is_same<T, f16_bits>::value) {
		return (R)hist_half_bits(flt ? d : (double)(long long)bits);
	} else if constexpr (std::is_same<T, bf16_bits>::value) {
		float f = (float)d;
		uint32_t u;

		memcpy(&u, &f, 4);
		return (R)(u >> 16);
	} else if constexpr (dtype_is_float<T>::value) {
		return (R)d;
	} else {
		return flt ? (R)(long long)d : (R)bits;
	}
}

static const double SPECIAL[] = {
	NAN, INFINITY, -INFINITY, -0.0, 0.0, 1e300, -1e300, 1e-300, 5e-324,
	3.4028234663852886e38, -3.4028234663852886e38, 1.401298464324817e-45,
	65504.0, 6e-08, 1e-30, 0.1, -2.5,
};

/* n records of C columns of T: values in [-1.2, 1.2] * scale (some NaN),
 * the weight column w: normal, special, or (integers) at the limits. */
template <typename T>
static std::vector<typename hist_elem<T>::raw>
records(size_t n, unsigned C, unsigned w, double scale)
{
	std::vector<typename hist_elem<T>::raw> a(n * C);
	bool flt = dtype_is_float<T>::value;

	for (size_t r = 0; r < n; r++)
		for (unsigned c = 0; c < C; c++) {
			double v;
			unsigned long long bits = rnd();

			if (c != w) {
				v = (unif() * 2.4 - 1.2) * scale;
				if (rnd() % 97 == 0)
					v = NAN;
				if (rnd() % 5 == 0)	/* a crowded bin */
					v = 0.01 * scale;
				a[r * C + c] = make<T>(flt ? v : floor(v), 0,
						       true);
				continue;
			}
			unsigned k = (unsigned)(rnd() % 8);

			if (k == 0)
				v = SPECIAL[rnd() % (sizeof(SPECIAL) / sizeof(*SPECIAL))];
			else
				v = (unif() - 0.5) * 8;
			if (!flt && k < 3)	/* the limits, bits of either sign */
				bits = rnd() % 2 ? ~0ull >> (rnd() % 2) : 1ull << 63;
			else if (!flt)
				bits = (unsigned long long)(long long)(v * 1000);
			a[r * C + c] = make<T>(v, bits, flt);
		}
	return a;
}

/* The kernels' grouping on the host: launches of `launch` records, blocks
 * of `block` (shared: each its own copy, flushed), the carry after each
 * launch. */
template <typename T, class Bins>
static void replay(const struct gs_job *job, const typename hist_elem<T>::raw *p,
		   size_t nrec, const Bins &bins, void *dacc, bool shared,
		   size_t block, size_t launch)
{
	struct hw_layout l = hw_layout_of(job);
	struct hw_params k = hw_params_make(job, dacc, l);

	for (size_t r0 = 0; r0 < nrec; r0 += launch) {
		size_t end = nrec - r0 < launch ? nrec : r0 + launch;

		for (size_t b0 = r0; b0 < end; b0 += block) {
			size_t b1 = end - b0 < block ? end : b0 + block;
			unsigned long long miss[4] = { 0, 0, 0, 0 };
			std::vector<long long> sh(shared ? l.nbins * l.f.nsh : 0);
			std::vector<unsigned> shf(shared ? l.nbins : 0);

			for (size_t r = b0; r < b1; r++)
				hw_record<T>(p + r * k.C, k, bins,
					     shared ? sh.data() : k.slots,
					     shared ? k.nsh : k.ns,
					     shared ? shf.data() : k.flags, miss);
			if (shared)
				hw_flush(sh.data(), shf.data(), k, 0, 1);
			for (unsigned m = 0; m < 4 && m < k.nmiss; m++)
				k.miss[m] += miss[m];
		}
		for (uint64_t b = 0; b < l.nbins; b++)
			exact_slots_carry(k.slots + b * k.ns, k.ns);
	}
}

/* job's -f state bytes of acc. */
static std::vector<unsigned char> state_of(const struct gs_job *job,
					   const void *acc)
{
	const struct state_codec *c = state_codec_for(job);
	size_t n = c->bytes_of ? c->bytes_of(job, acc) : c->bytes(job);
	std::vector<unsigned char> b(n);

	c->put(job, acc, b.data());
	return b;
}

/* The CPU's accumulator of the records, and the replayed GPU's, as state
 * bytes: equal. */
template <typename T, class Bins>
static void compare(const char *name, const struct gs_job *job,
		    const std::vector<typename hist_elem<T>::raw> &a,
		    const Bins &bins, void *dacc, size_t dbytes)
{
	const struct acc_kernels *kk = acc_kernels_for(job);
	size_t nrec = a.size() / job->columns;
	std::vector<unsigned char> want;

	{
		void *acc = calloc(1, kk->acc_size(job));
		void *scratch = malloc(kk->scratch_size(job));

		kk->acc_init(job, acc);
		kk->cpu_add(job, acc, scratch, a.data(), NULL, nrec);
		want = state_of(job, acc);
		acc_release(job, acc);
		free(scratch);
	}
	for (int shared = 0; shared < 2; shared++) {
		size_t block = shared ? 333 : 1000, launch = shared ? 4000 : 7919;
		struct hw_layout l = hw_layout_of(job);
		void *acc = calloc(1, kk->acc_size(job));

		memset(dacc, 0, l.edges_at);	/* hw_init_dev's zeroing */
		replay<T>(job, a.data(), nrec, bins, dacc, shared, block, launch);
		kk->acc_init(job, acc);
		hw_merge_host(job, acc, dacc);
		CHECKF(state_of(job, acc) == want, "%s (%s path): the replayed "
		       "GPU's state differs from the CPU's", name,
		       shared ? "shared" : "global");
		acc_release(job, acc);
	}
	(void)dbytes;
}

template <typename T>
static void check_1d(const char *name, enum gs_type t, unsigned C,
		     bool ranged, uint64_t nbins, size_t n, double scale)
{
	struct gs_job job;
	typedef hist_elem<T> E;

	memset(&job, 0, sizeof(job));
	job.cmd = CMD_HISTW;
	job.dtype.type = t;
	job.columns = C;
	job.wcol = C - 1;
	job.weighted = true;
	job.ranged = ranged;
	job.bins = nbins;
	job.lo = -scale;
	job.hi = scale;
	auto a = records<T>(n, C, C - 1, scale);
	size_t bytes = hw_dev_acc_bytes(&job);
	void *dacc = calloc(1, bytes);

	if (ranged) {
		struct ranged_bins<T> b;

		b.r = hist_ranged_make(&job);
		compare<T>(name, &job, a, b, dacc, bytes);
	} else if constexpr (!dtype_is_float<T>::value && sizeof(T) <= 2) {
		struct perval_bins<T> b;

		b.n = (uint64_t)1 << (8 * sizeof(T));
		b.flip = std::is_signed<T>::value ? (unsigned)(b.n / 2) : 0;
		compare<T>(name, &job, a, b, dacc, bytes);
	}
	free(dacc);
}

template <typename T>
static void check_2d(const char *name, enum gs_type t, unsigned wcol,
		     uint64_t nx, uint64_t ny, size_t n, double scale)
{
	struct gs_job job;

	memset(&job, 0, sizeof(job));
	job.cmd = CMD_HIST2DW;
	job.dtype.type = t;
	job.columns = 3;
	job.wcol = wcol;
	job.weighted = true;
	job.ranged = true;
	job.bins = nx;
	job.ybins = ny;
	job.lo = job.ylo = -scale;
	job.hi = job.yhi = scale;
	auto a = records<T>(n, 3, wcol, scale);
	struct hw_layout l = hw_layout_of(&job);
	size_t bytes = hw_dev_acc_bytes(&job);
	void *dacc = calloc(1, bytes);
	double *de = (double *)((char *)dacc + l.edges_at);
	struct h2_bins<T> b;

	hist2d_edges(&job, 0, de);
	hist2d_edges(&job, 1, de + nx + 1);
	b.ax = h2axis_make(de, de[0], de[nx], nx);
	b.ay = h2axis_make(de + nx + 1, de[nx + 1], de[nx + 1 + ny], ny);
	hist2dw_xy(&job, &b.xc, &b.yc);
	compare<T>(name, &job, a, b, dacc, bytes);
	free(dacc);
}

int main(void)
{
	check_1d<float>("f32 ranged", GS_F32, 2, true, 50, 60000, 3);
	check_1d<double>("f64 ranged", GS_F64, 2, true, 50, 60000, 3);
	check_1d<f16_bits>("f16 ranged", GS_F16, 2, true, 20, 60000, 3);
	check_1d<bf16_bits>("bf16 ranged", GS_BF16, 2, true, 20, 60000, 3);
	check_1d<float>("f32 two value columns", GS_F32, 3, true, 7, 30000, 3);
	check_1d<int>("i32 ranged", GS_I32, 2, true, 30, 60000, 1000);
	check_1d<unsigned long long>("u64 ranged", GS_U64, 2, true, 30, 60000, 1000);
	check_1d<long long>("i64 ranged", GS_I64, 2, true, 30, 60000, 1000);
	check_1d<unsigned char>("u8 per value", GS_U8, 2, false, 0, 60000, 100);
	check_1d<signed char>("i8 per value", GS_I8, 3, false, 0, 30000, 100);
	check_1d<short>("i16 per value", GS_I16, 2, false, 0, 60000, 1000);
	check_2d<float>("2-D f32", GS_F32, 2, 13, 7, 60000, 3);
	check_2d<double>("2-D f64, --weights 1", GS_F64, 0, 9, 11, 60000, 3);
	check_2d<f16_bits>("2-D f16", GS_F16, 1, 5, 5, 60000, 3);
	check_2d<int>("2-D i32", GS_I32, 2, 8, 8, 60000, 1000);
	check_2d<unsigned long long>("2-D u64", GS_U64, 2, 8, 8, 60000, 1000);
	UNIT_END();
}
