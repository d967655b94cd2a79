#include "judge/replay.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <stdexcept>
#include <variant>

#include "audit/gpu_code.h"
#include "audit/machine_code.h"
#include "harness/buffers.h"
#include "workbook/launch_log.h"

namespace workbook {

namespace {

// The driver's functions, found through the CUDA runtime rather than linked: a grader must start on
// a machine with no driver (CI), where it says it needs a GPU; only a replay asks for them.
template <typename Function>
Function driver_function(const char* name) {
  void* function = nullptr;
  cudaDriverEntryPointQueryResult status{};
#if CUDART_VERSION >= 12050
  const cudaError_t error = cudaGetDriverEntryPointByVersion(name, &function, 12040, cudaEnableDefault, &status);
#else
  const cudaError_t error = cudaGetDriverEntryPoint(name, &function, cudaEnableDefault, &status);
#endif
  if (error != cudaSuccess || status != cudaDriverEntryPointSuccess || function == nullptr)
    throw std::runtime_error(std::string("the CUDA driver has no ") + name +
                             ": a driver for CUDA 12.4 or newer is needed");
  return reinterpret_cast<Function>(function);
}

struct Driver {
  decltype(&cuInit) init = driver_function<decltype(&cuInit)>("cuInit");
  decltype(&cuGetErrorName) error_name = driver_function<decltype(&cuGetErrorName)>("cuGetErrorName");
  decltype(&cuGetErrorString) error_string = driver_function<decltype(&cuGetErrorString)>("cuGetErrorString");
  decltype(&cuLibraryLoadData) load = driver_function<decltype(&cuLibraryLoadData)>("cuLibraryLoadData");
  decltype(&cuLibraryUnload) unload = driver_function<decltype(&cuLibraryUnload)>("cuLibraryUnload");
  decltype(&cuLibraryGetKernelCount) kernel_count =
      driver_function<decltype(&cuLibraryGetKernelCount)>("cuLibraryGetKernelCount");
  decltype(&cuLibraryEnumerateKernels) kernels =
      driver_function<decltype(&cuLibraryEnumerateKernels)>("cuLibraryEnumerateKernels");
  decltype(&cuKernelGetName) kernel_name = driver_function<decltype(&cuKernelGetName)>("cuKernelGetName");
  decltype(&cuKernelGetParamInfo) parameter = driver_function<decltype(&cuKernelGetParamInfo)>("cuKernelGetParamInfo");
  decltype(&cuKernelGetAttribute) get_attribute =
      driver_function<decltype(&cuKernelGetAttribute)>("cuKernelGetAttribute");
  decltype(&cuKernelGetFunction) function = driver_function<decltype(&cuKernelGetFunction)>("cuKernelGetFunction");
  decltype(&cuOccupancyMaxActiveBlocksPerMultiprocessor) occupancy =
      driver_function<decltype(&cuOccupancyMaxActiveBlocksPerMultiprocessor)>(
          "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  decltype(&cuKernelSetAttribute) set_attribute =
      driver_function<decltype(&cuKernelSetAttribute)>("cuKernelSetAttribute");
  decltype(&cuCtxGetDevice) context_device = driver_function<decltype(&cuCtxGetDevice)>("cuCtxGetDevice");
  decltype(&cuLaunchKernel) launch = driver_function<decltype(&cuLaunchKernel)>("cuLaunchKernel");
  decltype(&cuLibraryGetGlobal) global = driver_function<decltype(&cuLibraryGetGlobal)>("cuLibraryGetGlobal");
  decltype(&cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags) occupancy_with_flags =
      driver_function<decltype(&cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags)>(
          "cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags");
  decltype(&cuTensorMapEncodeTiled) encode_tensor_map =
      driver_function<decltype(&cuTensorMapEncodeTiled)>("cuTensorMapEncodeTiled");
};
const Driver& driver() {
  static const Driver functions;
  return functions;
}

void check(CUresult result, const std::string& what) {
  if (result == CUDA_SUCCESS) return;
  const char* name = nullptr;
  const char* text = nullptr;
  driver().error_name(result, &name);
  driver().error_string(result, &text);
  throw std::runtime_error(what + ": " + (name ? name : "CUDA error") + " (" + (text ? text : "no description") + ")");
}

// A global variable of the student's module, where the driver placed it.
struct PlacedVariable {
  enum class Bank { kGlobal, kConstant, kManaged };
  CUdeviceptr at = 0;
  std::size_t bytes = 0;
  Bank bank = Bank::kGlobal;
};

PlacedVariable::Bank bank_of(const std::string& section) {
  if (section.starts_with(".nv.managed")) return PlacedVariable::Bank::kManaged;
  if (section.starts_with(".nv.constant")) return PlacedVariable::Bank::kConstant;
  return PlacedVariable::Bank::kGlobal;
}

// The driver gives each `__device__` variable a 256-byte boundary of its own, in no order of the
// image's: measured on an H200 (docs/integrity.md, "A module as it was loaded"), a 4-byte int
// starts one, and an array asking for 1024-byte alignment starts one that is not a multiple of 1024.
// So the bytes from a variable's end to the next boundary are the module's and no other's, and a
// kernel can write them through the variable's address (and cudaMemcpy cannot: they are in no
// allocation it knows). A `__constant__` variable's bank a kernel cannot store to (the store faults
// there), and a `__managed__` one is unified memory: those are each set back over their own bytes.
constexpr CUdeviceptr kDriverSlot = 256;

struct ModuleSpan {
  CUdeviceptr at = 0;
  std::size_t bytes = 0;
  bool by_kernel = false;  // a slot's bytes past a variable: copied by a kernel of the grader's
};

// The device memory a call must find as loaded, in as few copies as cover it: each `__device__`
// variable up to the end of its slot, neighbours merged, where every one starts a slot (the layout
// above); each variable's own bytes where one does not (a driver that packs them), and for the
// other banks always.
std::vector<ModuleSpan> module_memory(const std::vector<PlacedVariable>& variables) {
  const auto in_slots = [](const PlacedVariable& v) { return v.bank == PlacedVariable::Bank::kGlobal; };
  const bool slotted = std::all_of(variables.begin(), variables.end(),
                                   [&](const PlacedVariable& v) { return !in_slots(v) || v.at % kDriverSlot == 0; });
  std::vector<ModuleSpan> spans;
  for (const PlacedVariable& variable : variables) {
    if (variable.bytes == 0) continue;
    if (!slotted || !in_slots(variable)) {
      spans.push_back({variable.at, variable.bytes, false});
      continue;
    }
    const CUdeviceptr end = (variable.at + variable.bytes + kDriverSlot - 1) / kDriverSlot * kDriverSlot;
    spans.push_back({variable.at, static_cast<std::size_t>(end - variable.at), true});
  }
  std::sort(spans.begin(), spans.end(), [](const ModuleSpan& a, const ModuleSpan& b) { return a.at < b.at; });
  std::vector<ModuleSpan> merged;
  for (const ModuleSpan& span : spans) {
    if (!merged.empty() && merged.back().by_kernel && span.by_kernel &&
        span.at <= merged.back().at + merged.back().bytes) {
      ModuleSpan& last = merged.back();
      last.bytes = std::max(last.at + last.bytes, span.at + span.bytes) - last.at;
      continue;
    }
    merged.push_back(span);
  }
  return merged;
}

}  // namespace

StudentKernels::StudentKernels(const std::vector<std::string>& objects) {
  // The runtime's context made current first (cudaFree(nullptr) starts it): outside a context the
  // driver does not describe a loaded kernel's parameters. Every kernel is then loaded into it
  // (cuKernelGetFunction), here, and not lazily at its first launch inside a graded call.
  if (cudaFree(nullptr) != cudaSuccess) throw std::runtime_error("the CUDA runtime could not start on this GPU");
  check(driver().init(0), "starting the CUDA driver");
  for (const std::string& object : objects) load(object);
}

void StudentKernels::load(const std::string& object) {
  for (const std::string& fat_binary : fat_binaries_in_file(object)) {
    CUlibrary library = nullptr;
    check(driver().load(&library, fat_binary.data(), nullptr, nullptr, 0, nullptr, nullptr, 0),
          "loading the GPU code of " + object);
    libraries_.push_back(library);
    unsigned count = 0;
    check(driver().kernel_count(&count, library), "counting the kernels of " + object);
    std::vector<CUkernel> handles(count);
    if (count > 0) check(driver().kernels(handles.data(), count, library), "listing the kernels of " + object);
    for (CUkernel handle : handles) {
      const char* name = nullptr;
      check(driver().kernel_name(&name, handle), "naming a kernel of " + object);
      Kernel kernel{handle, {}};
      CUfunction in_context = nullptr;
      check(driver().function(&in_context, handle), "loading " + std::string(name) + " into this context");
      // The driver has no count of a kernel's parameters: it says CUDA_ERROR_INVALID_VALUE past the
      // last, which compute-sanitizer reports as an API error (once per kernel). Open: a count that
      // asks no error of the driver, before the judge runs under compute-sanitizer (--sanitize).
      // Any other answer is an error: a kernel must never seem to take fewer parameters than it does.
      for (std::size_t index = 0;; ++index) {
        std::size_t offset = 0, size = 0;
        const CUresult asked = driver().parameter(handle, index, &offset, &size);
        if (asked == CUDA_ERROR_INVALID_VALUE) break;
        check(asked, "reading parameter " + std::to_string(index + 1) + " of " + name);
        kernel.parameter_sizes.push_back(size);
      }
      names_[reinterpret_cast<const void*>(handle)] = name;
      kernels_[name] = std::move(kernel);
    }
    keep_globals(library, fat_binary, object);
  }
}

void StudentKernels::keep_globals(CUlibrary library, const std::string& fat_binary, const std::string& object) {
  std::vector<GlobalsImage> images;
  try {
    images = device_globals_in_fat_binary(fat_binary);
  } catch (const std::runtime_error& e) {
    globals_unknown_ = "the GPU code of " + object + " cannot be read for its __device__ variables: " + e.what();
    return;
  }
  // Each variable where the driver says it lies, found by its name; a variable it does not find by
  // name, where its section's other variables place it, in the image whose layout agrees with every
  // place the driver gave (the one it loaded).
  std::map<std::string, PlacedVariable> found;
  std::vector<std::string> not_found;
  bool readable = false;
  for (const GlobalsImage& image : images) {
    readable = readable || !image.compressed;
    for (const GlobalsImage::Section& section : image.sections)
      for (const GlobalsImage::Symbol& symbol : section.symbols) {
        if (found.contains(symbol.name) ||
            std::find(not_found.begin(), not_found.end(), symbol.name) != not_found.end())
          continue;
        PlacedVariable where{.bank = bank_of(section.name)};
        if (driver().global(&where.at, &where.bytes, library, symbol.name.c_str()) == CUDA_SUCCESS)
          found[symbol.name] = where;
        else not_found.push_back(symbol.name);
      }
  }
  if (!readable && !images.empty()) {  // nvcc leaves machine code uncompressed unless asked (-Xfatbin -compress-all)
    globals_unknown_ =
        "the machine code of " + object + " is compressed: the judge cannot read its __device__ variables";
    return;
  }
  if (found.empty() && not_found.empty()) return;  // no variable a kernel could keep anything in
  std::vector<PlacedVariable> variables;
  for (const auto& [name, where] : found) variables.push_back(where);
  if (!not_found.empty()) {
    std::string why = "the judge cannot find where " + demangled(not_found.front()) + " (a __device__ variable of " +
                      object + ") lies in device memory, to set it back before every call";
    bool placed = false;
    for (const GlobalsImage& image : images) {
      if (image.compressed || placed) continue;
      std::vector<PlacedVariable> missing;
      bool agrees = true;
      for (const GlobalsImage::Section& section : image.sections) {
        std::optional<CUdeviceptr> base;
        for (const GlobalsImage::Symbol& symbol : section.symbols)
          if (const auto where = found.find(symbol.name); where != found.end()) {
            if (where->second.at < symbol.offset || (base && *base != where->second.at - symbol.offset)) agrees = false;
            base = where->second.at - symbol.offset;
          }
        for (const GlobalsImage::Symbol& symbol : section.symbols)
          if (!found.contains(symbol.name)) {
            if (!base) agrees = false;
            else
              missing.push_back({*base + symbol.offset, static_cast<std::size_t>(symbol.bytes), bank_of(section.name)});
          }
      }
      if (!agrees) continue;
      variables.insert(variables.end(), missing.begin(), missing.end());
      placed = true;
    }
    if (!placed) {
      globals_unknown_ = why;
      return;
    }
  }
  for (const ModuleSpan& span : module_memory(variables)) {
    GlobalSection kept{span.at, span.bytes, nullptr, span.by_kernel};
    if (cudaMalloc(&kept.as_loaded, kept.bytes) != cudaSuccess)
      throw std::runtime_error("the judge could not keep a copy of the __device__ variables of " + object);
    globals_.push_back(kept);
    copy(kept.as_loaded, reinterpret_cast<const void*>(kept.at), kept, nullptr);
  }
  if (cudaDeviceSynchronize() != cudaSuccess)
    throw std::runtime_error("the judge could not keep a copy of the __device__ variables of " + object);
}

void StudentKernels::copy(void* to, const void* from, const GlobalSection& section, cudaStream_t stream) {
  if (section.by_kernel) copy_with_a_kernel(to, from, section.bytes, stream);
  else if (cudaMemcpyAsync(to, from, section.bytes, cudaMemcpyDeviceToDevice, stream) != cudaSuccess)
    throw std::runtime_error("copying the student's module memory failed");
}

void StudentKernels::restore_globals(cudaStream_t stream) const {
  if (!globals_unknown_.empty()) throw std::runtime_error(globals_unknown_);
  for (const GlobalSection& section : globals_)
    copy(reinterpret_cast<void*>(section.at), section.as_loaded, section, stream);
}

StudentKernels::~StudentKernels() {
  for (const GlobalSection& section : globals_) cudaFree(section.as_loaded);
  for (CUlibrary library : libraries_) driver().unload(library);
}

std::optional<std::vector<std::size_t>> StudentKernels::parameter_sizes(const std::string& name) const {
  const auto found = kernels_.find(name);
  if (found == kernels_.end()) return std::nullopt;
  return found->second.parameter_sizes;
}

std::vector<std::string> StudentKernels::names() const {
  std::vector<std::string> all;
  for (const auto& [name, kernel] : kernels_) all.push_back(name);
  return all;
}

const void* StudentKernels::kernel(const std::string& name) const {
  const auto found = kernels_.find(name);
  if (found == kernels_.end()) throw std::logic_error("no kernel " + name + " was loaded");
  return reinterpret_cast<const void*>(found->second.handle);
}

std::optional<std::string> StudentKernels::name_of(const void* kernel) const {
  const auto named = names_.find(kernel);
  if (named == names_.end()) return std::nullopt;
  return named->second;
}

std::optional<KernelResources> StudentKernels::resources(const LaunchRecord& launch) const {
  const auto named = names_.find(launch.kernel);
  if (named == names_.end()) return std::nullopt;
  const CUkernel handle = kernels_.at(named->second).handle;
  CUdevice device = 0;
  check(driver().context_device(&device), "finding the GPU");
  const auto attribute = [&](CUfunction_attribute which) {
    int value = 0;
    check(driver().get_attribute(&value, which, handle, device), "asking about " + named->second);
    return value;
  };
  // The occupancy calculator takes the kernel as this context's function; the limit on dynamic
  // shared memory the replay raised is the kernel's own, so the calculator sees it.
  CUfunction function = nullptr;
  check(driver().function(&function, handle), "finding " + named->second + " in this context");
  int blocks = 0;
  check(
      driver().occupancy(&blocks, function, static_cast<int>(launch.threads_per_block()), launch.dynamic_shared_bytes),
      "the occupancy of " + named->second);
  return resources_from(named->second, attribute(CU_FUNC_ATTRIBUTE_NUM_REGS),
                        static_cast<std::size_t>(attribute(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)),
                        static_cast<std::size_t>(attribute(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)), launch, blocks);
}

void StudentKernels::allow_shared_memory(const std::string& name, std::uint64_t dynamic_shared_bytes) const {
  constexpr std::uint64_t kDefaultSharedLimit = 48 * 1024;
  if (dynamic_shared_bytes <= kDefaultSharedLimit) return;
  const Kernel& kernel = kernels_.at(name);
  CUdevice device = 0;
  check(driver().context_device(&device), "finding the GPU");
  check(driver().set_attribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, static_cast<int>(dynamic_shared_bytes),
                               kernel.handle, device),
        "allowing " + name + " its dynamic shared memory");
  check(driver().set_attribute(CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, CU_SHAREDMEM_CARVEOUT_MAX_SHARED,
                               kernel.handle, device),
        "giving " + name + " the largest shared-memory carveout");
}

plan::Reply StudentKernels::answer(const plan::Question& question) const {
  using Kind = plan::Question::Kind;
  const auto runtime_error = [](cudaError_t error) { return plan::Reply{static_cast<std::int32_t>(error), {}}; };
  try {
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess) return runtime_error(cudaGetLastError());
    switch (question.kind) {
      case Kind::kDeviceAttribute: {
        if (question.numbers.size() != 1) return runtime_error(cudaErrorInvalidValue);
        int value = 0;
        const cudaError_t error =
            cudaDeviceGetAttribute(&value, static_cast<cudaDeviceAttr>(question.numbers[0]), device);
        (void)cudaGetLastError();  // a refused attribute is the planner's error, not the judge's next call's
        return error == cudaSuccess ? plan::Reply{0, reply_bytes(value)} : runtime_error(error);
      }
      case Kind::kDeviceProperties: {
        cudaDeviceProp properties{};
        const cudaError_t error = cudaGetDeviceProperties(&properties, device);
        return error == cudaSuccess ? plan::Reply{0, reply_bytes(properties)} : runtime_error(error);
      }
      case Kind::kKernelAttributes:
      case Kind::kOccupancy: {
        const auto found = kernels_.find(question.kernel);
        if (found == kernels_.end()) return runtime_error(cudaErrorInvalidDeviceFunction);
        const void* handle = reinterpret_cast<const void*>(found->second.handle);
        if (question.kind == Kind::kKernelAttributes) {
          cudaFuncAttributes attributes{};
          const cudaError_t error = cudaFuncGetAttributes(&attributes, handle);
          (void)cudaGetLastError();
          return error == cudaSuccess ? plan::Reply{0, reply_bytes(attributes)} : runtime_error(error);
        }
        if (question.numbers.size() != 3 || question.numbers[0] == 0 || question.numbers[0] > 1u << 20 ||
            question.numbers[1] > 1u << 30)
          return runtime_error(cudaErrorInvalidValue);
        // As the kernel will be launched: with the shared-memory limit a replay raises for it.
        allow_shared_memory(question.kernel, question.numbers[1]);
        CUfunction function = nullptr;
        check(driver().function(&function, found->second.handle), "finding " + question.kernel + " in this context");
        int blocks = 0;
        const CUresult result = driver().occupancy_with_flags(&blocks, function, static_cast<int>(question.numbers[0]),
                                                              static_cast<std::size_t>(question.numbers[1]),
                                                              static_cast<unsigned>(question.numbers[2]));
        return result == CUDA_SUCCESS ? plan::Reply{0, reply_bytes(blocks)} : runtime_error(cudaErrorInvalidValue);
      }
      case Kind::kTensorMap: {
        plan::TensorMapArguments a;
        if (question.bytes.size() != sizeof a) return runtime_error(cudaErrorInvalidValue);
        std::memcpy(&a, question.bytes.data(), sizeof a);
        if (a.rank < 1 || a.rank > 5) return plan::Reply{CUDA_ERROR_INVALID_VALUE, {}};
        CUtensorMap map{};
        const CUresult result = driver().encode_tensor_map(
            &map, static_cast<CUtensorMapDataType>(a.data_type), a.rank, reinterpret_cast<void*>(a.address), a.dims,
            a.strides, a.box, a.element_strides, static_cast<CUtensorMapInterleave>(a.interleave),
            static_cast<CUtensorMapSwizzle>(a.swizzle), static_cast<CUtensorMapL2promotion>(a.l2_promotion),
            static_cast<CUtensorMapFloatOOBfill>(a.oob_fill));
        return result == CUDA_SUCCESS ? plan::Reply{0, reply_bytes(map)}
                                      : plan::Reply{static_cast<std::int32_t>(result), {}};
      }
    }
  } catch (const std::exception&) {
  }
  (void)cudaGetLastError();
  return runtime_error(cudaErrorUnknown);
}

