// The trust boundary's two halves on a GPU: a launcher run in planning mode (the planner's side,
// planner.h) yields a plan; the judge's side (replay.h) loads the launcher's object's GPU code
// without its host code, checks the plan (plan.h's defect()) and replays it. The replay must compute
// exactly what the launcher computes when it launches for itself. Exit 77 without a GPU, after the
// part that needs none (the object's fat binaries, read whole).
// usage: replay_check OBJECT   (the library holding replay_kernels.cu)
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "audit/gpu_code.h"
#include "judge/replay.h"
#include "planner/planner.h"
#include "protocol/plan.h"
#include "workbook/cuda.h"
#include "workbook/launch_log.h"

namespace replay_test {
void scale_then_reverse(float* data, std::size_t count, float factor, cudaStream_t stream);
void count_calls(int* seen, cudaStream_t stream);
}  // namespace replay_test

namespace {

int failures = 0;
void expect(bool holds, const std::string& what) {
  std::cout << (holds ? "ok: " : "FAIL: ") << what << '\n';
  failures += holds ? 0 : 1;
}

std::vector<float> download(const float* data, std::size_t count) {
  std::vector<float> values(count);
  CUDA_CHECK(cudaMemcpy(values.data(), data, count * sizeof(float), cudaMemcpyDeviceToHost));
  return values;
}

// On any machine: the object's fat binaries, each whole, hold the GPU code the object carries, and
// its symbol tables its writable globals and its constant.
void check_the_object(const char* object) {
  try {
    std::set<std::string> images;
    const std::vector<std::string> fat_binaries = workbook::fat_binaries_in_file(object);
    for (const std::string& fat_binary : fat_binaries) images.merge(workbook::gpu_code_in_fat_binaries(fat_binary));
    expect(!fat_binaries.empty() && images == workbook::gpu_code_in_file(object),
           "the object's " + std::to_string(fat_binaries.size()) + " fat binaries, each whole, hold its GPU code (" +
               workbook::listed(images) + ")");
    // The module's writable globals, each section with its symbols, in every machine-code image.
    std::set<std::string> globals;
    for (const std::string& fat_binary : fat_binaries)
      for (const workbook::GlobalsImage& image : workbook::device_globals_in_fat_binary(fat_binary))
        for (const workbook::GlobalsImage::Section& section : image.sections)
          for (const workbook::GlobalsImage::Symbol& symbol : section.symbols)
            globals.insert(section.name + " " + symbol.name);
    const auto has = [&](const std::string& section, const std::string& part) {
      return std::any_of(globals.begin(), globals.end(), [&](const std::string& g) {
        return g.starts_with(section + " ") && g.find(part) != std::string::npos;
      });
    };
    expect(has(".nv.global.init", "calls_so_far") && has(".nv.global.init", "hidden_so_far") &&
               has(".nv.global", "launched_so_far") && has(".nv.constant3", "constant_word") && globals.size() == 4,
           "the machine code's symbol tables list the module's three writable globals, the statics included, and its "
           "constant");
  } catch (const std::exception& error) {
    expect(false, std::string("reading the object's fat binaries: ") + error.what());
  }
}

// [fresh-module]: what a kernel kept in its module's globals is set back before the next call.
void check_fresh_module(const workbook::StudentKernels& kernels, cudaStream_t stream) {
  int* seen = nullptr;
  CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&seen), 5 * sizeof(int)));
  workbook::clear_recorded_launches();
  workbook::planning_launches() = true;
  replay_test::count_calls(seen, stream);
  workbook::planning_launches() = false;
  const workbook::plan::Plan counting =
      workbook::plan::decode_plan(workbook::plan::encode(workbook::plan_of_recorded_launches()));
  workbook::clear_recorded_launches();
  const auto seen_now = [&] {
    std::vector<int> values(5);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    CUDA_CHECK(cudaMemcpy(values.data(), seen, sizeof(int) * 5, cudaMemcpyDeviceToHost));
    return values;
  };
  kernels.replay(counting, stream);
  kernels.replay(counting, stream);
  expect(seen_now() == std::vector<int>{11, 4, 1, 1, 21},
         "a second launch sees what the first left in the module's globals and past a variable's end");
  expect(kernels.why_globals_unknown().empty(),
         "the judge found every global section: " + kernels.why_globals_unknown());
  kernels.restore_globals(stream);
  kernels.replay(counting, stream);
  expect(seen_now() == std::vector<int>{10, 3, 0, 0, 21},
         "set back, the globals hold their first values again, statics and the bytes past a variable's end included");
  cudaFree(seen);
}

