// Lab 04 experiment: the first version of 04.10, written on its own to explore the design before
// the step was: A packed (transposed, tile by tile), cp.async pipeline, with knobs the solution
// does not have. Template parameters of packed_kernel / Runner:
//   D tile depth, kStages, kLayout (0: 04.8's thread layout; 1: warp tiles of 32 x 64),
//   kOrder (FMAs of each k: 0 rows in order, 1 rows zig-zag, 2 columns zig-zag, 3 columns in order),
//   kPackedB (B packed too, or copied in place), kMinBlocks (__launch_bounds__), kSwizzle (blocks
//   walk C in groups of kSwizzle row blocks, for L2; 0: row by row).
// Its kernel differs from the solution's in small things (how B's guards and addresses are
// computed), and ptxas allocates registers differently for it: NOTES.md compares the two.
#include "../sgemm.cu"
#include "compare.h"

namespace exp_packed {

constexpr int kTileM = 128, kTileN = 128, kThreads = 256;

__device__ __forceinline__ void copy16(void* dst, const void* src, bool valid) {
  const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(d), "l"(src), "r"(valid ? 16 : 0));
}
__device__ __forceinline__ void copy16(void* dst, const void* src) {
  const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(d), "l"(src));
}
__device__ __forceinline__ void commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wait_groups() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory"); }

// Packed A: chunk (row block rb, k tile kt) = 16 x 128 floats [kk][row], chunks rb-major.
template <int D>
__global__ void pack_a_kernel(const float* __restrict__ a, float* __restrict__ packed, int m, int k, int k_tiles) {
  __shared__ float tile[D][kTileM + 1];
  const int kt = blockIdx.x, rb = blockIdx.y, t = threadIdx.x;
  if (k % 4 == 0) {
    // float4 reads: D/4 float4 per row, 128 rows
    for (int e = t; e < kTileM * D / 4; e += kThreads) {
      const int row = e / (D / 4), q = e % (D / 4);
      const int gr = rb * kTileM + row, gk = kt * D + 4 * q;
      float4 v = make_float4(0, 0, 0, 0);
      if (gr < m && gk < k) v = *reinterpret_cast<const float4*>(a + std::size_t(gr) * k + gk);
      tile[4 * q + 0][row] = v.x;
      tile[4 * q + 1][row] = v.y;
      tile[4 * q + 2][row] = v.z;
      tile[4 * q + 3][row] = v.w;
    }
  } else {
    for (int e = t; e < kTileM * D; e += kThreads) {
      const int row = e / D, kk = e % D;
      const int gr = rb * kTileM + row, gk = kt * D + kk;
      tile[kk][row] = (gr < m && gk < k) ? a[std::size_t(gr) * k + gk] : 0.0f;
    }
  }
  __syncthreads();
  float4* out = reinterpret_cast<float4*>(packed + (std::size_t(rb) * k_tiles + kt) * (D * kTileM));
  for (int e = t; e < D * kTileM / 4; e += kThreads) {
    const int kk = e / (kTileM / 4), q = e % (kTileM / 4);
    out[e] = make_float4(tile[kk][4 * q], tile[kk][4 * q + 1], tile[kk][4 * q + 2], tile[kk][4 * q + 3]);
  }
}

// Packed B: chunk (col block cb, k tile kt) = D x 128 floats [kk][col], chunks cb-major.
template <int D>
__global__ void pack_b_kernel(const float* __restrict__ b, float* __restrict__ packed, int k, int n, int k_tiles) {
  const int kt = blockIdx.x, cb = blockIdx.y, t = threadIdx.x;
  float* out = packed + (std::size_t(cb) * k_tiles + kt) * (D * kTileN);
  for (int e = t; e < D * kTileN; e += kThreads) {
    const int kk = e / kTileN, col = e % kTileN;
    const int gk = kt * D + kk, gc = cb * kTileN + col;
    out[e] = (gk < k && gc < n) ? b[std::size_t(gk) * n + gc] : 0.0f;
  }
}

