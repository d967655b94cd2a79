// The plan a planner sends the judge (grader/protocol/plan.h): it crosses from a process that runs a
// student's code, so every malformed message is refused without reading past it, and every
// operation the judge would replay is checked against what it gave and what the GPU allows.
#include <doctest/doctest.h>

#include <unistd.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "protocol/plan.h"

using namespace workbook::plan;

namespace {

Plan sample_plan() {
  Plan plan;
  plan.operations.push_back(
      KernelLaunch{"_Z11copy_kernelPKfPfm", {132, 1, 1}, {256, 1, 1}, 0, {Bytes(8, 1), Bytes(8, 2), Bytes(8, 3)}});
  plan.operations.push_back(Upload{0x7000'0000'0000, Bytes{1, 2, 3, 4}});
  plan.operations.push_back(Fill{0x7000'0000'1000, 64, 0});
  plan.answer = {42, 0, 0, 0, 0, 0, 0, 0};
  return plan;
}

const std::vector<Buffer> kGiven = {{"in", 0x7000'0000'0000, 4096}, {"out", 0x7000'0000'1000, 4096}};

std::optional<std::vector<std::size_t>> copy_kernel_only(const std::string& name) {
  if (name == "_Z11copy_kernelPKfPfm") return std::vector<std::size_t>{8, 8, 8};
  return std::nullopt;
}

std::string defect_of(const Operation& operation, DeviceLimits limits = {}) {
  Plan plan;
  plan.operations.push_back(operation);
  return defect(plan, kGiven, limits, copy_kernel_only);
}

}  // namespace

TEST_CASE("plan: a plan and a request cross the pipe unchanged") {
  const Plan plan = sample_plan();
  CHECK(decode_plan(encode(plan)) == plan);
  Plan failed;
  failed.failure = "TODO(02.1) not implemented";
  failed.not_implemented = true;
  CHECK(decode_plan(encode(failed)) == failed);
  const Request request{"copy_several_floats", Bytes(40, 7)};
  CHECK(decode_request(encode(request)) == request);
}

TEST_CASE("plan: every cut of a message, anything after it, and a length past its end are refused") {
  const std::string whole = encode(sample_plan());
  for (std::size_t length = 0; length < whole.size(); ++length)
    CHECK_THROWS_AS(decode_plan(std::string_view(whole).substr(0, length)), std::invalid_argument);
  CHECK_THROWS_AS(decode_plan(whole + "x"), std::invalid_argument);
  CHECK_THROWS_AS(decode_request(whole), std::invalid_argument);  // a plan is not a request
  std::string flag = encode(Plan{});
  flag[8 + 8] = 2;  // the not-implemented flag, neither 0 nor 1
  CHECK_THROWS_WITH_AS(decode_plan(flag), doctest::Contains("neither 0 nor 1"), std::invalid_argument);
  // The failure text's length field set to 2^63: refused, not read.
  std::string huge = whole;
  huge[8 + 7] = static_cast<char>(0x80);
  CHECK_THROWS_WITH_AS(decode_plan(huge), doctest::Contains("ends inside a field"), std::invalid_argument);
  // More operations than a plan may hold, before any is read.
  Plan empty;
  std::string many = encode(empty);
  many[many.size() - 3] = 0x7F;  // the operation count's sixth byte: over 2^46
  CHECK_THROWS_WITH_AS(decode_plan(many), doctest::Contains("operations, more than"), std::invalid_argument);
  std::string unknown = encode(empty);
  unknown[unknown.size() - 8] = 1;  // one operation, whose tag is missing
  CHECK_THROWS_AS(decode_plan(unknown), std::invalid_argument);
  unknown += '\x09';  // of a kind that does not exist
  CHECK_THROWS_WITH_AS(decode_plan(unknown), doctest::Contains("no known kind"), std::invalid_argument);
}

TEST_CASE("plan: a question the planner asks and the judge's reply cross unchanged; a malformed one is refused") {
  const Question occupancy{Question::Kind::kOccupancy, "_Z11copy_kernelPKfPfm", {256, 49152, 0}, {}};
  CHECK(decode_question(encode(occupancy)) == occupancy);
  const Question map{Question::Kind::kTensorMap, "", {}, Bytes(96, 5)};
  CHECK(decode_question(encode(map)) == map);
  const Reply reply{0, Bytes{4, 0, 0, 0}};
  CHECK(decode_reply(encode(reply)) == reply);
  CHECK(decode_reply(encode(Reply{100, {}})).error == 100);
  CHECK(is_question(encode(occupancy)));
  CHECK_FALSE(is_question(encode(sample_plan())));  // a plan, the other thing a planner sends
  const std::string whole = encode(occupancy);
  for (std::size_t length = 0; length < whole.size(); ++length)
    CHECK_THROWS_AS(decode_question(std::string_view(whole).substr(0, length)), std::invalid_argument);
  std::string unknown = whole;
  unknown[8] = 9;  // the kind
  CHECK_THROWS_WITH_AS(decode_question(unknown), doctest::Contains("no known kind"), std::invalid_argument);
  CHECK_THROWS_AS(decode_reply(whole), std::invalid_argument);  // a question is not a reply
}

