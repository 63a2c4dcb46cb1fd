// Per-thread bodies of the reduction kernels of gpu/kernels/reduction.cu: ReduceMax / ReduceMin /
// ReduceProd, the gradients of the Reduce* ops, SumElements / AveragedLoss and their gradients.
// Host and device (host_device.h); tests/gpu/reduction_body_test.cc runs them on the host against
// the CPU engine (core/ops/reduce/reduce.cc, reduce_grad.cc, core/ops/loss/loss.cc).
//
// The CPU reduces with Eigen 3.4 over SSE2 (4 floats a packet): a row of a reduction is folded by
// Eigen's redux, whose order (an aligned middle in two packet accumulators, then the head and the
// tail) and whose max / min (Eigen's PropagateNaN: a NaN accumulator, else a NaN element, else
// std::max's rule) decide the rounding of a product or sum, which NaN comes out and the sign of a
// zero. EigenRedux below replays that order exactly, so these kernels give the CPU's bits, NaN
// and -0.0 included.
// The model is of the CPU as .bazelrc builds it (x86-64 without -mavx: SSE2 packets); a CPU build
// with wider packets would reorder its folds, and tests/gpu/reduction_body_test.cc would fail.
#ifndef PARITY_GPU_KERNELS_REDUCTION_BODY_H_
#define PARITY_GPU_KERNELS_REDUCTION_BODY_H_

#include <cstdint>
#include <vector>

#include "gpu/kernels/host_device.h"
#include "gpu/kernels/ieee_body.h"
#include "gpu/kernels/reduce_body.h"  // ReduceGeometry, ReduceBaseOffset, ReducedElementOffset

