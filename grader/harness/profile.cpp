#include "harness/profile.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <set>
#include <sstream>
#include <stdexcept>

namespace workbook::profile {

namespace {

// The fields of one CSV line, quotes taken off ("a,b" is one field; "" inside quotes is a quote).
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.push_back(field);
      field.clear();
    } else if (c != '\r') {
      field += c;
    }
  }
  fields.push_back(field);
  return fields;
}

// "1,980,000" or "12.5" as a number; nothing for "n/a", "", "No-CC" or "(32, 8, 1)".
std::optional<double> number(std::string text) {
  std::erase(text, ',');
  if (text.empty()) return std::nullopt;
  std::size_t used = 0;
  try {
    const double value = std::stod(text, &used);
    if (used == text.size() && std::isfinite(value)) return value;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

bool is_count(const std::string& metric) {
  return metric.ends_with(".sum") && metric.find("per_second") == std::string::npos;
}

std::string shown(double value, int decimals) {
  std::ostringstream text;
  text << std::fixed << std::setprecision(decimals) << value;
  return text.str();
}

const std::vector<std::string>& stall_reasons() {
  static const std::vector<std::string> reasons = {"long_scoreboard", "short_scoreboard",
                                                   "mio_throttle",    "math_pipe_throttle",
                                                   "barrier",         "wait",
                                                   "not_selected",    "lg_throttle",
                                                   "dispatch_stall",  "membar",
                                                   "no_instruction",  "branch_resolving"};
  return reasons;
}

std::string stall_metric(const std::string& reason) {
  return "smsp__average_warps_issue_stalled_" + reason + "_per_issue_active.ratio";
}

}  // namespace

std::string metrics_of(const std::vector<Counter>& counters) {
  std::vector<std::string> all = {kTimeMetric};
  for (const Counter& counter : counters)
    for (const std::string& m : counter.metrics)
      if (std::find(all.begin(), all.end(), m) == all.end()) all.push_back(m);
  std::string joined;
  for (const std::string& m : all) joined += (joined.empty() ? "" : ",") + m;
  return joined;
}

std::vector<Kernel> kernels_in(std::string_view ncu_output) {
  std::istringstream lines{std::string(ncu_output)};
  std::vector<std::string> header;
  std::vector<Kernel> kernels;
  bool units_next = false;
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("\"ID\",")) {  // the header: "ID","Process ID",...,"Kernel Name",...
      header = csv_fields(line);
      units_next = true;
      continue;
    }
    if (header.empty() || !line.starts_with('"')) continue;
    if (units_next) {  // the units' line, under the header
      units_next = false;
      continue;
    }
    const std::vector<std::string> fields = csv_fields(line);
    if (fields.size() != header.size()) continue;
    Kernel kernel;
    for (std::size_t f = 0; f < fields.size(); ++f) {
      if (header[f] == "Kernel Name") kernel.name = fields[f];
      else if (header[f].find("__") != std::string::npos)  // a metric: "dram__throughput.avg.pct..."
        if (const std::optional<double> value = number(fields[f])) kernel.values[header[f]] = *value;
    }
    kernels.push_back(std::move(kernel));
  }
  return kernels;
}

std::string ncu_failure(std::string_view output, std::size_t kernels_found) {
  const auto has = [&](std::string_view text) { return output.find(text) != std::string_view::npos; };
  // The line of `output` that starts at `at`.
  const auto line_at = [&](std::size_t at) {
    const std::size_t end = output.find('\n', at);
    return std::string(output.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at));
  };
  if (has("ERR_NVGPUCTRPERM"))
    return "Nsight Compute may not read this GPU's performance counters as the user the step runs as "
           "(ERR_NVGPUCTRPERM): the driver opens them to administrators only. An administrator can open them to "
           "every user: `options nvidia NVreg_RestrictProfilingToAdminUsers=0` in a file of /etc/modprobe.d/, then "
           "reload the driver or reboot (https://developer.nvidia.com/ERR_NVGPUCTRPERM). Grading does not need them";
  if (const std::size_t at = output.find("Failed to find metric"); at != std::string_view::npos)
    return "this Nsight Compute does not know a metric the lab reads (" + line_at(at) +
           "): profile needs the ncu of CUDA 12.0 or newer (ncu --version)";
  if (kernels_found > 0) return "";
  if (const std::size_t at = output.find("==ERROR=="); at != std::string_view::npos)
    return "Nsight Compute failed: " + line_at(at);
  return "Nsight Compute profiled no kernel: the step launched none where the grader replays it (launch every "
         "kernel with workbook::launch on the given stream)";
}

