#include "workbook/cuda.h"

#include <sstream>

namespace workbook {

void throw_cuda_error(cudaError_t code, const char* expression, const char* file, int line) {
  std::ostringstream message;
  message << cudaGetErrorName(code) << " (" << cudaGetErrorString(code) << ") from " << expression << " at " << file
          << ':' << line;
  throw CudaError(code, message.str());
}

}  // namespace workbook