namespace parity::gpu::kernels {

enum class Reducer { kSum, kProd, kMax, kMin };

// Eigen's binary functor of each reduction, accumulator first. Max and min propagate NaN as the
// CPU's PropagateNaN functors do (pminmax_impl<PropagateNaN>: a NaN acc, else a NaN x); between
// numbers, max is std::max(acc, x) (SSE's pmax(acc, x) = _mm_max_ps(x, acc)): x replaces acc only
// when acc < x, which keeps acc's zero on a +0 / -0 tie. Likewise min.
PARITY_HD float Combine(Reducer op, float acc, float x) {
  switch (op) {
    case Reducer::kSum:
      return Add(acc, x);
    case Reducer::kProd:
      return Mul(acc, x);
    case Reducer::kMax:
      if (acc != acc) return acc;  // NaN (no isnan: the body compiles for host and device alike)
      if (x != x) return x;
      return acc < x ? x : acc;
    case Reducer::kMin:
      if (acc != acc) return acc;
      if (x != x) return x;
      return x < acc ? x : acc;
  }
  return acc;
}

// The value of an empty reduction (ReduceRows' setConstant / Eigen's empty sum and product).
PARITY_HD float ReducerIdentity(Reducer op) { return op == Reducer::kProd ? 1.0f : 0.0f; }

// Eigen's first_aligned for floats: how many elements from element `offset` of a 16-byte aligned
// buffer to the next 16-byte boundary (the CPU's tensors are 64-byte aligned, its scratch vectors
// 16), at most `size`.
PARITY_HD int64_t FirstAligned(int64_t offset, int64_t size) {
  const int64_t first = (4 - (offset & 3)) & 3;
  return first < size ? first : size;
}

// Eigen 3.4's redux_impl<LinearVectorizedTraversal, NoUnrolling> with 4-float packets over
// x[0, size) (size >= 1), `first` elements before the first aligned packet: the aligned packets
// go alternately into two accumulators (the first two packets start them), which combine, take
// an odd last packet, and fold lane by lane as ((l0 . l2) . (l1 . l3)) (the SSE predux and
// predux_helper); then the head [0, first) and the tail after the last packet, in order. Fewer
// than 4 aligned elements: a serial fold from x[0].
PARITY_HD float EigenRedux(Reducer op, const float* x, int64_t size, int64_t first) {
  const int64_t aligned_size = ((size - first) / 4) * 4;
  if (aligned_size == 0) {
    float res = x[0];
    for (int64_t i = 1; i < size; ++i) res = Combine(op, res, x[i]);
    return res;
  }
  const int64_t aligned_end = first + aligned_size;
  const int64_t aligned_end2 = first + ((size - first) / 8) * 8;
  float p0[4], p1[4];
  for (int l = 0; l < 4; ++l) p0[l] = x[first + l];
  if (aligned_size > 4) {
    for (int l = 0; l < 4; ++l) p1[l] = x[first + 4 + l];
    for (int64_t i = first + 8; i < aligned_end2; i += 8) {
      for (int l = 0; l < 4; ++l) {
        p0[l] = Combine(op, p0[l], x[i + l]);
        p1[l] = Combine(op, p1[l], x[i + 4 + l]);
      }
    }
    for (int l = 0; l < 4; ++l) p0[l] = Combine(op, p0[l], p1[l]);
    if (aligned_end > aligned_end2) {
      for (int l = 0; l < 4; ++l) p0[l] = Combine(op, p0[l], x[aligned_end2 + l]);
    }
  }
  float res = Combine(op, Combine(op, p0[0], p0[2]), Combine(op, p0[1], p0[3]));
  for (int64_t i = 0; i < first; ++i) res = Combine(op, res, x[i]);
  for (int64_t i = aligned_end; i < size; ++i) res = Combine(op, res, x[i]);
  return res;
}

// core/ops/common/eigen_maps.h's IndexOrderedFold, which the CPU's row products, SumElements and
// AveragedLoss use instead of Eigen's redux (whose order follows the buffer's address): eight
// lanes by index started from x[0, 8), folded ((l0 . l4) . (l1 . l5)) . ((l2 . l6) . (l3 . l7)),
// then the tail in order; fewer than eight elements, a serial fold from x[0] (size >= 1).
PARITY_HD float IndexOrderedFold(Reducer op, const float* x, int64_t size) {
  if (size < 8) {
    float acc = x[0];
    for (int64_t i = 1; i < size; ++i) acc = Combine(op, acc, x[i]);
    return acc;
  }
  float lanes[8];
  for (int k = 0; k < 8; ++k) lanes[k] = x[k];
  int64_t i = 8;
  for (; i + 8 <= size; i += 8) {
    for (int k = 0; k < 8; ++k) lanes[k] = Combine(op, lanes[k], x[i + k]);
  }
  float acc =
      Combine(op, Combine(op, Combine(op, lanes[0], lanes[4]), Combine(op, lanes[1], lanes[5])),
              Combine(op, Combine(op, lanes[2], lanes[6]), Combine(op, lanes[3], lanes[7])));
  for (; i < size; ++i) acc = Combine(op, acc, x[i]);
  return acc;
}

// One pass of the CPU's ReduceOp (reduce.cc's ReducePass): x is [outer, r, inner], y [outer,
// inner], element i of y. A row (inner 1) is one Eigen redux starting at element i * r of x's
// buffer; columns (inner > 1) fold row after row from row 0 (acc = row 0, then acc op row j, the
// CPU's coefficient-wise loop). An empty pass gives the identity.
PARITY_HD void ReducePassBody(Reducer op, const float* x, float* y, int64_t r, int64_t inner,
                              int64_t i) {
  if (r == 0) {
    y[i] = ReducerIdentity(op);
    return;
  }
  if (inner == 1) {
    // A product row folds in the index order; max and min are Eigen's (any order gives their
    // bits, save which NaN survives, which Eigen's order decides).
    y[i] = op == Reducer::kProd ? IndexOrderedFold(op, x + i * r, r)
                                : EigenRedux(op, x + i * r, r, FirstAligned(i * r, r));
    return;
  }
  const float* column = x + (i / inner) * r * inner + i % inner;
  float acc = column[0];
  for (int64_t j = 1; j < r; ++j) acc = Combine(op, acc, column[j * inner]);
  y[i] = acc;
}

// One pass of ReduceMax / ReduceMin / ReduceProd over a [outer, r, inner] view of its input.
struct ReducePass {
  int64_t outer = 1, r = 1, inner = 1;
};

// reduce.cc's Compute, host code shared by the CUDA op and the host test: the input's axes merged
// into runs of reduced / kept axes (size-1 axes included, as there), then one pass per reduced run
// from the last to the first, each over the previous pass's output (earlier runs' sizes intact,
// later reduced runs collapsed to 1). Empty when nothing is reduced (a scalar: a copy).
inline std::vector<ReducePass> PlanReducePasses(const std::vector<int64_t>& dims,
                                                const std::vector<bool>& reduced) {
  std::vector<int64_t> sizes;
  std::vector<bool> kinds;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (!sizes.empty() && kinds.back() == reduced[i]) {
      sizes.back() *= dims[i];
    } else {
      sizes.push_back(dims[i]);
      kinds.push_back(reduced[i]);
    }
  }
  std::vector<ReducePass> passes;
  for (int g = static_cast<int>(sizes.size()) - 1; g >= 0; --g) {
    if (!kinds[g]) continue;
    ReducePass pass;
    for (int k = 0; k < g; ++k) pass.outer *= sizes[k];
    for (size_t k = g + 1; k < sizes.size(); ++k) pass.inner *= sizes[k];
    pass.r = sizes[g];
    passes.push_back(pass);
    sizes[g] = 1;
  }
  return passes;
}

