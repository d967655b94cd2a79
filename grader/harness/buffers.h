// Device arrays for the grader. Every array sits between two guard regions that must come back
// untouched (a write just before or just after it is caught), may start a few elements past an
// aligned address (so that a kernel cannot assume alignment it was not promised), and is drawn
// from a counter-based generator that the CPU and the GPU compute alike: the grader can refill
// an input on the device before every timed run and still know every value it holds.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "harness/check.h"
#include "protocol/plan.h"
#include "workbook/cuda.h"

namespace workbook {

// Far enough to catch an off-by-one block (a whole extra tile), small enough to cost nothing.
inline constexpr std::size_t kGuardBytes = 64 * 1024;

// Uniform in [-1, 1), element i of the stream `seed`: multiples of 2^-24, exact as floats. The same
// values on any machine, from random_floats() on the CPU and fill_random() on the GPU.
std::vector<float> random_floats(std::size_t count, std::uint64_t seed);
void fill_random(float* data, std::size_t count, std::uint64_t seed, cudaStream_t stream);
// The same streams as 32-bit integers, every value equally likely (random_int_element()).
void fill_random(std::int32_t* data, std::size_t count, std::uint64_t seed, cudaStream_t stream);
// Element i of the stream `seed`, one at a time, as a float (random_floats()'s) or an int
// (fill_random()'s ints): a check at the bars' shapes draws each input element as it needs it
// instead of holding a copy of the whole input (a GiB at 2^28 ints).
class FloatStream {
 public:
  explicit FloatStream(std::uint64_t seed);
  float operator()(std::size_t i) const;

 private:
  std::uint64_t key_;
};
class IntStream {
 public:
  explicit IntStream(std::uint64_t seed);
  std::int32_t operator()(std::size_t i) const;

 private:
  std::uint64_t key_;
};

// What a device-side check found: how many elements failed it, and the first of them.
struct DeviceMismatches {
  unsigned long long count = 0;
  unsigned long long first = ~0ull;  // index of the first failing element; ~0 when none
};

// On the device, into *result (which must start zeroed, first = ~0): the elements of `data` whose
// bits are not what fill_random(data, count, seed) writes.
void count_changed_from_random(const float* data, std::size_t count, std::uint64_t seed, DeviceMismatches* result,
                               cudaStream_t stream);
void count_changed_from_random(const std::int32_t* data, std::size_t count, std::uint64_t seed,
                               DeviceMismatches* result, cudaStream_t stream);

// Copies `bytes` from `from` to `to` on `stream` with a kernel of the grader's own, not a runtime
// copy: cudaMemcpy refuses a range that is not inside one allocation the driver lists, and the bytes
// of a module's bank past a variable's end (judge/replay.cpp) lie in none, though a kernel reaches them.
void copy_with_a_kernel(void* to, const void* from, std::size_t bytes, cudaStream_t stream);

// Whether device arrays are addresses only (Session::without_gpu).
bool addresses_only();

template <typename T>
class DeviceArray {
 public:
  // `count` elements whose first is `offset` elements past a 256-byte-aligned address.
  // With --plan-check (no GPU) an array is its addresses only: a range no other array's overlaps,
  // with nothing behind it, for the planner to plan with; nothing is allocated, written or read.
  explicit DeviceArray(std::size_t count, std::size_t offset = 0);
  ~DeviceArray();
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;

  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

  void upload(std::span<const T> values) {
    if (values.size() != count_) throw std::invalid_argument("upload: size mismatch");
    if (addresses_only()) return;
    CUDA_CHECK(cudaMemcpy(data_, values.data(), bytes(), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaDeviceSynchronize());  // a pageable copy may still be in flight when cudaMemcpy returns
  }
  // Waits for the whole device first: the kernels that wrote it ran on the grader's stream, which
  // a plain cudaMemcpy (legacy default stream) does not wait for.
  std::vector<T> download() const { return download_as<T>(); }
  // The same bytes read as another type of the same size (lab 06's ints live in arrays of floats),
  // straight into it: 2^28 ints copied through a vector of floats cost another GiB to touch.
  template <typename U>
  std::vector<U> download_as() const {
    static_assert(sizeof(U) == sizeof(T), "download_as: an element of another size");
    std::vector<U> values(count_);
    CUDA_CHECK(cudaDeviceSynchronize());
    if (count_ > 0) CUDA_CHECK(cudaMemcpy(values.data(), data_, bytes(), cudaMemcpyDeviceToHost));
    return values;
  }
  // Every byte kPoisonByte (NaN for floats): an element the kernel forgot to write can never match.
  void poison(cudaStream_t stream) {
    if (!addresses_only()) CUDA_CHECK(cudaMemsetAsync(data_, kPoisonByte, bytes(), stream));
  }
  // "" when both guards are intact, else which one changed, for an array called `name`.
  std::string guard_violation(const std::string& name) const;

 private:
  std::size_t front_bytes() const;
  T* base_ = nullptr;
  T* data_ = nullptr;
  std::size_t count_;
  std::size_t offset_;
};

// One DeviceMismatches per timed run, on the device, so that every run's output can be checked
// without a round trip to the host between runs.
class RunChecks {
 public:
  explicit RunChecks(int capacity);
  ~RunChecks() { cudaFree(slots_); }
  RunChecks(const RunChecks&) = delete;
  RunChecks& operator=(const RunChecks&) = delete;
  DeviceMismatches* slot(int run) { return slots_ + run; }
  std::vector<DeviceMismatches> download() const;

