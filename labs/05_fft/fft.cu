// Lab 05_fft: a batched 1024-point FFT, more outputs per thread, to cuFFT speed. This is the file
// you edit.
//
// A 1024-point FFT fits in one thread block. Each thread holds P points in registers and computes
// small DFTs there; between passes the points are exchanged through shared memory. The more points
// a thread holds, the larger its DFTs and the fewer the exchanges, and the fewer threads a
// transform needs: lower occupancy, higher speed (Volkov 2010, part V). Each step holds more points
// per thread; labs/05_fft/README.md explains each one and the bar it must clear.
//   TODO(05.1)  2 outputs per thread: ten radix-2 passes, nine exchanges, 512 threads a transform
//   TODO(05.2)  4 outputs per thread: five radix-4 passes, four exchanges
//   TODO(05.3)  8 outputs per thread: radix 8, 8, 8 and 2, three exchanges
//   TODO(05.4)  16 outputs per thread: radix 16, 16 and 4, two exchanges, 64 threads a transform
//   TODO(05.5)  your design, at cuFFT's speed
// Grade it with `./workbook grade 05_fft`.

#include <string>

#include "fft.h"
#include "given.cuh"  // given: validate(), cadd, csub, cmul, times_minus_i, twiddle
#include "workbook/launch.cuh"

namespace fft_lab {

namespace {

struct Policy {
  static constexpr int kTransformsPerBlock = 4;  // 05.5: your choice; one transform per block before it
  static_assert(kTransformsPerBlock >= 1 && kTransformsPerBlock * kPoints / 16 <= 1024,
                "a block holds at most 1024 threads: 64 per transform at 16 outputs per thread");
};

// TODO(05.1): the Stockham formulation (handout, "one pass"). Points are indexed 0..1023; a pass of
// radix R with Ns the length of the sub-transforms done so far (1, then R, then R R', ...) has
// N / R butterflies. Butterfly j reads the points j + r N / R (r = 0 .. R-1), multiplies point r by
// the twiddle W_{Ns R}^{(j mod Ns) r} = twiddle((j % Ns) * r, Ns * R), computes their R-point DFT,
// and writes output r to (j / Ns) Ns R + j % Ns + r Ns. After the last pass (Ns R = 1024) the
// outputs are in natural order: no bit reversal anywhere.
// For 05.1: one block of 512 threads per transform, thread t is butterfly t of every pass. Read the
// two points from global memory, then for each of the ten passes: twiddle, add and subtract, write
// the two outputs to a __shared__ float2[1024], __syncthreads(), read the next pass's two inputs,
// __syncthreads() again (before anyone overwrites what others still read). The last pass writes to
// out: its butterfly j's outputs are j and j + 512, consecutive threads, consecutive points.
//
// TODO(05.2), TODO(05.3), TODO(05.4): P points per thread, 1024 / P threads per transform. A pass
// of radix R <= P gives each thread P / R butterflies (j = t, t + 1024 / P, ...). Write the R-point
// DFT in registers: a radix-2 network of R/2 butterflies on each of log2(R) levels, with constant
// twiddles (W_4 = -i needs no multiplication, W_8 = (1 - i) / sqrt(2)), and every index known at
// compile time, or the compiler moves the array to local memory (check -Xptxas -v: 0 bytes stack
// frame). One kernel template with P as a parameter serves all three steps; 1024 = 8 8 8 2 = 16 16 4.
//
// TODO(05.5): your design. The grader measures it at a batch of 65536 against cufftExecC2C on the
// same inputs. Measure first (./workbook bench 05): what do your 05.4 kernel's occupancy, its
// shared-memory bank conflicts (a warp writing points 16 apart) and its sincospif calls cost?

[[noreturn]] void not_implemented(const char* todo, const char* step) {
  throw workbook::NotImplemented(std::string(todo) + " not implemented: " + step + " (labs/05_fft/fft.cu)");
}

}  // namespace

// Each launcher: validate, size the grid (one block per transform, or per kTransformsPerBlock;
// none when batch == 0), and launch with workbook::launch(kernel, grid, block, 0, stream, args...).

void fft_2_outputs_per_thread(const FftProblem& problem, cudaStream_t) {
  validate(problem, "fft_2_outputs_per_thread");
  not_implemented("TODO(05.1)", "fft_2_outputs_per_thread");
}

void fft_4_outputs_per_thread(const FftProblem& problem, cudaStream_t) {
  validate(problem, "fft_4_outputs_per_thread");
  not_implemented("TODO(05.2)", "fft_4_outputs_per_thread");
}

void fft_8_outputs_per_thread(const FftProblem& problem, cudaStream_t) {
  validate(problem, "fft_8_outputs_per_thread");
  not_implemented("TODO(05.3)", "fft_8_outputs_per_thread");
}

void fft_16_outputs_per_thread(const FftProblem& problem, cudaStream_t) {
  validate(problem, "fft_16_outputs_per_thread");
  not_implemented("TODO(05.4)", "fft_16_outputs_per_thread");
}

void fft_at_cufft_speed(const FftProblem& problem, cudaStream_t) {
  validate(problem, "fft_at_cufft_speed");
  not_implemented("TODO(05.5)", "fft_at_cufft_speed");
}

}  // namespace fft_lab