TEST_CASE("plan: the student's own kernels with their arguments' sizes, within the GPU's limits, are replayed") {
  CHECK(defect(sample_plan(), kGiven, DeviceLimits{}, copy_kernel_only) == "");
  CHECK(defect(Plan{}, kGiven, DeviceLimits{}, copy_kernel_only) == "");
}

TEST_CASE("plan: a kernel that is not the student's, or arguments of other sizes, are refused") {
  CHECK(defect_of(KernelLaunch{"_Z14cublas_kernelv", {1, 1, 1}, {1, 1, 1}, 0, {}}) ==
        "operation 1 of 1: kernel _Z14cublas_kernelv is not one of your file's kernels: launch only kernels your file "
        "defines");
  CHECK(defect_of(KernelLaunch{"_Z11copy_kernelPKfPfm", {1, 1, 1}, {1, 1, 1}, 0, {Bytes(8), Bytes(8)}}) ==
        "operation 1 of 1: kernel _Z11copy_kernelPKfPfm takes 3 arguments, but the launch passed 2");
  CHECK(defect_of(KernelLaunch{"_Z11copy_kernelPKfPfm", {1, 1, 1}, {1, 1, 1}, 0, {Bytes(8), Bytes(8), Bytes(4)}}) ==
        "operation 1 of 1: kernel _Z11copy_kernelPKfPfm: argument 3 is 8 bytes, but the launch passed 4");
}

TEST_CASE("plan: a shape or shared memory the GPU cannot give is refused") {
  const Bytes word(8);
  const auto launch = [&](Extent grid, Extent block, std::uint32_t shared) {
    return KernelLaunch{"_Z11copy_kernelPKfPfm", grid, block, shared, {word, word, word}};
  };
  CHECK(defect_of(launch({1, 1, 1}, {1024, 1, 1}, 0)) == "");
  CHECK_MESSAGE(defect_of(launch({1, 1, 1}, {1025, 1, 1}, 0)).find("a block of 1025 x 1 x 1 threads is more") !=
                    std::string::npos,
                "");
  CHECK(defect_of(launch({1, 1, 1}, {32, 32, 2}, 0)).find("a block of 32 x 32 x 2") != std::string::npos);
  CHECK(defect_of(launch({1, 1, 1}, {1, 1, 65}, 0)).find("more than this GPU allows") != std::string::npos);
  CHECK(defect_of(launch({1, 65536, 1}, {1, 1, 1}, 0)).find("a grid of 1 x 65536 x 1 blocks") != std::string::npos);
  CHECK(defect_of(launch({0, 1, 1}, {1, 1, 1}, 0)).find("a grid or block of 0 threads") != std::string::npos);
  CHECK(defect_of(launch({1, 1, 1}, {1, 1, 1}, 232448)) == "");
  CHECK(defect_of(launch({1, 1, 1}, {1, 1, 1}, 232449)).find("bytes of dynamic shared memory is more") !=
        std::string::npos);
}

