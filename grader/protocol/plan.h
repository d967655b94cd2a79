// A launcher's plan: what a student's host code asked the GPU to do in one call, as data. The
// trust boundary (docs/integrity.md, part 1) runs a student's host code only in a planner, a process that
// links it with a thin part of the harness and records every workbook::launch (and the few other
// operations a lab needs) instead of running it. The plan crosses a pipe to the judge, which links
// none of the student's code: it checks the plan against what it gave and what the GPU allows
// (defect()), then replays it with the student's kernels loaded from their object's fat binary.
// Everything here is plain C++ and runs without a GPU; the bytes it reads come from a process that
// runs a student's code, so decode() trusts none of them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace workbook::plan {

using Bytes = std::vector<std::uint8_t>;

struct Extent {  // a grid or a block, as dim3
  std::uint32_t x = 1, y = 1, z = 1;
  std::uint64_t count() const { return std::uint64_t{x} * y * z; }
  bool operator==(const Extent&) const = default;
};

// One workbook::launch: the kernel by its mangled name (as cudaFuncGetName gives it), its shape,
// and each parameter's bytes in order, as cuLaunchKernel takes them.
struct KernelLaunch {
  std::string kernel;
  Extent grid, block;
  std::uint32_t dynamic_shared_bytes = 0;
  std::vector<Bytes> arguments;
  bool operator==(const KernelLaunch&) const = default;
};
// Host bytes copied into a buffer the judge gave (lab 01's chase, uploaded by its launcher).
struct Upload {
  std::uint64_t destination = 0;
  Bytes bytes;
  bool operator==(const Upload&) const = default;
};
// A buffer the judge gave, or part of it, set to one byte value (lab 06 zeroes its workspace).
struct Fill {
  std::uint64_t destination = 0;
  std::uint64_t bytes = 0;
  std::uint8_t value = 0;
  bool operator==(const Fill&) const = default;
};
using Operation = std::variant<KernelLaunch, Upload, Fill>;

struct Plan {
  std::vector<Operation> operations;  // in the order the launcher asked for them
  Bytes answer;                       // what a host-only function returned (a workspace size, 01.3's occupancy)
  std::string failure;                // the launcher threw: its message. Then nothing of the plan is replayed
  bool not_implemented = false;       // what it threw was workbook::NotImplemented (a TODO left open)
  bool operator==(const Plan&) const = default;
};

// What the judge asks the planner: call the lab's function `function` with these problem bytes
// (the lab's Problem struct, its pointers the judge's device addresses as plain numbers).
struct Request {
  std::string function;
  Bytes problem;
  bool operator==(const Request&) const = default;
};

// The planner has no GPU (its process may make no ioctl: planner_process.h), so what a launcher may
// ask of the CUDA runtime while planning it asks the judge, between a request and its plan: a device
// attribute or the whole cudaDeviceProp, one of its own kernels' attributes or occupancy (as the
// judge will launch it), and a tensor map of a buffer the judge gave (lab 04's copy engine).
struct Question {
  enum class Kind : std::uint8_t {
    kDeviceAttribute = 1,   // numbers: {the cudaDeviceAttr}; the answer: an int
    kDeviceProperties = 2,  // the answer: the cudaDeviceProp
    kKernelAttributes = 3,  // kernel; the answer: its cudaFuncAttributes
    kOccupancy = 4,         // kernel; numbers: {threads per block, dynamic shared bytes, flags}; the answer: an int
    kTensorMap = 5,         // bytes: cuTensorMapEncodeTiled's arguments (planner_runtime.cpp); the answer: the map
  };
  Kind kind = Kind::kDeviceAttribute;
  std::string kernel;  // as the driver names it
  std::vector<std::uint64_t> numbers;
  Bytes bytes;
  bool operator==(const Question&) const = default;
};
// A kTensorMap question's bytes: cuTensorMapEncodeTiled's arguments but the map, as they were passed
// (the address is the judge's, a number in the planner; the arrays' first `rank` or `rank - 1`
// entries count).
struct TensorMapArguments {
  std::uint32_t data_type = 0, rank = 0;
  std::uint64_t address = 0;
  std::uint64_t dims[5] = {}, strides[4] = {};
  std::uint32_t box[5] = {}, element_strides[5] = {};
  std::uint32_t interleave = 0, swizzle = 0, l2_promotion = 0, oob_fill = 0;
};
// The judge's answer: the runtime's error code (0 for cudaSuccess), and the value's bytes.
struct Reply {
  std::int32_t error = 0;
  Bytes bytes;
  bool operator==(const Reply&) const = default;
};

