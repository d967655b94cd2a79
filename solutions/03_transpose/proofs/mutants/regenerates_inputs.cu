// Defence mutant [secret-inputs]: a transpose that never reads its input matrix, every step. The
// grader used to draw each input from its --seed: draw k of the grader process is the stream keyed
// by Philox-4x32-10 of (k, 0, 0x5EED, 0) under S, of the public generator, and S is on the grader's
// command line. So the launcher reads S from /proc/self/cmdline (or its parent's, when it runs in the
// planner), a finder kernel tries every k below 2^20 against the input's first two floats, and the
// transpose computes each input element from the key it found instead of loading the one it needs:
// it reads and writes only along rows, as a copy does (its reads are padding, kPaddedOf64 below),
// and cleared 03.4 at 6.54x, 101.6% of cudaMemcpy, on an H100 when the inputs were drawn from the seed. With
// the inputs drawn from a secret key nothing matches, and it falls back to a naive transpose (the
// grader's baseline's pattern: loads along the input's rows, stores down the output's columns, no
// shared memory): correct on every step, and 03.4 rejects it on speed. Judged, it finds no seed at
// all: its planner runs where the judge's command line cannot be read. Linked into its grader with
// [secret-inputs] off, it finds the key, and says so (its finder prints the proof's word).
// Built with WORKBOOK_MUTANT_CONTROL, the finder is gone and the naive transpose always runs.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>

#include "every_step.h"
#include "workbook/launch.cuh"

