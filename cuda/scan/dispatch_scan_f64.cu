/*
 * dispatch_scan_f64.cu - the scan kernels of f64 elements and
 * their binding (dispatch_scan.cuh): one translation unit per group of
 * element types, so that the kernels compile in parallel.
 */
#include "dispatch_scan.cuh"

template void scan_bind_elem<double>(struct gpu_scan *g);
