// Intra-op parallelism: ParallelFor splits a range of independent work items (output elements,
// rows, kept dims of a reduction, gathered indices) into contiguous chunks and runs them on the
// calling thread and up to ComputeThreads() - 1 helper threads (core/threads.h; parallel.cc says
// why helpers rather than OpenMP's team).
//
//   ParallelFor(0, rows, GrainFor(cols), [&](int64_t begin, int64_t end) { rows [begin, end) });
//
// Rules that keep results bit-identical across thread counts (the determinism oracle checks it):
//   - split only work whose items are computed independently (never the terms of one sum);
//   - an item is computed by the same code on the same data whatever chunk it lands in. Eigen
//     peels unaligned heads and tails into scalar code, which may round differently from its
//     packets (exp, log, sin, ...), so flat element ranges are split with ParallelElementwise
//     (core/ops/common/elementwise.h), whose chunk boundaries fall on 64-byte addresses of the
//     output, where no chunk peels anything the whole range would not.
//
// Small ranges pay nothing: below two grains of work, or with ComputeThreads() == 1 (fuzz workers
// set 1), fn(begin, end) runs inline on the calling thread, exactly as before.
#ifndef PARITY_CORE_PARALLEL_H_
#define PARITY_CORE_PARALLEL_H_

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "core/threads.h"

namespace parity {

// The least work (in elements of a cheap kernel such as Add) one chunk must hold. A range splits
// only when at least two chunks get this much, so splitting starts at 65536 elements. Measured
// with bench/elementwise_bench BM_AddSize (Add on n floats, 2 cores shared with other tenants,
// min of 9, helper threads of parallel.cc): n = 65536 takes 10.0 us on one thread and 5.1 us on
// two, 131072 19.0 / 10.0 us, 1M 160 / 76 us; 32768 is 4.5 us in all, where a hand-over of a few
// microseconds would eat the gain. PyTorch's at::internal::GRAIN_SIZE is the same 32768. Fuzz
// cases (tens to a few thousand elements) never reach it.
inline constexpr int64_t kParallelMinWork = 32768;

// A calling thread's override of the split, so that the fuzz campaign reaches the split paths
// with its small tensors (ParallelSplitScope; oracles/backend.cc sets it from Case.compute_threads):
// `threads` replaces ComputeThreads() for ParallelFor only (oneDNN's team keeps its own setting),
// `min_work` replaces kParallelMinWork. 0 keeps the default.
struct ParallelSplit {
  int threads = 0;
  int64_t min_work = 0;
};

inline ParallelSplit& CurrentParallelSplit() {
  thread_local ParallelSplit split;
  return split;
}

// The threads ParallelFor splits over, and the least work of a chunk, on this thread.
inline int ParallelThreads() {
  const int threads = CurrentParallelSplit().threads;
  return threads > 0 ? threads : ComputeThreads();
}
inline int64_t ParallelMinWork() {
  const int64_t min_work = CurrentParallelSplit().min_work;
  return min_work > 0 ? min_work : kParallelMinWork;
}

// Sets the calling thread's ParallelSplit for a scope.
class ParallelSplitScope {
 public:
  explicit ParallelSplitScope(ParallelSplit split) : previous_(CurrentParallelSplit()) {
    CurrentParallelSplit() = split;
  }
  ~ParallelSplitScope() { CurrentParallelSplit() = previous_; }
  ParallelSplitScope(const ParallelSplitScope&) = delete;
  ParallelSplitScope& operator=(const ParallelSplitScope&) = delete;

 private:
  ParallelSplit previous_;
};

// Items per chunk so that a chunk holds at least ParallelMinWork(), for items of `work_per_item`
// elements of work each (a row of length d: d).
inline int64_t GrainFor(int64_t work_per_item) {
  if (work_per_item < 1) work_per_item = 1;
  const int64_t min_work = ParallelMinWork();
  return std::max<int64_t>(1, (min_work + work_per_item - 1) / work_per_item);
}

namespace parallel_internal {

using ChunkFunction = void (*)(void* context, int64_t begin, int64_t end);

// Splits [begin, end) into min(4 * threads, (end - begin) / grain) contiguous chunks of nearly
// equal size, which the calling thread and threads - 1 helpers claim in turn. Returns once every
// chunk ran; rethrows the first exception a chunk threw. Inside a chunk (nested), runs inline.
void RunChunks(int64_t begin, int64_t end, int64_t grain, int threads, ChunkFunction fn,
               void* context);

}  // namespace parallel_internal

// Calls fn(chunk_begin, chunk_end) over contiguous chunks covering [begin, end), each of at least
// `grain` items (except when the whole range runs inline). Chunks run concurrently, in no set
// order: fn must only write what its own items own.
template <typename Fn>
void ParallelFor(int64_t begin, int64_t end, int64_t grain, Fn&& fn) {
  if (end <= begin) return;
  if (grain < 1) grain = 1;
  if (end - begin < 2 * grain) {
    fn(begin, end);
    return;
  }
  const int threads = ParallelThreads();
  if (threads <= 1) {
    fn(begin, end);
    return;
  }
  using F = std::remove_reference_t<Fn>;
  parallel_internal::RunChunks(
      begin, end, grain, threads,
      [](void* context, int64_t b, int64_t e) { (*static_cast<F*>(context))(b, e); },
      const_cast<void*>(static_cast<const void*>(&fn)));
}

}  // namespace parity

#endif  // PARITY_CORE_PARALLEL_H_
