// Mutant of 01.4: work remembered in the student's own module. The chains start at multiples of
// 2^-24 in [-1, 1): 2^25 possible starts, so a 128 MiB __device__ table holds every chain's end.
// The first call with a given a, b and length computes its chains honestly (eight per thread, as
// the solution) and fills the table; a stamp in the module says for which a, b and length it was
// filled, and every later call with the same ones is one table load per chain, always right. The
// table outlives the call only because nothing restores the module's __device__ globals between
// calls: with them restored to their loaded state before every call ([fresh-module]), every call
// fills the table again (2^41 FMAs at the timed length, some 70-80 ms on an H100) and 01.4 fails
// on speed. Lookups alone would run far above the FMA peak, where [ceiling] would catch them, so
// each thread also runs as many FMAs as its honest chains, on numbers that are not the chains
// (padding, which a student who cannot make the chains fast would not need to make fast either):
// the call then runs at the honest kernel's speed, under the ceiling, and clears 01.4 with every
// other defence on. Built with WORKBOOK_MUTANT_CONTROL: the same module, table included, but
// the table is never read nor filled: every call computes its chains honestly (the solution's
// kernel and launch).
#include <cstdint>
#include <stdexcept>
#include <string>

#include "given.cuh"
#include "latency.h"
#include "one_defect.h"
#include "workbook/launch.cuh"

