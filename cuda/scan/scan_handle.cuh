/*
 * scan_handle.cuh - the GPU scan's handle (struct gpu_scan, opaque in
 * scan.h) and the host functions its translation units share: the API
 * (device_scan.cu), the dispatch (dispatch_scan.cu, and the
 * dispatch_scan_*.cu that hold the kernels of their element types) and
 * the seeding (scan_seed.cu). The host check (tests/gpu) links them too.
 */
#ifndef SCAN_HANDLE_CUH
#define SCAN_HANDLE_CUH

#include "scan.h"
#include "agent_window.cuh"
#include "agent_wide.cuh"

struct gpu_scan {
	struct gs_job job;
	scan_cfg cfg;
	size_t max_records;
	unsigned nsm;
	unsigned max_parts;		/* partv's, bad's, win_parts' entries */
	size_t vsize;			/* bytes of one prefix value */
	void *carry, *partv;
	struct scan_bad *bad;
	struct scan_status *st;
	struct scan_win *win;		/* float sums of f32, bf16, f64: */
	struct scan_win_part *win_parts;	/* their parts' exact totals */
	bool windowed;		/* such a sum: run is scan_run_win */
	cudaError_t (*run)(struct gpu_scan *g, const void *in, void *out,
			   size_t nrec, cudaStream_t s);
	cudaError_t (*load)(void);	/* loads run's kernels */
	void (*ident)(const scan_cfg &c, void *dst, unsigned n);
};

/* The job's configuration as the kernels see it (dispatch_scan.cu). */
scan_cfg scan_cfg_of(const struct gs_job *job);

/* g's run, load, ident and vsize (and windowed) for g->job's op and
 * element type; false for a type the scan has no kernels for. */
bool scan_bind_job(struct gpu_scan *g);

/* scan_bind_job for element type T: defined in dispatch_scan.cuh and
 * instantiated once per type, by the dispatch_scan_*.cu that compiles
 * T's kernels. */
template <typename T> void scan_bind_elem(struct gpu_scan *g);

/* How a chunk of nrec records is cut for bps blocks per SM. */
struct scan_split scan_split_at(struct gpu_scan *g, size_t nrec, unsigned bps);

/* The CPU's state as the carry of job's scan (scan_seed.cu). */
bool scan_seed_host(const struct gs_job *job, const struct red_col *st,
		    void *dst, size_t vsize);

#endif
