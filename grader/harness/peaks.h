// The device's ceilings, measured at the start of a run rather than taken from a datasheet:
// every result is reported as a fraction of what this card, at its current clocks, can do.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace workbook {

struct DevicePeaks {
  double copy_gb_per_s = 0;    // cudaMemcpyAsync device to device, bytes read + bytes written
  double fma_tflop_per_s = 0;  // FP32 FMA, 8 independent chains per thread, every SM busy
};

// Bytes read + written per second by cudaMemcpyAsync of `bytes` from one device buffer to another.
double measure_copy_gb_per_s(std::size_t bytes, cudaStream_t stream);
double measure_fma_tflop_per_s(cudaStream_t stream);

// Measured once per process, on first use.
const DevicePeaks& device_peaks();

// A result faster than the ceiling it is measured against means the measurement is wrong (work
// skipped, data served from cache), not that the kernel is good. But the ceiling is a measurement
// too, and cudaMemcpy is itself a kernel that a plain copy can beat by a little: on the H100 honest
// copies measured up to 101.4% of it (docs/timing.md). Results within this factor of the ceiling
// are accepted; anything above is reported as an error.
inline constexpr double kCeilingSlack = 1.03;

}  // namespace workbook