// Layout 0: 04.8's (tx = t % 16, ty = t / 16, quads 64 apart). Layout 1: warp tiles 32 x 64 (warps
// 4 x 2, lanes 4 x 8, quads 16 rows and 32 columns apart).
template <int kLayout>
struct Place {
  int row0, row1, col0, col1;  // first row/col of each quad within the block tile
  __device__ Place(int t) {
    if constexpr (kLayout == 0) {
      const int tx = t % 16, ty = t / 16;
      row0 = 4 * ty;
      row1 = 64 + 4 * ty;
      col0 = 4 * tx;
      col1 = 64 + 4 * tx;
    } else {
      const int w = t / 32, lane = t % 32;
      const int wm = w / 2, wn = w % 2, lm = lane / 8, ln = lane % 8;
      row0 = wm * 32 + 4 * lm;
      row1 = row0 + 16;
      col0 = wn * 64 + 4 * ln;
      col1 = col0 + 32;
    }
  }
};

// kPackedB: B also packed (any shape); else B read in place (n % 4 == 0, 16-byte aligned).
template <int D, int kStages, int kLayout, int kOrder, bool kPackedB, int kMinBlocks, int kSwizzle>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    packed_kernel(const float* __restrict__ a_packed, const float* __restrict__ b, float* __restrict__ c, int m, int n,
                  int k, int k_tiles, int tiles_per_split, float* __restrict__ partials) {
  extern __shared__ __align__(16) float shared[];
  constexpr int kStageFloats = D * (kTileM + kTileN);
  const int t = threadIdx.x;
  int rb = blockIdx.y, cb = blockIdx.x;
  if constexpr (kSwizzle > 0) {
    const int bid = blockIdx.x + blockIdx.y * gridDim.x, per_group = kSwizzle * gridDim.x;
    const int first = (bid / per_group) * kSwizzle, rows = min(kSwizzle, int(gridDim.y) - first);
    rb = first + (bid % per_group) % rows;
    cb = (bid % per_group) / rows;
  }
  const int tile_begin = blockIdx.z * tiles_per_split;
  const int tiles = max(0, min(k_tiles, tile_begin + tiles_per_split) - tile_begin);

  const float* a_src = a_packed + (std::size_t(rb) * k_tiles + tile_begin) * (D * kTileM);
  const float* b_src;
  if constexpr (kPackedB) b_src = b + (std::size_t(cb) * k_tiles + tile_begin) * (D * kTileN);
  else b_src = b + cb * kTileN;

  constexpr int kCopies = D * kTileM / 4 / kThreads;  // float4 per operand per thread per tile
  const auto issue = [&](int tile) {
    float* a_dst = shared + (tile % kStages) * kStageFloats;
    float* b_dst = a_dst + D * kTileM;
#pragma unroll
    for (int l = 0; l < kCopies; ++l) {
      const int e = t + l * kThreads;
      copy16(a_dst + 4 * e, a_src + std::size_t(tile) * (D * kTileM) + 4 * e);
    }
#pragma unroll
    for (int l = 0; l < kCopies; ++l) {
      const int e = t + l * kThreads;
      if constexpr (kPackedB) {
        copy16(b_dst + 4 * e, b_src + std::size_t(tile) * (D * kTileN) + 4 * e);
      } else {
        const int row = e / (kTileN / 4), q = e % (kTileN / 4);
        const int gk = (tile_begin + tile) * D + row, gc = cb * kTileN + 4 * q;
        const bool valid = gk < k && gc < n;
        copy16(b_dst + 4 * e, valid ? b_src + std::size_t(gk) * n + 4 * q : b, valid);
      }
    }
  };

  const Place<kLayout> place(t);
  float sum[8][8] = {};
  const auto multiply = [&](int stage) {
    const float* a_s = shared + stage * kStageFloats;
    const float* b_s = a_s + D * kTileM;
#pragma unroll
    for (int kk = 0; kk < D; ++kk) {
      const float4 a0 = *reinterpret_cast<const float4*>(a_s + kk * kTileM + place.row0);
      const float4 a1 = *reinterpret_cast<const float4*>(a_s + kk * kTileM + place.row1);
      const float4 b0 = *reinterpret_cast<const float4*>(b_s + kk * kTileN + place.col0);
      const float4 b1 = *reinterpret_cast<const float4*>(b_s + kk * kTileN + place.col1);
      const float av[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
      const float bv[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
      for (int r = 0; r < 8; ++r)
#pragma unroll
        for (int s0 = 0; s0 < 8; ++s0) {
          if constexpr (kOrder >= 2) {
            const int col = r, row = (kOrder == 2 && col % 2 == 1) ? 7 - s0 : s0;
            sum[row][col] = fmaf(av[row], bv[col], sum[row][col]);
          } else {
            const int s = (kOrder == 1 && (r % 2 == 1)) ? 7 - s0 : s0;
            sum[r][s] = fmaf(av[r], bv[s], sum[r][s]);
          }
        }
    }
  };

#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < tiles) issue(s);
    commit();
  }
  for (int tile = 0; tile < tiles; ++tile) {
    wait_groups<kStages - 2>();
    __syncthreads();
    if (tile + kStages - 1 < tiles) issue(tile + kStages - 1);
    commit();
    multiply(tile % kStages);
  }

  float* const out = gridDim.z == 1 ? c : partials + std::size_t(blockIdx.z) * m * n;
  const bool vec = n % 4 == 0;
#pragma unroll
  for (int r = 0; r < 8; ++r) {
    const int i = rb * kTileM + (r < 4 ? place.row0 + r : place.row1 + r - 4);
    if (i >= m) continue;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int j = cb * kTileN + (h == 0 ? place.col0 : place.col1);
      if (vec) {
        if (j < n)
          *reinterpret_cast<float4*>(out + std::size_t(i) * n + j) =
              make_float4(sum[r][4 * h], sum[r][4 * h + 1], sum[r][4 * h + 2], sum[r][4 * h + 3]);
      } else {
#pragma unroll
        for (int e = 0; e < 4; ++e)
          if (j + e < n) out[std::size_t(i) * n + j + e] = sum[r][4 * h + e];
      }
    }
  }
}

