// Lab 04_sgemm, given (you use it, you do not edit it): the host half of copy_engine.cuh, the
// tensor maps. It is compiled once, apart from your file, because it asks the driver for a function
// (cuTensorMapEncodeTiled) through the runtime's entry-point getter, which reaches every function of
// the driver: the grader's host-code audit lets no lab's own code call one.
#include "copy_engine.cuh"

namespace sgemm_lab::copy_engine {

namespace {

// The driver's encoder, found at run time through the runtime, so that nothing links libcuda.
PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  static const PFN_cuTensorMapEncodeTiled_v12000 encoder = [] {
    void* function = nullptr;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
    const cudaError_t error =
        cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &function, 12000, cudaEnableDefault, &found);
#else
    const cudaError_t error = cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &function, cudaEnableDefault, &found);
#endif
    if (error != cudaSuccess || found != cudaDriverEntryPointSuccess || function == nullptr)
      throw std::runtime_error("copy_engine: the driver has no cuTensorMapEncodeTiled (CUDA 12.0 or newer needed)");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(function);
  }();
  return encoder;
}

}  // namespace

TileMap make_tile_map(const float* matrix, int rows, int cols, int pitch, int tile_rows, int tile_cols) {
  const auto address = reinterpret_cast<std::uintptr_t>(matrix);
  if (address % 16 != 0 || pitch % 4 != 0 || pitch < cols || rows <= 0 || cols <= 0)
    throw std::invalid_argument("copy_engine::make_tile_map: the matrix must be 16-byte aligned, its pitch a "
                                "multiple of 4 floats and at least its width, its shape not empty (pitch " +
                                std::to_string(pitch) + ", " + std::to_string(rows) + " x " + std::to_string(cols) +
                                ")");
  if (tile_cols % 4 != 0 || tile_rows < 1 || tile_rows > 256 || tile_cols < 4 || tile_cols > 256)
    throw std::invalid_argument("copy_engine::make_tile_map: a tile is 1 to 256 rows of 4 to 256 floats, a multiple "
                                "of 4 (" + std::to_string(tile_rows) + " x " + std::to_string(tile_cols) + ")");
  // Encoding costs microseconds of the driver's host time, which a program calling the product often
  // would pay every call: the last few maps are kept, keyed by everything that made them.
  struct Encoded {
    const float* matrix = nullptr;
    int rows = 0, cols = 0, pitch = 0, tile_rows = 0, tile_cols = 0;
    TileMap map{};
    bool same(const Encoded& o) const {
      return matrix == o.matrix && rows == o.rows && cols == o.cols && pitch == o.pitch && tile_rows == o.tile_rows &&
             tile_cols == o.tile_cols;
    }
  };
  static thread_local std::array<Encoded, 4> recent{};
  static thread_local std::size_t next = 0;
  Encoded wanted{matrix, rows, cols, pitch, tile_rows, tile_cols};
  for (const Encoded& e : recent)
    if (e.same(wanted)) return e.map;
  TileMap& map = wanted.map;
  const cuuint64_t shape[2] = {cuuint64_t(cols), cuuint64_t(rows)};  // innermost dimension first
  const cuuint64_t row_bytes[1] = {cuuint64_t(pitch) * sizeof(float)};
  const cuuint32_t tile[2] = {cuuint32_t(tile_cols), cuuint32_t(tile_rows)};
  const cuuint32_t element_steps[2] = {1, 1};
  const CUresult result = tensor_map_encoder()(
      &map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, const_cast<float*>(matrix), shape, row_bytes, tile, element_steps,
      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);  // NONE: zeros outside the matrix
  if (result != CUDA_SUCCESS)
    throw std::runtime_error("copy_engine::make_tile_map: cuTensorMapEncodeTiled failed (CUresult " +
                             std::to_string(int(result)) + ")");
  recent[next++ % recent.size()] = wanted;
  return map;
}

}  // namespace sgemm_lab::copy_engine
