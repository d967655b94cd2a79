// A "student's" host code for the planner test (test_planner_process.cpp): a function of each kind
// the judge asks a planner for, served on descriptors 3 and 4 as a lab's planner serves its own.
#include <cuda.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>
#include <algorithm>
#include <cerrno>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include "planner/planner.h"
#include "planner_student.h"

namespace {

using planner_test::Chain;
using planner_test::Occupancy;
using planner_test::Shape;
using planner_test::Target;

std::size_t workspace_bytes(const Shape& shape) { return std::size_t(shape.rows) * shape.cols * 4 + 256; }

Occupancy occupancy_of(Shape shape, int threads) {
  std::printf("occupancy_of: a student's debugging line, on standard output\n");  // never on the plans' pipe
  std::fflush(stdout);
  return {threads / shape.cols, 2};
}

void todo_launcher(const Shape&, cudaStream_t) { throw workbook::NotImplemented("TODO(09.1) not implemented"); }

void refusing_launcher(const Shape& shape, cudaStream_t) {
  if (shape.rows <= 0) throw std::invalid_argument("rows must be positive");
}

// A launcher's upload and fill (lab 01 uploads its chase, lab 06 zeroes its workspace): operations
// of the plan, at the judge's addresses, with nothing copied here.
void zeroes_then_uploads(const Target& target, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(target.out, 0, target.count * sizeof(float), stream));
  const float corner[4] = {1.0f, 2.0f, 3.0f, 4.0f};
  CUDA_CHECK(cudaMemcpyAsync(target.out + 4, corner, sizeof(corner), cudaMemcpyHostToDevice, stream));
}
// The same with the synchronous forms, as a textbook writes them: the same plan.
void zeroes_then_uploads_synchronously(const Target& target, cudaStream_t) {
  CUDA_CHECK(cudaMemset(target.out, 0, target.count * sizeof(float)));
  const float corner[4] = {1.0f, 2.0f, 3.0f, 4.0f};
  CUDA_CHECK(cudaMemcpy(target.out + 4, corner, sizeof(corner), cudaMemcpyHostToDevice));
}
void copies_on_the_device(const Target& target, cudaStream_t stream) {
  CUDA_CHECK(cudaMemcpyAsync(target.out, target.out + 8, 16, cudaMemcpyDeviceToDevice, stream));
}

// What the planner holds open beyond its standard streams and the protocol's 3 and 4: the judge's
// descriptors must not reach it.
int descriptors_beyond_the_protocol(int) {
  int count = 0;
  if (DIR* open_ones = opendir("/proc/self/fd")) {
    const int listing = dirfd(open_ones);
    while (const dirent* entry = readdir(open_ones)) {
      const int fd = std::atoi(entry->d_name);
      if (entry->d_name[0] != '.' && fd > 4 && fd != listing) ++count;
    }
    closedir(open_ones);
  }
  return count;
}

// This process's pid as every process sees it: /proc is the one the judge's side mounted, so its
// "self" names the pid outside any PID namespace the planner lives in.
int outer_pid() {
  char name[32] = {};
  if (::readlink("/proc/self", name, sizeof name - 1) <= 0) return -1;
  return std::atoi(name);
}

// A process left behind as a daemon is: a fork that starts a session of its own and forks again,
// the middle one exiting at once, so that the last is no child of the planner's and in no group of
// its. It sleeps, as one that kept the GPU busy would run on. Its pid is the answer.
int leaves_a_process_behind(int) {
  int pid_pipe[2];
  if (::pipe(pid_pipe) != 0) return -1;
  const pid_t middle = ::fork();
  if (middle == 0) {
    ::setsid();
    if (::fork() == 0) {
      const int last = outer_pid();
      (void)!::write(pid_pipe[1], &last, sizeof last);
      // Its standard streams closed, as a daemon's are (and so that a test that fails is not held
      // open by it).
      for (int fd = 0; fd < 3; ++fd) ::close(fd);
      for (;;) ::sleep(1);
    }
    ::_exit(0);
  }
  int last = -1;
  (void)!::read(pid_pipe[0], &last, sizeof last);
  ::close(pid_pipe[0]);
  ::close(pid_pipe[1]);
  return last;
}

