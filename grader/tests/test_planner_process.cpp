// The planner as a process of its own (planner_process.h): the judge asks it for what a student's
// host-only functions return, and for a launcher's plan; whatever the student's code throws, prints
// or crashes on comes back as words, never as a judge that stops. Runs on the CPU: nothing here
// launches a kernel (planner_student.cpp is the "student").
#include <doctest/doctest.h>

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "judge/planner_process.h"
#include "planner_student.h"

using planner_test::Chain;
using planner_test::Occupancy;
using planner_test::Shape;
using planner_test::Target;

TEST_CASE("planner process: a host-only function's answer comes back as data, its prints stay out of the plans") {
  workbook::PlannerProcess planner({WORKBOOK_TEST_PLANNER});
  CHECK(workbook::planned_answer<std::size_t>(planner, "workspace_bytes", Shape{3, 5}) == 3 * 5 * 4 + 256);
  const Occupancy occupancy = workbook::planned_answer<Occupancy>(planner, "occupancy_of", Shape{3, 32}, 256);
  CHECK(occupancy.blocks == 8);
  CHECK(occupancy.limiter == 2);
  CHECK(workbook::planned_answer<std::size_t>(planner, "workspace_bytes", Shape{1, 1}) ==
        260);  // the same planner again
}

TEST_CASE("planner process: no descriptor of the judge's reaches the planner, close-on-exec or not") {
  // As a judge holds a step's rows: a descriptor inherited from the runner, not close-on-exec.
  const int rows = ::open("/dev/null", O_WRONLY);
  REQUIRE(rows >= 0);
  workbook::PlannerProcess planner({WORKBOOK_TEST_PLANNER});
  CHECK(workbook::planned_answer<int>(planner, "descriptors_beyond_the_protocol", 0) == 0);
  ::close(rows);
}

TEST_CASE("planner process: the planner and what it starts may make no ioctl, so no GPU driver can start there") {
  workbook::PlannerProcess planner({WORKBOOK_TEST_PLANNER});
  // The planner's own ioctl, and its grandchild's: each refused (EPERM) by the filter they inherit.
  CHECK(workbook::planned_answer<int>(planner, "ioctl_errors", 0) == EPERM * 1000 + EPERM);
}

TEST_CASE("planner process: with Landlock, the planner writes only in its working folder, never beside it") {
  if (workbook::landlock_version() == 0) {
    MESSAGE("this kernel has no Landlock: the planner may write wherever this user may (the judge says so)");
    return;
  }
  workbook::PlannerProcess planner({WORKBOOK_TEST_PLANNER});
  CHECK(workbook::planned_answer<int>(planner, "writes_beside_its_folder", 0) == 0 * 1000 + EACCES);
}

TEST_CASE("planner process: with Landlock, the planner reads nothing of the checkout and nothing beside its folder") {
  if (workbook::landlock_version() == 0) {
    MESSAGE(
        "this kernel has no Landlock: the planner may read whatever this user may (the judge refuses a submission)");
    return;
  }
  workbook::PlannerProcess planner({WORKBOOK_TEST_PLANNER});
  // The instructor's checkout (its README.md), and the folder above its working folder.
  CHECK(workbook::planned_answer<int>(planner, "reads_beyond_its_folder", 0) == EACCES * 1000 + EACCES);
}

TEST_CASE("planner process: a private folder inside one a planner may read is left out of it, and nothing else") {
  const auto within = [](const std::string& path, const std::vector<std::string>& folders) {
    return std::any_of(folders.begin(), folders.end(),
                       [&](const std::string& folder) { return path == folder || path.starts_with(folder + "/"); });
  };
  // The checkout this test was built in, wherever it lies, and a folder the runner names private
  // (here one inside /usr, as a checkout in /usr/local/src would be).
  const std::string checkout = std::filesystem::canonical(WORKBOOK_SOURCE_DIR).string();
  const std::string share = std::filesystem::canonical("/usr/share").string();
  ::setenv("WORKBOOK_PRIVATE_FOLDERS", share.c_str(), 1);
  const std::vector<std::string> readable = workbook::what_a_planner_may_read();
  ::unsetenv("WORKBOOK_PRIVATE_FOLDERS");
  CHECK_FALSE(within(checkout, readable));
  CHECK_FALSE(within(share + "/doc", readable));
  CHECK(within(std::filesystem::canonical("/usr/bin").string(), readable));
  CHECK(within(std::filesystem::canonical("/etc").string(), readable));
}

