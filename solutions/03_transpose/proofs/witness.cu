// The witnesses of lab 03_transpose: see witness.h. The transpose whitepaper's shape, which the
// handout prescribes: a 32 x 32 tile, 32 x 8 threads, each thread four rows of it; every load and
// store guarded by the matrix's bounds.
#include "witness.h"
#include "harness/witness_registry.h"

#include "given.cuh"  // validate(), at()
#include "workbook/launch.cuh"

namespace transpose_witness {

namespace {

using transpose_lab::at;
constexpr int kTile = 32, kRowsPerPass = 8;

// Tile (tile_x, tile_y) of `in` (columns 32 tile_x ..., rows 32 tile_y ...) into its transposed place.
// kPad: floats of padding per tile row (03.2: 1). kDiagonal: 03.3's block order.
template <int kPad, bool kDiagonal>
__global__ void transpose_kernel(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[kTile][kTile + kPad];
  unsigned tile_x = blockIdx.x, tile_y = blockIdx.y;
  if (kDiagonal) {  // the handout's renumbering: consecutive blocks walk down the tile rows
    const unsigned b = blockIdx.x + gridDim.x * blockIdx.y;
    tile_y = b % gridDim.y;
    tile_x = (b / gridDim.y + tile_y) % gridDim.x;
  }
  const int x = threadIdx.x;
  int c = tile_x * kTile + x;
  for (int y = threadIdx.y; y < kTile; y += kRowsPerPass) {
    const int r = tile_y * kTile + y;
    if (r < rows && c < cols) tile[y][x] = in[at(r, c, cols)];
  }
  __syncthreads();
  const int r = tile_y * kTile + x;  // out's column: a row of in
  for (int y = threadIdx.y; y < kTile; y += kRowsPerPass) {
    c = tile_x * kTile + y;  // out's row: a column of in
    if (c < cols && r < rows) out[at(c, r, rows)] = tile[x][y];
  }
}

template <int kPad, bool kDiagonal>
void launch_transpose(const TransposeProblem& p, const char* name, cudaStream_t stream) {
  if (!transpose_lab::validate(p, name)) return;
  const dim3 grid(workbook::ceil_div(p.cols, kTile), workbook::ceil_div(p.rows, kTile));
  workbook::launch(transpose_kernel<kPad, kDiagonal>, grid, dim3(kTile, kRowsPerPass), 0, stream, p.in, p.out, p.rows,
                   p.cols);
}

}  // namespace

void tiled(const TransposeProblem& p, cudaStream_t stream) { launch_transpose<0, false>(p, "witness of 03.1", stream); }
void padded(const TransposeProblem& p, cudaStream_t stream) { launch_transpose<1, false>(p, "witness of 03.2", stream); }
void diagonal(const TransposeProblem& p, cudaStream_t stream) { launch_transpose<1, true>(p, "witness of 03.3", stream); }

}  // namespace transpose_witness

// Linking this file registers each witness under its step's id (grader/harness/witness_registry.h): only
// the solution's grader links it.
namespace {
const bool registered = workbook::register_witnesses<transpose_lab::TransposeProblem>({
    {"03.1", {transpose_witness::tiled}},
    {"03.2", {transpose_witness::padded}},
    {"03.3", {transpose_witness::diagonal}}});
}  // namespace