// The wire format of each, length-prefixed and little-endian. decode_*() throws
// std::invalid_argument on anything but exactly one well-formed message (never reading past the
// bytes given), and refuses more than kMaxOperations operations or kMaxBytes bytes in all.
inline constexpr std::size_t kMaxOperations = 1 << 16;
inline constexpr std::size_t kMaxBytes = std::size_t{1} << 30;
std::string encode(const Plan& plan);
Plan decode_plan(std::string_view bytes);
std::string encode(const Request& request);
Request decode_request(std::string_view bytes);
std::string encode(const Question& question);
Question decode_question(std::string_view bytes);
std::string encode(const Reply& reply);
Reply decode_reply(std::string_view bytes);
// Whether a message from the planner is a question (else it is a plan).
bool is_question(std::string_view message);

// One message over a pipe: its length (8 bytes, little-endian), then its bytes. send_message()
// throws std::runtime_error when the pipe is closed; receive_message() returns nothing when the
// pipe ends before a message starts, and throws std::runtime_error when it ends inside one or a
// length over kMaxBytes is announced. Both retry on EINTR.
void send_message(int fd, std::string_view message);
// `writer_alive`, where given, is asked whenever the pipe has been silent for 50 ms: false ends the
// wait with std::runtime_error ("the process that writes it ended"), so that a writer that died
// while another process still holds the pipe open (one it started) is not waited for.
std::optional<std::string> receive_message(int fd, const std::function<bool()>& writer_alive = {});

// What a plan is checked against.
struct Buffer {  // a device allocation the judge gave for this call
  std::string name;
  std::uint64_t address = 0, bytes = 0;
};
struct DeviceLimits {  // the GPU's, from its attributes
  std::uint32_t max_threads_per_block = 1024;
  Extent max_block{1024, 1024, 64};
  Extent max_grid{2147483647u, 65535, 65535};
  std::uint32_t max_dynamic_shared_bytes = 232448;  // the opt-in maximum
};
// The parameter sizes of the student's kernel `name`, in order, or nothing when the student's
// object defines no kernel of that name.
using ParameterSizes = std::function<std::optional<std::vector<std::size_t>>(const std::string& name)>;

// "" when every operation may be replayed; otherwise what is wrong with the first that may not,
// in words a student can act on: a kernel that is not theirs, arguments of the wrong sizes, a shape
// the GPU cannot run, a copy or fill outside every buffer the judge gave.
std::string defect(const Plan& plan, const std::vector<Buffer>& given, const DeviceLimits& limits,
                   const ParameterSizes& parameter_sizes);

// "" when the memory a tensor map describes (its outermost dimension's extent, from its strides) lies
// inside one buffer of `given`; otherwise why not. The judge encodes no map of memory it did not give.
std::string tensor_map_outside(const TensorMapArguments& map, const std::vector<Buffer>& given);

// The judge's plans by problem (function and argument bytes), each replayed for every call of the
// same problem. Those made for timing (inside Judge::plan_ahead) are kept; those made before it,
// for the correctness cases, are forgotten when timing is planned: a timed problem whose arrays lie
// where a case's lay (cudaMalloc reuses freed addresses) has the same bytes, but is planned for
// itself, with the grader's timed arrays in place.
class Book {
 public:
  using Key = std::pair<std::string, Bytes>;
  const Plan* find(const Key& key) const;  // nullptr when this problem has no plan yet
  const Plan& keep(Key key, Plan plan, bool for_timing);
  void forget_untimed();  // the correctness cases' plans
  std::size_t size() const { return untimed_.size() + timed_.size(); }

 private:
  std::map<Key, Plan> untimed_, timed_;
};

}  // namespace workbook::plan