TEST_CASE("planner process: the planner connects to nothing, a listener on this machine or an abstract unix socket") {
  // Both listening, so that a connection refused is the planner's filter, not an empty port.
  const int tcp = ::socket(AF_INET, SOCK_STREAM, 0), unix_socket = ::socket(AF_UNIX, SOCK_STREAM, 0);
  REQUIRE(tcp >= 0);
  REQUIRE(unix_socket >= 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(tcp, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0);
  socklen_t size = sizeof address;
  REQUIRE(::getsockname(tcp, reinterpret_cast<sockaddr*>(&address), &size) == 0);
  REQUIRE(::listen(tcp, 4) == 0);
  const int port = ntohs(address.sin_port);
  sockaddr_un name{};
  name.sun_family = AF_UNIX;
  const int named = std::snprintf(name.sun_path + 1, sizeof name.sun_path - 1, "workbook-test-%d", port);
  REQUIRE(::bind(unix_socket, reinterpret_cast<const sockaddr*>(&name),
                 static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + named)) == 0);
  REQUIRE(::listen(unix_socket, 4) == 0);
  workbook::PlannerProcess planner({WORKBOOK_TEST_PLANNER});
  CHECK(workbook::planned_answer<int>(planner, "connects_to_listeners", port) == EPERM * 1000 + EPERM);
  ::close(tcp);
  ::close(unix_socket);
}

TEST_CASE("planner process: what a launcher asks of the runtime is asked of the judge, which answers for its GPU") {
  std::vector<workbook::plan::Question> asked;
  const auto judge = [&asked](const workbook::plan::Question& question) -> workbook::plan::Reply {
    asked.push_back(question);
    using Kind = workbook::plan::Question::Kind;
    const auto int_bytes = [](int value) {
      workbook::plan::Bytes bytes(sizeof value);
      std::memcpy(bytes.data(), &value, sizeof value);
      return bytes;
    };
    if (question.kind == Kind::kDeviceAttribute) return {0, int_bytes(132)};
    if (question.kind == Kind::kOccupancy) return {0, int_bytes(6)};
    if (question.kind == Kind::kKernelAttributes) {
      cudaFuncAttributes attributes{};
      attributes.numRegs = 7;
      workbook::plan::Bytes bytes(sizeof attributes);
      std::memcpy(bytes.data(), &attributes, sizeof attributes);
      return {0, bytes};
    }
    if (question.kind == Kind::kTensorMap) return {0, workbook::plan::Bytes(128, 0xAB)};
    return {1, {}};
  };
  workbook::PlannerProcess planner({WORKBOOK_TEST_PLANNER}, judge);
  CHECK(workbook::planned_answer<int>(planner, "grid_from_the_runtime", 256) == 132 * 6 + 7);
  REQUIRE(asked.size() == 3);
  CHECK(asked[0].numbers == std::vector<std::uint64_t>{cudaDevAttrMultiProcessorCount});
  CHECK(asked[1].kind == workbook::plan::Question::Kind::kOccupancy);
  CHECK(asked[1].kernel == "_ZN12planner_test12scale_kernelEPff");  // its own kernel, by its device name
  CHECK(asked[1].numbers == std::vector<std::uint64_t>{256, 1000, cudaOccupancyDefault});
  // A tensor map of the judge's buffer, encoded by the judge: the lab's make_tile_map needs no launch before it.
  CHECK(workbook::planned_answer<unsigned>(planner, "tensor_map_first_word", std::uint64_t{0x7f00'0000'0000}) ==
        0xABABABABu);
  REQUIRE(asked.size() == 4);
  workbook::plan::TensorMapArguments arguments;
  REQUIRE(asked[3].bytes.size() == sizeof arguments);
  std::memcpy(&arguments, asked[3].bytes.data(), sizeof arguments);
  CHECK(arguments.address == 0x7f00'0000'0000u);
  CHECK(arguments.rank == 2);
  CHECK(arguments.box[0] == 16);
  // Streams are names; an allocation is refused with what to use instead.
  CHECK(workbook::planned_answer<int>(planner, "makes_a_stream", 0) == 1);
  const workbook::plan::Plan allocation = planner.call({"allocates", workbook::encode_arguments(Target{})});
  CHECK(allocation.failure.find("cudaMalloc: a launcher allocates no device memory") == 0);
}

