#include "harness/buffers.h"

#include <cstdio>
#include <cstdlib>
#include <map>

#include "harness/device_check.cuh"
#include "harness/parallel.h"
#include "harness/session.h"

namespace workbook {

namespace {

// Element i of a stream, as the type of the array it fills.
__device__ inline float element_of(std::uint64_t key, std::size_t i, const float*) { return random_element(key, i); }
__device__ inline std::int32_t element_of(std::uint64_t key, std::size_t i, const std::int32_t*) {
  return random_int_element(key, i);
}

template <typename T>
__global__ void fill_random_kernel(T* data, std::size_t count, std::uint64_t key) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
       i += std::size_t(gridDim.x) * blockDim.x)
    data[i] = element_of(key, i, data);
}

// Compares bits, not values: a float NaN is never equal to itself, and -0 equals +0.
template <typename T>
__global__ void count_changed_kernel(const T* data, std::size_t count, std::uint64_t key, DeviceMismatches* result) {
  static_assert(sizeof(T) == sizeof(std::uint32_t));
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const T want = element_of(key, i, data);
    if (*reinterpret_cast<const std::uint32_t*>(&data[i]) != *reinterpret_cast<const std::uint32_t*>(&want))
      note_mismatch(result, i);
  }
}

// Bits again: the elements of `data` that differ from `original`.
__global__ void count_differing_kernel(const std::uint32_t* data, const std::uint32_t* original, std::size_t count,
                                       DeviceMismatches* result) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
       i += std::size_t(gridDim.x) * blockDim.x)
    if (data[i] != original[i]) note_mismatch(result, i);
}

// 16 bytes a thread where both ends and the length allow it, else a byte a thread.
__global__ void copy_vectors_kernel(uint4* to, const uint4* from, std::size_t count) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
       i += std::size_t(gridDim.x) * blockDim.x)
    to[i] = from[i];
}
__global__ void copy_bytes_kernel(unsigned char* to, const unsigned char* from, std::size_t count) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
       i += std::size_t(gridDim.x) * blockDim.x)
    to[i] = from[i];
}

template <typename T>
void fill_random_on_device(T* data, std::size_t count, std::uint64_t seed, cudaStream_t stream) {
  if (count == 0) return;
  fill_random_kernel<<<check_grid(count), kCheckThreads, 0, stream>>>(data, count, random_key(seed));
  CUDA_CHECK(cudaGetLastError());
}

template <typename T>
void count_changed_on_device(const T* data, std::size_t count, std::uint64_t seed, DeviceMismatches* result,
                             cudaStream_t stream) {
  if (count == 0) return;
  count_changed_kernel<<<check_grid(count), kCheckThreads, 0, stream>>>(data, count, random_key(seed), result);
  CUDA_CHECK(cudaGetLastError());
}

// With no GPU (--plan-check): `bytes` of addresses, 256-byte aligned as cudaMalloc's, in a range
// of the process's own where no two arrays overlap. Never freed: a check plans a few thousand arrays.
std::uintptr_t addresses_without_memory(std::size_t bytes) {
  constexpr std::uintptr_t kAlignment = 256;
  static std::uintptr_t next = std::uintptr_t{0x7f00} << 32;
  const std::uintptr_t given = next;
  next += (bytes + kAlignment - 1) / kAlignment * kAlignment;
  return given;
}

}  // namespace

bool addresses_only() { return session().without_gpu; }

void copy_with_a_kernel(void* to, const void* from, std::size_t bytes, cudaStream_t stream) {
  if (bytes == 0) return;
  constexpr std::uintptr_t kVector = sizeof(uint4);
  if ((reinterpret_cast<std::uintptr_t>(to) | reinterpret_cast<std::uintptr_t>(from) | bytes) % kVector == 0)
    copy_vectors_kernel<<<check_grid(bytes / kVector), kCheckThreads, 0, stream>>>(
        static_cast<uint4*>(to), static_cast<const uint4*>(from), bytes / kVector);
  else
    copy_bytes_kernel<<<check_grid(bytes), kCheckThreads, 0, stream>>>(static_cast<unsigned char*>(to),
                                                                       static_cast<const unsigned char*>(from), bytes);
  CUDA_CHECK(cudaGetLastError());
}

// Each element is a function of the key and its index alone, so the pieces are drawn at once.
std::vector<float> random_floats(std::size_t count, std::uint64_t seed) {
  std::vector<float> values(count);
  const std::uint64_t key = random_key(seed);
  parallel_pieces(count, kCheckGrain, [&](std::size_t, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) values[i] = random_element(key, i);
  });
  return values;
}

