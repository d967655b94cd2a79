// Given (you use it, you do not edit it): Hopper's bulk-copy engine, for steps 02.6 and 04.11.
//
// Compute capability 9.0 and later. One thread asks the copy engine (TMA) to move a block of bytes
// between global and shared memory; the engine does the moving, with no register and no other
// thread involved, and the thread is free at once. So one thread can keep tens of kilobytes in
// flight: Little's law with the threads taken out.
//
// Loads (global -> shared) report to a barrier in shared memory (an mbarrier), which counts bytes:
//   init_barrier(&b)               once, by one thread, before any copy uses b;
//   make_barrier_inits_visible()   then, so that the copy engine sees the initialised barriers
//   expect_bytes(&b, bytes)        arm b's current phase: it completes when `bytes` have landed
//   load_to_shared(dst, src, bytes, &b)   start the load; it counts its bytes on b as they land
//   wait_for_phase(&b, parity)     wait until b's phase of that parity (0, 1, 0, ...) completes
// Each use of a barrier is one phase: the k-th time it is armed, wait for parity k % 2.
//
// Stores (shared -> global) are tracked in groups, like cp.async's:
//   store_from_shared(dst, src, bytes)   start a store
//   commit_stores()                      close this thread's stores started so far into a group
//   wait_until_read<N>()    at most N groups still reading their shared memory: the others' source
//                           bytes may now be overwritten (their writes to global may still be on the way)
//   wait_until_written()    every store done: its bytes are in global memory
//
// Every address and every size must be a multiple of 16 bytes. On an older GPU these functions
// stop the kernel (__trap); the launcher checks the GPU first and says so.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace workbook::bulk_copy {

inline constexpr unsigned kAlignment = 16;  // bytes: of every address and size a bulk copy takes

// The 32-bit address in the shared-memory window that the copy instructions take.
__device__ inline unsigned shared_address(const void* pointer) {
  return static_cast<unsigned>(__cvta_generic_to_shared(pointer));
}

__device__ inline void init_barrier(std::uint64_t* barrier) {
#if __CUDA_ARCH__ >= 900
  // One arrival per phase: the arming thread's own, in expect_bytes().
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(shared_address(barrier)) : "memory");
#else
  __trap();
#endif
}

__device__ inline void make_barrier_inits_visible() {
#if __CUDA_ARCH__ >= 900
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#else
  __trap();
#endif
}

__device__ inline void expect_bytes(std::uint64_t* barrier, unsigned bytes) {
#if __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(barrier)), "r"(bytes)
               : "memory");
#else
  __trap();
#endif
}

__device__ inline void load_to_shared(void* shared_destination, const void* global_source, unsigned bytes,
                                      std::uint64_t* barrier) {
#if __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                   shared_address(shared_destination)),
               "l"(global_source), "r"(bytes), "r"(shared_address(barrier))
               : "memory");
#else
  __trap();
#endif
}

__device__ inline void wait_for_phase(std::uint64_t* barrier, unsigned parity) {
#if __CUDA_ARCH__ >= 900
  unsigned done = 0;
  do {
    asm volatile(
        "{\n .reg .pred complete;\n mbarrier.try_wait.parity.shared::cta.b64 complete, [%1], %2;\n"
        " selp.u32 %0, 1, 0, complete;\n}"
        : "=r"(done)
        : "r"(shared_address(barrier)), "r"(parity)
        : "memory");
  } while (done == 0);
#else
  __trap();
#endif
}

__device__ inline void store_from_shared(void* global_destination, const void* shared_source, unsigned bytes) {
#if __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(global_destination),
               "r"(shared_address(shared_source)), "r"(bytes)
               : "memory");
#else
  __trap();
#endif
}

__device__ inline void commit_stores() {
#if __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
#else
  __trap();
#endif
}

template <int kGroupsStillReading>
__device__ inline void wait_until_read() {
#if __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(kGroupsStillReading) : "memory");
#else
  __trap();
#endif
}

__device__ inline void wait_until_written() {
#if __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
#else
  __trap();
#endif
}

}  // namespace workbook::bulk_copy
