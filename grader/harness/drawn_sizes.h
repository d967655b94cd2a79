// Correctness sizes drawn from the run's seed, beside the fixed edge cases each lab lists (zero, 1,
// a tile less one, a tile, a tile and one). A fixed list can be learned: a kernel that is right
// only at the sizes in it (a grid rounded to a multiple the list happens to share, a tail dropped
// above some size) passes every case of it. A drawn size is uniform over a range many tiles wide,
// so every residue modulo every tile a lab's steps use is as likely as any other, and `off_tile`
// draws one that is no multiple of the largest tile: its last tile is never whole.
//
// The draws depend on the seed and the lab alone, not on how many inputs were drawn before them,
// so every step's process of one run checks the same sizes, --seed replays them, and
// `./workbook grade` prints them (the grader's --drawn-sizes, which needs no GPU). Plain C++.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "harness/session.h"

namespace workbook {

class SizeDraw {
 public:
  explicit SizeDraw(std::string_view lab) : state_(session().seed) {
    for (const char c : lab) state_ = (state_ ^ static_cast<unsigned char>(c)) * 0x100000001B3ull;  // FNV-1a
  }

  // Uniform in [low, high].
  std::size_t any(std::size_t low, std::size_t high) { return low + next() % (high - low + 1); }

  // Uniform over the sizes in [low, high] that are not multiples of `tile`.
  std::size_t off_tile(std::size_t low, std::size_t high, std::size_t tile) {
    std::size_t n = any(low, high);
    while (n % tile == 0) n = any(low, high);
    return n;
  }

 private:
  // splitmix64: the same numbers from the same seed on every machine and compiler.
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::uint64_t state_;
};

}  // namespace workbook