// A launcher planned, crossed as bytes, checked and replayed with the object's GPU code alone computes
// what it computes launching for itself; the judge refuses a foreign kernel, an argument of the wrong
// size and a fill outside the buffers it gave. `loaded_first`: the object's kernels as loaded before
// the runtime started.
void check_replay(const char* object, const workbook::StudentKernels& loaded_first, cudaStream_t stream) {
  constexpr std::size_t kCount = 1000003;  // a last block that is partly empty
  std::vector<float> input(kCount);
  for (std::size_t i = 0; i < kCount; ++i) input[i] = static_cast<float>(i % 977) * 0.25f - 3.0f;
  float* launched = nullptr;
  float* replayed = nullptr;
  CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&launched), kCount * sizeof(float)));
  CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&replayed), kCount * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(launched, input.data(), kCount * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(replayed, input.data(), kCount * sizeof(float), cudaMemcpyHostToDevice));

  // The launcher as it runs today, launching for itself.
  replay_test::scale_then_reverse(launched, kCount, 1.5f, stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));

  // The planner: the same launcher, planning, for the judge's buffer.
  workbook::clear_recorded_launches();
  workbook::planning_launches() = true;
  replay_test::scale_then_reverse(replayed, kCount, 1.5f, stream);
  workbook::planning_launches() = false;
  const workbook::plan::Plan plan = workbook::plan_of_recorded_launches();
  workbook::clear_recorded_launches();
  expect(plan.operations.size() == 2, "planning records the launcher's two launches and runs neither");
  expect(download(replayed, kCount) == input, "nothing ran while planning: the judge's buffer is as it was");

  // The judge: the GPU code of the launcher's object, none of its host code.
  const workbook::plan::Plan crossed = workbook::plan::decode_plan(workbook::plan::encode(plan));
  const workbook::StudentKernels kernels(object);
  std::cout << "the object's kernels:";
  for (const std::string& name : kernels.names()) std::cout << ' ' << name;
  std::cout << '\n';
  const std::vector<workbook::plan::Buffer> given = {
      {"data", reinterpret_cast<std::uint64_t>(replayed), kCount * sizeof(float)}};
  const auto sizes = [&](const std::string& name) { return kernels.parameter_sizes(name); };
  bool same_sizes = loaded_first.names() == kernels.names();
  for (const std::string& name : kernels.names())
    same_sizes = same_sizes && loaded_first.parameter_sizes(name) == sizes(name);
  expect(same_sizes && !sizes(kernels.names().front())->empty(),
         "kernels loaded before the runtime started have the same parameters, and not none, as those loaded after");
  const std::string found = workbook::plan::defect(crossed, given, workbook::plan::DeviceLimits{}, sizes);
  expect(found.empty(),
         "the plan is the object's own kernels with their arguments' sizes" + (found.empty() ? "" : ": " + found));
  kernels.replay(crossed, stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  expect(
      download(replayed, kCount) == download(launched, kCount),
      "the replay computes exactly what the launcher computed launching for itself (64 KiB of shared memory included)");

  // What the judge refuses before replaying anything.
  workbook::plan::Plan foreign = crossed;
  std::get<workbook::plan::KernelLaunch>(foreign.operations[0]).kernel = "_Z13cublas_kernelv";
  expect(
      workbook::plan::defect(foreign, given, {}, sizes).find("is not one of your file's kernels") != std::string::npos,
      "a kernel the object does not define is refused");
  workbook::plan::Plan narrowed = crossed;
  std::get<workbook::plan::KernelLaunch>(narrowed.operations[0]).arguments[1].resize(4);  // the count as 4 bytes
  expect(workbook::plan::defect(narrowed, given, {}, sizes).find("argument 2 is 8 bytes, but the launch passed 4") !=
             std::string::npos,
         "an argument of another size than the kernel's parameter is refused (sizes from the driver)");
  workbook::plan::Plan stray = crossed;
  stray.operations.push_back(workbook::plan::Fill{reinterpret_cast<std::uint64_t>(launched), 4, 0});
  expect(workbook::plan::defect(stray, given, {}, sizes).find("not inside any buffer the grader gave") !=
             std::string::npos,
         "a fill of memory the judge did not give this call is refused");
  cudaFree(launched);
  cudaFree(replayed);

  check_fresh_module(kernels, stream);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: replay_check OBJECT\n";
    return 2;
  }
  check_the_object(argv[1]);
  int devices = 0;
  if (failures > 0) return 1;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::cout << "skipped: no CUDA GPU\n";
    return 77;
  }
  try {
    // Loaded first, before this process has asked the runtime for anything, as a judge loads them
    // at its start: the parameter sizes must be the same as those read below, once the runtime runs.
    const workbook::StudentKernels loaded_first(argv[1]);
    cudaStream_t stream = nullptr;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    check_replay(argv[1], loaded_first, stream);
  } catch (const std::exception& error) {
    std::cout << "FAIL: " << error.what() << '\n';
    return 1;
  }
  return failures == 0 ? 0 : 1;
}