Values combined(const std::vector<Kernel>& kernels) {
  Values sums, weighted, weights;
  double total_time = 0;
  for (const Kernel& k : kernels) {
    const auto time = k.values.find(kTimeMetric);
    total_time += time == k.values.end() ? 0 : time->second;
  }
  for (const Kernel& k : kernels) {
    const auto time = k.values.find(kTimeMetric);
    // Weighted by time; kernels that took no measurable time, equally.
    const double weight = total_time > 0 ? (time == k.values.end() ? 0 : time->second) : 1.0;
    for (const auto& [metric, value] : k.values) {
      if (is_count(metric)) {
        sums[metric] += value;
      } else {
        weighted[metric] += weight * value;
        weights[metric] += weight;
      }
    }
  }
  Values all = sums;
  for (const auto& [metric, total] : weighted)
    if (weights[metric] > 0) all[metric] = total / weights[metric];
  return all;
}

std::string table(const std::vector<Counter>& counters, const std::vector<Column>& columns) {
  // Each row's cells first, then the widths: a stall reasons' cell is wider than a number's.
  struct Row {
    std::string name;
    std::vector<std::string> cells;
    std::string meaning;
  };
  std::vector<Row> rows;
  const auto add = [&](const std::string& name, const auto& cell, const std::string& meaning) {
    Row row{name, {}, meaning};
    for (const Column& column : columns) row.cells.push_back(column.values ? cell(*column.values) : std::string("-"));
    rows.push_back(std::move(row));
  };
  add(
      "time in the step's kernels (us)",
      [](const Values& v) {
        const auto t = v.find(kTimeMetric);
        return t == v.end() ? std::string("-") : shown(t->second / 1000.0, 1);
      },
      "");
  for (const Counter& counter : counters)
    add(
        counter.name,
        [&](const Values& v) {
          if (counter.text) {
            const std::string said = counter.text(v);
            return said.empty() ? std::string("-") : said;
          }
          const std::optional<double> value = counter.value(v);
          return value ? shown(*value, counter.decimals) : std::string("-");
        },
        counter.meaning);
  std::size_t name_width = std::string("counter").size();
  std::vector<std::size_t> widths;
  for (const Column& column : columns) widths.push_back(column.heading.size());
  for (const Row& row : rows) {
    name_width = std::max(name_width, row.name.size());
    for (std::size_t c = 0; c < row.cells.size(); ++c) widths[c] = std::max(widths[c], row.cells[c].size());
  }
  std::ostringstream out;
  out << std::left << std::setw(static_cast<int>(name_width)) << "counter";
  for (std::size_t c = 0; c < columns.size(); ++c)
    out << "  " << std::right << std::setw(static_cast<int>(widths[c])) << columns[c].heading;
  out << '\n';
  for (const Row& row : rows) {
    out << std::left << std::setw(static_cast<int>(name_width)) << row.name;
    for (std::size_t c = 0; c < row.cells.size(); ++c)
      out << "  " << std::right << std::setw(static_cast<int>(widths[c])) << row.cells[c];
    out << '\n';
    if (!row.meaning.empty()) out << "    " << row.meaning << '\n';
  }
  return out.str();
}

Values recorded_values(const std::string& path, const std::string& step) {
  Values values;
  std::ifstream in(path);
  if (!in) return values;
  int line_number = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_number;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string id, metric, text, extra;
    if (!std::getline(fields, id, '\t') || !std::getline(fields, metric, '\t') || !std::getline(fields, text, '\t') ||
        std::getline(fields, extra, '\t'))
      throw std::invalid_argument(path + ":" + std::to_string(line_number) + ": a line is STEP<TAB>METRIC<TAB>VALUE");
    const std::optional<double> value = number(text);
    if (!value)
      throw std::invalid_argument(path + ":" + std::to_string(line_number) + ": '" + text + "' is not a number");
    if (id == step) values[metric] = *value;
  }
  return values;
}

std::string recorded_lines(const std::string& step, const Values& values, const std::vector<Counter>& counters) {
  std::set<std::string> read = {kTimeMetric};
  for (const Counter& counter : counters) {
    read.insert(counter.metrics.begin(), counter.metrics.end());
    read.insert(counter.attributes.begin(), counter.attributes.end());
  }
  std::ostringstream out;
  out << std::setprecision(10);
  for (const auto& [metric, value] : values)
    if (read.contains(metric)) out << step << '\t' << metric << '\t' << value << '\n';
  return out.str();
}

