#include "planner.h"

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

#include "workbook/launch_log.h"

namespace workbook {

plan::Plan plan_of_recorded_launches() {
  plan::Plan plan;
  for (const LaunchRecord& record : recorded_launches()) {
    const char* name = nullptr;
    if (cudaFuncGetName(&name, record.kernel) != cudaSuccess || name == nullptr)
      throw std::runtime_error("a recorded launch's kernel has no name the CUDA runtime knows");
    plan::KernelLaunch launch;
    launch.kernel = name;
    launch.grid = {record.grid.x, record.grid.y, record.grid.z};
    launch.block = {record.block.x, record.block.y, record.block.z};
    launch.dynamic_shared_bytes = static_cast<std::uint32_t>(record.dynamic_shared_bytes);
    for (const std::vector<unsigned char>& argument : record.arguments) launch.arguments.emplace_back(argument.begin(), argument.end());
    plan.operations.emplace_back(std::move(launch));
  }
  return plan;
}

}  // namespace workbook
