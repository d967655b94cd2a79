// The CUDA runtime a planner's launcher sees: linked into every planner with the linker's --wrap
// (grader/CMakeLists.txt), in place of the runtime's own functions for the code linked with it.
// A planner has no GPU (planner_process.h: it may make no ioctl, so the driver cannot start), and
// needs none: what a launcher may ask of the runtime (a device attribute, its own kernels'
// attributes and occupancy, a tensor map) is asked of the judge, which answers with its GPU, for
// the kernels as it will launch them (workbook::ask_the_judge). Streams and events it may make and
// use are names only: nothing runs here, and the judge replays every launch on its own stream. A
// device allocation is refused: a launcher uses the workspace its problem gives. Anything else that
// needs a GPU fails as the runtime fails without one.
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include "planner/planner.h"

namespace {

using workbook::plan::Question;

// The name the kernel's device code has, or "" where `kernel` is no kernel of the planner's program.
std::string name_of_kernel(const void* kernel) {
  const auto found = workbook::registered_kernels().find(kernel);
  return found == workbook::registered_kernels().end() ? "" : found->second;
}

// Asks the judge; copies a reply of exactly sizeof(T) bytes into *value.
template <typename T>
cudaError_t asked(T* value, Question question) {
  if (value == nullptr) return cudaErrorInvalidValue;
  const workbook::plan::Reply reply = workbook::ask_the_judge(question);
  if (reply.error != 0) return static_cast<cudaError_t>(reply.error);
  if (reply.bytes.size() != sizeof(T)) return cudaErrorUnknown;
  std::memcpy(value, reply.bytes.data(), sizeof(T));
  return cudaSuccess;
}

// A stream's or event's name: distinct, never null (the null stream is the launcher's own), never
// dereferenced.
template <typename Handle>
Handle new_name() {
  static std::uintptr_t next = 0x57000;
  next += 0x10;
  return reinterpret_cast<Handle>(next);
}

// cuTensorMapEncodeTiled, as the judge encodes it: the map of a buffer it gave, at its address.
CUresult encode_tensor_map_by_the_judge(CUtensorMap* map, CUtensorMapDataType data_type, cuuint32_t rank, void* address,
                                        const cuuint64_t* dims, const cuuint64_t* strides, const cuuint32_t* box,
                                        const cuuint32_t* element_strides, CUtensorMapInterleave interleave,
                                        CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2_promotion,
                                        CUtensorMapFloatOOBfill oob_fill) {
  if (map == nullptr || rank < 1 || rank > 5 || dims == nullptr || box == nullptr || element_strides == nullptr ||
      (rank > 1 && strides == nullptr))
    return CUDA_ERROR_INVALID_VALUE;
  workbook::plan::TensorMapArguments a;
  a.data_type = static_cast<std::uint32_t>(data_type);
  a.rank = rank;
  a.address = reinterpret_cast<std::uint64_t>(address);
  for (cuuint32_t d = 0; d < rank; ++d) {
    a.dims[d] = dims[d];
    a.box[d] = box[d];
    a.element_strides[d] = element_strides[d];
    if (d + 1 < rank) a.strides[d] = strides[d];
  }
  a.interleave = static_cast<std::uint32_t>(interleave);
  a.swizzle = static_cast<std::uint32_t>(swizzle);
  a.l2_promotion = static_cast<std::uint32_t>(l2_promotion);
  a.oob_fill = static_cast<std::uint32_t>(oob_fill);
  Question question{Question::Kind::kTensorMap, "", {}, {}};
  const auto* first = reinterpret_cast<const std::uint8_t*>(&a);
  question.bytes.assign(first, first + sizeof a);
  const workbook::plan::Reply reply = workbook::ask_the_judge(question);
  if (reply.error != 0) return static_cast<CUresult>(reply.error);
  if (reply.bytes.size() != sizeof(CUtensorMap)) return CUDA_ERROR_UNKNOWN;
  std::memcpy(map, reply.bytes.data(), sizeof(CUtensorMap));
  return CUDA_SUCCESS;
}

// The driver's functions a lab's given code may ask for: only the tensor-map encoder.
cudaError_t entry_point(const char* symbol, void** function, cudaDriverEntryPointQueryResult* status) {
  if (symbol == nullptr || function == nullptr) return cudaErrorInvalidValue;
  const bool encoder = std::strcmp(symbol, "cuTensorMapEncodeTiled") == 0;
  *function = encoder ? reinterpret_cast<void*>(&encode_tensor_map_by_the_judge) : nullptr;
  if (status != nullptr) *status = encoder ? cudaDriverEntryPointSuccess : cudaDriverEntryPointSymbolNotFound;
  return cudaSuccess;
}

}  // namespace

