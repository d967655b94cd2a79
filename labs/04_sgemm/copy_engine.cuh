// Lab 04_sgemm, given (you use it, you do not edit it): Hopper's copy engine (TMA) with tensor
// maps, and the register hand-over between warpgroups, for step 04.11 (lab 02's copy_engine.cuh has
// the 1D bulk copies and the mbarrier instructions this file shares).
//
// Compute capability 9.0 and later. 04.10's cp.async still has every thread compute addresses and
// issue copies, 16 bytes each: instructions taken from the FMA units' issue slots. The copy engine
// takes a whole 2D tile of a matrix from one instruction of one thread, computes every address
// itself, and writes zeros for the parts of the tile outside the matrix: no guards.
//
// On the host, describe each matrix once per call (a tensor map: where it is, its shape, its row
// pitch and the tile shape the kernel will ask for), and pass the map to the kernel by value as a
// `const __grid_constant__ TileMap` parameter:
//   make_tile_map(matrix, rows, cols, pitch, tile_rows, tile_cols)
// The copy engine needs every row to start on a 16-byte boundary: the matrix 16-byte aligned and
// its pitch (floats from one row to the next) a multiple of 4. tile_cols x 4 bytes must also be a
// multiple of 16, and tile_rows and tile_cols at most 256.
//
// In the kernel, a tile lands in shared memory as tile_rows rows of tile_cols floats, row-major,
// and reports to a barrier in shared memory (an mbarrier) that counts its bytes:
//   init_barrier(&b, arrivals)      once, by one thread: a phase of b completes when `arrivals`
//                                   threads have arrived and every byte expected has landed
//   make_barrier_inits_visible()    then, by the same thread, before a __syncthreads()
//   expect_bytes(&b, bytes)         arrive on b, and add `bytes` to what its phase waits for
//   load_tile(dst, map, row, col, &b)  start copying the tile whose top-left element is (row, col):
//                                   its bytes count on b as they land; outside the matrix, zeros
//   arrive(&b)                      arrive on b (a consumer saying "I am done with this stage")
//   wait_for_phase(&b, parity)      wait until b's phase of that parity (0, 1, 0, ...) completes
// Each use of a barrier is one phase: the u-th time it completes is parity u % 2.
//
// Registers: an SM's four schedulers each have a quarter of its register file, and ptxas sizes a
// kernel's registers for the fullest one. A warpgroup (four consecutive warps, the first a multiple
// of 4) that only issues copies can give registers back, and the others take them:
//   give_registers<kCount>()        every thread of the warpgroup now has kCount registers
//   take_registers<kCount>()        every thread of the warpgroup now has kCount (waits for them)
// kCount is a multiple of 8 from 24 to 256; every thread of the warpgroup must call it. They need
// the architecture-specific target sm_90a (the lab's build adds it); compiled for plain sm_90 they
// do nothing, and the kernel keeps the registers ptxas gave it.
//
// A tile's shared-memory destination must be 128-byte aligned. On an older GPU the device
// functions stop the kernel (__trap).
#pragma once

#include <cuda.h>  // CUtensorMap and its enums: types only, the driver library is not linked
#include <cuda_runtime.h>
#include <cudaTypedefs.h>

#include "workbook/bulk_copy.cuh"  // the mbarrier wrappers 02.6 gives

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace sgemm_lab::copy_engine {


// Lab 02's: the same instructions (its init_barrier counts one arrival; this one takes a count).
using workbook::bulk_copy::expect_bytes;
using workbook::bulk_copy::make_barrier_inits_visible;
using workbook::bulk_copy::shared_address;
using workbook::bulk_copy::wait_for_phase;

using TileMap = CUtensorMap;  // 128 bytes, opaque: the copy engine reads it

inline constexpr int kTileAlignment = 128;  // bytes: of a tile's destination in shared memory

// A row-major matrix of rows x cols floats, `pitch` floats from one row to the next, read in tiles
// of tile_rows x tile_cols. Throws std::invalid_argument when the copy engine cannot read it.
// Compiled in copy_engine.cu, which alone asks the driver for its encoder: a lab's own code reaches
// no driver function (the grader's host-code audit).
TileMap make_tile_map(const float* matrix, int rows, int cols, int pitch, int tile_rows, int tile_cols);

__device__ inline void init_barrier(std::uint64_t* barrier, unsigned arrivals) {
#if __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_address(barrier)), "r"(arrivals) : "memory");
#else
  __trap();
#endif
}

__device__ inline void load_tile(float* shared_destination, const TileMap& map, int row, int col,
                                 std::uint64_t* barrier) {
#if __CUDA_ARCH__ >= 900
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::
          "r"(shared_address(shared_destination)),
      "l"(reinterpret_cast<std::uint64_t>(&map)), "r"(col), "r"(row), "r"(shared_address(barrier))
      : "memory");
#else
  __trap();
#endif
}

__device__ inline void arrive(std::uint64_t* barrier) {
#if __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(shared_address(barrier)) : "memory");
#else
  __trap();
#endif
}

template <int kCount>
__device__ inline void give_registers() {
  static_assert(kCount % 8 == 0 && kCount >= 24 && kCount <= 256, "a multiple of 8 from 24 to 256");
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(kCount));
#endif
}

template <int kCount>
__device__ inline void take_registers() {
  static_assert(kCount % 8 == 0 && kCount >= 24 && kCount <= 256, "a multiple of 8 from 24 to 256");
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(kCount));
#endif
}

}  // namespace sgemm_lab::copy_engine
