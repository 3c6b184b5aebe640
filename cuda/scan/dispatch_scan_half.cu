/*
 * dispatch_scan_half.cu - the scan kernels of f16 and bf16 elements and
 * their binding (dispatch_scan.cuh): one translation unit per group of
 * element types, so that the kernels compile in parallel.
 */
#include "dispatch_scan.cuh"

template void scan_bind_elem<f16_bits>(struct gpu_scan *g);
template void scan_bind_elem<bf16_bits>(struct gpu_scan *g);
