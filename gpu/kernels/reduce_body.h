// Per-thread body of the sum/mean reduction kernel (reduce.cu): one output element, its reduced
// elements summed in order. Host and device (host_device.h); tests/gpu/reduce_body_test.cc runs
// it on the host against the CPU engine's ReduceSum / ReduceMean.
#ifndef PARITY_GPU_KERNELS_REDUCE_BODY_H_
#define PARITY_GPU_KERNELS_REDUCE_BODY_H_

#include <cstdint>

#include "gpu/kernels/elementwise_body.h"  // kMaxRank
#include "gpu/kernels/host_device.h"

namespace parity::gpu::kernels {

// The input seen as kept dims and reduced dims (each list up to kMaxRank, outermost first, with
// the input's element strides).
struct ReduceGeometry {
  int kept_rank = 0;
  int64_t kept_dims[kMaxRank] = {};
  int64_t kept_strides[kMaxRank] = {};
  int reduced_rank = 0;
  int64_t reduced_dims[kMaxRank] = {};
  int64_t reduced_strides[kMaxRank] = {};
};

// The input offset where output element o's reduced elements start (its kept coordinates).
PARITY_HD int64_t ReduceBaseOffset(const ReduceGeometry& g, int64_t o) {
  int64_t rest = o, base = 0;
  for (int d = g.kept_rank - 1; d >= 0; --d) {
    base += (rest % g.kept_dims[d]) * g.kept_strides[d];
    rest /= g.kept_dims[d];
  }
  return base;
}

// The input offset of the r-th reduced element (row-major over the reduced dims) from `base`.
PARITY_HD int64_t ReducedElementOffset(const ReduceGeometry& g, int64_t base, int64_t r) {
  int64_t offset = base;
  for (int d = g.reduced_rank - 1; d >= 0; --d) {
    offset += (r % g.reduced_dims[d]) * g.reduced_strides[d];
    r /= g.reduced_dims[d];
  }
  return offset;
}

// Output element o: the sum of its `count` reduced elements in row-major order of the reduced
// dims (a serial loop: the same order on every run, no atomics), divided by count for a mean.
PARITY_HD void ReduceSumBody(const float* x, float* y, int64_t count, bool mean,
                             const ReduceGeometry& g, int64_t o) {
  const int64_t base = ReduceBaseOffset(g, o);
  float sum = 0.0f;
  for (int64_t r = 0; r < count; ++r) sum += x[ReducedElementOffset(g, base, r)];
  y[o] = mean ? sum / static_cast<float>(count) : sum;
}

}  // namespace parity::gpu::kernels

#endif  // PARITY_GPU_KERNELS_REDUCE_BODY_H_
