// A benchmark's CSV file, whose header is its columns: a row must have one value per column (or it
// throws), so that the rows cannot drift from the header. Plain C++.
#pragma once

#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace workbook {

class CsvTable {
 public:
  CsvTable(const std::string& path, std::vector<std::string> columns);  // throws if it cannot write
  // A value of a row: text as it is, numbers as an ostream writes them.
  struct Cell {
    std::string text;
    Cell(const std::string& s) : text(s) {}  // NOLINT: implicit, so that a row reads like a list
    Cell(const char* s) : text(s) {}         // NOLINT
    template <typename Number>
    requires std::is_arithmetic_v<Number> Cell(Number value) {  // NOLINT
      std::ostringstream out;
      out << value;
      text = out.str();
    }
  };
  void row(std::initializer_list<Cell> cells);

 private:
  std::ofstream file_;
  std::string path_;
  std::vector<std::string> columns_;
};

}  // namespace workbook