extern "C" {

cudaError_t __wrap_cudaGetDeviceCount(int* count) {
  if (count == nullptr) return cudaErrorInvalidValue;
  *count = 1;  // the judge's GPU
  return cudaSuccess;
}
cudaError_t __wrap_cudaGetDevice(int* device) {
  if (device == nullptr) return cudaErrorInvalidValue;
  *device = 0;
  return cudaSuccess;
}
cudaError_t __wrap_cudaSetDevice(int device) { return device == 0 ? cudaSuccess : cudaErrorInvalidDevice; }

cudaError_t __wrap_cudaDeviceGetAttribute(int* value, cudaDeviceAttr attribute, int device) {
  if (device != 0) return cudaErrorInvalidDevice;
  return asked(value, {Question::Kind::kDeviceAttribute, "", {static_cast<std::uint64_t>(attribute)}, {}});
}
cudaError_t __wrap_cudaGetDeviceProperties(cudaDeviceProp* properties, int device) {
  if (device != 0) return cudaErrorInvalidDevice;
  return asked(properties, {Question::Kind::kDeviceProperties, "", {}, {}});
}

cudaError_t __wrap_cudaFuncGetAttributes(cudaFuncAttributes* attributes, const void* kernel) {
  const std::string name = name_of_kernel(kernel);
  if (name.empty()) return cudaErrorInvalidDeviceFunction;
  return asked(attributes, {Question::Kind::kKernelAttributes, name, {}, {}});
}
// The judge sets what a launch needs (the dynamic shared-memory limit, the largest carveout) itself,
// for every launch of the plan: nothing to remember here.
cudaError_t __wrap_cudaFuncSetAttribute(const void* kernel, cudaFuncAttribute, int) {
  return name_of_kernel(kernel).empty() ? cudaErrorInvalidDeviceFunction : cudaSuccess;
}
cudaError_t __wrap_cudaFuncSetCacheConfig(const void* kernel, cudaFuncCache) {
  return name_of_kernel(kernel).empty() ? cudaErrorInvalidDeviceFunction : cudaSuccess;
}

cudaError_t __wrap_cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* blocks, const void* kernel, int threads,
                                                                          std::size_t dynamic_shared_bytes,
                                                                          unsigned flags) {
  const std::string name = name_of_kernel(kernel);
  if (name.empty()) return cudaErrorInvalidDeviceFunction;
  if (threads <= 0) return cudaErrorInvalidValue;
  return asked(blocks, {Question::Kind::kOccupancy, name, {std::uint64_t(threads), dynamic_shared_bytes, flags}, {}});
}
cudaError_t __wrap_cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, const void* kernel, int threads,
                                                                 std::size_t dynamic_shared_bytes) {
  return __wrap_cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(blocks, kernel, threads, dynamic_shared_bytes,
                                                                       cudaOccupancyDefault);
}

cudaError_t __wrap_cudaGetDriverEntryPoint(const char* symbol, void** function, unsigned long long,
                                           cudaDriverEntryPointQueryResult* status) {
  return entry_point(symbol, function, status);
}
cudaError_t __wrap_cudaGetDriverEntryPointByVersion(const char* symbol, void** function, unsigned int,
                                                    unsigned long long, cudaDriverEntryPointQueryResult* status) {
  return entry_point(symbol, function, status);
}

cudaError_t __wrap_cudaStreamCreate(cudaStream_t* stream) {
  if (stream == nullptr) return cudaErrorInvalidValue;
  *stream = new_name<cudaStream_t>();
  return cudaSuccess;
}
cudaError_t __wrap_cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned) { return __wrap_cudaStreamCreate(stream); }
cudaError_t __wrap_cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned, int) {
  return __wrap_cudaStreamCreate(stream);
}
cudaError_t __wrap_cudaStreamDestroy(cudaStream_t) { return cudaSuccess; }
cudaError_t __wrap_cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }  // nothing runs here
cudaError_t __wrap_cudaDeviceSynchronize() { return cudaSuccess; }
cudaError_t __wrap_cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned) { return cudaSuccess; }
cudaError_t __wrap_cudaStreamIsCapturing(cudaStream_t, cudaStreamCaptureStatus* status) {
  if (status == nullptr) return cudaErrorInvalidValue;
  *status = cudaStreamCaptureStatusNone;
  return cudaSuccess;
}
cudaError_t __wrap_cudaEventCreate(cudaEvent_t* event) {
  if (event == nullptr) return cudaErrorInvalidValue;
  *event = new_name<cudaEvent_t>();
  return cudaSuccess;
}
cudaError_t __wrap_cudaEventCreateWithFlags(cudaEvent_t* event, unsigned) { return __wrap_cudaEventCreate(event); }
cudaError_t __wrap_cudaEventRecord(cudaEvent_t, cudaStream_t) { return cudaSuccess; }
cudaError_t __wrap_cudaEventDestroy(cudaEvent_t) { return cudaSuccess; }
cudaError_t __wrap_cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }

cudaError_t __wrap_cudaMalloc(void**, std::size_t) {
  throw std::runtime_error(
      "cudaMalloc: a launcher allocates no device memory (the grader replays its launches where "
      "that memory would not exist): use the workspace its problem gives");
}
cudaError_t __wrap_cudaFree(void* pointer) {
  if (pointer == nullptr) return cudaSuccess;  // cudaFree(nullptr), to start CUDA: there is nothing to start
  throw std::runtime_error("cudaFree: a launcher allocates no device memory, so it frees none");
}

}  // extern "C"
