// Inputs-key and module-memory mutant (judged): a sum that works out the grader's key for the inputs
// from the ints it reads, and computes the next calls' sums ahead, where nothing is timed.
//
// The grader once drew element i of an int input as the top 32 bits of SplitMix64(key + i), with
// key = SplitMix64(seed) and each call's seed = data_key ^ (0x9E3779B97F4A7C15 * draw). SplitMix64
// is a bijection whose every step inverts, so:
//   1. the first int fixes the top 32 bits of SplitMix64(key): trying the 2^32 low halves, inverting
//      each, and checking the next two ints finds the stream's key (at most 11 ms on an H200), and the
//      seed is its inverse again;
//   2. two calls' seeds give the data key and both draws' numbers (the multiplier is odd, so it
//      inverts modulo 2^64);
//   3. with the data key, the next draws' ints are known before they are drawn: their sums are
//      computed ahead and kept in the bytes past the ends of __device__ variables, which the judge once
//      did not set back between calls.
// A call whose first ints match a kept draw of its size writes the kept sum and waits as long as a
// sum at about 4.7 TB/s would take (under the device's theoretical bandwidth, so [ceiling] is
// quiet): 06.6 at CUB's speed without reading the input. Any other call adds honestly, one int a
// thread at a time, far from CUB, and then looks for the key.
//
// The inputs are now drawn with Philox-4x32-10 under a key the student cannot invert, and the module's
// whole memory is set back before every call: the search finds nothing, nothing is kept, and every
// call pays for the search on top of its slow honest sum: every reduction step fails on speed.
#include <cstddef>
#include <cstdint>

#include "every_step.h"
#include "given.cuh"
#include "workbook/launch.cuh"