TEST_CASE("planner process: without a judge to answer, the runtime says there is no device") {
  workbook::PlannerProcess planner({WORKBOOK_TEST_PLANNER});
  CHECK(workbook::planned_answer<int>(planner, "grid_from_the_runtime", 256) == -1);
}

TEST_CASE("planner process: a kernel launched past workbook::launch is refused, saying how to launch") {
  workbook::PlannerProcess planner({WORKBOOK_TEST_PLANNER});
  const workbook::plan::Plan plan =
      planner.call({"launches_past_workbook_launch", workbook::encode_arguments(Target{})});
  CHECK(plan.operations.empty());
  CHECK(plan.failure.find("past workbook::launch") != std::string::npos);
  CHECK(plan.failure.find("Launch every kernel with workbook::launch(") != std::string::npos);
}

TEST_CASE("planner process: a kernel launched with <<<...>>> is refused, saying how to launch") {
  workbook::PlannerProcess planner({WORKBOOK_TEST_PLANNER});
  const workbook::plan::Plan plan = planner.call({"launches_with_chevrons", workbook::encode_arguments(Target{})});
  CHECK(plan.operations.empty());
  CHECK(plan.failure.find("launched with <<<...>>>") != std::string::npos);
  CHECK(plan.failure.find("Launch every kernel with workbook::launch(") != std::string::npos);
}

TEST_CASE(
    "planner process: a kernel launched with workbook::launch is named as its device code names it, with no GPU") {
  // The name comes from what nvcc's start-up code registered, not from the CUDA runtime: the
  // planner makes no CUDA context (a judge's is a step's only one), and this runs where none can be.
  workbook::PlannerProcess planner({WORKBOOK_TEST_PLANNER});
  const std::uint64_t judges_address = 0x7f00'0000'0000;
  const workbook::plan::Plan plan = planner.call(
      {"launches_through_workbook", workbook::encode_arguments(Target{reinterpret_cast<float*>(judges_address), 128})});
  CHECK(plan.failure.empty());
  REQUIRE(plan.operations.size() == 1);
  const auto* launch = std::get_if<workbook::plan::KernelLaunch>(&plan.operations[0]);
  REQUIRE(launch != nullptr);
  CHECK(launch->kernel == "_ZN12planner_test12scale_kernelEPff");  // planner_test::scale_kernel(float*, float)
  CHECK(launch->grid.x == 2);
  CHECK(launch->block.x == 64);
  REQUIRE(launch->arguments.size() == 2);
  std::uint64_t out = 0;
  float by = 0;
  REQUIRE(launch->arguments[0].size() == sizeof(out));
  REQUIRE(launch->arguments[1].size() == sizeof(by));
  std::memcpy(&out, launch->arguments[0].data(), sizeof(out));
  std::memcpy(&by, launch->arguments[1].data(), sizeof(by));
  CHECK(out == judges_address);
  CHECK(by == 3.0f);
}

