// The planner's cudaMemcpyAsync and cudaMemsetAsync (and cudaMemcpy and cudaMemset), and its kernel launches: linked
// into every planner with the linker's --wrap, so that a launcher's calls of them reach these. While planning
// (planning_launches()), an upload from the host and a fill become operations of the plan, in their
// place among the launches, and nothing is copied: the addresses are the judge's. Any other copy is
// no part of a plan, and neither is a kernel launched past workbook::launch (<<<...>>> compiles to
// cudaLaunchKernel): each is refused with what to do instead. Outside planning they are the runtime's.
// And the registration of each __global__ function, which nvcc's start-up code makes before main:
// noted, so that the planner names the kernels it records without starting CUDA (planner.h).
#include <cuda_runtime_api.h>

#include <cstdint>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "planner/planner.h"
#include "workbook/launch_log.h"

namespace {

// An upload or fill, after the launches recorded so far.
template <typename Operation>
void record(Operation&& operation) {
  workbook::RecordedCopy& copy = workbook::recorded_copies().emplace_back();
  copy.after_launches = workbook::recorded_launches().size();
  copy.operation.emplace<std::decay_t<Operation>>(std::forward<Operation>(operation));
}

}  // namespace

extern "C" {
cudaError_t __real_cudaMemcpyAsync(void* destination, const void* source, std::size_t bytes, cudaMemcpyKind kind,
                                   cudaStream_t stream);
cudaError_t __real_cudaMemsetAsync(void* destination, int value, std::size_t bytes, cudaStream_t stream);

cudaError_t __wrap_cudaMemcpyAsync(void* destination, const void* source, std::size_t bytes, cudaMemcpyKind kind,
                                   cudaStream_t stream) {
  if (!workbook::planning_launches()) return __real_cudaMemcpyAsync(destination, source, bytes, kind, stream);
  if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDefault)
    throw std::runtime_error("cudaMemcpyAsync: a launcher may copy only from the host into the problem's buffers (" +
                             std::string(kind == cudaMemcpyDeviceToDevice ? "this copy is device to device: move data "
                                                                            "on the GPU with a kernel of your own"
                                                                          : "this copy reads device memory back") +
                             ")");
  const auto* first = static_cast<const std::uint8_t*>(source);
  record(workbook::plan::Upload{reinterpret_cast<std::uint64_t>(destination),
                                workbook::plan::Bytes(first, first + bytes)});
  return cudaSuccess;
}

cudaError_t __wrap_cudaMemsetAsync(void* destination, int value, std::size_t bytes, cudaStream_t stream) {
  if (!workbook::planning_launches()) return __real_cudaMemsetAsync(destination, value, bytes, stream);
  record(workbook::plan::Fill{reinterpret_cast<std::uint64_t>(destination), bytes, static_cast<std::uint8_t>(value)});
  return cudaSuccess;
}

// The synchronous forms, as a launcher written from a textbook calls them: the same operations of
// the plan (nothing runs in a planner, so nothing is waited for; the judge replays them in order).
cudaError_t __real_cudaMemcpy(void* destination, const void* source, std::size_t bytes, cudaMemcpyKind kind);
cudaError_t __real_cudaMemset(void* destination, int value, std::size_t bytes);

cudaError_t __wrap_cudaMemcpy(void* destination, const void* source, std::size_t bytes, cudaMemcpyKind kind) {
  if (!workbook::planning_launches()) return __real_cudaMemcpy(destination, source, bytes, kind);
  return __wrap_cudaMemcpyAsync(destination, source, bytes, kind, nullptr);
}

cudaError_t __wrap_cudaMemset(void* destination, int value, std::size_t bytes) {
  if (!workbook::planning_launches()) return __real_cudaMemset(destination, value, bytes);
  return __wrap_cudaMemsetAsync(destination, value, bytes, nullptr);
}