// A chain of `depth` processes, each in a session of its own, each handing the next to a new parent
// (a middle process that exits) and then spinning on a CPU: what a launcher that wants to outlive its
// step starts. Their pids are the answer.
[[noreturn]] void link_of_a_chain(int k, int depth, int pid_pipe) {
  ::setsid();
  const int self = outer_pid();
  (void)!::write(pid_pipe, &self, sizeof self);
  if (k + 1 < depth && ::fork() == 0) {
    if (::fork() == 0) link_of_a_chain(k + 1, depth, pid_pipe);
    ::_exit(0);
  }
  for (int fd = 0; fd < 3; ++fd) ::close(fd);
  for (;;) __asm__ volatile("");  // a CPU kept busy
}
Chain chain_of_processes(int depth) {
  Chain chain;
  depth = std::min(depth, 64);
  int pid_pipe[2];
  if (::pipe(pid_pipe) != 0) return chain;
  if (::fork() == 0) link_of_a_chain(0, depth, pid_pipe[1]);
  for (; chain.count < depth; ++chain.count)
    if (::read(pid_pipe[0], &chain.pids[chain.count], sizeof(int)) != sizeof(int)) break;
  ::close(pid_pipe[0]);
  ::close(pid_pipe[1]);
  return chain;
}

// What the planner may read: a file of the checkout it was built in (README.md, found above its own
// binary, beside CMakePresets.json), and the folder above its working folder (where a step's rows and other students'
// results lie): 0 or the errno of each, as checkout * 1000 + beside.
int reads_beyond_its_folder(int) {
  std::string checkout(256, '\0');
  const ssize_t bytes = ::readlink("/proc/self/exe", checkout.data(), checkout.size());
  checkout.resize(bytes > 0 ? static_cast<std::size_t>(bytes) : 0);
  const auto holds = [](const std::string& folder, const char* entry) {
    struct stat found {};
    return ::stat((folder + "/" + entry).c_str(), &found) == 0;  // stat() reads no file
  };
  while (!checkout.empty() && !(holds(checkout, "CMakePresets.json") && holds(checkout, "grader")))
    checkout.resize(checkout.rfind('/'));
  const int file = ::open((checkout + "/README.md").c_str(), O_RDONLY);
  const int file_error = file >= 0 ? 0 : errno;
  if (file >= 0) ::close(file);
  DIR* beside = ::opendir("..");
  const int folder_error = beside != nullptr ? 0 : errno;
  if (beside != nullptr) ::closedir(beside);
  return file_error * 1000 + folder_error;
}

// Connects to a TCP listener on this machine's port `port`, and to the abstract unix socket named
// "workbook-test-<port>": 0 or the errno of each, as tcp * 1000 + unix.
int connects_to_listeners(int port) {
  const auto errno_of = [](int domain, const sockaddr* address, socklen_t size) {
    const int fd = ::socket(domain, SOCK_STREAM, 0);
    if (fd < 0) return errno;
    const int error = ::connect(fd, address, size) == 0 ? 0 : errno;
    ::close(fd);
    return error;
  };
  sockaddr_in tcp{};
  tcp.sin_family = AF_INET;
  tcp.sin_port = htons(static_cast<std::uint16_t>(port));
  tcp.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  sockaddr_un unix_socket{};
  unix_socket.sun_family = AF_UNIX;
  const int named = std::snprintf(unix_socket.sun_path + 1, sizeof unix_socket.sun_path - 1, "workbook-test-%d", port);
  return errno_of(AF_INET, reinterpret_cast<const sockaddr*>(&tcp), sizeof tcp) * 1000 +
         errno_of(AF_UNIX, reinterpret_cast<const sockaddr*>(&unix_socket),
                  static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + named));
}

// A planner that ends without answering while a process it started holds its pipes open: the judge
// must not wait for an answer that cannot come.
int dies_leaving_the_pipe_open(int) {
  if (::fork() == 0) {
    for (int fd = 0; fd < 3; ++fd) ::close(fd);  // the protocol's 3 and 4 kept open
    for (;;) ::sleep(1);
  }
  ::_exit(3);
}

// A kernel launched past workbook::launch (what <<<...>>> compiles to): refused while planning, on
// any machine, before anything reaches a GPU.
void launches_past_workbook_launch(const Target& target, cudaStream_t stream) {
  void* arguments[] = {const_cast<float**>(&target.out)};
  CUDA_CHECK(
      cudaLaunchKernel(reinterpret_cast<const void*>(&workspace_bytes), dim3(1), dim3(32), arguments, 0, stream));
}

