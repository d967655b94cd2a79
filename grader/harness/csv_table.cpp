#include "harness/csv_table.h"

#include <stdexcept>
#include <utility>

#include "protocol/as_data.h"

namespace workbook {

CsvTable::CsvTable(const std::string& path, std::vector<std::string> columns)
    : file_(path), path_(path), columns_(std::move(columns)) {
  if (!file_) throw std::runtime_error("cannot write " + path);
  for (std::size_t c = 0; c < columns_.size(); ++c) file_ << (c == 0 ? "" : ",") << csv_field(columns_[c]);
  file_ << '\n';
}

void CsvTable::row(std::initializer_list<Cell> cells) {
  if (cells.size() != columns_.size())
    throw std::logic_error("a row of " + std::to_string(cells.size()) + " values for " +
                           std::to_string(columns_.size()) + " columns in " + path_);
  const char* separator = "";
  for (const Cell& cell : cells) {
    file_ << separator << csv_field(cell.text);
    separator = ",";
  }
  file_ << '\n' << std::flush;
}

}  // namespace workbook