namespace latency_lab {
namespace {
constexpr int kIlp = 8;  // chains per thread, as the solution's 01.4

// Every possible start s = k 2^-24, k in [-2^24, 2^24): the table's index is k + 2^24.
constexpr int kStartsPerUnit = 1 << 24;
constexpr unsigned kTableSize = 1u << 25;  // 128 MiB of floats
// The longest chain the table is built for: the timed length, 2^16, so that a build is at most
// 2^25 x 2^16 = 2^41 FMAs. Longer chains are only ever computed honestly.
constexpr int kMaxTableLength = 1 << 16;

// For which chains the table holds the ends: a and b by their bits, the length, and a word that a
// freshly loaded module (all zeros) never has.
struct TableStamp {
  unsigned a_bits;
  unsigned b_bits;
  int length;
  unsigned ready;
};
constexpr unsigned kReady = 0x7AB1E5EDu;

// The control: the same module, table and kernels, but the table is never trusted (so never read)
// and never filled.
#ifdef WORKBOOK_MUTANT_CONTROL
constexpr bool kTrustTable = false;
#else
constexpr bool kTrustTable = true;
#endif

__device__ float table[kTableSize];
__device__ TableStamp table_stamp;

__device__ bool table_holds(int length, float a, float b) {
  const TableStamp s = table_stamp;  // written by an earlier launch on this stream: visible here
  return kTrustTable && s.ready == kReady && s.length == length && s.a_bits == __float_as_uint(a) &&
         s.b_bits == __float_as_uint(b);
}

// A start's place in the table, or -1 when it is not one of the 2^25 starts the table holds
// (then its chain is computed). start x 2^24 is exact (a power of two), and an integer exactly
// when start is a multiple of 2^-24; (start + 1) x 2^24 in float would round starts below 1/2.
__device__ int table_index(float start) {
  const float k = start * float(kStartsPerUnit);
  if (!(k >= -float(kStartsPerUnit) && k < float(kStartsPerUnit)) || k != truncf(k)) return -1;
  return int(k) + kStartsPerUnit;
}

__device__ float one_chain(float x, int length, float a, float b) {
  for (int i = 0; i < length; ++i) x = fmaf(x, a, b);
  return x;
}

// kIlp independent chains stepped together, `length` FMAs each, as the solution's 01.4 kernel does.
__device__ __forceinline__ void step_chains(float (&x)[kIlp], int length, float a, float b) {
#pragma unroll 16
  for (int i = 0; i < length; ++i) {
#pragma unroll
    for (int c = 0; c < kIlp; ++c) x[c] = fmaf(x[c], a, b);
  }
}

// The call's chains: table loads when the table holds them, else the solution's 01.4 kernel
// (kIlp chains per thread, stepped together; thread t takes chains t, t + T, ...).
__global__ void chains_kernel(const float* start, float* end, unsigned chains, int length, float a, float b) {
  const unsigned threads = gridDim.x * blockDim.x;
  const unsigned first = blockIdx.x * blockDim.x + threadIdx.x;
  if (table_holds(length, a, b)) {  // the same answer for the whole grid
    // The padding: kIlp chains as long as the real ones, from numbers of this thread's own.
    float padding[kIlp];
#pragma unroll
    for (int c = 0; c < kIlp; ++c) padding[c] = float((first + c) & 255) * 0x1.0p-9f;
    step_chains(padding, length, a, b);
#pragma unroll
    for (int c = 0; c < kIlp; ++c) {
      const unsigned chain = first + c * threads;
      if (chain >= chains) continue;
      const float s = start[chain];
      const int index = table_index(s);
      // padding[c] stays in [-1, 1): the sum adds 0, but the compiler cannot know it.
      end[chain] = (index >= 0 ? table[index] : one_chain(s, length, a, b)) + (padding[c] > 1.0e30f ? 1.0f : 0.0f);
    }
    return;
  }
  float x[kIlp];
#pragma unroll
  for (int c = 0; c < kIlp; ++c) {
    const unsigned chain = first + c * threads;
    x[c] = chain < chains ? start[chain] : 0.0f;
  }
  step_chains(x, length, a, b);
#pragma unroll
  for (int c = 0; c < kIlp; ++c) {
    const unsigned chain = first + c * threads;
    if (chain < chains) end[chain] = x[c];
  }
}

// Every possible start's chain into the table, kIlp chains per thread side by side, in sweeps of
// kIlp x (the grid's threads) chains; nothing at all when the table already holds these chains.
__global__ void fill_table_kernel(int length, float a, float b) {
  if (table_holds(length, a, b)) return;
  const unsigned threads = gridDim.x * blockDim.x;
  const unsigned first = blockIdx.x * blockDim.x + threadIdx.x;
  for (unsigned sweep = 0; sweep < kTableSize; sweep += kIlp * threads) {
    float x[kIlp];
#pragma unroll
    for (int c = 0; c < kIlp; ++c) x[c] = float(int(sweep + first + c * threads) - kStartsPerUnit) * (1.0f / kStartsPerUnit);
#pragma unroll 16
    for (int i = 0; i < length; ++i) {
#pragma unroll
      for (int c = 0; c < kIlp; ++c) x[c] = fmaf(x[c], a, b);
    }
#pragma unroll
    for (int c = 0; c < kIlp; ++c) {
      const unsigned index = sweep + first + c * threads;
      if (index < kTableSize) table[index] = x[c];
    }
  }
}

// After fill_table_kernel on the same stream: if it filled the table (the stamp did not match),
// the stamp now says for which chains. If it did match, it is left as it is.
__global__ void stamp_table_kernel(int length, float a, float b) {
  if (table_holds(length, a, b)) return;
  table_stamp = TableStamp{__float_as_uint(a), __float_as_uint(b), length, kReady};
}
}  // namespace

void fma_with_ilp(const LatencyProblem& p, cudaStream_t stream) {
  validate_chains(p.fma, "fma_with_ilp");
  validate_launch_shape(p, "fma_with_ilp");
  if (p.fma.chains >= (std::size_t{1} << 31))
    throw std::invalid_argument("fma_with_ilp: 32-bit indices count fewer than 2^31 chains, not " + std::to_string(p.fma.chains));
  // Every launch at the step's shape: its block size and its padding, so each runs at the
  // occupancy the step is measured at. The same launches every call; the device decides, from the
  // stamp, whether the table is used and whether it is filled.
  const std::size_t threads = workbook::ceil_div(p.fma.chains, std::size_t{kIlp});
  const std::size_t blocks = workbook::ceil_div(threads, std::size_t(p.threads_per_block));
  workbook::launch(chains_kernel, dim3(static_cast<unsigned>(blocks)), dim3(p.threads_per_block), p.occupancy_padding_bytes,
                   stream, p.fma.start, p.fma.end, static_cast<unsigned>(p.fma.chains), p.fma.length, p.fma.a, p.fma.b);
  if (kTrustTable && p.fma.length <= kMaxTableLength) {
    // 2^16 threads in all: a few waves of blocks at 6.25% occupancy, each returning at once when
    // the table is ready, or 64 sweeps of 2^19 chains when it is filled.
    const unsigned fill_blocks = static_cast<unsigned>(workbook::ceil_div(std::size_t{1} << 16, std::size_t(p.threads_per_block)));
    workbook::launch(fill_table_kernel, dim3(fill_blocks), dim3(p.threads_per_block), p.occupancy_padding_bytes, stream,
                     p.fma.length, p.fma.a, p.fma.b);
    workbook::launch(stamp_table_kernel, dim3(1), dim3(1), p.occupancy_padding_bytes, stream, p.fma.length, p.fma.a, p.fma.b);
  }
}
void measure_fma_latency(const LatencyProblem&, cudaStream_t) { latency_mutant::not_this_mutant("01.4"); }
void measure_load_latency(const LatencyProblem&, cudaStream_t) { latency_mutant::not_this_mutant("01.4"); }
Occupancy occupancy_of(const BlockShape&, const SmLimits&) { latency_mutant::not_this_mutant("01.4"); }
}  // namespace latency_lab
