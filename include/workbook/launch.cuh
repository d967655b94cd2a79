// workbook::launch(): the one way labs launch kernels. It is `kernel<<<...>>>` plus the three
// things every launcher needs and students forget: raise the dynamic shared-memory limit when a
// block asks for more than the default 48 KiB, check the launch, and record it for the grader. In
// the planner it only records, with the arguments' bytes (launch_log.h's planning_launches()).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>

#include "workbook/cuda.h"
#include "workbook/launch_log.h"

namespace workbook {

#ifdef WORKBOOK_SYNC_EVERY_LAUNCH
inline constexpr bool kSyncEveryLaunch = true;  // the debug preset
#else
inline constexpr bool kSyncEveryLaunch = false;
#endif

// Above 48 KiB a kernel must opt in to more dynamic shared memory, once per kernel; asking for
// the largest carveout lets the hardware actually give a block that much.
// The attributes stay set, and setting them again costs microseconds of host time on every call,
// which a program that launches a short kernel often would feel: the sizes already allowed are
// remembered, kernel by kernel.
// The map is made with new and never destroyed, so that no destructor runs at exit, after the
// launches that may still use it.
inline std::unordered_map<const void*, std::size_t>& shared_memory_allowed() {
  static auto* const allowed = new std::unordered_map<const void*, std::size_t>();
  return *allowed;
}

template <typename Kernel>
void allow_dynamic_shared_memory(Kernel kernel, std::size_t bytes) {
  constexpr std::size_t kDefaultLimit = 48 * 1024;
  if (bytes <= kDefaultLimit) return;
  std::size_t& allowed = shared_memory_allowed()[reinterpret_cast<const void*>(kernel)];
  if (bytes <= allowed) return;
  allowed = bytes;
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
  CUDA_CHECK(
      cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared));
}

// A launch as the planner records it: each argument converted to its parameter's type, as the
// launch would convert it, then kept as that parameter's bytes.
template <typename... Params, typename... Args>
LaunchRecord planned_launch(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t dynamic_shared_bytes,
                            cudaStream_t stream, Args&&... args) {
  static_assert((std::is_trivially_copyable_v<Params> && ...), "a kernel's parameters are passed byte for byte");
  LaunchRecord record{.kernel = reinterpret_cast<const void*>(kernel),
                      .grid = grid,
                      .block = block,
                      .dynamic_shared_bytes = dynamic_shared_bytes,
                      .stream = stream,
                      .arguments = {}};
  const std::tuple<Params...> values(std::forward<Args>(args)...);
  std::apply(
      [&record](const Params&... value) {
        (record.arguments.emplace_back(reinterpret_cast<const unsigned char*>(&value),
                                       reinterpret_cast<const unsigned char*>(&value) + sizeof(Params)),
         ...);
      },
      values);
  return record;
}

// Whether a launch's arguments can be passed to the kernel's parameters, place by place: said by
// launch() itself, so that a mismatch is reported as one message at the student's launch, not as
// errors deep inside this file.
template <typename... Params, typename... Args>
constexpr bool arguments_fit_parameters(void (*)(Params...), std::tuple<Args...>*) {
  if constexpr (sizeof...(Params) != sizeof...(Args)) {
    return false;
  } else {
    return (std::is_convertible_v<Args, Params> && ...);
  }
}

template <typename... Params, typename... Args>
void launch(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t dynamic_shared_bytes, cudaStream_t stream,
            Args&&... args) {
  constexpr bool fits =
      arguments_fit_parameters(static_cast<void (*)(Params...)>(nullptr), static_cast<std::tuple<Args...>*>(nullptr));
  static_assert(
      sizeof...(Args) == sizeof...(Params),
      "workbook::launch(kernel, grid, block, shared bytes, stream, arguments...) passes the kernel one argument "
      "per parameter: this launch passes a different number of them than the kernel has parameters");
  static_assert(sizeof...(Args) != sizeof...(Params) || fits,
                "workbook::launch: an argument of this launch does not convert to the kernel's parameter in the same "
                "place: compare the launch's arguments with the kernel's parameters, one by one");
  if constexpr (fits) {         // else only the message above: no errors from inside this file
    if (planning_launches()) {  // the planner: the judge replays it, raising the shared-memory limit itself
      recorded_launches().push_back(
          planned_launch(kernel, grid, block, dynamic_shared_bytes, stream, std::forward<Args>(args)...));
      return;
    }
    allow_dynamic_shared_memory(kernel, dynamic_shared_bytes);
    mark_launch(stream);  // an event only while the grader times each launch (launch_log.h)
    kernel<<<grid, block, dynamic_shared_bytes, stream>>>(std::forward<Args>(args)...);
    CUDA_CHECK(cudaGetLastError());
    recorded_launches().push_back(LaunchRecord{
        .kernel = reinterpret_cast<const void*>(kernel),
        .grid = grid,
        .block = block,
        .dynamic_shared_bytes = dynamic_shared_bytes,
        .stream = stream,
    });
    if constexpr (kSyncEveryLaunch) CUDA_CHECK(cudaStreamSynchronize(stream));
  }
}

}  // namespace workbook
