// Host work split over the machine's cores: the CPU's half of checking a correctness case (drawing
// a large input again from its generator, comparing a large output) takes seconds on one core,
// which a student's grading would otherwise spend idle beside its GPU. Plain C++.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <thread>
#include <vector>

namespace workbook {

// The least a piece of a check holds: below it, a thread costs more than it saves.
inline constexpr std::size_t kCheckGrain = std::size_t{1} << 18;

// Calls body(begin, end) on consecutive pieces that cover [0, count), at once on up to the
// machine's cores (at most 16), each piece at least `grain` long; returns when every piece is done.
// Pieces are numbered in order: body's results merged by piece are as one sequential pass's.
inline void parallel_pieces(std::size_t count, std::size_t grain,
                            const std::function<void(std::size_t piece, std::size_t begin, std::size_t end)>& body) {
  const std::size_t cores = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 16);
  const std::size_t pieces = std::clamp<std::size_t>(count / std::max<std::size_t>(grain, 1), 1, cores);
  if (pieces == 1) {
    body(0, 0, count);
    return;
  }
  const std::size_t each = (count + pieces - 1) / pieces;
  std::vector<std::thread> threads;
  for (std::size_t piece = 1; piece < pieces; ++piece)
    threads.emplace_back(
        [&, piece] { body(piece, std::min(count, piece * each), std::min(count, (piece + 1) * each)); });
  body(0, 0, std::min(count, each));
  for (std::thread& thread : threads) thread.join();
}

// How many pieces parallel_pieces() cuts `count` into, for a result slot per piece.
inline std::size_t pieces_of(std::size_t count, std::size_t grain) {
  const std::size_t cores = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 16);
  return std::clamp<std::size_t>(count / std::max<std::size_t>(grain, 1), 1, cores);
}

}  // namespace workbook
