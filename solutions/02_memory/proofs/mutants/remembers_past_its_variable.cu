// Module-memory mutant (judged): a kernel that finds, in a later call, what an earlier call left in
// its module, in the bytes past a `__device__` variable's end (the rest of the variable's 256-byte
// slot, which the judge once did not set back). The copy launch copies only while that word is
// clear, and a one-thread launch after it sets the word: in a second call of a module kept as it
// was, nothing is copied. The judge sets the module's whole memory back before every call, so every
// call finds the word clear and copies: its verdicts must be its honest copy's (02.1-02.3 cleared,
// 02.4 and 02.6 failed).
#include "every_step.h"
#include "honest_copy.cuh"

namespace {

__device__ int marked;  // a 4-byte variable: the driver gives it a 256-byte slot
constexpr int kWordsPastTheEnd = 7;
constexpr int kMark = 0x5eed;

__device__ int* past_the_end() { return &marked + kWordsPastTheEnd; }

__global__ void copy_unless_marked_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n) {
  if (*static_cast<volatile int*>(past_the_end()) == kMark) return;  // an earlier call was here
  memory_mutant::copy_this_blocks_share(in, out, n);
}

__global__ void mark_kernel() { *past_the_end() = kMark; }

}  // namespace

void memory_mutant::wrong_copy(const memory_lab::CopyProblem& p, cudaStream_t stream) {
  if (p.n == 0) return;
  workbook::launch(copy_unless_marked_kernel, honest_grid(p.n, p.threads_per_block), dim3(p.threads_per_block),
                   p.occupancy_padding_bytes, stream, p.in, p.out, p.n);
  workbook::launch(mark_kernel, dim3(1), dim3(1), 0, stream);
}
