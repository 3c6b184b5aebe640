/*
 * bench_group_sort.cu - issue 31's two ways to group on the GPU, timed on
 * the device alone (no PCIe, no host merge), on n (i32 key, f32 value)
 * records with keys uniform over K values:
 *
 *   hash   gd_fold (src/numerics/group_dev.h), the kernel --by runs
 *          (cuda/group_kernels.cu): exact count, min, max and sum per key
 *          in one pass over the records
 *   sort   CUB: split the records into keys and values, DeviceRadixSort::
 *          SortPairs by key, then DeviceReduce::ReduceByKey of one 64-bit
 *          word per value (a fixed-point image of the f32, which is NOT
 *          exact over f32's range: an exact sum needs 6 limbs a sign per
 *          run, so this is the sort's lower bound, not its cost)
 *
 * Usage (on a GPU machine, repository root):
 *   nvcc -O3 -std=c++17 -arch=native -Isrc/numerics -o build/bench_group_sort \
 *        bench/bench_group_sort.cu && build/bench_group_sort [MRECORDS]
 * Prints one line per K: milliseconds of each and records per second.
 */
#include <stdio.h>
#include <stdlib.h>
#include <cub/cub.cuh>
#include <cuda/std/functional>
#include "group_dev.h"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
	fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void make_records(unsigned char *r, size_t n, uint32_t k)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x) {
		uint64_t h = (i + 1) * 0x9e3779b97f4a7c15ull;
		int32_t key = (int32_t)((h >> 32) % k);
		float v = (float)((int32_t)(h & 0xffffff) - 0x800000) * 0.001f;

		memcpy(r + 8 * i, &key, 4);
		memcpy(r + 8 * i + 4, &v, 4);
	}
}

__global__ void hash_kernel(unsigned char *base, const unsigned char *d,
			    size_t n)
{
	struct gd_head *h = (struct gd_head *)base;

	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		gd_fold(h, base, d + i * 8);
}

__global__ void split(const unsigned char *r, size_t n, int32_t *k,
		      unsigned long long *v)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x) {
		float f;

		memcpy(&k[i], r + 8 * i, 4);
		memcpy(&f, r + 8 * i + 4, 4);
		v[i] = (unsigned long long)(long long)((double)f * 1099511627776.0);
	}
}

int main(int argc, char **argv)
{
	size_t n = (size_t)(argc > 1 ? atof(argv[1]) : 100) * 1000000;
	uint32_t ks[] = { 1000, 1000000 };
	unsigned char *rec, *acc;
	int32_t *k0, *k1;
	unsigned long long *v0, *v1, *agg;
	int *nruns;
	void *tmp = NULL;
	size_t tb = 0, t1 = 0, t2 = 0;
	int nsm;
	cudaEvent_t a, b;
	struct gd_head h;

	CK(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, 0));
	memset(&h, 0, sizeof(h));
	h.slots = 1ull << 21;
	h.max_keys = h.slots / 2;
	h.rs = 8;
	h.nkeys = 1;
	h.nvals = 1;
	h.what = GROUP_SUM;
	h.key_type[0] = GS_I32;
	h.col[0].off = 4;
	h.col[0].type = GS_F32;
	gd_window(GS_F32, &h.col[0]);
	h.col[0].w = GD_KEY + 1;
	h.sw = h.col[0].w + gd_col_words(&h.col[0], GROUP_SUM);
	h.spill_cap = 1 << 20;
	h.table_off = (sizeof(h) + 63) / 64 * 64;
	h.spill_off = h.table_off + h.slots * h.sw * 8;
	size_t accb = h.spill_off + h.spill_cap * h.rs;

	CK(cudaMalloc(&rec, n * 8));
	CK(cudaMalloc(&acc, accb));
	CK(cudaMalloc(&k0, n * 4));
	CK(cudaMalloc(&k1, n * 4));
	CK(cudaMalloc(&v0, n * 8));
	CK(cudaMalloc(&v1, n * 8));
	CK(cudaMalloc(&agg, n * 8));
	CK(cudaMalloc(&nruns, sizeof(int)));
	CK(cub::DeviceRadixSort::SortPairs(NULL, t1, k0, k1, v0, v1, (int)n));
	CK(cub::DeviceReduce::ReduceByKey(NULL, t2, k1, k0, v1, agg, nruns,
					  cuda::std::plus<unsigned long long>(),
					  (int)n));
	tb = t1 > t2 ? t1 : t2;
	CK(cudaMalloc(&tmp, tb));
	CK(cudaEventCreate(&a));
	CK(cudaEventCreate(&b));
	printf("%zu M records (i32 key, f32 value) on the device, %d SMs\n",
	       n / 1000000, nsm);
	printf("%10s %10s %10s %12s %12s %8s\n", "keys", "hash_ms", "sort_ms",
	       "hash_Grec/s", "sort_Grec/s", "spilled");
	for (int t = 0; t < 2; t++) {
		float mh = 0, ms = 0;
		struct gd_head back;

		make_records<<<nsm * 8, 256>>>(rec, n, ks[t]);
		CK(cudaMemset(acc, 0, accb));
		CK(cudaMemcpy(acc, &h, sizeof(h), cudaMemcpyHostToDevice));
		CK(cudaEventRecord(a));
		hash_kernel<<<nsm * 8, 256>>>(acc, rec, n);
		CK(cudaEventRecord(b));
		CK(cudaEventSynchronize(b));
		CK(cudaGetLastError());
		CK(cudaEventElapsedTime(&mh, a, b));
		CK(cudaMemcpy(&back, acc, sizeof(back), cudaMemcpyDeviceToHost));
		CK(cudaEventRecord(a));
		split<<<nsm * 8, 256>>>(rec, n, k0, v0);
		t1 = tb;
		CK(cub::DeviceRadixSort::SortPairs(tmp, t1, k0, k1, v0, v1, (int)n));
		t2 = tb;
		CK(cub::DeviceReduce::ReduceByKey(tmp, t2, k1, k0, v1, agg, nruns,
						  cuda::std::plus<unsigned long long>(),
						  (int)n));
		CK(cudaEventRecord(b));
		CK(cudaEventSynchronize(b));
		CK(cudaEventElapsedTime(&ms, a, b));
		printf("%10u %10.1f %10.1f %12.2f %12.2f %8llu\n", ks[t], mh, ms,
		       n / (mh * 1e6), n / (ms * 1e6),
		       (unsigned long long)back.spilled);
	}
	return 0;
}
