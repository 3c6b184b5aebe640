/*
 * dispatch_scan_int8_16.cu - the scan kernels of 8- and 16-bit integers and
 * their binding (dispatch_scan.cuh): one translation unit per group of
 * element types, so that the kernels compile in parallel.
 */
#include "dispatch_scan.cuh"

template void scan_bind_elem<unsigned char>(struct gpu_scan *g);
template void scan_bind_elem<signed char>(struct gpu_scan *g);
template void scan_bind_elem<unsigned short>(struct gpu_scan *g);
template void scan_bind_elem<short>(struct gpu_scan *g);
