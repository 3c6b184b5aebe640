/*
 * hist_algos_host_check.cu - hist --algorithm shared-atomic and sort
 * (cuda/algos/hist_algos.cuh) replayed on the host, no GPU needed: for
 * per-value and ranged jobs of several types and column counts, the
 * counts that the windows of shared counters give (hist_window_len,
 * hist_window_at: the kernel's arithmetic) and those that sorting the
 * 32-bit keys and counting runs gives (over hist_key_bits bits: every
 * slot must fit) must equal the counts of each element's slot, which is
 * what the default kernels count (their slots are checked against the CPU
 * by the GPU suite). global-atomic adds 1 at each element's slot: that
 * count itself.
 */
#include <algorithm>
#include <vector>
#include "hist_kernels.cu"
#include "../unit.h"

static unsigned long long rng = 0x9e3779b97f4a7c15ull;

static unsigned long long rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

template <typename T, class Slot>
static void check(const char *name, const struct gs_job *job, const T *p,
		  size_t nelem, const Slot &slot)
{
	uint64_t nslots = hist_nslots(job);
	unsigned C = job->columns;
	std::vector<uint64_t> want(nslots), win(nslots), sorted(nslots);
	std::vector<uint32_t> keys(nelem);
	int bits = hist_key_bits(nslots);
	bool fits = true;

	for (size_t e = 0; e < nelem; e++) {
		uint64_t s = slot(p[e], (unsigned)(e % C));

		want[s]++;
		fits &= s < nslots && (bits == 32 || s >> bits == 0);
		keys[e] = (uint32_t)s;
	}
	CHECKF(fits, "%s: a slot past nslots or the key's %d bits", name, bits);
	for (uint64_t w0 = 0; w0 < nslots; w0 += HIST_SHARED_SLOTS) {
		unsigned wn = hist_window_len(nslots, w0);
		std::vector<uint32_t> sh(wn);

		for (size_t e = 0; e < nelem; e++) {
			uint64_t k = hist_window_at(slot(p[e], (unsigned)(e % C)),
						    w0, wn);

			if (k < wn)
				sh[k]++;
		}
		for (unsigned i = 0; i < wn; i++)
			win[w0 + i] += sh[i];
	}
	CHECKF(win == want, "%s: shared-atomic windows", name);
	std::sort(keys.begin(), keys.end());
	for (size_t i = 0, j; i < nelem; i = j) {
		for (j = i; j < nelem && keys[j] == keys[i]; j++)
			;
		sorted[keys[i]] += j - i;
	}
	CHECKF(sorted == want, "%s: sort", name);
}

template <typename T>
static std::vector<T> data(size_t n, bool small)
{
	std::vector<T> v(n);

	for (size_t i = 0; i < n; i++) {
		unsigned long long r = rnd();

		if constexpr (std::is_floating_point<T>::value)
			v[i] = small ? (T)((double)(r >> 11) * 0x1p-52 - 1.5)
				     : (T)((double)(long long)r * 0x1p-40);
		else
			memcpy(&v[i], &r, sizeof(T));
	}
	return v;
}

static void per_value(size_t n, unsigned C)
{
	struct gs_job job;

	memset(&job, 0, sizeof(job));
	job.cmd = CMD_HIST;
	job.columns = C;
	job.dtype.type = GS_I8;
	std::vector<uint8_t> b = data<uint8_t>(n * C, false);
	struct perval_slot<uint8_t> s8 = { 3ull * C, 256, 0x80 };
	check("i8", &job, b.data(), b.size(), s8);
	job.dtype.type = GS_U16;
	std::vector<uint16_t> h = data<uint16_t>(n * C, false);
	struct perval_slot<uint16_t> s16 = { 3ull * C, 65536, 0 };
	check("u16", &job, h.data(), h.size(), s16);
}

template <typename T, int BT>
static void ranged(const char *name, size_t n, unsigned C, uint64_t bins,
		   bool small)
{
	struct gs_job job;

	memset(&job, 0, sizeof(job));
	job.cmd = CMD_HIST;
	job.columns = C;
	job.ranged = true;
	job.bins = bins;
	job.lo = -1;
	job.hi = 1;
	job.dtype.type = sizeof(T) == 4 ? GS_F32 : GS_F64;
	std::vector<T> v = data<T>(n * C, small);
	struct ranged_slot<T, CONV_NUM, BT> s = { hist_ranged_make(&job),
						   3 * (uint64_t)C, C };

	check(name, &job, v.data(), v.size(), s);
}

int main(void)
{
	static const size_t lens[] = { 0, 1, 5, 1000, 100000 };

	for (size_t n : lens)
		for (unsigned C : { 1u, 3u }) {
			per_value(n, C);
			ranged<float, BT_F32>("f32 70000 bins", n, C, 70000, true);
			ranged<float, BT_F32>("f32 wide", n, C, 12285, false);
			ranged<double, BT_F64>("f64 4097 bins", n, C, 4097, true);
			ranged<double, BT_F64>("f64 1 bin", n, C, 1, false);
		}
	UNIT_END();
}
