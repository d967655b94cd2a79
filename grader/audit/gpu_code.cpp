#include "audit/gpu_code.h"

#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace workbook {

namespace {

// Little-endian fields, read only where the bytes hold them: a truncated file is an error, never a
// read past its end.
template <typename T>
T field(std::string_view bytes, std::size_t offset, const char* what) {
  if (offset > bytes.size() || bytes.size() - offset < sizeof(T))
    throw std::runtime_error(std::string("truncated ") + what + " at byte " + std::to_string(offset));
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof(T));
  return value;
}

// The fat binary's layout, as nvcc 12 and 13 write it: a 16-byte header (magic, version, its own
// size, the size of the images after it), then each image with a header of its own. Of an image's
// header the grader reads its kind, its sizes, the compute capability it is for (major * 10 +
// minor) and the flags that mark architecture- or family-specific code (sm_90a, sm_100f).
constexpr std::uint32_t kFatBinaryMagic = 0xBA55ED50;
constexpr std::uint16_t kPtxImage = 1, kMachineCodeImage = 2;
constexpr std::uint32_t kArchitectureSpecific = 0x100000, kFamilySpecific = 0x200000;

std::string image_name(std::uint16_t kind, std::uint32_t capability, std::uint32_t flags) {
  std::string name = (kind == kPtxImage ? "compute_" : "sm_") + std::to_string(capability);
  if (flags & kArchitectureSpecific) name += 'a';
  else if (flags & kFamilySpecific) name += 'f';
  return name;
}

// The sections of a 64-bit little-endian ELF object that hold fat binaries: .nv_fatbin (whole-program
// compilation, how the labs are built) and __nv_relfatbin (relocatable device code, -rdc).
using Sections = std::function<void(std::string_view section)>;
void each_elf_fat_binary_section(std::string_view elf, const std::string& where, const Sections& each) {
  if (elf.size() < 64 ||
      elf.substr(0, 4) !=
          "\x7f"
          "ELF" ||
      elf[4] != 2 || elf[5] != 1)
    throw std::runtime_error(where + " is not a 64-bit little-endian ELF object file");
  const auto section_table = field<std::uint64_t>(elf, 0x28, "ELF header");
  const auto entry_size = field<std::uint16_t>(elf, 0x3A, "ELF header");
  const auto count = field<std::uint16_t>(elf, 0x3C, "ELF header");
  const auto names_index = field<std::uint16_t>(elf, 0x3E, "ELF header");
  if (entry_size < 64 || names_index >= count)
    throw std::runtime_error(where + " has no section table that can be read");
  const auto section = [&](std::uint16_t i, std::size_t at, auto type) {
    return field<decltype(type)>(elf, section_table + std::size_t{i} * entry_size + at, "section header");
  };
  const std::uint64_t names_at = section(names_index, 24, std::uint64_t{}),
                      names_size = section(names_index, 32, std::uint64_t{});
  if (names_at > elf.size() || names_size > elf.size() - names_at)
    throw std::runtime_error(where + ": truncated section names");
  const std::string_view names = elf.substr(names_at, names_size);
  for (std::uint16_t i = 0; i < count; ++i) {
    const std::uint32_t name_at = section(i, 0, std::uint32_t{});
    if (name_at >= names.size()) continue;
    const std::string_view name = names.substr(name_at, names.substr(name_at).find('\0'));
    if (name != ".nv_fatbin" && name != "__nv_relfatbin") continue;
    const std::uint64_t at = section(i, 24, std::uint64_t{}), size = section(i, 32, std::uint64_t{});
    if (at > elf.size() || size > elf.size() - at)
      throw std::runtime_error(where + ": truncated section " + std::string(name));
    each(elf.substr(at, size));
  }
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

}  // namespace

std::set<std::string> gpu_code_in_fat_binaries(std::string_view bytes) {
  std::set<std::string> images;
  std::size_t at = 0;
  while (at < bytes.size()) {
    if (field<std::uint32_t>(bytes, at, "fat binary header") != kFatBinaryMagic)
      throw std::runtime_error("no fat binary at byte " + std::to_string(at) + " of the section");
    const std::size_t header = field<std::uint16_t>(bytes, at + 6, "fat binary header");
    const std::uint64_t size = field<std::uint64_t>(bytes, at + 8, "fat binary header");
    if (header < 16 || size > bytes.size() - at - header)
      throw std::runtime_error("a fat binary larger than its section");
    const std::size_t end = at + header + size;
    for (std::size_t image = at + header; image < end;) {
      const auto kind = field<std::uint16_t>(bytes, image, "image header");
      const auto image_header = field<std::uint32_t>(bytes, image + 4, "image header");
      const auto payload = field<std::uint64_t>(bytes, image + 8, "image header");
      if (image_header < 44 || payload > end - image - image_header)
        throw std::runtime_error("an image larger than its fat binary");
      if (kind == kPtxImage || kind == kMachineCodeImage)
        images.insert(image_name(kind, field<std::uint32_t>(bytes, image + 28, "image header"),
                                 field<std::uint32_t>(bytes, image + 40, "image header")));
      image += image_header + payload;
    }
    at = (end + 7) / 8 * 8;  // fat binaries laid end to end are 8-byte aligned
  }
  return images;
}

