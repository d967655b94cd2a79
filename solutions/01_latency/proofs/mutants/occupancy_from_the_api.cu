// Mutant of 01.3: the blocks per SM are not counted but asked of the CUDA API, about a
// kernel of its own compiled to the block's registers (16 kernels, __maxnreg__ holding each count
// the handout names), as cudaOccupancyMaxActiveBlocksPerMultiprocessor answers for this GPU; only
// the limiter is worked out. It passed 01.3 while the planner had a GPU. Now the planner asks the
// judge, which answers for this GPU alone, and 01.3 also asks about other GPUs' SMs: there the
// answer is this GPU's, and wrong, as it is for a register count it has no kernel of.
#include <algorithm>
#include <climits>
#include <utility>

#include "latency.h"
#include "one_defect.h"
#include "workbook/cuda.h"

namespace {

template <int kLive, int kRegisters>
__global__ void __maxnreg__(kRegisters) registers_kernel(float* data, int rounds) {
  float v[kLive];
#pragma unroll
  for (int i = 0; i < kLive; ++i) v[i] = data[threadIdx.x + i * blockDim.x];
  for (int r = 0; r < rounds; ++r) {
#pragma unroll
    for (int i = 0; i < kLive; ++i) v[i] = fmaf(v[i], v[(i + 1) % kLive], v[(i + 3) % kLive]);
  }
  float sum = 0;
#pragma unroll
  for (int i = 0; i < kLive; ++i) sum += v[i];
  data[threadIdx.x] = sum;
}

const void* const kKernels[] = {
    reinterpret_cast<const void*>(registers_kernel<1, 255>),    reinterpret_cast<const void*>(registers_kernel<9, 255>),
    reinterpret_cast<const void*>(registers_kernel<20, 29>),    reinterpret_cast<const void*>(registers_kernel<17, 255>),
    reinterpret_cast<const void*>(registers_kernel<27, 37>),    reinterpret_cast<const void*>(registers_kernel<27, 255>),
    reinterpret_cast<const void*>(registers_kernel<36, 45>),    reinterpret_cast<const void*>(registers_kernel<33, 255>),
    reinterpret_cast<const void*>(registers_kernel<43, 53>),    reinterpret_cast<const void*>(registers_kernel<50, 255>),
    reinterpret_cast<const void*>(registers_kernel<64, 75>),    reinterpret_cast<const void*>(registers_kernel<73, 85>),
    reinterpret_cast<const void*>(registers_kernel<99, 113>),   reinterpret_cast<const void*>(registers_kernel<141, 155>),
    reinterpret_cast<const void*>(registers_kernel<190, 255>),  reinterpret_cast<const void*>(registers_kernel<242, 255>),
};

// Its own kernel with exactly `registers` a thread, or null.
const void* kernel_with(int registers) {
  for (const void* kernel : kKernels) {
    cudaFuncAttributes attributes{};
    if (cudaFuncGetAttributes(&attributes, kernel) == cudaSuccess && attributes.numRegs == registers) return kernel;
  }
  return nullptr;
}

}  // namespace

namespace latency_lab {
Occupancy occupancy_of(const BlockShape& block, const SmLimits& sm) {
  const int warps_per_block = (block.threads + sm.warp_size - 1) / sm.warp_size;
  const auto round_up = [](int value, int unit) { return (value + unit - 1) / unit * unit; };
  // The limiter, worked out: the resource whose own limit is smallest.
  const int by_warps = sm.max_warps / warps_per_block;
  int by_registers = INT_MAX;
  if (block.registers_per_thread > 0) {
    const int per_warp = round_up(block.registers_per_thread * sm.warp_size, sm.register_unit);
    by_registers = per_warp * round_up(warps_per_block, sm.schedulers) > sm.registers_per_block
                       ? 0
                       : sm.registers / sm.schedulers / per_warp * sm.schedulers / warps_per_block;
  }
  const int shared_per_block = round_up(block.shared_bytes + sm.shared_reserved_per_block, sm.shared_unit);
  const int by_shared = shared_per_block > 0 ? sm.shared_bytes / shared_per_block : INT_MAX;
  Occupancy result;
  result.blocks = by_warps;
  result.limiter = Limiter::kWarps;
  for (const auto& [blocks, limiter] : {std::pair{sm.max_blocks, Limiter::kBlocks}, std::pair{by_registers, Limiter::kRegisters},
                                        std::pair{by_shared, Limiter::kSharedMemory}})
    if (blocks < result.blocks) result.blocks = blocks, result.limiter = limiter;
  // The defect: the count itself is the CUDA API's, for this GPU, whatever SM was asked about.
  if (const void* kernel = kernel_with(block.registers_per_thread)) {
    int blocks = 0;
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 232448));
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, block.threads, std::size_t(block.shared_bytes)));
    result.blocks = blocks;
  }
  result.warps = result.blocks * warps_per_block;
  return result;
}
void measure_fma_latency(const LatencyProblem&, cudaStream_t) { latency_mutant::not_this_mutant("01.3"); }
void measure_load_latency(const LatencyProblem&, cudaStream_t) { latency_mutant::not_this_mutant("01.3"); }
void fma_with_ilp(const LatencyProblem&, cudaStream_t) { latency_mutant::not_this_mutant("01.3"); }
}  // namespace latency_lab