TEST_CASE("plan: a copy or fill lands inside one buffer the grader gave, or is refused") {
  CHECK(defect_of(Upload{0x7000'0000'0000, Bytes(4096)}) == "");
  CHECK(defect_of(Fill{0x7000'0000'1000, 4096, 0}) == "");
  CHECK(defect_of(Fill{0x7000'0000'2000, 0, 0}) == "");  // nothing written: nowhere to check
  CHECK(defect_of(Upload{0x7000'0000'0000, Bytes(4097)}) ==
        "operation 1 of 1: a copy of 4097 bytes at 0x700000000000 is not inside any buffer the grader gave this call "
        "(in, out): copy and fill only into the problem's own arrays and workspace");
  CHECK(defect_of(Fill{0x6FFF'FFFF'FFFF, 2, 0}) != "");                  // starts before the first
  CHECK(defect_of(Fill{0x7000'0000'0FFF, 2, 0}) != "");                  // across the end of one into the next
  CHECK(defect_of(Fill{0xFFFF'FFFF'FFFF'FFFF, 2, 0}) != "");             // past 2^64, which must not wrap
  CHECK(defect_of(Fill{0x7000'0000'1000, ~std::uint64_t{0}, 0}) != "");  // a length that would wrap
  Plan two;
  two.operations = {Fill{0x7000'0000'0000, 8, 0}, Fill{0x9000'0000'0000, 8, 0}};
  CHECK(defect(two, kGiven, DeviceLimits{}, copy_kernel_only).rfind("operation 2 of 2: a fill of 8 bytes", 0) == 0);
}

TEST_CASE("plan: messages cross a pipe whole, and a pipe that ends inside one says so") {
  int ends[2];
  REQUIRE(pipe(ends) == 0);
  const std::string plan = encode(sample_plan());
  send_message(ends[1], plan);
  send_message(ends[1], "");
  const std::string length_only("\x05\0\0\0\0\0\0\0abc", 11);  // announces 5 bytes, then the pipe ends after 3
  REQUIRE(write(ends[1], length_only.data(), length_only.size()) == 11);
  close(ends[1]);
  CHECK(receive_message(ends[0]) == plan);
  CHECK(receive_message(ends[0]) == std::string());
  CHECK_THROWS_WITH_AS(receive_message(ends[0]), "the pipe ended inside a message", std::runtime_error);
  close(ends[0]);
  REQUIRE(pipe(ends) == 0);
  const std::string huge("\0\0\0\0\0\0\0\x40", 8);  // 2^62 bytes
  REQUIRE(write(ends[1], huge.data(), huge.size()) == 8);
  close(ends[1]);
  CHECK_THROWS_WITH_AS(receive_message(ends[0]), doctest::Contains("bytes was announced, more than"),
                       std::runtime_error);
  close(ends[0]);
  REQUIRE(pipe(ends) == 0);
  close(ends[1]);
  CHECK(receive_message(ends[0]) == std::nullopt);  // ended before any message: the planner is done
  close(ends[0]);
}

TEST_CASE("plan: a timed problem is planned for itself, even where a correctness case had the same bytes") {
  // A correctness case and the timed call at the same addresses (cudaMalloc reuses freed ones): the
  // same key. The case's plan must not stand in for the timed call's (a planner may plan otherwise
  // once the grader's timed arrays exist); what was planned for timing stays for every timed call.
  Book book;
  const Book::Key problem{"sgemm_coalesced", Bytes(40, 7)};
  Plan for_the_case = sample_plan(), for_timing = sample_plan();
  for_timing.operations.pop_back();
  book.keep(problem, for_the_case, /*for_timing=*/false);
  REQUIRE(book.find(problem) != nullptr);
  CHECK(*book.find(problem) == for_the_case);  // the case's later calls replay it
  book.forget_untimed();                       // timing is planned
  CHECK(book.find(problem) == nullptr);        // so the planner is asked again
  book.keep(problem, for_timing, /*for_timing=*/true);
  const Book::Key next_step_case{"sgemm_shared_tiles", Bytes(40, 7)};
  book.keep(next_step_case, for_the_case, /*for_timing=*/false);
  book.forget_untimed();  // the next step's timing: its cases' plans go, the timed ones stay
  REQUIRE(book.find(problem) != nullptr);
  CHECK(*book.find(problem) == for_timing);
  CHECK(book.find(next_step_case) == nullptr);
  CHECK(book.size() == 1);
}

TEST_CASE("plan: a tensor map describes only memory the grader gave the call") {
  const std::vector<workbook::plan::Buffer> given = {{"a", 0x10000, 4096 * 4096 * 4}, {"c", 0x8000000, 1024}};
  workbook::plan::TensorMapArguments map;
  map.data_type = 7;  // float32
  map.rank = 2;
  map.address = 0x10000;
  map.dims[0] = 4096;
  map.dims[1] = 4096;
  map.strides[0] = 4096 * 4;
  CHECK(workbook::plan::tensor_map_outside(map, given) == "");  // A whole
  map.dims[1] = 4097;                                           // a row past A's end
  CHECK(workbook::plan::tensor_map_outside(map, given).find("not inside any buffer the grader gave") !=
        std::string::npos);
  map.dims[1] = 1;
  map.address = 0x9000000;  // somewhere no buffer is, as the grader's own arrays would be
  CHECK(workbook::plan::tensor_map_outside(map, given).find("describe only the problem's own arrays") !=
        std::string::npos);
  map.address = 0x8000000;
  map.dims[0] = 256;
  CHECK(workbook::plan::tensor_map_outside(map, given) == "");  // C's 1024 bytes
  map.strides[0] = ~0ull;
  map.dims[1] = 2;
  CHECK(workbook::plan::tensor_map_outside(map, given) != "");  // a stride that overflows
}