TEST_CASE("planner process: what the student's code throws comes back as what it was") {
  workbook::PlannerProcess planner({WORKBOOK_TEST_PLANNER});
  const workbook::plan::Plan todo =
      planner.call({"todo_launcher", workbook::encode_arguments(Shape{2, 2}, cudaStream_t{})});
  CHECK(todo.not_implemented);
  CHECK(todo.failure == "TODO(09.1) not implemented");
  CHECK(todo.operations.empty());
  CHECK_THROWS_WITH_AS(workbook::planned_answer<std::size_t>(planner, "todo_launcher", Shape{2, 2}, cudaStream_t{}),
                       "TODO(09.1) not implemented", workbook::NotImplemented);
  const workbook::plan::Plan refused = planner.call({"refusing_launcher", workbook::encode_arguments(Shape{0, 2})});
  CHECK_FALSE(refused.not_implemented);
  CHECK(refused.failure == "rows must be positive");
  // A launcher that returns normally launched nothing here, and says so with an empty plan.
  const workbook::plan::Plan nothing = planner.call({"refusing_launcher", workbook::encode_arguments(Shape{1, 2})});
  CHECK(nothing.failure.empty());
  CHECK(nothing.operations.empty());
}

TEST_CASE("planner process: a launcher's uploads and fills are operations of its plan, and no other copy is") {
  workbook::PlannerProcess planner({WORKBOOK_TEST_PLANNER});
  const std::uint64_t judges_address = 0x7f00'0000'0000;  // the judge's buffer: a number, never touched there
  const Target target{reinterpret_cast<float*>(judges_address), 16};
  const workbook::plan::Plan plan =
      planner.call({"zeroes_then_uploads", workbook::encode_arguments(target, cudaStream_t{})});
  REQUIRE(plan.failure == "");
  REQUIRE(plan.operations.size() == 2);
  CHECK(std::get<workbook::plan::Fill>(plan.operations[0]) == workbook::plan::Fill{judges_address, 64, 0});
  const auto& upload = std::get<workbook::plan::Upload>(plan.operations[1]);
  CHECK(upload.destination == judges_address + 16);
  CHECK(upload.bytes.size() == 16);
  float values[4];
  std::memcpy(values, upload.bytes.data(), sizeof values);
  CHECK(values[3] == 4.0f);
  // cudaMemset and cudaMemcpy, as a textbook launcher calls them: the same plan.
  CHECK(planner.call({"zeroes_then_uploads_synchronously", workbook::encode_arguments(target, cudaStream_t{})}) ==
        plan);
  const workbook::plan::Plan refused = planner.call({"copies_on_the_device", workbook::encode_arguments(target)});
  CHECK(refused.operations.empty());
  CHECK(refused.failure.find(
            "cudaMemcpyAsync: a launcher may copy only from the host into the problem's buffers (this copy is "
            "device to device") == 0);
}

TEST_CASE("planner process: a launcher's plan is checked before anything of it could run") {
  workbook::PlannerProcess planner({WORKBOOK_TEST_PLANNER});
  const std::uint64_t judges_address = 0x7f00'0000'0000;
  const Target target{reinterpret_cast<float*>(judges_address), 16};
  const auto no_kernels = [](const std::string&) { return std::optional<std::vector<std::size_t>>{}; };
  const std::vector<workbook::plan::Buffer> whole = {{"out", judges_address, 64}};
  CHECK(workbook::checked_plan(planner, "zeroes_then_uploads", whole, {}, no_kernels, target, cudaStream_t{})
            .operations.size() == 2);
  // The same launcher, given a buffer of half the size: its fill runs past it.
  const std::vector<workbook::plan::Buffer> half = {{"out", judges_address, 32}};
  CHECK_THROWS_WITH_AS(
      workbook::checked_plan(planner, "zeroes_then_uploads", half, {}, no_kernels, target, cudaStream_t{}),
      doctest::Contains("zeroes_then_uploads asked for what the grader does not run: operation 1 of 2: a fill "
                        "of 64 bytes at 0x7f0000000000 is not inside any buffer the grader gave this call (out)"),
      std::runtime_error);
  CHECK_THROWS_WITH_AS(
      workbook::checked_plan(planner, "todo_launcher", whole, {}, no_kernels, Shape{1, 1}, cudaStream_t{}),
      "TODO(09.1) not implemented", workbook::NotImplemented);
  CHECK_THROWS_WITH_AS(
      workbook::checked_plan(planner, "copies_on_the_device", whole, {}, no_kernels, target, cudaStream_t{}),
      doctest::Contains("this copy is device to device"), std::runtime_error);
}