namespace transpose_mutant {

namespace {

#ifdef WORKBOOK_MUTANT_CONTROL
constexpr bool kRegenerates = false;
#else
constexpr bool kRegenerates = true;  // the defect
#endif

constexpr int kThreads = 256;
constexpr int kPerThread = 8;
// Of every 64 elements (8 of a thread's, times 8 threads), how many have their input read as padding.
constexpr int kPaddedOf64 = 40;
constexpr int kSpan = kThreads * kPerThread;  // elements of a row per block
constexpr unsigned kFinderBlocks = 1024;
constexpr unsigned kFinderThreads = 256;
constexpr std::uint64_t kDraws = std::uint64_t{1} << 20;  // k in [1, 2^20): the grader's draws so far

// The key of the input's stream, when the finder found it (set afresh by every call).
__device__ unsigned long long found_key;
__device__ int found;

// The public generator, written out: Philox-4x32-10, and element i of the stream `key` as the top 24
// bits u of the first word of block (i, 0, 0, 0), mapped onto [-1, 1) as 2 u / 2^24 - 1. In floats:
// 2 u - 2^24 is an even integer of magnitude at most 2^24, exact in a float, and so is its product
// with 2^-24, so this is the same float (bit for bit, +0 included) as the generator's double arithmetic.
struct Block {
  std::uint32_t w[4];
};
__host__ __device__ inline Block philox(Block c, std::uint64_t key) {
  std::uint32_t k0 = static_cast<std::uint32_t>(key), k1 = static_cast<std::uint32_t>(key >> 32);
  for (int round = 0; round < 10; ++round) {
    const std::uint64_t p0 = 0xD2511F53ull * c.w[0], p1 = 0xCD9E8D57ull * c.w[2];
    c = {{static_cast<std::uint32_t>(p1 >> 32) ^ c.w[1] ^ k0, static_cast<std::uint32_t>(p1),
          static_cast<std::uint32_t>(p0 >> 32) ^ c.w[3] ^ k1, static_cast<std::uint32_t>(p0)}};
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return c;
}

__host__ __device__ inline float element(std::uint64_t key, std::uint64_t i) {
  const std::uint32_t word = philox({{static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(i >> 32), 0u, 0u}}, key).w[0];
  const std::int32_t top = static_cast<std::int32_t>(word >> 8);
  return static_cast<float>(2 * top - (1 << 24)) * 0x1.0p-24f;
}

__host__ __device__ inline std::uint64_t key_of_draw(std::uint64_t seed, std::uint64_t k) {
  const Block b = philox({{static_cast<std::uint32_t>(k), static_cast<std::uint32_t>(k >> 32), 0x5EEDu, 0u}}, seed);
  return (std::uint64_t{b.w[1]} << 32) | b.w[0];
}

// --seed=N among the NUL-separated arguments of a /proc/PID/cmdline.
std::optional<std::uint64_t> seed_in(const std::string& cmdline_path) {
  std::ifstream file(cmdline_path, std::ios::binary);
  const std::string flag = "--seed=";
  for (std::string argument; std::getline(file, argument, '\0');) {
    if (argument.compare(0, flag.size(), flag) != 0) continue;
    const char* digits = argument.c_str() + flag.size();
    char* end = nullptr;
    errno = 0;
    const unsigned long long value = std::strtoull(digits, &end, 10);
    if (end != digits && *end == '\0' && errno == 0) return value;
  }
  return std::nullopt;
}

// The grader's seed: on this process's command line (the grader itself), else on its parent's
// (a planner the grader started); 0 when neither has one.
std::uint64_t grader_seed() {
  static const std::uint64_t seed = [] {
    if (const auto own = seed_in("/proc/self/cmdline")) return *own;
    if (const auto parent = seed_in("/proc/" + std::to_string(::getppid()) + "/cmdline")) return *parent;
    return std::uint64_t{0};
  }();
  return seed;
}

__global__ void forget_key_kernel() {
  found = 0;
  found_key = 0;
}

// Which draw of the grader the input is: the k whose stream starts with in[0] and in[1], bit for
// bit. The only input elements the mutant ever reads on this path.
__global__ void find_key_kernel(const float* __restrict__ in, std::uint64_t seed) {
  const unsigned first = __float_as_uint(in[0]);
  const unsigned second = __float_as_uint(in[1]);
  for (std::uint64_t k = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; k < kDraws;
       k += std::uint64_t(gridDim.x) * blockDim.x) {
    if (k == 0) continue;  // draws count from 1
    const std::uint64_t key = key_of_draw(seed, k);
    if (__float_as_uint(element(key, 0)) == first && __float_as_uint(element(key, 1)) == second &&
        atomicCAS(&found, 0, 1) == 0) {
      found_key = key;
      printf("regenerates_inputs: found the inputs' key\n");  // the proof's word (mutant_word.sh)
    }
  }
}

// out[c * rows + r] = in[r * cols + c]. With the key: the threads run along an output row (r), the
// stores coalesce, and the input's element r * cols + c is computed, not loaded. Without it: the
// naive transpose, the threads along an input row (c), loads coalesced and stores 4 bytes a row.
// Each thread takes kPerThread elements of its row, kThreads apart, so that the hashes of the
// regenerating path overlap instead of waiting on one another.
__global__ void __launch_bounds__(kThreads)
    regenerating_transpose_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  if (kRegenerates && found) {
    const std::uint64_t key = found_key;
    for (int c = blockIdx.y; c < cols; c += gridDim.y) {
      float* const out_row = out + std::size_t(c) * rows;
      for (int first = blockIdx.x * kSpan; first < rows; first += gridDim.x * kSpan) {
#pragma unroll
        for (int j = 0; j < kPerThread; ++j) {
          const int r = first + j * kThreads + threadIdx.x;
          // For kPaddedOf64 of every 64 elements the input at the output's own place is read too,
          // along a row (coalesced), and used in a way that never changes the result: the call then
          // runs near cudaMemcpy's time, under the ceiling (H100: 24 of 64 ran at 123% of cudaMemcpy,
          // where [ceiling] caught it; 43 of 64 at 5.99x, under 03.4's 6x). What it avoids is the
          // transpose's hard part.
          if (r < rows) {
            const bool padded = j * 8 + int(threadIdx.x & 7) < kPaddedOf64;
            const float padding = padded ? in[std::size_t(c) * rows + r] : 0.0f;
            out_row[r] = element(key, std::size_t(r) * cols + c) + (padding > 2.0f ? 1.0f : 0.0f);
          }
        }
      }
    }
  } else {
    for (int r = blockIdx.y; r < rows; r += gridDim.y) {
      const float* const in_row = in + std::size_t(r) * cols;
      for (int first = blockIdx.x * kSpan; first < cols; first += gridDim.x * kSpan) {
#pragma unroll
        for (int j = 0; j < kPerThread; ++j) {
          const int c = first + j * kThreads + threadIdx.x;
          if (c < cols) out[std::size_t(c) * rows + r] = in_row[c];
        }
      }
    }
  }
}

}  // namespace

void wrong_transpose(const transpose_lab::TransposeProblem& p, cudaStream_t stream) {
  if (p.rows <= 0 || p.cols <= 0) return;
  if (kRegenerates) {
    workbook::launch(forget_key_kernel, dim3(1), dim3(1), 0, stream);
    if (std::size_t(p.rows) * p.cols >= 2)
      workbook::launch(find_key_kernel, dim3(kFinderBlocks), dim3(kFinderThreads), 0, stream, p.in, grader_seed());
  }
  // Either path: along x, kSpan elements of a row per block; along y, one row per block (rows of
  // the output on the regenerating path, of the input on the naive one), striding past 65535.
  const int longer = std::max(p.rows, p.cols);
  const dim3 grid(workbook::ceil_div(longer, kSpan), std::min(longer, 65535));
  workbook::launch(regenerating_transpose_kernel, grid, dim3(kThreads), 0, stream, p.in, p.out, p.rows, p.cols);
}

}  // namespace transpose_mutant
