// A function's arguments as they cross between the judge and the planner: the judge encodes the
// arguments of a call of the lab's interface (encode_arguments), the planner decodes them into the
// function's parameters (planner.h's student_function) and calls it. Both sides link this header,
// so the two cannot disagree on the layout.
#pragma once

#include <cuda_runtime_api.h>

#include <cstring>
#include <type_traits>

#include "protocol/plan.h"

namespace workbook {

// A function's arguments as the judge sends them: each one's bytes, in order. A cudaStream_t has
// none: the judge replays on its own stream, and the planner passes its own.
template <typename T>
inline constexpr bool kIsStream = std::is_same_v<std::decay_t<T>, cudaStream_t>;

template <typename... Arguments>
plan::Bytes encode_arguments(const Arguments&... arguments) {
  static_assert((std::is_trivially_copyable_v<std::decay_t<Arguments>> && ...), "arguments cross as bytes");
  plan::Bytes bytes;
  const auto append = [&bytes](const auto& value) {
    if constexpr (!kIsStream<decltype(value)>) {
      const std::size_t at = bytes.size();
      bytes.resize(at + sizeof(value));
      std::memcpy(bytes.data() + at, &value, sizeof(value));
    }
  };
  (append(arguments), ...);
  return bytes;
}

}  // namespace workbook