TEST_CASE("planner process: a planner that crashes is reported with how it ended, and the judge goes on") {
  workbook::PlannerProcess planner({WORKBOOK_TEST_PLANNER});
  CHECK_THROWS_WITH_AS(
      planner.call({"crashes", workbook::encode_arguments(Shape{1, 1})}),
      doctest::Contains("the planner (your file's host code) stopped while crashes ran: it was ended by signal 11"),
      std::runtime_error);
  CHECK_THROWS_WITH_AS(planner.call({"workspace_bytes", workbook::encode_arguments(Shape{1, 1})}),
                       doctest::Contains("it had already ended"), std::runtime_error);
  // Arguments that are not the function's: the planner refuses them and ends; the judge says so.
  workbook::PlannerProcess again({WORKBOOK_TEST_PLANNER});
  CHECK_THROWS_WITH_AS(again.call({"workspace_bytes", workbook::plan::Bytes(3)}),
                       doctest::Contains("stopped while workspace_bytes ran"), std::runtime_error);
  workbook::PlannerProcess missing({"/nonexistent/planner"});
  CHECK_THROWS_WITH_AS(missing.call({"workspace_bytes", {}}), doctest::Contains("it could not be started"),
                       std::runtime_error);
}

TEST_CASE("planner process: a process the planner leaves behind ends with it, however it left") {
  workbook::adopt_what_planners_leave();  // as the judge does at its start
  int left = -1;
  {
    workbook::PlannerProcess planner({WORKBOOK_TEST_PLANNER});
    left = workbook::planned_answer<int>(planner, "leaves_a_process_behind", 0);
    REQUIRE(left > 0);
    CHECK(::kill(left, 0) == 0);  // running, in a session of its own, while the planner is
  }
  // Ended and reaped: not even a zombie is left.
  CHECK(::kill(left, 0) == -1);
  CHECK(errno == ESRCH);
}

TEST_CASE(
    "planner process: a chain of processes, each in its own session and handed to a new parent, ends with its step") {
  workbook::adopt_what_planners_leave();
  workbook::PlannerProcess planner({WORKBOOK_TEST_PLANNER});
  if (!planner.contained()) MESSAGE("this kernel lends no user namespaces: the judge reaps the chain one by one");
  const Chain chain = workbook::planned_answer<Chain>(planner, "chain_of_processes", 64);
  REQUIRE(chain.count == 64);
  for (int k = 0; k < chain.count; ++k) CHECK(::kill(chain.pids[k], 0) == 0);  // all running, each spinning
  const auto began = std::chrono::steady_clock::now();
  CHECK(planner.end() == "");  // the teardown says nothing was left
  CHECK(std::chrono::steady_clock::now() - began < std::chrono::seconds(1));
  int alive = 0;
  for (int k = 0; k < chain.count; ++k) alive += ::kill(chain.pids[k], 0) == 0;
  CHECK(alive == 0);
}

TEST_CASE("planner process: a planner that ends without answering fails at once, though its child holds the pipe") {
  workbook::adopt_what_planners_leave();
  workbook::PlannerProcess planner({WORKBOOK_TEST_PLANNER});
  const auto began = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH_AS(workbook::planned_answer<int>(planner, "dies_leaving_the_pipe_open", 0),
                       doctest::Contains("it exited with status 3"), std::runtime_error);
  CHECK(std::chrono::steady_clock::now() - began < std::chrono::seconds(3));
}

TEST_CASE("planner process: what the student's code prints is shown after it ends, each line labelled as theirs") {
  std::ostringstream shown;
  std::streambuf* const console = std::cout.rdbuf(shown.rdbuf());
  {
    workbook::PlannerProcess planner({WORKBOOK_TEST_PLANNER});
    workbook::planned_answer<Occupancy>(planner, "occupancy_of", Shape{3, 32}, 256);
  }
  std::cout.rdbuf(console);
  CHECK(shown.str().find("[workbook] what your file's host code printed") != std::string::npos);
  CHECK(shown.str().find("\n| occupancy_of: a student's debugging line, on standard output\n") != std::string::npos);
}
