/*
 * device_scan.cu - prefix scans (sum, prod, min, max, and, or, xor) per
 * column on the GPU, bit-identical to src/cpu/cpu_scan.c: the API of
 * scan.h (CUB's device layer). The scan is in layers, as CUB's, each
 * file with its own contract at the top:
 *   scan_policy.cuh     tuning constants and the measurements behind them
 *   scan_base.cuh       the job's config (element types: dtype.cuh;
 *                       output formats and rounding: ieee.h)
 *   scan_round.cuh      one correct rounding of an exact value
 *   scan_ops.cuh        the monoids, how each prefix is kept exactly:
 *                       scan_sum_wide.cuh, scan_word.cuh, scan_window.cuh and
 *                       scan_sum_window.cuh, scan_prod.cuh
 *   block_scan.cuh      a block-wide scan of monoid values
 *   block_scan_classic.cuh  --algorithm's: hillis-steele, blelloch
 *   agent_scan.cuh      the tile kernels every scan runs
 *   agent_window.cuh    the two kernels float sums run first
 *   dispatch_scan.cuh   grids, launches and the binding of a job, compiled
 *                       per element type in dispatch_scan_*.cu; the rest
 *                       in dispatch_scan.cu
 *   scan_handle.cuh     the handle, shared by the translation units
 *   scan_seed.cu        the carry from the CPU's state (--backend auto)
 */
#include <new>
#include <stdlib.h>
#include "scan_handle.cuh"

extern "C" {
#include "numfmt.h"	/* u128_to_dec */
}

static const char *const scan_op_names[] = {
	"sum", "prod", "min", "max", "and", "or", "xor",
};

bool gpu_scan_supports(const struct gs_job *job, const char **why)
{
	bool flt = type_is_float(job->dtype.type);

	if (job->cmd != CMD_SCAN) {
		*why = "not a scan";
		return false;
	}
	if (flt && (job->op >= OP_AND || !type_is_float(job->out_type))) {
		*why = "a float scan needs a sum/prod/min/max op and a float output";
		return false;
	}
	if (job->columns < 1 || job->columns > SCAN_MAX_COLUMNS) {
		*why = "scans of more than 16 columns run on the CPU";
		return false;
	}
	/* scan_bind_op compiles the classic block scans for these */
	if (scan_cfg_of(job).block != SCAN_BLOCK_WARP && job->op > OP_MAX) {
		*why = "hillis-steele and blelloch scan sum, prod, min and max";
		return false;
	}
	return true;
}

void gpu_scan_close(struct gpu_scan *g)
{
	if (!g)
		return;
	cudaFree(g->carry);
	cudaFree(g->partv);
	cudaFree(g->bad);
	cudaFree(g->st);
	cudaFree(g->win);
	cudaFree(g->win_parts);
	delete g;
}

static cudaError_t scan_alloc(struct gpu_scan *g)
{
	unsigned c = g->job.columns;
	void *host;
	cudaError_t e;

	CUDA_RET(cudaMalloc(&g->carry, c * g->vsize));
	CUDA_RET(cudaMalloc(&g->partv, g->max_parts * g->vsize));
	CUDA_RET(cudaMalloc((void **)&g->bad, g->max_parts * sizeof(struct scan_bad)));
	CUDA_RET(cudaMalloc((void **)&g->st, sizeof(struct scan_status)));
	CUDA_RET(cudaMemset(g->st, 0xff, sizeof(struct scan_status)));
	CUDA_RET(cudaMalloc((void **)&g->win, sizeof(struct scan_win)));
	CUDA_RET(cudaMemset(g->win, 0, sizeof(struct scan_win)));
	if (g->windowed)
		CUDA_RET(cudaMalloc((void **)&g->win_parts,
				    g->max_parts * sizeof(struct scan_win_part)));
	host = malloc(c * g->vsize);
	if (!host)
		return cudaErrorMemoryAllocation;
	g->ident(g->cfg, host, c);
	e = cudaMemcpy(g->carry, host, c * g->vsize, cudaMemcpyHostToDevice);
	free(host);
	CUDA_RET(e);
	/* the backend's streams are non-blocking: they do not wait for work
	 * on the default stream, so it must be done before the first launch */
	return cudaStreamSynchronize(0);
}