FloatStream::FloatStream(std::uint64_t seed) : key_(random_key(seed)) {}
float FloatStream::operator()(std::size_t i) const { return random_element(key_, i); }
IntStream::IntStream(std::uint64_t seed) : key_(random_key(seed)) {}
std::int32_t IntStream::operator()(std::size_t i) const { return random_int_element(key_, i); }

// The grader's own kernels are launched with <<<>>>, not workbook::launch(): the launch log is
// the candidate's, and these are not.
void fill_random(float* data, std::size_t count, std::uint64_t seed, cudaStream_t stream) {
  fill_random_on_device(data, count, seed, stream);
}
void fill_random(std::int32_t* data, std::size_t count, std::uint64_t seed, cudaStream_t stream) {
  fill_random_on_device(data, count, seed, stream);
}

void count_changed_from_random(const float* data, std::size_t count, std::uint64_t seed, DeviceMismatches* result,
                               cudaStream_t stream) {
  count_changed_on_device(data, count, seed, result, stream);
}
void count_changed_from_random(const std::int32_t* data, std::size_t count, std::uint64_t seed,
                               DeviceMismatches* result, cudaStream_t stream) {
  count_changed_on_device(data, count, seed, result, stream);
}

template <typename T>
DeviceArray<T>::DeviceArray(std::size_t count, std::size_t offset) : count_(count), offset_(offset) {
  const std::size_t back = session().exact_allocations ? 0 : kGuardBytes;
  // cudaMalloc(0) may give no pointer at all: keep one byte, so that an empty array has an address.
  const std::size_t total = std::max<std::size_t>(1, front_bytes() + bytes() + back);
  if (addresses_only()) {
    base_ = reinterpret_cast<T*>(addresses_without_memory(total));
    data_ = reinterpret_cast<T*>(reinterpret_cast<std::uint8_t*>(base_) + front_bytes());
    return;
  }
  CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&base_), total));
  data_ = reinterpret_cast<T*>(reinterpret_cast<std::uint8_t*>(base_) + front_bytes());
  if (!session().exact_allocations) {
    CUDA_CHECK(cudaMemset(base_, kGuardByte, front_bytes()));
    CUDA_CHECK(cudaMemset(data_ + count_, kGuardByte, back));
  }
  CUDA_CHECK(cudaDeviceSynchronize());
}

template <typename T>
DeviceArray<T>::~DeviceArray() {
  if (!addresses_only()) cudaFree(base_);
}

template <typename T>
std::size_t DeviceArray<T>::front_bytes() const {
  return offset_ * sizeof(T) + (session().exact_allocations ? 0 : kGuardBytes);
}

template <typename T>
std::string DeviceArray<T>::guard_violation(const std::string& name) const {
  if (session().exact_allocations) return "";  // compute-sanitizer's memcheck watches the edges instead
  std::vector<std::uint8_t> front(front_bytes()), back(kGuardBytes);
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaMemcpy(front.data(), base_, front.size(), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(back.data(), data_ + count_, back.size(), cudaMemcpyDeviceToHost));
  if (const long at = last_guard_violation(front); at >= 0)
    return "wrote " + std::to_string(front.size() - at) + " bytes before the start of " + name;
  if (const long at = first_guard_violation(back); at >= 0)
    return "wrote past the end of " + name + " (the guard byte " + std::to_string(at) + " bytes after it changed)";
  return "";
}

template class DeviceArray<float>;

RunChecks::RunChecks(int capacity) : capacity_(capacity) {
  CUDA_CHECK(cudaMalloc(&slots_, sizeof(DeviceMismatches) * capacity));
  const std::vector<DeviceMismatches> none(capacity);
  CUDA_CHECK(cudaMemcpy(slots_, none.data(), sizeof(DeviceMismatches) * capacity, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaDeviceSynchronize());
}

std::vector<DeviceMismatches> RunChecks::download() const {
  std::vector<DeviceMismatches> values(capacity_);
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaMemcpy(values.data(), slots_, sizeof(DeviceMismatches) * capacity_, cudaMemcpyDeviceToHost));
  return values;
}

}  // namespace workbook

