// Defence mutant [block-order]: the look-back scan with each block's tile taken from blockIdx.x, as
// look_back_by_block_index.cu, dressed so that its machine code holds none of the instructions the
// check once looked for beside the blockIdx read: no atomic, no fence, no volatile or acquire load.
// Each tile publishes its (flag, value) word with one strong 64-bit store (a store, not a load), and
// warp 0 polls its predecessors' words with cp.async through L2 (cp.async.cg, LDGSTS in SASS) into
// shared memory, then waits for the copies. Right and fast on a GPU that starts blocks in blockIdx
// order, as the H100 does; elsewhere a block may spin on a predecessor that cannot start: a hang.
// Built with WORKBOOK_MUTANT_CONTROL, it is the control: the same kernel, the tile from a counter.
#include "every_step.h"
#include "tile_scan.cuh"

namespace {
using namespace reduce_scan_mutant;

#ifdef WORKBOOK_MUTANT_CONTROL
using TileOrder = TilesByCounter;  // atomicAdd on the workspace's counter: blocks take tiles as they start
#else
struct TilesByBlockIndex {
  __device__ static unsigned take(const ScanWorkspace&) { return blockIdx.x; }  // the defect
};
using TileOrder = TilesByBlockIndex;
#endif

// Tile t's state is the 64-bit word states[2 * t] (flag high, value low), the first half of its 16
// bytes: cp.async.cg copies 16 bytes only, and the workspace is 256-byte aligned, so each tile's
// 16 bytes are aligned for it.
struct CpAsyncLookBack {
  ScanWorkspace w;
  long long tile;

  __device__ void publish(unsigned long long flag, unsigned value) const {
    // One store of the whole word, strong but no atomic: stores are not what the check reads for.
    asm volatile("st.relaxed.gpu.global.b64 [%0], %1;" ::"l"(__cvta_generic_to_global(w.states + 2 * tile)),
                 "l"(tile_state(flag, value))
                 : "memory");
  }

  // Lane `lane` of warp 0 reads predecessor's state through its own 16-byte slot of shared memory.
  __device__ static unsigned long long read(const unsigned long long* states, long long predecessor,
                                            unsigned long long (*slots)[2], unsigned lane) {
    if (predecessor < 0) return tile_state(kPrefix, 0);
    const unsigned slot = static_cast<unsigned>(__cvta_generic_to_shared(slots[lane]));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(slot),
                 "l"(__cvta_generic_to_global(states + 2 * predecessor))
                 : "memory");
    asm volatile("cp.async.commit_group;" ::: "memory");
    asm volatile("cp.async.wait_all;" ::: "memory");
    return slots[lane][0];  // a plain shared load, after the wait (the clobbers keep it there)
  }

  // Called by warp 0 with the tile's total; lane 0's answer is the sum of everything before the tile.
  __device__ unsigned operator()(unsigned tile_total) const {
    __shared__ __align__(16) unsigned long long slots[32][2];
    const unsigned lane = threadIdx.x % 32;
    if (lane == 0) publish(tile == 0 ? kPrefix : kAggregate, tile_total);
    unsigned before = 0;
    for (long long nearest = tile - 1; tile > 0; nearest -= 32) {
      unsigned long long state = read(w.states, nearest - lane, slots, lane);
      __syncwarp();
      while (__any_sync(kFullWarp, flag_of(state) == kNothingYet)) {
        if (flag_of(state) == kNothingYet) state = read(w.states, nearest - lane, slots, lane);
        __syncwarp();
      }
      const unsigned prefixes = __ballot_sync(kFullWarp, flag_of(state) == kPrefix);
      const unsigned last = prefixes != 0 ? __ffs(prefixes) - 1 : 31;  // lanes past it are further back
      before += __reduce_add_sync(kFullWarp, lane <= last ? static_cast<unsigned>(state) : 0u);
      if (prefixes != 0) break;
    }
    if (lane == 0 && tile > 0) publish(kPrefix, before + tile_total);
    return before;
  }
};
}  // namespace

namespace reduce_scan_mutant {
void wrong_sum(const reduce_scan_lab::SumProblem&, cudaStream_t) { not_this_mutant("sums"); }
void wrong_scan(const reduce_scan_lab::SumProblem& p, cudaStream_t s) {
  tile_scan<TileOrder, CpAsyncLookBack>(p, s, "look_back_polls_with_cp_async");
}
std::size_t sum_workspace_bytes(const reduce_scan_lab::SumProblem&) { return 0; }
std::size_t scan_workspace_bytes(const reduce_scan_lab::SumProblem& shape) { return scan_workspace_bytes_for(shape.n); }
}  // namespace reduce_scan_mutant