cudaError_t gpu_scan_open(const struct gs_job *job, size_t max_records,
			  int nsm, struct gpu_scan **out)
{
	struct gpu_scan *g = new (std::nothrow) gpu_scan();
	const char *why;
	cudaError_t e;
	size_t tiles;

	*out = NULL;
	if (!g)
		return cudaErrorMemoryAllocation;
	g->job = *job;
	g->cfg = scan_cfg_of(job);
	g->max_records = max_records;
	g->nsm = (unsigned)(nsm > 0 ? nsm : 1);
	/* a split gives each column at least one block, and more parts
	 * than blocks where a part would pass SCAN_MAX_TPP tiles */
	tiles = (max_records + SCAN_TILE - 1) / SCAN_TILE;
	g->max_parts = g->nsm * SCAN_MAX_BLOCKS_PER_SM + SCAN_MAX_COLUMNS +
		       job->columns * ((tiles + SCAN_MAX_TPP - 1) / SCAN_MAX_TPP);
	if (!gpu_scan_supports(job, &why) || !scan_bind_job(g)) {
		delete g;
		return cudaErrorInvalidValue;
	}
	e = scan_alloc(g);
	if (e == cudaSuccess)
		e = g->load();
	if (e != cudaSuccess) {
		cudaGetLastError();	/* a failed malloc must not taint a launch check */
		gpu_scan_close(g);
		return e;
	}
	*out = g;
	return cudaSuccess;
}

cudaError_t gpu_scan_launch(struct gpu_scan *g, const void *d_in, void *d_out,
			    size_t nrec, cudaStream_t s)
{
	if (nrec > g->max_records)
		return cudaErrorInvalidValue;
	CUDA_RET(cudaMemsetAsync(g->st, 0xff, sizeof(struct scan_status), s));
	if (nrec == 0)
		return cudaSuccess;
	return g->run(g, d_in, d_out, nrec, s);
}

size_t gpu_scan_status_bytes(void)
{
	return sizeof(struct scan_status);
}

cudaError_t gpu_scan_status_copy(struct gpu_scan *g, void *host_pinned_dst,
				 cudaStream_t s)
{
	return cudaMemcpyAsync(host_pinned_dst, g->st, sizeof(struct scan_status),
			       cudaMemcpyDeviceToHost, s);
}

/* cpu_scan's messages, word for word. */
int gpu_scan_status_check(const struct gs_job *job, const void *hstatus,
			  uint64_t first_rec, size_t *bad, struct gs_err *err)
{
	const struct scan_status *st = (const struct scan_status *)hstatus;
	const struct scan_bad *w = &st->why;
	unsigned long long elem = first_rec + st->rec;
	u128 v = (u128)w->hi << 64 | w->lo;
	bool neg = w->neg;
	char dec[FMT_U128_MAX];

	if (st->key == SCAN_NONE)
		return 0;
	*bad = (size_t)st->rec;
	switch (w->kind) {
	case SCAN_BAD_WIDE:
		return gs_fail(err, GS_ERUNTIME, "scan",
			       "element %llu column %u: prefix prod overflows 128 bits",
			       elem, st->col);
	case SCAN_BAD_ROUND:
		return gs_fail(err, GS_ERUNTIME, "scan",
			       "element %llu column %u: prefix product cannot be rounded exactly",
			       elem, st->col);
	case SCAN_BAD_INT:	/* two's complement: as sign and magnitude */
		neg = (__int128)v < 0;
		v = neg ? -v : v;
		break;
	default:
		break;
	}
	u128_to_dec(v, neg, dec);
	return gs_fail(err, GS_ERUNTIME, "scan",
		       "element %llu column %u: prefix %s %s overflows %s (try --out-type)",
		       elem, st->col, scan_op_names[job->op], dec,
		       type_name(job->out_type));
}
