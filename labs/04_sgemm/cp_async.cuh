// Lab 04_sgemm, given (you use it, you do not edit it): cp.async, for step 04.10.
//
// cp.async (sm_80 and later) copies global memory to shared memory in the background, with no
// register in between: the copy cannot be moved by the compiler, and the thread goes on with its
// work while the bytes travel. A thread's copies are tracked in groups:
//   copy_16_bytes(...)      start one copy of 16 bytes; both addresses 16-byte aligned
//   commit_copies()         close this thread's copies started so far into a group
//   wait_for_copies<N>()    wait until at most N of this thread's groups are still in flight
// Waiting covers this thread's own copies only: a __syncthreads() after it makes everyone's
// visible to everyone.
#pragma once

#include <cuda_runtime.h>

namespace sgemm_lab {

// With `valid` false the 16 bytes written are zeros and nothing is read (cp.async's zero-fill:
// the edges of a matrix), but the source must still be a valid address.
__device__ inline void copy_16_bytes(float* shared_destination, const float* global_source, bool valid = true) {
  const auto destination = static_cast<unsigned>(__cvta_generic_to_shared(shared_destination));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(destination), "l"(global_source),
               "r"(valid ? 16 : 0));
}

__device__ inline void commit_copies() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

template <int kGroupsStillInFlight>
__device__ inline void wait_for_copies() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kGroupsStillInFlight) : "memory");
}

}  // namespace sgemm_lab