namespace {

// Each section of fat binaries in an object file or a static library of them; a fat binary file
// (nvcc -fatbin: the GPU half of a student's file, cmake/StudentFile.cmake) is one such section, whole.
void each_fat_binary_section(const std::string& path, const Sections& each) {
  const std::string bytes = read_file(path);
  if (bytes.size() >= 4 && field<std::uint32_t>(bytes, 0, "file") == kFatBinaryMagic) {
    each(bytes);
    return;
  }
  if (bytes.rfind("!<arch>\n", 0) != 0) {
    each_elf_fat_binary_section(bytes, path, each);
    return;
  }
  // A static library: a 60-byte header before each member (its name, and its size in decimal at
  // byte 48), members 2-byte aligned. Only object files are read: the symbol and long-name tables
  // are not ELF.
  for (std::size_t at = 8; at + 60 <= bytes.size();) {
    const std::string member_name = bytes.substr(at, 16);
    std::size_t size = 0;
    try {
      size = std::stoull(bytes.substr(at + 48, 10));
    } catch (const std::exception&) {
      throw std::runtime_error(path + ": an archive member's header at byte " + std::to_string(at) + " cannot be read");
    }
    if (size > bytes.size() - at - 60) throw std::runtime_error(path + ": an archive member runs past the end");
    const std::string_view member = std::string_view(bytes).substr(at + 60, size);
    if (member.substr(0, 4) ==
        "\x7f"
        "ELF")
      each_elf_fat_binary_section(member, path + "(" + member_name.substr(0, member_name.find_first_of("/ ")) + ")",
                                  each);
    at += 60 + size + size % 2;
  }
}

}  // namespace

std::set<std::string> gpu_code_in_file(const std::string& path) {
  std::set<std::string> images;
  each_fat_binary_section(path, [&](std::string_view section) { images.merge(gpu_code_in_fat_binaries(section)); });
  return images;
}

std::vector<std::string> fat_binaries_in_file(const std::string& path) {
  std::vector<std::string> fat_binaries;
  each_fat_binary_section(path, [&](std::string_view section) {
    for (std::size_t at = 0; at < section.size();) {
      if (field<std::uint32_t>(section, at, "fat binary header") != kFatBinaryMagic)
        throw std::runtime_error(path + ": no fat binary at byte " + std::to_string(at) + " of a section");
      const std::size_t header = field<std::uint16_t>(section, at + 6, "fat binary header");
      const std::uint64_t size = field<std::uint64_t>(section, at + 8, "fat binary header");
      if (header < 16 || size > section.size() - at - header)
        throw std::runtime_error(path + ": a fat binary larger than its section");
      fat_binaries.emplace_back(section.substr(at, header + size));
      at = (at + header + size + 7) / 8 * 8;
    }
  });
  return fat_binaries;
}