void __real___cudaRegisterFunction(void** module, const char* host_stub, char* device_name, const char* name_again,
                                   int thread_limit, uint3* thread_id, uint3* block_id, dim3* block, dim3* grid,
                                   int* warp_size);

void __wrap___cudaRegisterFunction(void** module, const char* host_stub, char* device_name, const char* name_again,
                                   int thread_limit, uint3* thread_id, uint3* block_id, dim3* block, dim3* grid,
                                   int* warp_size) {
  if (host_stub != nullptr && device_name != nullptr) workbook::registered_kernels()[host_stub] = device_name;
  __real___cudaRegisterFunction(module, host_stub, device_name, name_again, thread_limit, thread_id, block_id, block,
                                grid, warp_size);
}

cudaError_t __real_cudaLaunchKernel(const void* kernel, dim3 grid, dim3 block, void** arguments,
                                    std::size_t shared_bytes, cudaStream_t stream);
cudaError_t __real_cudaLaunchKernelExC(const cudaLaunchConfig_t* config, const void* kernel, void** arguments);
cudaError_t __real_cudaLaunchCooperativeKernel(const void* kernel, dim3 grid, dim3 block, void** arguments,
                                               std::size_t shared_bytes, cudaStream_t stream);

[[noreturn]] void refuse_launch_past_workbook_launch(const char* how) {
  throw std::runtime_error(
      std::string("a kernel was launched with ") + how +
      ", past workbook::launch: the grader runs only the launches workbook::launch records. "
      "Launch every kernel with workbook::launch(kernel, grid, block, dynamic_shared_bytes, stream, "
      "args...) on the stream your launcher is given");
}

cudaError_t __wrap_cudaLaunchKernel(const void* kernel, dim3 grid, dim3 block, void** arguments,
                                    std::size_t shared_bytes, cudaStream_t stream) {
  if (workbook::planning_launches()) refuse_launch_past_workbook_launch("<<<...>>> or cudaLaunchKernel");
  return __real_cudaLaunchKernel(kernel, grid, block, arguments, shared_bytes, stream);
}

cudaError_t __wrap_cudaLaunchKernelExC(const cudaLaunchConfig_t* config, const void* kernel, void** arguments) {
  if (workbook::planning_launches()) refuse_launch_past_workbook_launch("cudaLaunchKernelEx");
  return __real_cudaLaunchKernelExC(config, kernel, arguments);
}

cudaError_t __wrap_cudaLaunchCooperativeKernel(const void* kernel, dim3 grid, dim3 block, void** arguments,
                                               std::size_t shared_bytes, cudaStream_t stream) {
  if (workbook::planning_launches()) refuse_launch_past_workbook_launch("cudaLaunchCooperativeKernel");
  return __real_cudaLaunchCooperativeKernel(kernel, grid, block, arguments, shared_bytes, stream);
}

#ifdef WORKBOOK_WRAP_INTERNAL_LAUNCH
// What <<<...>>> compiles to since CUDA 13: the runtime's internal launch, by kernel handle.
cudaError_t __real___cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void** arguments,
                                      std::size_t shared_bytes, cudaStream_t stream);
cudaError_t __real___cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block, void** arguments,
                                           std::size_t shared_bytes, cudaStream_t stream);

cudaError_t __wrap___cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void** arguments,
                                      std::size_t shared_bytes, cudaStream_t stream) {
  if (workbook::planning_launches()) refuse_launch_past_workbook_launch("<<<...>>>");
  return __real___cudaLaunchKernel(kernel, grid, block, arguments, shared_bytes, stream);
}

cudaError_t __wrap___cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block, void** arguments,
                                           std::size_t shared_bytes, cudaStream_t stream) {
  if (workbook::planning_launches()) refuse_launch_past_workbook_launch("<<<...>>>");
  return __real___cudaLaunchKernel_ptsz(kernel, grid, block, arguments, shared_bytes, stream);
}
#endif
}