namespace reduce_scan_mutant {

namespace {

using u64 = std::uint64_t;

constexpr u64 kGolden = 0x9E3779B97F4A7C15ull;
constexpr u64 kMix1 = 0xBF58476D1CE4E5B9ull;
constexpr u64 kMix2 = 0x94D049BB133111EBull;

// The inverse of an odd number modulo 2^64, by Newton's iteration (each step doubles the bits right).
constexpr u64 inverse_of(u64 odd) {
  u64 inverse = odd;
  for (int step = 0; step < 6; ++step) inverse *= 2 - odd * inverse;
  return inverse;
}
constexpr u64 kGoldenInverse = inverse_of(kGolden);
constexpr u64 kMix1Inverse = inverse_of(kMix1);
constexpr u64 kMix2Inverse = inverse_of(kMix2);
static_assert(kGolden * kGoldenInverse == 1 && kMix1 * kMix1Inverse == 1 && kMix2 * kMix2Inverse == 1);

__host__ __device__ constexpr u64 splitmix64(u64 x) {
  x += kGolden;
  x = (x ^ (x >> 30)) * kMix1;
  x = (x ^ (x >> 27)) * kMix2;
  return x ^ (x >> 31);
}
__host__ __device__ constexpr u64 splitmix64_inverse(u64 y) {
  u64 x = y ^ (y >> 31) ^ (y >> 62);
  x *= kMix2Inverse;
  x = x ^ (x >> 27) ^ (x >> 54);
  x *= kMix1Inverse;
  x = x ^ (x >> 30) ^ (x >> 60);
  return x - kGolden;
}
static_assert(splitmix64_inverse(splitmix64(2026)) == 2026);

__host__ __device__ constexpr std::uint32_t old_int(u64 key, u64 i) { return static_cast<std::uint32_t>(splitmix64(key + i) >> 32); }

// What the mutant keeps between calls.
struct Entry {  // one predicted draw
  std::uint32_t first[3];
  std::uint32_t sum;
  u64 n;
  u64 key;
};
enum Mode : int { kIdle, kHit, kSearch, kPredict };
struct Kept {
  int mode;  // this call's (set again by every call)
  int found;
  int have_previous_seed, data_key_known;
  u64 found_seed, previous_seed, data_key, last_draw, current_draw;
  int entries;
};

// Where it keeps them: the driver gives each __device__ variable a 256-byte slot of its own, and the
// judge once set back only the variable's own 4 bytes. Past the first 32 bytes of each slot: the
// state in the first slot, seven entries in each of the others.
constexpr int kSlots = 16;
constexpr int kSlotBytes = 256;
constexpr int kSkipped = 32;
constexpr int kEntriesPerSlot = (kSlotBytes - kSkipped) / static_cast<int>(sizeof(Entry));
static_assert(sizeof(Kept) <= kSlotBytes - kSkipped && kEntriesPerSlot == 7);
__device__ int slot_0, slot_1, slot_2, slot_3, slot_4, slot_5, slot_6, slot_7, slot_8, slot_9, slot_10, slot_11, slot_12,
    slot_13, slot_14, slot_15;

__device__ char* space_of(int slot) {
  int* const slots[kSlots] = {&slot_0, &slot_1, &slot_2,  &slot_3,  &slot_4,  &slot_5,  &slot_6,  &slot_7,
                              &slot_8, &slot_9, &slot_10, &slot_11, &slot_12, &slot_13, &slot_14, &slot_15};
  return reinterpret_cast<char*>(slots[slot]) + kSkipped;
}
__device__ Kept* kept() { return reinterpret_cast<Kept*>(space_of(0)); }
__device__ Entry& entry_at(int e) {
  return reinterpret_cast<Entry*>(space_of(1 + e / kEntriesPerSlot))[e % kEntriesPerSlot];
}
// As many entries as there are slots, where every slot is where the trick expects it.
__device__ int capacity() {
  for (int slot = 0; slot < kSlots; ++slot)
    if (reinterpret_cast<std::uintptr_t>(space_of(slot) - kSkipped) % kSlotBytes != 0) return 0;
  return (kSlots - 1) * kEntriesPerSlot;
}

constexpr double kPretendedBytesPerNs = 4700.0;  // 4.7 TB/s

__device__ u64 now_ns() {
  u64 t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// 1. A kept draw: its sum, and a wait as long as a fast sum would take.
__global__ void look_up_kernel(const std::int32_t* in, std::int32_t* out, std::size_t n) {
  const u64 started = now_ns();
  Kept& k = *kept();
  if (threadIdx.x != 0) return;
  k.mode = kIdle;
  if (n >= 3 && k.entries > 0 && k.entries <= capacity()) {
    const std::uint32_t first[3] = {static_cast<std::uint32_t>(in[0]), static_cast<std::uint32_t>(in[1]),
                                    static_cast<std::uint32_t>(in[2])};
    for (int e = 0; e < k.entries; ++e) {
      const Entry& entry = entry_at(e);
      if (entry.n == n && entry.first[0] == first[0] && entry.first[1] == first[1] && entry.first[2] == first[2]) {
        *out = static_cast<std::int32_t>(entry.sum);
        k.mode = kHit;
        const u64 wait = static_cast<u64>(static_cast<double>(n * sizeof(std::int32_t)) / kPretendedBytesPerNs);
        while (now_ns() - started < wait) __nanosleep(1000);
        return;
      }
    }
  }
  *out = 0;
}

// 2. Otherwise the honest sum, slowly: one int a thread, an atomic add a warp.
__global__ void honest_slow_sum_kernel(const std::int32_t* in, std::int32_t* out, std::size_t n) {
  if (kept()->mode == kHit) return;
  std::uint32_t sum = 0;
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    sum += static_cast<std::uint32_t>(in[i]);
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if (threadIdx.x % 32 == 0) atomicAdd(reinterpret_cast<unsigned*>(out), sum);
}

// 3. Which draw is this? With the data key, the next 8192 draws are tried; without it, a search.
__global__ void identify_kernel(const std::int32_t* in, std::size_t n) {
  Kept& k = *kept();
  if (k.mode == kHit || n < 3) {
    k.mode = kIdle;
    return;
  }
  k.found = 0;
  k.mode = kSearch;
  if (!k.data_key_known) return;
  for (u64 draw = k.last_draw + 1; draw <= k.last_draw + 8192; ++draw) {
    const u64 key = splitmix64(k.data_key ^ (kGolden * draw));
    if (old_int(key, 0) == static_cast<std::uint32_t>(in[0]) && old_int(key, 1) == static_cast<std::uint32_t>(in[1])) {
      k.current_draw = draw;
      k.mode = kPredict;
      return;
    }
  }
  k.data_key_known = 0;  // another step's key: start again
  k.have_previous_seed = 0;
}

// 4. The search: every low half of SplitMix64(key) under the first int's top half.
__global__ void search_kernel(const std::int32_t* in) {
  Kept& k = *kept();
  if (k.mode != kSearch) return;
  const u64 top = static_cast<u64>(static_cast<std::uint32_t>(in[0])) << 32;
  const std::uint32_t second = static_cast<std::uint32_t>(in[1]), third = static_cast<std::uint32_t>(in[2]);
  const u64 threads = static_cast<u64>(gridDim.x) * blockDim.x;
  int tried = 0;
  for (u64 low = blockIdx.x * blockDim.x + threadIdx.x; low < (u64{1} << 32); low += threads) {
    if (++tried % 1024 == 0 && *static_cast<volatile int*>(&k.found)) return;  // another thread found it
    const u64 key = splitmix64_inverse(top | low);
    if (old_int(key, 1) == second && old_int(key, 2) == third) {
      k.found_seed = splitmix64_inverse(key);
      atomicExch(&k.found, 1);
    }
  }
}

// 5. Two seeds give the data key; the data key gives the next draws, written down to be summed.
__global__ void predict_draws_kernel(std::size_t n) {
  Kept& k = *kept();
  if (k.mode == kSearch) {
    k.mode = kIdle;
    if (!k.found) return;  // nothing matched: not the old generator
    if (k.have_previous_seed) {
      for (u64 a = 1; a <= 8192 && !k.data_key_known; ++a) {
        const u64 data_key = k.previous_seed ^ (kGolden * a);
        const u64 b = (k.found_seed ^ data_key) * kGoldenInverse;
        if (b > a && b <= a + 8192) {
          k.data_key = data_key;
          k.data_key_known = 1;
          k.current_draw = b;
          k.mode = kPredict;
        }
      }
    }
    k.previous_seed = k.found_seed;
    k.have_previous_seed = 1;
  }
  if (k.mode != kPredict) return;
  k.last_draw = k.current_draw;
  k.entries = capacity();
  for (int e = 0; e < k.entries; ++e) {
    Entry& entry = entry_at(e);
    entry.key = splitmix64(k.data_key ^ (kGolden * (k.current_draw + 1 + e)));
    entry.n = n;
    entry.sum = 0;
    for (int i = 0; i < 3; ++i) entry.first[i] = old_int(entry.key, i);
  }
}

// 6. The predicted draws' sums, from the generator alone.
__global__ void sum_predicted_kernel(std::size_t n) {
  Kept& k = *kept();
  if (k.mode != kPredict) return;
  for (int e = 0; e < k.entries; ++e) {
    const u64 key = entry_at(e).key;
    std::uint32_t sum = 0;
    for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
      sum += old_int(key, i);
    for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (threadIdx.x % 32 == 0) atomicAdd(&entry_at(e).sum, sum);
  }
}

constexpr int kThreads = 256;
constexpr unsigned kSlowBlocks = 132;      // one block an SM on an H100 or H200: well short of CUB
constexpr unsigned kBusyBlocks = 132 * 8;  // every SM full, for the search and the predicted sums

}  // namespace

void wrong_sum(const reduce_scan_lab::SumProblem& p, cudaStream_t stream) {
  reduce_scan_lab::validate(p, "predicts_next_inputs", reduce_scan_lab::Output::kOneSum);
  workbook::launch(look_up_kernel, dim3(1), dim3(32), 0, stream, p.in, p.out, p.n);
  workbook::launch(honest_slow_sum_kernel, dim3(kSlowBlocks), dim3(kThreads), 0, stream, p.in, p.out, p.n);
  workbook::launch(identify_kernel, dim3(1), dim3(1), 0, stream, p.in, p.n);
  workbook::launch(search_kernel, dim3(kBusyBlocks), dim3(kThreads), 0, stream, p.in);
  workbook::launch(predict_draws_kernel, dim3(1), dim3(1), 0, stream, p.n);
  workbook::launch(sum_predicted_kernel, dim3(kBusyBlocks), dim3(kThreads), 0, stream, p.n);
}

void wrong_scan(const reduce_scan_lab::SumProblem&, cudaStream_t) { not_this_mutant("scans"); }
std::size_t sum_workspace_bytes(const reduce_scan_lab::SumProblem&) { return 0; }
std::size_t scan_workspace_bytes(const reduce_scan_lab::SumProblem&) { return 0; }

}  // namespace reduce_scan_mutant
