#include "harness/resources.h"

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <utility>

#include "harness/described_device.h"
#include "harness/judged_code.h"
#include "harness/session.h"
#include "workbook/cuda.h"

namespace workbook {

const DeviceFacts& device_facts() {
  static const DeviceFacts facts = [] {
    cudaDeviceProp p{};
    if (session().without_gpu) {
      p = described_device();
    } else {
      int device = 0;
      CUDA_CHECK(cudaGetDevice(&device));
      CUDA_CHECK(cudaGetDeviceProperties(&p, device));
    }
    return DeviceFacts{p.name,
                       p.multiProcessorCount,
                       p.maxThreadsPerMultiProcessor,
                       p.sharedMemPerMultiprocessor,
                       p.sharedMemPerBlockOptin,
                       p.reservedSharedMemPerBlock,
                       p.l2CacheSize,
                       p.major * 10 + p.minor,
                       p.pageableMemoryAccess != 0};
  }();
  return facts;
}

std::string machine_refusal(const DeviceFacts& facts) {
  if (!facts.pageable_memory_access) return "";
  return "this machine lets the GPU read and write ordinary host memory (HMM or ATS: the CUDA attribute "
         "pageableMemoryAccess is 1), so a kernel under grading could rewrite the grader's own memory, its "
         "timings and verdicts included. Nothing is graded here. On an x86 host, switch HMM off: "
         "`options nvidia_uvm uvm_disable_hmm=1` in /etc/modprobe.d/, then reload nvidia_uvm (or reboot); "
         "a Grace Hopper host (ATS) cannot grade";
}

KernelResources resources_of(const LaunchRecord& launch) {
  // A judge's replayed kernels are the driver's, loaded from the student's object: it asks the driver.
  if (const JudgedCode* judged = session().judged)
    if (std::optional<KernelResources> replayed = judged->resources(launch)) return *replayed;
  cudaFuncAttributes attributes{};
  CUDA_CHECK(cudaFuncGetAttributes(&attributes, launch.kernel));
  const char* name = nullptr;
  CUDA_CHECK(cudaFuncGetName(&name, launch.kernel));
  int blocks = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &blocks, launch.kernel, static_cast<int>(launch.threads_per_block()), launch.dynamic_shared_bytes));
  return resources_from(name ? name : "?", attributes.numRegs, attributes.sharedSizeBytes, attributes.localSizeBytes,
                        launch, blocks);
}

KernelResources resources_from(std::string name, int registers_per_thread, std::size_t static_shared_bytes,
                               std::size_t local_bytes_per_thread, const LaunchRecord& launch,
                               int resident_blocks_per_sm) {
  const double warps_per_block = (launch.threads_per_block() + 31) / 32;
  const double max_warps = device_facts().max_threads_per_sm / 32.0;
  return KernelResources{std::move(name),
                         registers_per_thread,
                         static_shared_bytes,
                         launch.dynamic_shared_bytes,
                         local_bytes_per_thread,
                         launch.threads_per_block(),
                         launch.grid_blocks(),
                         resident_blocks_per_sm,
                         resident_blocks_per_sm * warps_per_block / max_warps};
}

std::size_t occupancy_padding_bytes(int blocks_per_sm) {
  const DeviceFacts& d = device_facts();
  if (blocks_per_sm < 1) throw std::invalid_argument("blocks_per_sm must be at least 1");
  // Each block takes its padding plus the runtime's reserved share; one more block must not fit.
  const std::size_t per_block = d.shared_bytes_per_sm / static_cast<std::size_t>(blocks_per_sm);
  if (per_block <= d.reserved_shared_bytes_per_block) return 0;
  return std::min(per_block - d.reserved_shared_bytes_per_block, d.shared_bytes_per_block_optin);
}

}  // namespace workbook
