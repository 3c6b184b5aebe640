/*
 * dispatch_scan_int32_64.cu - the scan kernels of 32- and 64-bit integers and
 * their binding (dispatch_scan.cuh): one translation unit per group of
 * element types, so that the kernels compile in parallel.
 */
#include "dispatch_scan.cuh"

template void scan_bind_elem<unsigned>(struct gpu_scan *g);
template void scan_bind_elem<int>(struct gpu_scan *g);
template void scan_bind_elem<unsigned long long>(struct gpu_scan *g);
template void scan_bind_elem<long long>(struct gpu_scan *g);
