#include "harness/described_device.h"

#include <cstring>

namespace workbook {

const cudaDeviceProp& described_device() {
  static const cudaDeviceProp properties = [] {
    // NVIDIA's H100 whitepaper (132 SMs, 50 MB of L2 on the SXM5 part) and the CUDA programming
    // guide's table for compute capability 9.0 (2048 threads and 32 blocks per SM, 228 KiB of shared
    // memory per SM of which 227 KiB for one block, 1 KiB kept by the runtime per block).
    cudaDeviceProp p{};
    std::strncpy(p.name, "NVIDIA H100 80GB HBM3 (described: no GPU here)", sizeof p.name - 1);
    p.major = 9;
    p.minor = 0;
    p.multiProcessorCount = 132;
    p.warpSize = 32;
    p.maxThreadsPerBlock = 1024;
    p.maxThreadsDim[0] = 1024, p.maxThreadsDim[1] = 1024, p.maxThreadsDim[2] = 64;
    p.maxGridSize[0] = 2147483647, p.maxGridSize[1] = 65535, p.maxGridSize[2] = 65535;
    p.maxThreadsPerMultiProcessor = 2048;
    p.maxBlocksPerMultiProcessor = 32;
    p.regsPerBlock = 65536;
    p.regsPerMultiprocessor = 65536;
    p.sharedMemPerBlock = 48 * 1024;
    p.sharedMemPerBlockOptin = 227 * 1024;
    p.sharedMemPerMultiprocessor = 228 * 1024;
    p.reservedSharedMemPerBlock = 1024;
    p.totalConstMem = 64 * 1024;
    p.l2CacheSize = 50 * 1024 * 1024;
    p.totalGlobalMem = std::size_t{80} << 30;
    p.memoryBusWidth = 5120;
    p.concurrentKernels = 1;
    return p;
  }();
  return properties;
}

std::optional<int> described_attribute(cudaDeviceAttr attribute) {
  const cudaDeviceProp& p = described_device();
  switch (attribute) {
    case cudaDevAttrComputeCapabilityMajor: return p.major;
    case cudaDevAttrComputeCapabilityMinor: return p.minor;
    case cudaDevAttrMultiProcessorCount: return p.multiProcessorCount;
    case cudaDevAttrWarpSize: return p.warpSize;
    case cudaDevAttrMaxThreadsPerBlock: return p.maxThreadsPerBlock;
    case cudaDevAttrMaxBlockDimX: return p.maxThreadsDim[0];
    case cudaDevAttrMaxBlockDimY: return p.maxThreadsDim[1];
    case cudaDevAttrMaxBlockDimZ: return p.maxThreadsDim[2];
    case cudaDevAttrMaxGridDimX: return p.maxGridSize[0];
    case cudaDevAttrMaxGridDimY: return p.maxGridSize[1];
    case cudaDevAttrMaxGridDimZ: return p.maxGridSize[2];
    case cudaDevAttrMaxThreadsPerMultiProcessor: return p.maxThreadsPerMultiProcessor;
    case cudaDevAttrMaxBlocksPerMultiprocessor: return p.maxBlocksPerMultiProcessor;
    case cudaDevAttrMaxRegistersPerBlock: return p.regsPerBlock;
    case cudaDevAttrMaxRegistersPerMultiprocessor: return p.regsPerMultiprocessor;
    case cudaDevAttrMaxSharedMemoryPerBlock: return static_cast<int>(p.sharedMemPerBlock);
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: return static_cast<int>(p.sharedMemPerBlockOptin);
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: return static_cast<int>(p.sharedMemPerMultiprocessor);
    case cudaDevAttrReservedSharedMemoryPerBlock: return static_cast<int>(p.reservedSharedMemPerBlock);
    case cudaDevAttrTotalConstantMemory: return static_cast<int>(p.totalConstMem);
    case cudaDevAttrL2CacheSize: return p.l2CacheSize;
    case cudaDevAttrGlobalMemoryBusWidth: return p.memoryBusWidth;
    case cudaDevAttrConcurrentKernels: return p.concurrentKernels;
    default: return std::nullopt;
  }
}

}  // namespace workbook