__global__ void sum_kernel(const float* __restrict__ partials, float* __restrict__ c, std::size_t count, int splits) {
  for (std::size_t e = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; e < count;
       e += std::size_t(gridDim.x) * blockDim.x) {
    float total = 0.0f;
    for (int s = 0; s < splits; ++s) total += partials[s * count + e];
    c[e] = total;
  }
}

float* workspace(int slot, std::size_t floats) {
  static float* memory[3] = {};
  static std::size_t capacity[3] = {};
  if (floats > capacity[slot]) {
    if (memory[slot]) cudaFree(memory[slot]);
    cudaMalloc(&memory[slot], floats * sizeof(float));
    capacity[slot] = floats;
  }
  return memory[slot];
}

template <int D, int kStages, int kLayout, int kOrder, bool kPackB, int kMinBlocks = 1, int kSwizzle = 0>
struct Runner {
  static void run(const sgemm_lab::GemmProblem& p, int splits, bool pack = true, bool main = true) {
    const int k_tiles = (p.k + D - 1) / D;
    const int row_blocks = (p.m + kTileM - 1) / kTileM, col_blocks = (p.n + kTileN - 1) / kTileN;
    float* a_packed = workspace(0, std::size_t(row_blocks) * k_tiles * D * kTileM);
    const bool pack_b = kPackB;
    float* b_packed = pack_b ? workspace(1, std::size_t(col_blocks) * k_tiles * D * kTileN) : nullptr;
    if (pack) {
      pack_a_kernel<D><<<dim3(k_tiles, row_blocks), kThreads>>>(p.a, a_packed, p.m, p.k, k_tiles);
      if (pack_b) pack_b_kernel<D><<<dim3(k_tiles, col_blocks), kThreads>>>(p.b, b_packed, p.k, p.n, k_tiles);
    }
    if (!main) return;
    const int per_split = (k_tiles + splits - 1) / splits;
    splits = (k_tiles + per_split - 1) / per_split;
    const std::size_t c_floats = std::size_t(p.m) * p.n;
    float* partials = splits > 1 ? workspace(2, splits * c_floats) : nullptr;
    const auto kernel = packed_kernel<D, kStages, kLayout, kOrder, kPackB, kMinBlocks, kSwizzle>;
    const int bytes = kStages * D * (kTileM + kTileN) * 4;
    static bool once = [&] {
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
      cudaFuncAttributes attr{};
      cudaFuncGetAttributes(&attr, kernel);
      int blocks = 0;
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, kThreads, bytes);
      std::printf("  [D%d st%d L%d O%d pb%d mb%d sw%d: %d regs, %zu local, %d blocks/SM]\n", D, kStages, kLayout, kOrder,
                  int(kPackB), kMinBlocks, kSwizzle, attr.numRegs, attr.localSizeBytes, blocks);
      return true;
    }();
    (void)once;
    kernel<<<dim3(col_blocks, row_blocks, splits), kThreads, bytes>>>(a_packed, pack_b ? b_packed : p.b, p.c, p.m, p.n,
                                                                    p.k, k_tiles, per_split, partials);
    if (splits > 1) sum_kernel<<<4096, 256>>>(partials, p.c, c_floats, splits);
  }
};

}  // namespace exp_packed

