// [gpu-code] reads which GPU code an object carries from its fat binary. The headers built here
// hold the fields nvcc 13.0 wrote for a kernel compiled with --generate-code for compute_80, sm_80,
// sm_90a and sm_100f (the kind, the sizes, the compute capability at byte 28, the flags at byte 40);
// the CPU tests "the starter ... carries the build's GPU code" read whole objects nvcc built.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include "audit/gpu_code.h"

using namespace workbook;

namespace {

template <typename T>
void put(std::string& bytes, std::size_t at, T value) {
  if (bytes.size() < at + sizeof value) bytes.resize(at + sizeof value);
  std::memcpy(bytes.data() + at, &value, sizeof value);
}

// One image: a 64-byte header and `payload` bytes of (meaningless) code.
std::string image(std::uint16_t kind, std::uint32_t capability, std::uint32_t flags, std::size_t payload = 24) {
  std::string bytes(64, '\0');
  put<std::uint16_t>(bytes, 0, kind);
  put<std::uint16_t>(bytes, 2, 0x0101);
  put<std::uint32_t>(bytes, 4, 64);
  put<std::uint64_t>(bytes, 8, payload);
  put<std::uint32_t>(bytes, 28, capability);
  put<std::uint32_t>(bytes, 40, flags);
  return bytes + std::string(payload, '\x5a');
}

std::string fat_binary(const std::string& images) {
  std::string bytes(16, '\0');
  put<std::uint32_t>(bytes, 0, 0xBA55ED50);
  put<std::uint16_t>(bytes, 4, 1);
  put<std::uint16_t>(bytes, 6, 16);
  put<std::uint64_t>(bytes, 8, images.size());
  return bytes + images;
}

constexpr std::uint16_t kPtx = 1, kElf = 2;

}  // namespace

TEST_CASE("gpu code: each image is named as nvcc names its target") {
  const std::string one = fat_binary(image(kPtx, 80, 0x8011) + image(kElf, 80, 0x11) + image(kElf, 90, 0x100011) +
                                     image(kPtx, 100, 0x208011) + image(kElf, 100, 0x1200011));
  CHECK(listed(gpu_code_in_fat_binaries(one)) == "compute_100f, compute_80, sm_100f, sm_80, sm_90a");
  // nvcc's default when it cannot see a GPU: what a limited compile with -arch=native fell back to.
  CHECK(listed(gpu_code_in_fat_binaries(fat_binary(image(kElf, 75, 0x11) + image(kPtx, 75, 0x8011)))) ==
        "compute_75, sm_75");
}

TEST_CASE("gpu code: fat binaries laid end to end are each read, 8-byte aligned") {
  std::string first = fat_binary(image(kElf, 90, 0x11, 20));  // 100 bytes: padded to 104
  first.resize(104, '\0');
  CHECK(listed(gpu_code_in_fat_binaries(first + fat_binary(image(kPtx, 90, 0x8011)))) == "compute_90, sm_90");
}

TEST_CASE("gpu code: bytes that are not a whole fat binary are refused, never read past") {
  const std::string whole = fat_binary(image(kElf, 90, 0x11));
  CHECK_THROWS_AS(gpu_code_in_fat_binaries(whole.substr(0, whole.size() - 1)), std::runtime_error);
  CHECK_THROWS_AS(gpu_code_in_fat_binaries(whole.substr(0, 10)), std::runtime_error);
  CHECK_THROWS_AS(gpu_code_in_fat_binaries(std::string(32, '\x7f')), std::runtime_error);
  CHECK_THROWS_AS(gpu_code_in_file("/nonexistent/liblab.a"), std::runtime_error);
}

TEST_CASE("gpu code: CMake's CUDA architectures, as nvcc compiles them") {
  CHECK(listed(gpu_code_for_architectures("90")) == "compute_90, sm_90");
  CHECK(listed(gpu_code_for_architectures("80;90;90a-real")) == "compute_80, compute_90, sm_80, sm_90, sm_90a");
  CHECK(listed(gpu_code_for_architectures("90-virtual;100f-real")) == "compute_90, sm_100f");
  CHECK_THROWS_AS(gpu_code_for_architectures("native"), std::invalid_argument);
  CHECK_THROWS_AS(gpu_code_for_architectures("sm_90"), std::invalid_argument);
  CHECK_THROWS_AS(gpu_code_for_architectures(""), std::invalid_argument);
}