// What an ioctl gives the planner (0, or its errno), and a grandchild of the planner: the GPU's
// driver has no other way in.
int ioctl_errors(int) {
  const auto errno_of_an_ioctl = [] {
    const int fd = ::open("/dev/null", O_RDONLY);
    int waiting = 0;
    const int result = ::ioctl(fd, FIONREAD, &waiting);
    const int error = result == 0 ? 0 : errno;
    ::close(fd);
    return error;
  };
  const int own = errno_of_an_ioctl();
  const pid_t child = ::fork();
  if (child == 0) {
    if (::fork() == 0) ::_exit(errno_of_an_ioctl());
    int status = 0;
    ::wait(&status);
    ::_exit(WEXITSTATUS(status));
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  return own * 1000 + WEXITSTATUS(status);
}

// Writes a file in the planner's working folder and one beside it (in the folder above, where a
// step's rows and log are): 0 or the errno of each, as inside * 1000 + outside.
int writes_beside_its_folder(int) {
  const auto errno_of_writing = [](const char* path) {
    const int fd = ::open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) return errno;
    ::close(fd);
    ::unlink(path);
    return 0;
  };
  return errno_of_writing("planner_test_inside.txt") * 1000 + errno_of_writing("../planner_test_outside.txt");
}

// A tensor map, as lab 04's copy engine encodes one: the driver's encoder through the runtime.
unsigned tensor_map_first_word(std::uint64_t address) {
  void* function = nullptr;
  cudaDriverEntryPointQueryResult found{};
  if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &function, 12000, cudaEnableDefault, &found) !=
          cudaSuccess ||
      found != cudaDriverEntryPointSuccess)
    return 1;
  const auto encode = reinterpret_cast<decltype(&cuTensorMapEncodeTiled)>(function);
  const cuuint64_t shape[2] = {64, 32}, row_bytes[1] = {256};
  const cuuint32_t tile[2] = {16, 8}, steps[2] = {1, 1};
  CUtensorMap map{};
  if (encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, reinterpret_cast<void*>(address), shape, row_bytes, tile, steps,
             CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
             CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS)
    return 2;
  unsigned first = 0;
  std::memcpy(&first, &map, sizeof first);
  return first;
}

// A stream of its own (a name: nothing runs in a planner), and a device allocation (refused).
int makes_a_stream(int) {
  cudaStream_t side = nullptr;
  return cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking) == cudaSuccess && side != nullptr ? 1 : 0;
}
void allocates(const Target&, cudaStream_t) {
  void* mine = nullptr;
  CUDA_CHECK(cudaMalloc(&mine, 1024));
}

std::size_t crashes(const Shape& shape) {
  volatile int* nowhere = nullptr;
  return static_cast<std::size_t>(*nowhere + shape.rows);
}

}  // namespace

int main() {
  workbook::serve_plans(
      3, 4,
      {workbook::student_function("workspace_bytes", workspace_bytes),
       workbook::student_function("occupancy_of", occupancy_of),
       workbook::student_function("todo_launcher", todo_launcher),
       workbook::student_function("refusing_launcher", refusing_launcher),
       workbook::student_function("zeroes_then_uploads", zeroes_then_uploads),
       workbook::student_function("zeroes_then_uploads_synchronously", zeroes_then_uploads_synchronously),
       workbook::student_function("copies_on_the_device", copies_on_the_device),
       workbook::student_function("descriptors_beyond_the_protocol", descriptors_beyond_the_protocol),
       workbook::student_function("launches_past_workbook_launch", launches_past_workbook_launch),
       WORKBOOK_STUDENT_FUNCTION(planner_test::launches_with_chevrons),
       WORKBOOK_STUDENT_FUNCTION(planner_test::launches_through_workbook),
       workbook::student_function("crashes", crashes),
       workbook::student_function("leaves_a_process_behind", leaves_a_process_behind),
       workbook::student_function("chain_of_processes", chain_of_processes),
       workbook::student_function("reads_beyond_its_folder", reads_beyond_its_folder),
       workbook::student_function("connects_to_listeners", connects_to_listeners),
       workbook::student_function("dies_leaving_the_pipe_open", dies_leaving_the_pipe_open),
       workbook::student_function("ioctl_errors", ioctl_errors),
       workbook::student_function("writes_beside_its_folder", writes_beside_its_folder),
       WORKBOOK_STUDENT_FUNCTION(planner_test::grid_from_the_runtime),
       workbook::student_function("tensor_map_first_word", tensor_map_first_word),
       workbook::student_function("makes_a_stream", makes_a_stream),
       workbook::student_function("allocates", allocates)},
      nullptr);
  return 0;
}