int main() {
  using namespace sgemm_lab;
  using namespace exp_packed;
  compare_at({int3{4096, 4096, 4096}, int3{4095, 4097, 4093}, int3{1000, 1000, 1000}, int3{8192, 8192, 8192}},
             [](Comparison& compare, int3 s) {
    const GemmProblem p = compare.problem(sgemm_split_k_workspace_bytes(compare.problem()));
    const bool odd = s.y % 4 != 0;  // B cannot be copied in place
    const int splits = s.x <= 1024 ? 4 : 1;
    compare.run("variants", "04.9", [&] { sgemm_split_k(p, nullptr); });
#define RUN(D, ST, L, O, PB, MB, SW)                                                                          \
  if (!odd || PB)                                                                                            \
    compare.run("variants", "D" #D " st" #ST " L" #L " O" #O " pb" #PB " mb" #MB " sw" #SW,                    \
                [&] { Runner<D, ST, L, O, PB, MB, SW>::run(p, splits); });
#define PRODUCT_ONLY(D, ST, L, O, PB)                                                                         \
  if (!odd || PB) {                                                                                          \
    Runner<D, ST, L, O, PB>::run(p, splits, true, false);                                                    \
    compare.run("variants", "product only D" #D " st" #ST " L" #L " O" #O " pb" #PB,                          \
                [&] { Runner<D, ST, L, O, PB>::run(p, splits, false, true); });                              \
  }
    // The FMA orders, in both thread layouts; B in place and packed.
    RUN(16, 3, 0, 0, false, 1, 0)
    RUN(16, 3, 0, 1, false, 1, 0)
    RUN(16, 3, 0, 2, false, 1, 0)
    RUN(16, 3, 0, 3, false, 1, 0)
    RUN(16, 3, 1, 0, false, 1, 0)
    RUN(16, 3, 1, 1, false, 1, 0)
    RUN(16, 3, 1, 2, false, 1, 0)
    RUN(16, 3, 0, 0, true, 1, 0)
    RUN(16, 3, 0, 2, true, 1, 0)
    if (s.x == 4096 && !odd) {
      // What packing costs: the product alone, A (and B) packed beforehand.
      PRODUCT_ONLY(16, 3, 0, 2, false)
      PRODUCT_ONLY(16, 3, 0, 2, true)
      // Stages, depth, launch bounds, block order.
      RUN(16, 2, 0, 2, false, 1, 0)
      RUN(16, 4, 0, 2, false, 1, 0)
      RUN(8, 4, 0, 2, false, 1, 0)
      RUN(32, 3, 0, 2, false, 1, 0)
      RUN(16, 3, 0, 2, false, 2, 0)
      RUN(16, 3, 0, 2, false, 1, 8)
    }
  });
}