namespace workbook {

void Arrays::Named::fill(cudaStream_t stream) {
  if (addresses_only()) return;
  if (given_copy) {
    CUDA_CHECK(cudaMemcpyAsync(array->data(), given_copy->data(), array->bytes(), cudaMemcpyDeviceToDevice, stream));
    return;
  }
  if (ints) fill_random(reinterpret_cast<std::int32_t*>(array->data()), array->size(), seed, stream);
  else fill_random(array->data(), array->size(), seed, stream);
}

void Arrays::Named::count_changed(DeviceMismatches* result, cudaStream_t stream) const {
  if (given_copy) {
    if (array->size() == 0) return;
    count_differing_kernel<<<check_grid(array->size()), kCheckThreads, 0, stream>>>(
        reinterpret_cast<const std::uint32_t*>(array->data()),
        reinterpret_cast<const std::uint32_t*>(given_copy->data()), array->size(), result);
    CUDA_CHECK(cudaGetLastError());
    return;
  }
  if (ints)
    count_changed_from_random(reinterpret_cast<const std::int32_t*>(array->data()), array->size(), seed, result,
                              stream);
  else count_changed_from_random(array->data(), array->size(), seed, result, stream);
}

namespace {

// writable_buffers(), by where each starts.
std::map<const void*, plan::Buffer>& writable_by_address() {
  static std::map<const void*, plan::Buffer> buffers;
  return buffers;
}

// given_buffers(): the writable ones and the inputs.
std::map<const void*, plan::Buffer>& given_by_address() {
  static std::map<const void*, plan::Buffer> buffers;
  return buffers;
}

void add_writable(const std::string& name, const DeviceArray<float>& array) {
  writable_by_address()[array.data()] = {name, reinterpret_cast<std::uint64_t>(array.data()), array.bytes()};
  given_by_address()[array.data()] = writable_by_address()[array.data()];
}

}  // namespace

std::vector<plan::Buffer> writable_buffers() {
  std::vector<plan::Buffer> all;
  for (const auto& [address, buffer] : writable_by_address()) all.push_back(buffer);
  return all;
}

std::vector<plan::Buffer> given_buffers() {
  std::vector<plan::Buffer> all;
  for (const auto& [address, buffer] : given_by_address()) all.push_back(buffer);
  return all;
}

namespace {

// For the residue mutants' proofs only (cmake/AddLab.cmake, RESIDUE_MUTANTS): where the environment
// names a file in WORKBOOK_PROOF_SCRATCH_LOG, each scratch array is written there as it is made
// ("scratch ADDRESS COUNT") and freed ("freed ADDRESS"), the file emptied first, so that a mutant's
// planner knows where the grader's own products lie, as a student's never does: the proof that
// even then nothing there passes. The runner never sets it.
// Until what the grader's stream was given (an array's fill, its poison) is done; nothing to wait
// for where the arrays are addresses only.
void wait_for_the_grader_stream() {
  if (!addresses_only()) CUDA_CHECK(cudaStreamSynchronize(session().stream));
}

void log_scratch(const char* what, const void* address, std::size_t count) {
  const char* path = std::getenv("WORKBOOK_PROOF_SCRATCH_LOG");
  if (path == nullptr || *path == '\0') return;
  static bool emptied = false;
  FILE* log = std::fopen(path, emptied ? "a" : "w");
  emptied = true;
  if (log == nullptr) return;
  std::fprintf(log, "%s %p %zu\n", what, address, count);
  std::fclose(log);
}

}  // namespace

Arrays::~Arrays() {
  for (const auto* list : {&outputs_, &workspaces_})
    for (const Named& named : *list) writable_by_address().erase(named.array->data());
  for (const auto* list : {&inputs_, &outputs_, &workspaces_})
    for (const Named& named : *list) given_by_address().erase(named.array->data());
  for (const Named& named : scratch_) log_scratch("freed", named.array->data(), 0);
}

Arrays::Named& Arrays::add_input(const std::string& name, std::size_t count, std::size_t offset, bool ints) {
  Named& added = inputs_.emplace_back(
      Named{name, std::make_unique<DeviceArray<float>>(count, offset), session().next_seed(), ints});
  given_by_address()[added.array->data()] = {name, reinterpret_cast<std::uint64_t>(added.array->data()),
                                             added.array->bytes()};
  added.fill(session().stream);
  wait_for_the_grader_stream();
  return added;
}

Arrays::Named& Arrays::add_output(const std::string& name, std::size_t count, std::size_t offset, bool ints) {
  Named& added = outputs_.emplace_back(Named{name, std::make_unique<DeviceArray<float>>(count, offset), 0, ints});
  add_writable(name, *added.array);
  added.array->poison(session().stream);
  wait_for_the_grader_stream();
  return added;
}

float* Arrays::input(const std::string& name, std::size_t count, std::size_t offset) {
  return add_input(name, count, offset, false).array->data();
}

float* Arrays::output(const std::string& name, std::size_t count, std::size_t offset) {
  return add_output(name, count, offset, false).array->data();
}

std::int32_t* Arrays::input_ints(const std::string& name, std::size_t count, std::size_t offset) {
  return reinterpret_cast<std::int32_t*>(add_input(name, count, offset, true).array->data());
}

std::int32_t* Arrays::output_ints(const std::string& name, std::size_t count, std::size_t offset) {
  return reinterpret_cast<std::int32_t*>(add_output(name, count, offset, true).array->data());
}

float* Arrays::input_values(const std::string& name, const std::vector<float>& values, std::size_t offset) {
  Named& added =
      inputs_.emplace_back(Named{name, std::make_unique<DeviceArray<float>>(values.size(), offset), 0, false});
  added.given = values;
  added.given_copy = std::make_unique<DeviceArray<float>>(values.size());
  if (!values.empty()) added.given_copy->upload(values);
  added.fill(session().stream);
  wait_for_the_grader_stream();
  return added.array->data();
}

float* Arrays::scratch(std::size_t count) {
  float* data = scratch_.emplace_back(Named{"scratch", std::make_unique<DeviceArray<float>>(count), 0}).array->data();
  log_scratch("scratch", data, count);
  return data;
}

void* Arrays::workspace(const std::string& name, std::size_t bytes) {
  const std::size_t floats = (bytes + sizeof(float) - 1) / sizeof(float);
  Named& added = workspaces_.emplace_back(Named{name, std::make_unique<DeviceArray<float>>(floats), 0});
  add_writable(name, *added.array);
  added.array->poison(session().stream);
  wait_for_the_grader_stream();
  return added.array->data();
}

const Arrays::Named& Arrays::find(const void* pointer) const {
  for (const auto* list : {&inputs_, &outputs_, &workspaces_, &scratch_})
    for (const Named& named : *list)
      if (static_cast<const void*>(named.array->data()) == pointer) return named;
  throw std::invalid_argument("Arrays: no array starts at this pointer");
}

std::vector<float> Arrays::values_of(const float* input) const {
  const Named& named = find(input);
  if (named.given_copy) return named.given;
  return random_floats(named.array->size(), named.seed);
}

std::vector<float> Arrays::download(const float* output) const { return find(output).array->download(); }

std::vector<std::int32_t> Arrays::download(const std::int32_t* output) const {
  return find(output).array->download_as<std::int32_t>();
}

std::uint64_t Arrays::seed_of(const void* input) const {
  const Named& named = find(input);
  if (named.given_copy)
    throw std::invalid_argument("Arrays: " + named.name + " holds given values, not a generator's stream");
  return named.seed;
}

void Arrays::redraw_inputs(cudaStream_t stream) {
  for (Named& named : inputs_) {
    if (!named.given_copy) named.seed = session().next_seed();
    named.fill(stream);
  }
}

void Arrays::poison_scratch(cudaStream_t stream) {
  for (Named& named : scratch_) named.array->poison(stream);
}

void Arrays::poison_outputs(cudaStream_t stream) {
  for (auto* list : {&outputs_, &workspaces_})
    for (Named& named : *list) named.array->poison(stream);
}

void Arrays::count_changed_inputs(DeviceMismatches* result, cudaStream_t stream) const {
  for (const Named& named : inputs_) named.count_changed(result, stream);
}

std::string Arrays::changed_inputs(cudaStream_t stream) const {
  for (const Named& named : inputs_) {
    RunChecks check(1);
    named.count_changed(check.slot(0), stream);
    const DeviceMismatches found = check.download().front();
    if (found.count > 0)
      return "the kernel changed its input " + named.name + " (" + std::to_string(found.count) +
             " elements, the first at [" + std::to_string(found.first) + "]): inputs are read-only";
  }
  return "";
}

std::string Arrays::guard_violations() const {
  for (const auto* list : {&inputs_, &outputs_, &workspaces_})
    for (const Named& named : *list)
      if (std::string why = named.array->guard_violation(named.name); !why.empty()) return why;
  return "";
}

}  // namespace workbook
