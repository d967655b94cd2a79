#include "protocol/plan.h"

#include <algorithm>
#include <iterator>

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <type_traits>

namespace workbook::plan {

namespace {

constexpr std::string_view kPlanMagic = "WBPLAN1\n", kRequestMagic = "WBCALL1\n", kQuestionMagic = "WBASK01\n",
                           kReplyMagic = "WBREPLY\n";
enum Tag : std::uint8_t { kLaunchTag = 1, kUploadTag = 2, kFillTag = 3 };

class Writer {
 public:
  void raw(std::string_view bytes) { out_.append(bytes); }
  template <typename Unsigned>
  void number(Unsigned value) {
    static_assert(std::is_unsigned_v<Unsigned>);
    for (std::size_t i = 0; i < sizeof(Unsigned); ++i) out_.push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
  }
  void bytes(const Bytes& data) {
    number<std::uint64_t>(data.size());
    out_.append(reinterpret_cast<const char*>(data.data()), data.size());
  }
  void text(const std::string& data) {
    number<std::uint64_t>(data.size());
    out_.append(data);
  }
  void extent(const Extent& e) {
    number(e.x);
    number(e.y);
    number(e.z);
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

// Reads what Writer wrote, checking every length against what is left, so that no value read from
// the bytes can make it read past them.
class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {
    if (in.size() > kMaxBytes) fail("more than " + std::to_string(kMaxBytes) + " bytes");
  }
  void expect(std::string_view magic) {
    if (in_.substr(0, magic.size()) != magic) fail("it does not start as one does");
    at_ = magic.size();
  }
  template <typename Unsigned>
  Unsigned number() {
    need(sizeof(Unsigned));
    Unsigned value = 0;
    for (std::size_t i = 0; i < sizeof(Unsigned); ++i)
      value |= static_cast<Unsigned>(static_cast<unsigned char>(in_[at_ + i])) << (8 * i);
    at_ += sizeof(Unsigned);
    return value;
  }
  std::string_view span() {
    const std::uint64_t length = number<std::uint64_t>();
    need(length);
    const std::string_view data = in_.substr(at_, length);
    at_ += length;
    return data;
  }
  Bytes bytes() {
    const std::string_view data = span();
    return Bytes(data.begin(), data.end());
  }
  std::string text() { return std::string(span()); }
  Extent extent() {
    Extent e;
    e.x = number<std::uint32_t>();
    e.y = number<std::uint32_t>();
    e.z = number<std::uint32_t>();
    return e;
  }
  void end() {
    if (at_ != in_.size()) fail(std::to_string(in_.size() - at_) + " bytes follow its end");
  }
  [[noreturn]] static void fail(const std::string& why) {
    throw std::invalid_argument("a malformed plan message: " + why);
  }

 private:
  void need(std::uint64_t count) {
    if (count > in_.size() - at_) fail("it ends inside a field");
  }
  std::string_view in_;
  std::size_t at_ = 0;
};

bool inside(const Buffer& buffer, std::uint64_t address, std::uint64_t bytes) {
  return address >= buffer.address && bytes <= buffer.bytes && address - buffer.address <= buffer.bytes - bytes;
}

std::string hex(std::uint64_t value) {
  std::ostringstream text;
  text << "0x" << std::hex << value;
  return text.str();
}

std::string shape(const Extent& e) {
  return std::to_string(e.x) + " x " + std::to_string(e.y) + " x " + std::to_string(e.z);
}

// The destination of an upload or fill must lie inside one buffer the judge gave.
std::string outside_every_buffer(const char* what, std::uint64_t address, std::uint64_t bytes,
                                 const std::vector<Buffer>& given) {
  if (bytes == 0) return "";
  for (const Buffer& buffer : given)
    if (inside(buffer, address, bytes)) return "";
  std::string names;
  for (const Buffer& buffer : given) names += (names.empty() ? "" : ", ") + buffer.name;
  return std::string(what) + " of " + std::to_string(bytes) + " bytes at " + hex(address) +
         " is not inside any buffer the grader gave this call (" + (names.empty() ? "none" : names) +
         "): copy and fill only into the problem's own arrays and workspace";
}

std::string launch_defect(const KernelLaunch& launch, const DeviceLimits& limits,
                          const ParameterSizes& parameter_sizes) {
  const std::optional<std::vector<std::size_t>> sizes = parameter_sizes(launch.kernel);
  if (!sizes)
    return "kernel " + launch.kernel + " is not one of your file's kernels: launch only kernels your file defines";
  if (sizes->size() != launch.arguments.size())
    return "kernel " + launch.kernel + " takes " + std::to_string(sizes->size()) +
           " arguments, but the launch passed " + std::to_string(launch.arguments.size());
  for (std::size_t i = 0; i < sizes->size(); ++i)
    if ((*sizes)[i] != launch.arguments[i].size())
      return "kernel " + launch.kernel + ": argument " + std::to_string(i + 1) + " is " + std::to_string((*sizes)[i]) +
             " bytes, but the launch passed " + std::to_string(launch.arguments[i].size());
  const Extent& b = launch.block;
  const Extent& g = launch.grid;
  if (b.count() == 0 || g.count() == 0) return "kernel " + launch.kernel + ": a grid or block of 0 threads";
  if (b.count() > limits.max_threads_per_block || b.x > limits.max_block.x || b.y > limits.max_block.y ||
      b.z > limits.max_block.z)
    return "kernel " + launch.kernel + ": a block of " + shape(b) + " threads is more than this GPU allows (" +
           std::to_string(limits.max_threads_per_block) + " threads, " + shape(limits.max_block) + ")";
  if (g.x > limits.max_grid.x || g.y > limits.max_grid.y || g.z > limits.max_grid.z)
    return "kernel " + launch.kernel + ": a grid of " + shape(g) + " blocks is more than this GPU allows (" +
           shape(limits.max_grid) + ")";
  if (launch.dynamic_shared_bytes > limits.max_dynamic_shared_bytes)
    return "kernel " + launch.kernel + ": " + std::to_string(launch.dynamic_shared_bytes) +
           " bytes of dynamic shared memory is more than a block may have on this GPU (" +
           std::to_string(limits.max_dynamic_shared_bytes) + ")";
  return "";
}

}  // namespace

std::string encode(const Plan& plan) {
  Writer out;
  out.raw(kPlanMagic);
  out.text(plan.failure);
  out.number<std::uint8_t>(plan.not_implemented ? 1 : 0);
  out.bytes(plan.answer);
  out.number<std::uint64_t>(plan.operations.size());
  for (const Operation& operation : plan.operations) {
    if (const auto* launch = std::get_if<KernelLaunch>(&operation)) {
      out.number<std::uint8_t>(kLaunchTag);
      out.text(launch->kernel);
      out.extent(launch->grid);
      out.extent(launch->block);
      out.number(launch->dynamic_shared_bytes);
      out.number<std::uint64_t>(launch->arguments.size());
      for (const Bytes& argument : launch->arguments) out.bytes(argument);
    } else if (const auto* upload = std::get_if<Upload>(&operation)) {
      out.number<std::uint8_t>(kUploadTag);
      out.number(upload->destination);
      out.bytes(upload->bytes);
    } else {
      const Fill& fill = std::get<Fill>(operation);
      out.number<std::uint8_t>(kFillTag);
      out.number(fill.destination);
      out.number(fill.bytes);
      out.number(fill.value);
    }
  }
  return out.take();
}

Plan decode_plan(std::string_view bytes) {
  Reader in(bytes);
  in.expect(kPlanMagic);
  Plan plan;
  plan.failure = in.text();
  const std::uint8_t not_implemented = in.number<std::uint8_t>();
  if (not_implemented > 1) Reader::fail("a flag that is neither 0 nor 1");
  plan.not_implemented = not_implemented == 1;
  plan.answer = in.bytes();
  const std::uint64_t count = in.number<std::uint64_t>();
  if (count > kMaxOperations)
    Reader::fail(std::to_string(count) + " operations, more than " + std::to_string(kMaxOperations));
  for (std::uint64_t k = 0; k < count; ++k) {
    switch (in.number<std::uint8_t>()) {
      case kLaunchTag: {
        KernelLaunch launch;
        launch.kernel = in.text();
        launch.grid = in.extent();
        launch.block = in.extent();
        launch.dynamic_shared_bytes = in.number<std::uint32_t>();
        const std::uint64_t arguments = in.number<std::uint64_t>();
        if (arguments > 4096) Reader::fail("a launch with " + std::to_string(arguments) + " arguments");
        for (std::uint64_t a = 0; a < arguments; ++a) launch.arguments.push_back(in.bytes());
        plan.operations.emplace_back(std::move(launch));
        break;
      }
      case kUploadTag: {
        Upload upload;
        upload.destination = in.number<std::uint64_t>();
        upload.bytes = in.bytes();
        plan.operations.emplace_back(std::move(upload));
        break;
      }
      case kFillTag: {
        Fill fill;
        fill.destination = in.number<std::uint64_t>();
        fill.bytes = in.number<std::uint64_t>();
        fill.value = in.number<std::uint8_t>();
        plan.operations.emplace_back(fill);
        break;
      }
      default: Reader::fail("an operation of no known kind");
    }
  }
  in.end();
  return plan;
}

std::string encode(const Request& request) {
  Writer out;
  out.raw(kRequestMagic);
  out.text(request.function);
  out.bytes(request.problem);
  return out.take();
}

Request decode_request(std::string_view bytes) {
  Reader in(bytes);
  in.expect(kRequestMagic);
  Request request;
  request.function = in.text();
  request.problem = in.bytes();
  in.end();
  return request;
}

std::string encode(const Question& question) {
  Writer out;
  out.raw(kQuestionMagic);
  out.number(static_cast<std::uint8_t>(question.kind));
  out.text(question.kernel);
  out.number<std::uint64_t>(question.numbers.size());
  for (std::uint64_t number : question.numbers) out.number(number);
  out.bytes(question.bytes);
  return out.take();
}

Question decode_question(std::string_view bytes) {
  Reader in(bytes);
  in.expect(kQuestionMagic);
  Question question;
  const std::uint8_t kind = in.number<std::uint8_t>();
  if (kind < static_cast<std::uint8_t>(Question::Kind::kDeviceAttribute) ||
      kind > static_cast<std::uint8_t>(Question::Kind::kTensorMap))
    Reader::fail("a question of no known kind");
  question.kind = static_cast<Question::Kind>(kind);
  question.kernel = in.text();
  const std::uint64_t count = in.number<std::uint64_t>();
  if (count > 16) Reader::fail("a question with " + std::to_string(count) + " numbers");
  for (std::uint64_t k = 0; k < count; ++k) question.numbers.push_back(in.number<std::uint64_t>());
  question.bytes = in.bytes();
  in.end();
  return question;
}

std::string encode(const Reply& reply) {
  Writer out;
  out.raw(kReplyMagic);
  out.number(static_cast<std::uint32_t>(reply.error));
  out.bytes(reply.bytes);
  return out.take();
}

Reply decode_reply(std::string_view bytes) {
  Reader in(bytes);
  in.expect(kReplyMagic);
  Reply reply;
  reply.error = static_cast<std::int32_t>(in.number<std::uint32_t>());
  reply.bytes = in.bytes();
  in.end();
  return reply;
}

bool is_question(std::string_view message) { return message.substr(0, kQuestionMagic.size()) == kQuestionMagic; }

void send_message(int fd, std::string_view message) {
  Writer length;
  length.number<std::uint64_t>(message.size());
  const std::string whole = length.take() + std::string(message);
  for (std::size_t sent = 0; sent < whole.size();) {
    const ssize_t written = ::write(fd, whole.data() + sent, whole.size() - sent);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) throw std::runtime_error("the pipe closed while a message was sent");
    sent += static_cast<std::size_t>(written);
  }
}

std::optional<std::string> receive_message(int fd, const std::function<bool()>& writer_alive) {
  // Waits until the pipe has something to read (or has ended), asking after the writer while it is silent.
  const auto wait_for_bytes = [&] {
    if (!writer_alive) return;
    for (;;) {
      pollfd ready{fd, POLLIN, 0};
      const int found = ::poll(&ready, 1, 50);
      if (found > 0) return;
      if (found < 0 && errno != EINTR) throw std::runtime_error("waiting for a message on the pipe failed");
      if (found == 0 && !writer_alive()) throw std::runtime_error("the process that writes the pipe ended");
    }
  };
  // Reads exactly `count` bytes into `into`; false when the pipe ends before the first.
  const auto read_exactly = [&](char* into, std::size_t count, bool may_end) {
    for (std::size_t got = 0; got < count;) {
      wait_for_bytes();
      const ssize_t n = ::read(fd, into + got, count - got);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw std::runtime_error("reading a message from the pipe failed");
      if (n == 0) {
        if (got == 0 && may_end) return false;
        throw std::runtime_error("the pipe ended inside a message");
      }
      got += static_cast<std::size_t>(n);
    }
    return true;
  };
  char length_bytes[8];
  if (!read_exactly(length_bytes, sizeof length_bytes, true)) return std::nullopt;
  Reader length_reader(std::string_view(length_bytes, sizeof length_bytes));
  const std::uint64_t length = length_reader.number<std::uint64_t>();
  if (length > kMaxBytes)
    throw std::runtime_error("a message of " + std::to_string(length) + " bytes was announced, more than " +
                             std::to_string(kMaxBytes));
  std::string message(length, '\0');
  read_exactly(message.data(), length, false);
  return message;
}

std::string defect(const Plan& plan, const std::vector<Buffer>& given, const DeviceLimits& limits,
                   const ParameterSizes& parameter_sizes) {
  for (std::size_t k = 0; k < plan.operations.size(); ++k) {
    const Operation& operation = plan.operations[k];
    std::string why;
    if (const auto* launch = std::get_if<KernelLaunch>(&operation))
      why = launch_defect(*launch, limits, parameter_sizes);
    else if (const auto* upload = std::get_if<Upload>(&operation))
      why = outside_every_buffer("a copy", upload->destination, upload->bytes.size(), given);
    else
      why =
          outside_every_buffer("a fill", std::get<Fill>(operation).destination, std::get<Fill>(operation).bytes, given);
    if (!why.empty())
      return "operation " + std::to_string(k + 1) + " of " + std::to_string(plan.operations.size()) + ": " + why;
  }
  return "";
}

std::string tensor_map_outside(const TensorMapArguments& map, const std::vector<Buffer>& given) {
  if (map.rank < 1 || map.rank > 5) return "a tensor map of rank " + std::to_string(map.rank);
  // An element's bytes by CUtensorMapDataType (uint8 to tfloat32_ftz); the packed 4- and 6-bit types
  // that follow take under a byte, counted as one.
  constexpr std::uint64_t kElementBytes[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4};
  const std::uint64_t element = map.data_type < std::size(kElementBytes) ? kElementBytes[map.data_type] : 1;
  // The bytes from its first element to past its last: the innermost dimension's elements, and each
  // outer dimension's stride times its extent less one.
  constexpr std::uint64_t kLimit = std::uint64_t{1} << 62;
  std::uint64_t bytes = element * map.dims[0];
  for (std::uint32_t d = 1; d < map.rank; ++d) {
    if (map.dims[d] == 0) return "a tensor map with an empty dimension";
    if (map.dims[0] > kLimit / element || map.strides[d - 1] > kLimit / map.dims[d] || bytes > kLimit)
      return "a tensor map larger than memory";
    bytes += map.strides[d - 1] * (map.dims[d] - 1);
  }
  const std::string why = outside_every_buffer("a tensor map", map.address, bytes, given);
  return why.empty()
             ? ""
             : why.substr(0, why.find(": copy and fill")) + ": describe only the problem's own arrays and workspace";
}

const Plan* Book::find(const Key& key) const {
  for (const auto* plans : {&timed_, &untimed_})
    if (const auto known = plans->find(key); known != plans->end()) return &known->second;
  return nullptr;
}

const Plan& Book::keep(Key key, Plan plan, bool for_timing) {
  return (for_timing ? timed_ : untimed_)[std::move(key)] = std::move(plan);
}

void Book::forget_untimed() { untimed_.clear(); }

}  // namespace workbook::plan