void StudentKernels::replay(const plan::Plan& plan, cudaStream_t stream) const {
  for (const plan::Operation& operation : plan.operations) {
    if (const auto* launch = std::get_if<plan::KernelLaunch>(&operation)) {
      const Kernel& kernel = kernels_.at(launch->kernel);
      allow_shared_memory(launch->kernel, launch->dynamic_shared_bytes);
      // Each argument in storage aligned for any type: the driver reads it as the parameter's type.
      std::vector<std::vector<std::max_align_t>> storage;
      std::vector<void*> arguments;
      for (const plan::Bytes& argument : launch->arguments) {
        storage.emplace_back((argument.size() + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t) + 1);
        std::memcpy(storage.back().data(), argument.data(), argument.size());
      }
      for (auto& slot : storage) arguments.push_back(slot.data());
      mark_launch(stream);  // an event only while the grader times each launch (launch_log.h)
      check(
          driver().launch(reinterpret_cast<CUfunction>(kernel.handle), launch->grid.x, launch->grid.y, launch->grid.z,
                          launch->block.x, launch->block.y, launch->block.z, launch->dynamic_shared_bytes,
                          reinterpret_cast<CUstream>(stream), arguments.empty() ? nullptr : arguments.data(), nullptr),
          "launching " + launch->kernel);
    } else if (const auto* upload = std::get_if<plan::Upload>(&operation)) {
      if (cudaMemcpyAsync(reinterpret_cast<void*>(upload->destination), upload->bytes.data(), upload->bytes.size(),
                          cudaMemcpyHostToDevice, stream) != cudaSuccess)
        throw std::runtime_error("replaying a copy of " + std::to_string(upload->bytes.size()) + " bytes failed");
    } else {
      const plan::Fill& fill = std::get<plan::Fill>(operation);
      if (cudaMemsetAsync(reinterpret_cast<void*>(fill.destination), fill.value, fill.bytes, stream) != cudaSuccess)
        throw std::runtime_error("replaying a fill of " + std::to_string(fill.bytes) + " bytes failed");
    }
  }
}

}  // namespace workbook
