// `./workbook profile NN.k`: a step's kernels under Nsight Compute (ncu), and a short table of the
// counters its lab chooses, each with one line in the lab's words. Plain C++, tested on the CPU with
// ncu's recorded outputs (solutions/profiles/): what a counter reads, how the step's kernels are
// taken together, the table, and what ncu said when it profiled nothing.
//
// The flow (grader/runner/grade.cpp runs it): the judge names the metrics its lab's counters read
// (the metrics line of its --describe answer); ncu runs the judge with --profile=ID, which replays
// the step's plan at its bar's shape once between cudaProfilerStart and cudaProfilerStop, so that
// only the student's kernels are profiled (ncu --profile-from-start off), one launch each; then the judge, with no GPU,
// reads ncu's CSV and prints the table (--profile-report=ID). Nothing of it touches a verdict.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace workbook::profile {

// One kernel's metrics, by ncu's names, in ncu's base units (bytes, nanoseconds, %).
using Values = std::map<std::string, double>;

struct Kernel {
  std::string name;  // as ncu demangles it
  Values values;
};

// A counter of the table: what it reads, what it shows, and what it means for the lab's ideas.
struct Counter {
  std::string name;                                           // the table's first column
  std::vector<std::string> metrics;                           // the ncu metrics it reads
  std::function<std::optional<double>(const Values&)> value;  // nothing where it has no meaning (no such loads)
  int decimals = 1;
  std::string meaning;  // one line, in the lab's words
  // Shown in place of the number where set (the top stall reasons): "" when it has nothing to say.
  std::function<std::string(const Values&)> text = nullptr;
  // Device attributes it reads ("device__attribute_multiprocessor_count"), which ncu reports with
  // every kernel unasked.
  std::vector<std::string> attributes = {};
};

// The time of the step's kernels, always the table's first row.
inline constexpr const char* kTimeMetric = "gpu__time_duration.sum";

// ncu's --metrics for `counters`: each metric once, the kernel time first, comma-separated.
std::string metrics_of(const std::vector<Counter>& counters);

// The kernels in ncu's output (`ncu --csv --page raw --print-units base`, among the judge's own
// lines), in the order they ran. Numbers as ncu prints them ("1,980,000"); a value that is not a
// number ("n/a", "No-CC") is left out.
std::vector<Kernel> kernels_in(std::string_view ncu_output);

// Why ncu gave no profile, in words a student can act on: the GPU's counters closed to this user
// (ERR_NVGPUCTRPERM), a metric this ncu does not know, no kernel profiled; "" when it profiled some.
std::string ncu_failure(std::string_view ncu_output, std::size_t kernels_found);

// The step's kernels as one: counts (".sum") added up; rates, percentages, ratios and the rest
// weighted by each kernel's time.
Values combined(const std::vector<Kernel>& kernels);

// One column of the table: a heading ("yours", "solution") and the step's combined values, or none.
struct Column {
  std::string heading;
  std::optional<Values> values;
};

// The table: the kernels' time, then each counter, a column each, then its meaning.
std::string table(const std::vector<Counter>& counters, const std::vector<Column>& columns);

// Values recorded on a GPU for the steps' solutions (classroom/profiles/<gpu>.tsv): lines
// "STEP<TAB>METRIC<TAB>VALUE", '#' comments; the step's values, empty when it has none. Throws
// std::invalid_argument naming the file and line of a malformed one.
Values recorded_values(const std::string& path, const std::string& step);
// Those lines for one step's values: what `counters` read, and the kernels' time (the judge's
// --profile-report --recorded-lines).
std::string recorded_lines(const std::string& step, const Values& values, const std::vector<Counter>& counters);

// A kernel's name as ncu demangles it, without its anonymous namespaces ("unnamed>::").
std::string readable(std::string kernel_name);

// ----- Counters that several labs use -----
// A metric as it is.
Counter metric(std::string name, std::string ncu_metric, int decimals, std::string meaning);
// Metrics added up.
Counter total(std::string name, std::vector<std::string> ncu_metrics, int decimals, std::string meaning);
// One metric over another (nothing where the second is 0), times `scale`.
Counter ratio(std::string name, std::string numerator, std::string denominator, double scale, int decimals,
              std::string meaning);
// Shared-memory wavefronts per shared load (or store) instruction: 1 when a warp's 32 accesses hit
// 32 banks (or share words), up to 32 when they all hit one bank.
Counter shared_wavefronts_per_request(bool loads, std::string meaning);
// Global-memory sectors (32 bytes) per load (or store) instruction: 4 for 32 threads reading
// consecutive floats, 32 when each thread's float is a sector of its own.
Counter global_sectors_per_request(bool loads, std::string meaning);
// What the GPU's device memory moved, as % of its peak; warps resident, as % of the SM's maximum;
// the FMA pipe's busy cycles, as % of its peak; load and store instructions to local memory.
Counter dram_throughput(std::string meaning);
Counter achieved_occupancy(std::string meaning);
Counter fma_pipe(std::string meaning);
Counter local_memory_instructions(std::string meaning);
// Little's law: the bytes a step keeps in flight to device memory, per SM, from the bandwidth it
// reached and the memory latency `latency_us` (the lab's figure).
Counter bytes_in_flight_per_sm(double latency_us, std::string meaning);
// The two reasons warps stalled most, in cycles per issued instruction.
Counter top_stall_reasons(std::string meaning);

}  // namespace workbook::profile
