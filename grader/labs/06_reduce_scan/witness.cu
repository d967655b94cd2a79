// The witnesses of lab 06_reduce_scan: see witness.h. Harris's kernels 2 to 6, as the handout
// describes them for today's GPUs (the last warp by shuffles, never by a volatile pointer): 256
// threads a block, one partial sum per block, the same kernel again on the partial sums until one
// is left.
#include "witness.h"

#include "given.cuh"  // validate(), workspace_of()
#include "workbook/launch.cuh"

namespace reduce_scan_witness {

namespace {

using Sum = unsigned int;  // wraps modulo 2^32, as the lab's sums do
constexpr unsigned kThreads = 256;

__device__ inline Sum load(const Sum* in, std::size_t i, std::size_t n) { return i < n ? in[i] : 0u; }

// 06.1: thread t adds partial[2 s t + s] into partial[2 s t] while 2 s t < blockDim.x.
__global__ void interleaved_kernel(const Sum* in, Sum* out, std::size_t n) {
  __shared__ Sum partial[kThreads];
  const unsigned t = threadIdx.x;
  partial[t] = load(in, std::size_t(blockIdx.x) * blockDim.x + t, n);
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    const unsigned index = 2 * s * t;
    if (index < blockDim.x) partial[index] += partial[index + s];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = partial[0];
}

// 06.2: s halves from blockDim.x / 2, thread t adds partial[t + s].
__global__ void sequential_kernel(const Sum* in, Sum* out, std::size_t n) {
  __shared__ Sum partial[kThreads];
  const unsigned t = threadIdx.x;
  partial[t] = load(in, std::size_t(blockIdx.x) * blockDim.x + t, n);
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
    if (t < s) partial[t] += partial[t + s];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = partial[0];
}

// 06.3: a block covers 2 x 256 elements; each thread adds two as it loads them.
__global__ void first_add_kernel(const Sum* in, Sum* out, std::size_t n) {
  __shared__ Sum partial[kThreads];
  const unsigned t = threadIdx.x;
  const std::size_t i = std::size_t(blockIdx.x) * 2 * blockDim.x + t;
  partial[t] = load(in, i, n) + load(in, i + blockDim.x, n);
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
    if (t < s) partial[t] += partial[t + s];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = partial[0];
}

// The last warp: 64 partial sums left, 32 threads, five shuffles down.
__device__ inline void finish_in_last_warp(const Sum* partial, Sum* out) {
  const unsigned t = threadIdx.x;
  if (t >= 32) return;
  Sum value = partial[t] + partial[t + 32];
  for (int offset = 16; offset > 0; offset /= 2) value += __shfl_down_sync(0xffffffffu, value, offset);
  if (t == 0) out[blockIdx.x] = value;
}

// 06.4: 06.3's tree down to 64 sums, then the last warp by shuffles.
__global__ void last_warp_kernel(const Sum* in, Sum* out, std::size_t n) {
  __shared__ Sum partial[kThreads];
  const unsigned t = threadIdx.x;
  const std::size_t i = std::size_t(blockIdx.x) * 2 * blockDim.x + t;
  partial[t] = load(in, i, n) + load(in, i + blockDim.x, n);
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 32; s /= 2) {
    if (t < s) partial[t] += partial[t + s];
    __syncthreads();
  }
  finish_in_last_warp(partial, out);
}

// 06.5: the block size a template parameter, each level of the tree written out behind a test the
// compiler decides (Harris's kernel 6).
template <unsigned kBlock>
__global__ void unrolled_kernel(const Sum* in, Sum* out, std::size_t n) {
  __shared__ Sum partial[kBlock];
  const unsigned t = threadIdx.x;
  const std::size_t i = std::size_t(blockIdx.x) * 2 * kBlock + t;
  partial[t] = load(in, i, n) + load(in, i + kBlock, n);
  __syncthreads();
  if (kBlock >= 1024) {
    if (t < 512) partial[t] += partial[t + 512];
    __syncthreads();
  }
  if (kBlock >= 512) {
    if (t < 256) partial[t] += partial[t + 256];
    __syncthreads();
  }
  if (kBlock >= 256) {
    if (t < 128) partial[t] += partial[t + 128];
    __syncthreads();
  }
  if (kBlock >= 128) {
    if (t < 64) partial[t] += partial[t + 64];
    __syncthreads();
  }
  finish_in_last_warp(partial, out);
}

// Partial sums per block of `per_block` elements, pass after pass, until one is left in `out`. The
// passes alternate between the workspace's two halves (reduce_workspace_bytes()).
void reduce(const SumProblem& p, const char* name, void (*kernel)(const Sum*, Sum*, std::size_t), unsigned per_block,
            cudaStream_t stream) {
  reduce_scan_lab::validate(p, name, reduce_scan_lab::Output::kOneSum);
  const std::size_t first = workbook::ceil_div(p.n, std::size_t(per_block));
  Sum* const scratch = static_cast<Sum*>(reduce_scan_lab::workspace_of(p, name, reduce_scan_witness::reduce_workspace_bytes(p)));
  Sum* const halves[2] = {scratch, scratch + first};
  const Sum* in = reinterpret_cast<const Sum*>(p.in);
  std::size_t n = p.n;
  for (int pass = 0;; ++pass) {
    const std::size_t blocks = workbook::ceil_div(n, std::size_t(per_block));
    Sum* const out = blocks <= 1 ? reinterpret_cast<Sum*>(p.out) : halves[pass % 2];
    workbook::launch(kernel, dim3(blocks == 0 ? 1u : unsigned(blocks)), dim3(kThreads), 0, stream, in, out, n);
    if (blocks <= 1) return;
    in = out;
    n = blocks;
  }
}

}  // namespace

std::size_t reduce_workspace_bytes(const SumProblem& shape) {
  const std::size_t first = workbook::ceil_div(shape.n, std::size_t(kThreads));  // the most partial sums a pass makes
  return (first + workbook::ceil_div(first, std::size_t(kThreads))) * sizeof(Sum);
}

void interleaved(const SumProblem& p, cudaStream_t s) { reduce(p, "witness of 06.1", interleaved_kernel, kThreads, s); }
void sequential(const SumProblem& p, cudaStream_t s) { reduce(p, "witness of 06.2", sequential_kernel, kThreads, s); }
void first_add_during_load(const SumProblem& p, cudaStream_t s) {
  reduce(p, "witness of 06.3", first_add_kernel, 2 * kThreads, s);
}
void last_warp_shuffled(const SumProblem& p, cudaStream_t s) { reduce(p, "witness of 06.4", last_warp_kernel, 2 * kThreads, s); }
void unrolled(const SumProblem& p, cudaStream_t s) { reduce(p, "witness of 06.5", unrolled_kernel<kThreads>, 2 * kThreads, s); }

}  // namespace reduce_scan_witness