std::string readable(std::string kernel_name) {
  // ncu writes an anonymous namespace "unnamed>::", at the start of a name and inside a template's
  // arguments alike ("kernel<unnamed>::Policy, 1>": the '<' there is the template's).
  for (const std::string anonymous : {"(anonymous namespace)::", "unnamed>::"})
    for (std::size_t at; (at = kernel_name.find(anonymous)) != std::string::npos;)
      kernel_name.erase(at, anonymous.size());
  return kernel_name;
}

Counter total(std::string name, std::vector<std::string> ncu_metrics, int decimals, std::string meaning) {
  return {std::move(name), ncu_metrics,
          [ncu_metrics](const Values& v) -> std::optional<double> {
            double sum = 0;
            for (const std::string& m : ncu_metrics) {
              const auto found = v.find(m);
              if (found == v.end()) return std::nullopt;
              sum += found->second;
            }
            return sum;
          },
          decimals, std::move(meaning)};
}

Counter metric(std::string name, std::string ncu_metric, int decimals, std::string meaning) {
  return total(std::move(name), {std::move(ncu_metric)}, decimals, std::move(meaning));
}

Counter dram_throughput(std::string meaning) {
  return metric("device memory throughput (% of peak)", "dram__throughput.avg.pct_of_peak_sustained_elapsed", 1,
                std::move(meaning));
}

Counter achieved_occupancy(std::string meaning) {
  return metric("achieved occupancy (%)", "sm__warps_active.avg.pct_of_peak_sustained_active", 1, std::move(meaning));
}

Counter fma_pipe(std::string meaning) {
  return metric("FMA pipe busy (% of peak)", "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active", 1,
                std::move(meaning));
}

Counter local_memory_instructions(std::string meaning) {
  return total("local-memory loads and stores",
               {"smsp__inst_executed_op_local_ld.sum", "smsp__inst_executed_op_local_st.sum"}, 0, std::move(meaning));
}

Counter ratio(std::string name, std::string numerator, std::string denominator, double scale, int decimals,
              std::string meaning) {
  return {std::move(name),
          {numerator, denominator},
          [=](const Values& v) -> std::optional<double> {
            const auto top = v.find(numerator), bottom = v.find(denominator);
            if (top == v.end() || bottom == v.end() || bottom->second == 0) return std::nullopt;
            return scale * top->second / bottom->second;
          },
          decimals,
          std::move(meaning)};
}

Counter shared_wavefronts_per_request(bool loads, std::string meaning) {
  const std::string op = loads ? "ld" : "st";
  return ratio(loads ? "shared wavefronts per load" : "shared wavefronts per store",
               "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_" + op + ".sum",
               "smsp__inst_executed_op_shared_" + op + ".sum", 1.0, 1, std::move(meaning));
}

Counter global_sectors_per_request(bool loads, std::string meaning) {
  const std::string op = loads ? "ld" : "st";
  return ratio(loads ? "global sectors per load" : "global sectors per store",
               "l1tex__t_sectors_pipe_lsu_mem_global_op_" + op + ".sum",
               "l1tex__t_requests_pipe_lsu_mem_global_op_" + op + ".sum", 1.0, 1, std::move(meaning));
}

Counter bytes_in_flight_per_sm(double latency_us, std::string meaning) {
  const std::string bandwidth = "dram__bytes.sum.per_second", sms = "device__attribute_multiprocessor_count";
  return {"KiB in flight per SM (Little's law)",
          {bandwidth},
          [=](const Values& v) -> std::optional<double> {
            const auto bytes_per_s = v.find(bandwidth), count = v.find(sms);
            if (bytes_per_s == v.end() || count == v.end() || count->second <= 0) return std::nullopt;
            return bytes_per_s->second * latency_us * 1e-6 / count->second / 1024.0;
          },
          1,
          std::move(meaning),
          nullptr,
          {sms}};
}

Counter top_stall_reasons(std::string meaning) {
  Counter counter{"top stall reasons (cycles/instruction)",
                  {},
                  [](const Values&) { return std::optional<double>(); },
                  1,
                  std::move(meaning)};
  for (const std::string& reason : stall_reasons()) counter.metrics.push_back(stall_metric(reason));
  counter.text = [](const Values& v) {
    std::vector<std::pair<double, std::string>> found;
    for (const std::string& reason : stall_reasons())
      if (const auto it = v.find(stall_metric(reason)); it != v.end() && it->second >= 0.05)
        found.emplace_back(it->second, reason);
    std::sort(found.rbegin(), found.rend());
    std::string said;
    for (std::size_t i = 0; i < found.size() && i < 2; ++i)
      said += (i == 0 ? "" : ", ") + found[i].second + " " + shown(found[i].first, 1);
    return said;
  };
  return counter;
}

}  // namespace workbook::profile
