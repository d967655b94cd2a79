// workbook::launch() in the planner (launch_log.h's planning_launches()): it records the launch with
// each argument converted to its parameter's type, as bytes, and launches nothing. Runs on the CPU:
// a launch there would fail, and CUDA_CHECK would throw.
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "workbook/launch.cuh"

namespace {

__global__ void scale_kernel(float* data, std::size_t count, float factor, int2 corner) {
  const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (i < count) data[i] *= factor + corner.x;
}

template <typename T>
std::vector<unsigned char> bytes_of(const T& value) {
  std::vector<unsigned char> bytes(sizeof(T));
  std::memcpy(bytes.data(), &value, sizeof(T));
  return bytes;
}

}  // namespace

TEST_CASE("planned launch: the planner records a launch with its arguments' bytes, and launches nothing") {
  workbook::planning_launches() = true;
  workbook::clear_recorded_launches();
  float* data = reinterpret_cast<float*>(std::uintptr_t{0x7000'0000'0000});  // the judge's address, a number here
  const int count = 1000;  // an int, passed to a std::size_t parameter: recorded as 8 bytes
  const cudaStream_t stream = reinterpret_cast<cudaStream_t>(std::uintptr_t{0x10});
  CHECK_NOTHROW(workbook::launch(scale_kernel, dim3(4), dim3(256), 100000, stream, data, count, 2.0, make_int2(3, 4)));
  workbook::planning_launches() = false;
  REQUIRE(workbook::recorded_launches().size() == 1);
  const workbook::LaunchRecord& launch = workbook::recorded_launches().front();
  CHECK(launch.kernel == reinterpret_cast<const void*>(scale_kernel));
  CHECK(launch.grid.x == 4);
  CHECK(launch.block.x == 256);
  CHECK(launch.dynamic_shared_bytes == 100000);  // over 48 KiB, and no attribute set: the judge raises it
  CHECK(launch.stream == stream);
  REQUIRE(launch.arguments.size() == 4);
  CHECK(launch.arguments[0] == bytes_of(data));
  CHECK(launch.arguments[1] == bytes_of(std::size_t{1000}));
  CHECK(launch.arguments[2] == bytes_of(2.0f));  // the double converted to the float parameter
  CHECK(launch.arguments[3] == bytes_of(make_int2(3, 4)));
  workbook::clear_recorded_launches();
}