namespace {

// The globals of one machine-code image a kernel could write, an ELF file (64-bit, little-endian):
// `__constant__` variables (".nv.constant3") too, as a generic store may reach their bank.
std::vector<GlobalsImage::Section> globals_in_elf(std::string_view elf) {
  if (elf.size() < 64 ||
      elf.substr(0, 4) !=
          "\x7f"
          "ELF" ||
      elf[4] != 2 || elf[5] != 1)
    throw std::runtime_error("a machine-code image that is not 64-bit little-endian ELF");
  const auto section_headers = field<std::uint64_t>(elf, 0x28, "ELF header");
  const auto header_size = field<std::uint16_t>(elf, 0x3A, "ELF header");
  const auto count = field<std::uint16_t>(elf, 0x3C, "ELF header");
  const auto names_index = field<std::uint16_t>(elf, 0x3E, "ELF header");
  struct Header {
    std::uint32_t name, type, link;
    std::uint64_t offset, size;
  };
  std::vector<Header> headers;
  for (std::uint16_t i = 0; i < count; ++i) {
    const std::uint64_t at = section_headers + std::uint64_t(i) * header_size;
    headers.push_back(
        {field<std::uint32_t>(elf, at, "section header"), field<std::uint32_t>(elf, at + 4, "section header"),
         field<std::uint32_t>(elf, at + 40, "section header"), field<std::uint64_t>(elf, at + 24, "section header"),
         field<std::uint64_t>(elf, at + 32, "section header")});
  }
  const auto string_at = [&](const Header& table, std::uint32_t index) {
    if (table.offset > elf.size() || index >= table.size || table.size > elf.size() - table.offset)
      throw std::runtime_error("an ELF name outside its table");
    const std::string_view names = elf.substr(table.offset, table.size);
    const std::size_t end = names.find('\0', index);
    return std::string(names.substr(index, end == std::string_view::npos ? names.size() - index : end - index));
  };
  if (names_index >= headers.size()) throw std::runtime_error("an ELF image without section names");
  std::vector<GlobalsImage::Section> sections(headers.size());
  for (std::size_t i = 0; i < headers.size(); ++i) {
    sections[i].name = string_at(headers[names_index], headers[i].name);
    sections[i].bytes = headers[i].size;
  }
  constexpr std::uint32_t kSymbolTable = 2;
  constexpr unsigned kObject = 1;
  for (const Header& table : headers) {
    if (table.type != kSymbolTable || table.link >= headers.size()) continue;
    for (std::uint64_t at = table.offset; at + 24 <= table.offset + table.size; at += 24) {
      const auto info = field<std::uint8_t>(elf, at + 4, "symbol");
      const auto section = field<std::uint16_t>(elf, at + 6, "symbol");
      if ((info & 0xF) != kObject || section >= sections.size()) continue;
      sections[section].symbols.push_back({string_at(headers[table.link], field<std::uint32_t>(elf, at, "symbol")),
                                           field<std::uint64_t>(elf, at + 8, "symbol"),
                                           field<std::uint64_t>(elf, at + 16, "symbol")});
    }
  }
  std::vector<GlobalsImage::Section> writable;
  for (GlobalsImage::Section& section : sections)
    if ((section.name.starts_with(".nv.global") || section.name.starts_with(".nv.managed") ||
         section.name == ".nv.constant3") &&
        section.bytes > 0)
      writable.push_back(std::move(section));
  return writable;
}

}  // namespace

std::vector<GlobalsImage> device_globals_in_fat_binary(std::string_view bytes) {
  std::vector<GlobalsImage> images;
  if (field<std::uint32_t>(bytes, 0, "fat binary header") != kFatBinaryMagic)
    throw std::runtime_error("not a fat binary");
  const std::size_t header = field<std::uint16_t>(bytes, 6, "fat binary header");
  const std::uint64_t size = field<std::uint64_t>(bytes, 8, "fat binary header");
  if (header < 16 || size > bytes.size() - header) throw std::runtime_error("a fat binary larger than its bytes");
  const std::size_t end = header + size;
  constexpr std::uint32_t kCompressed = 0x2000 | 0x8000;  // LZ4 or Zstandard, as nvcc marks them
  for (std::size_t image = header; image < end;) {
    const auto kind = field<std::uint16_t>(bytes, image, "image header");
    const auto image_header = field<std::uint32_t>(bytes, image + 4, "image header");
    const auto payload = field<std::uint64_t>(bytes, image + 8, "image header");
    if (image_header < 44 || payload > end - image - image_header)
      throw std::runtime_error("an image larger than its fat binary");
    if (kind == kMachineCodeImage) {
      GlobalsImage found;
      const auto flags = field<std::uint32_t>(bytes, image + 40, "image header");
      found.image = image_name(kind, field<std::uint32_t>(bytes, image + 28, "image header"), flags);
      const std::string_view elf = bytes.substr(image + image_header, payload);
      found.compressed = (flags & kCompressed) != 0 || elf.substr(0, 4) !=
                                                           "\x7f"
                                                           "ELF";
      if (!found.compressed) found.sections = globals_in_elf(elf);
      images.push_back(std::move(found));
    }
    image += image_header + payload;
  }
  return images;
}

std::set<std::string> gpu_code_for_architectures(std::string_view architectures) {
  static const std::regex entry("([0-9]+[af]?)(-real|-virtual)?");
  std::set<std::string> images;
  std::istringstream list{std::string(architectures)};
  for (std::string item; std::getline(list, item, ';');) {
    std::smatch m;
    if (!std::regex_match(item, m, entry))
      throw std::invalid_argument("'" + item + "' is not a CUDA architecture like 90, 90-real, 90a-real or 90-virtual");
    if (m[2] != "-virtual") images.insert("sm_" + m[1].str());
    if (m[2] != "-real") images.insert("compute_" + m[1].str());
  }
  if (images.empty()) throw std::invalid_argument("no CUDA architecture in '" + std::string(architectures) + "'");
  return images;
}

std::string listed(const std::set<std::string>& images) {
  std::string text;
  for (const std::string& image : images) text += (text.empty() ? "" : ", ") + image;
  return text.empty() ? "no GPU code" : text;
}

}  // namespace workbook