 private:
  DeviceMismatches* slots_ = nullptr;
  int capacity_;
};

// The arrays of one call of a launcher, named for the messages: inputs drawn from the generator
// (and drawn afresh on request), outputs poisoned, the launcher's workspace (poisoned like an
// output, never read by the grader), and scratch arrays that only the grader's own works
// (baseline, reference) write. The grader checks the guards of all but the scratch arrays, and
// that the inputs still hold what was drawn.
class Arrays {
 public:
  Arrays() = default;
  ~Arrays();  // its outputs and workspaces leave writable_buffers()
  // Not moved: writable_buffers() holds where each array lives.
  Arrays(const Arrays&) = delete;
  Arrays& operator=(const Arrays&) = delete;

  float* input(const std::string& name, std::size_t count, std::size_t offset = 0);
  float* output(const std::string& name, std::size_t count, std::size_t offset = 0);
  // The same for 32-bit integers (lab 06): inputs drawn as IntStream reads them, outputs poisoned.
  std::int32_t* input_ints(const std::string& name, std::size_t count, std::size_t offset = 0);
  std::int32_t* output_ints(const std::string& name, std::size_t count, std::size_t offset = 0);
  // An input that holds `values` instead of a draw (an impulse, a pure tone: inputs whose outputs
  // are known exactly). It is never redrawn, so it belongs in correctness cases, not timed ones.
  float* input_values(const std::string& name, const std::vector<float>& values, std::size_t offset = 0);
  float* scratch(std::size_t count);
  // `bytes` of device memory for the launcher's own use, 256-byte aligned, as CUB's temporary
  // storage is: its contents on entry are poison, so nothing can be remembered in it between calls.
  void* workspace(const std::string& name, std::size_t bytes);

  // What the CPU knows of them: an input's drawn values, an output's contents.
  std::vector<float> values_of(const float* input) const;
  std::vector<float> download(const float* output) const;
  std::vector<std::int32_t> download(const std::int32_t* output) const;
  // The generator stream an input holds now (it changes with every redraw): device-side checks
  // compute the truth from it rather than read an input the kernel may have changed, and a CPU check
  // of lab 06's ints reads it through IntStream.
  std::uint64_t seed_of(const void* input) const;

  void redraw_inputs(cudaStream_t stream);   // fresh seeds, filled on the device
  void poison_outputs(cudaStream_t stream);  // and the workspaces
  // The scratch: what the baseline and the reference wrote there last is no answer a kernel could
  // copy (docs/integrity.md, the device-memory residue).
  void poison_scratch(cudaStream_t stream);
  // Adds to *result every input element that no longer holds its drawn value (on the device).
  void count_changed_inputs(DeviceMismatches* result, cudaStream_t stream) const;
  std::string changed_inputs(cudaStream_t stream) const;  // the same, on the host: "" or which input changed
  std::string guard_violations() const;                   // "" or the first guard that changed

 private:
  struct Named {
    std::string name;
    std::unique_ptr<DeviceArray<float>> array;  // 4-byte elements: floats, or ints when `ints`
    std::uint64_t seed = 0;                     // inputs: the stream of the generator it holds
    bool ints = false;
    std::vector<float> given;                        // an input_values() input: what it holds (no stream)
    std::unique_ptr<DeviceArray<float>> given_copy;  // and a copy the kernel cannot reach, to compare
    void fill(cudaStream_t stream);                  // an input: draw its stream `seed` into it
    void count_changed(DeviceMismatches* result, cudaStream_t stream) const;
  };
  Named& add_input(const std::string& name, std::size_t count, std::size_t offset, bool ints);
  Named& add_output(const std::string& name, std::size_t count, std::size_t offset, bool ints);
  const Named& find(const void* pointer) const;
  std::vector<Named> inputs_, outputs_, workspaces_, scratch_;
};

// Every output and workspace of every Arrays alive now, by name: the buffers a launcher's plan may
// upload into or fill (plan::defect()), when a judge replays it (judge.h). Inputs are not among
// them: a launcher only reads those.
std::vector<plan::Buffer> writable_buffers();
// And the inputs too: every buffer a launcher was given, which a tensor map may describe.
std::vector<plan::Buffer> given_buffers();

}  // namespace workbook