// ReduceSumGradient / ReduceMeanGradient, thread i of out_numel * count: reduced element i % count
// of output element i / count gets dY * scale (1, or 1 / count for the mean, as the CPU computes
// them). Each element of dX is written by exactly one thread.
PARITY_HD void ReduceBroadcastGradientBody(const float* dy, float* dx, int64_t count, float scale,
                                           const ReduceGeometry& g, int64_t i) {
  const int64_t o = i / count;
  dx[ReducedElementOffset(g, ReduceBaseOffset(g, o), i % count)] = Mul(dy[o], scale);
}

// ReduceMaxGradient / ReduceMinGradient, output element o: its reduced elements in X's row-major
// order, the first equal to Y[o] gets dY[o] and every other one 0 (ties after it, and all of them
// when Y is NaN, which equals nothing).
PARITY_HD void ReduceSelectGradientBody(const float* dy, const float* x, const float* y, float* dx,
                                        int64_t count, const ReduceGeometry& g, int64_t o) {
  const int64_t base = ReduceBaseOffset(g, o);
  bool taken = false;
  for (int64_t r = 0; r < count; ++r) {
    const int64_t at = ReducedElementOffset(g, base, r);
    const bool first = !taken && x[at] == y[o];
    if (first) taken = true;
    dx[at] = first ? dy[o] : 0.0f;
  }
}

// ReduceProdGradient, output element o (reduce_grad.cc's ReduceProdGradientOp): the group's zeros
// counted and its other elements multiplied from 1 in X's row-major order; then no zero:
// (dY * prod) / x; one zero: dY * prod at the zero, 0 elsewhere; more: 0.
PARITY_HD void ReduceProdGradientBody(const float* dy, const float* x, float* dx, int64_t count,
                                      const ReduceGeometry& g, int64_t o) {
  const int64_t base = ReduceBaseOffset(g, o);
  float product = 1.0f;
  int64_t zeros = 0;
  for (int64_t r = 0; r < count; ++r) {
    const float v = x[ReducedElementOffset(g, base, r)];
    if (v == 0.0f) {
      ++zeros;
    } else {
      product = Mul(product, v);
    }
  }
  const float scaled = Mul(dy[o], product);
  for (int64_t r = 0; r < count; ++r) {
    const int64_t at = ReducedElementOffset(g, base, r);
    const float v = x[at];
    if (zeros == 0) {
      dx[at] = scaled / v;
    } else {
      dx[at] = zeros == 1 && v == 0.0f ? scaled : 0.0f;
    }
  }
}

// SumElements (divide: average = 1) and AveragedLoss (divide always), one thread: the CPU's
// IndexOrderedSum of the whole input, or 0 for an empty one, divided by the element count (0 / 0 =
// NaN for an empty input). Serial, so slow on a large input, but the CPU's order is a fixed fold,
// not a tree a grid could share, and only this order gives its bits.
PARITY_HD void SumAllBody(const float* x, float* y, int64_t n, bool divide) {
  const float sum = n == 0 ? 0.0f : IndexOrderedFold(Reducer::kSum, x, n);
  y[0] = divide ? sum / static_cast<float>(n) : sum;
}

// SumElementsGradient / AveragedLossGradient, element i: the scalar gradient dy[0], divided by the
// forward input's element count where the CPU divides.
PARITY_HD void ScalarGradientBody(const float* dy, float* dx, float divisor, bool divide,
                                  int64_t i) {
  dx[i] = divide ? dy[0] / divisor : dy[0];
}

}  // namespace parity::gpu::kernels

#endif  // PARITY_GPU_KERNELS_REDUCTION_BODY_H_
