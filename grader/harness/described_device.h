// The GPU a student's plans are checked against where there is none (the grader's --plan-check, which
// `./workbook grade` runs on a machine without a GPU): an H100 SXM, the GPU the built-in bars are
// calibrated on, as NVIDIA publishes it. Its launches' limits (threads per block, grid, shared memory)
// are those of every GPU since compute capability 9.0; what only a GPU can answer (a compiled kernel's
// registers, its occupancy, a tensor map) it does not answer.
#pragma once

#include <cuda_runtime_api.h>

#include <optional>

namespace workbook {

// The H100 SXM's properties, as cudaGetDeviceProperties() would give them (the fields a launcher
// sizes its work by; the others zero).
const cudaDeviceProp& described_device();
// One of its attributes, as cudaDeviceGetAttribute() would give it; nothing for an attribute the
// description does not hold.
std::optional<int> described_attribute(cudaDeviceAttr attribute);

}  // namespace workbook
