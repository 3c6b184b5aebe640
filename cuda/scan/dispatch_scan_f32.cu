/*
 * dispatch_scan_f32.cu - the scan kernels of f32 elements and
 * their binding (dispatch_scan.cuh): one translation unit per group of
 * element types, so that the kernels compile in parallel.
 */
#include "dispatch_scan.cuh"

template void scan_bind_elem<float>(struct gpu_scan *g);
