// The planner's cudaMemcpyAsync and cudaMemsetAsync: linked into every planner with the linker's
// --wrap, so that a launcher's calls of them reach these. While planning (planning_launches()), an
// upload from the host and a fill become operations of the plan, in their place among the
// launches, and nothing is copied: the addresses are the judge's. Any other copy is no part of a
// plan. Outside planning they are the runtime's own.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "planner.h"
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
  record(workbook::plan::Upload{reinterpret_cast<std::uint64_t>(destination), workbook::plan::Bytes(first, first + bytes)});
  return cudaSuccess;
}

cudaError_t __wrap_cudaMemsetAsync(void* destination, int value, std::size_t bytes, cudaStream_t stream) {
  if (!workbook::planning_launches()) return __real_cudaMemsetAsync(destination, value, bytes, stream);
  record(workbook::plan::Fill{reinterpret_cast<std::uint64_t>(destination), bytes, static_cast<std::uint8_t>(value)});
  return cudaSuccess;
}
}
