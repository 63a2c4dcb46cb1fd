// Per-thread bodies of the variadic kernels of gpu/kernels/variadic.cu: Max, Min (numpy
// broadcasting over any number of inputs), Mean's scaling, and the gradients MaxGradient,
// MinGradient, MeanGradient. Host and device (host_device.h); tests/gpu/variadic_body_test.cc runs
// them on the host against the CPU engine (core/ops/elementwise/variadic.cc, variadic_grad.cc).
#ifndef PARITY_GPU_KERNELS_VARIADIC_BODY_H_
#define PARITY_GPU_KERNELS_VARIADIC_BODY_H_

#include <cstdint>
#include <vector>

#include "gpu/kernels/elementwise_body.h"  // kMaxRank
#include "gpu/kernels/host_device.h"
#include "gpu/kernels/ieee_body.h"
#include "gpu/kernels/reduce_body.h"     // ReduceGeometry
#include "gpu/kernels/reduction_body.h"  // FirstAligned

namespace parity::gpu::kernels {

// The most input pointers one variadic launch takes (they travel by value with their strides).
constexpr int kMaxVariadicInputs = 8;

// Up to kMaxVariadicInputs inputs broadcast to an output of `rank` dims (padded on the left like
// BroadcastGeometry): each input's element strides, 0 along the dims it broadcasts.
struct VariadicInputs {
  int count = 0;
  int rank = 0;
  int64_t out_dims[kMaxRank] = {};
  const float* x[kMaxVariadicInputs] = {};
  int64_t strides[kMaxVariadicInputs][kMaxRank] = {};
  // Max / Min: the block length of the CPU's BroadcastPlan for the step that folds input k into
  // the running result (ExtremumInPacket); unused for input 0 and by the gradients.
  int64_t inner[kMaxVariadicInputs] = {};
};

// Output element i's coordinates, dotted with input k's strides.
PARITY_HD int64_t VariadicOffset(const VariadicInputs& in, int k, int64_t i) {
  int64_t rest = i, offset = 0;
  for (int d = in.rank - 1; d >= 0; --d) {
    offset += (rest % in.out_dims[d]) * in.strides[k][d];
    rest /= in.out_dims[d];
  }
  return offset;
}

// Whether the CPU computes output element i of a step with blocks of `inner` elements in an SSE
// packet: RunPlan assigns each block (64-byte aligned output, blocks at multiples of inner) with
// Eigen's LinearVectorizedTraversal, packets from the first 16-byte boundary of the block to the
// last whole packet, single elements before and after (its thread split falls on 64-byte lines and
// changes none of this).
PARITY_HD bool ExtremumInPacket(int64_t i, int64_t inner) {
  const int64_t p = i % inner;
  const int64_t start = FirstAligned(i - p, inner);
  return p >= start && p < start + ((inner - start) / 4) * 4;
}

// Eigen's max / min with PropagateNaN (core/ops/common/elementwise.h's MaxNaN / MinNaN) of the
// running result a and the next input b: a NaN a, else a NaN b, else the larger (smaller). A tie
// (only +0 against -0 has two answers) goes to a in Eigen's scalar path (std::max(a, b)) and to b
// in its packet path (_mm_max_ps(a, b)), so `packet` (ExtremumInPacket) decides a zero's sign.
PARITY_HD float ExtremumNaN(bool max, bool packet, float a, float b) {
  if (a != a) return a;
  if (b != b) return b;
  if (packet) {
    if (max) return a > b ? a : b;
    return a < b ? a : b;
  }
  if (max) return a < b ? b : a;
  return b < a ? b : a;
}

// Host code: the block length of BroadcastPlan::Build(out, a, b) (core/ops/common/broadcast.cc):
// the output's innermost dims (size-1 dims skipped) over which a and b each keep varying or not.
inline int64_t BroadcastPlanInner(const std::vector<int64_t>& out, const std::vector<int64_t>& a,
                                  const std::vector<int64_t>& b) {
  const int rank = static_cast<int>(out.size());
  const int a_shift = rank - static_cast<int>(a.size());
  const int b_shift = rank - static_cast<int>(b.size());
  int64_t inner = 1;
  int pattern = -1;
  for (int d = rank - 1; d >= 0; --d) {
    if (out[d] == 1) continue;
    const int here = (d >= a_shift && a[d - a_shift] != 1 ? 1 : 0) |
                     (d >= b_shift && b[d - b_shift] != 1 ? 2 : 0);
    if (pattern >= 0 && here != pattern) break;
    pattern = here;
    inner *= out[d];
  }
  return inner;
}

// Host code: inputs [first, first + n) (pointers `x`, dims `dims`, numpy-aligned) broadcast to
// `out`, whose rank must be at most kMaxRank (the caller checks).
inline VariadicInputs MakeVariadicInputs(const std::vector<int64_t>& out,
                                         const std::vector<const float*>& x,
                                         const std::vector<std::vector<int64_t>>& dims, int first,
                                         int n) {
  VariadicInputs in;
  in.rank = static_cast<int>(out.size());
  for (int d = 0; d < in.rank; ++d) in.out_dims[d] = out[d];
  in.count = n;
  for (int k = 0; k < n; ++k) {
    const std::vector<int64_t>& xd = dims[first + k];
    in.x[k] = x[first + k];
    // The CPU folds input 1 into input 0, each later input into the output-shaped result.
    const int global = first + k;
    if (global > 0) in.inner[k] = BroadcastPlanInner(out, global == 1 ? dims[0] : out, xd);
    int64_t stride = 1;
    for (int d = in.rank - 1; d >= 0; --d) {
      const int xd_index = d - (in.rank - static_cast<int>(xd.size()));
      const int64_t dim = xd_index >= 0 ? xd[xd_index] : 1;
      in.strides[k][d] = dim == 1 ? 0 : stride;
      stride *= dim;
    }
  }
  return in;
}

// Host code: the block of ExtremumGradientBody for an operand of dims `operand` under output
// `out` (BroadcastPlan::Build's innermost group): where the operand is constant along the
// output's innermost dims (size-1 dims skipped), the length of that run; else 1.
inline int64_t ExtremumGradientBlock(const std::vector<int64_t>& out,
                                     const std::vector<int64_t>& operand) {
  const int shift = static_cast<int>(out.size()) - static_cast<int>(operand.size());
  int64_t block = 1;
  for (int d = static_cast<int>(out.size()) - 1; d >= 0; --d) {
    if (out[d] == 1) continue;
    const bool varies = d >= shift && operand[d - shift] != 1;
    if (varies) break;
    block *= out[d];
  }
  return block;
}

// Output element i of Max / Min: ((x0 op x1) op x2) op ..., the CPU's fold in input order. One
// input is itself. Every input is read before y[i] is written, so y may be input 0 (the schema's
// in place, which needs input 0 to have the output's dims).
PARITY_HD void ExtremumBody(bool max, const VariadicInputs& in, float* y, int64_t i) {
  float acc = in.x[0][VariadicOffset(in, 0, i)];
  for (int k = 1; k < in.count; ++k) {
    acc =
        ExtremumNaN(max, ExtremumInPacket(i, in.inner[k]), acc, in.x[k][VariadicOffset(in, k, i)]);
  }
  y[i] = acc;
}

// The launches of a Max / Min over `count` (>= 1) inputs: the first takes inputs 0..7, each
// further one the running result y (already the output's shape: contiguous strides) and the next
// 7, so the fold runs in input order whatever `count` is. `make(first, n)` builds the
// VariadicInputs of inputs [first, first + n), and `launch(const VariadicInputs&)` runs the body
// (host code: the CUDA op and the host test share it).
template <class Make, class Launch>
void ForEachVariadicChunk(int count, const float* y, Make&& make, Launch&& launch) {
  int next = 0;
  while (next < count) {
    const int take = next == 0 ? kMaxVariadicInputs : kMaxVariadicInputs - 1;
    const int n = count - next < take ? count - next : take;
    VariadicInputs in = make(next, n);
    if (next > 0) {
      // The chunk's inputs move up one; y, contiguous, goes first.
      for (int k = in.count; k > 0; --k) {
        in.x[k] = in.x[k - 1];
        in.inner[k] = in.inner[k - 1];
        for (int d = 0; d < kMaxRank; ++d) in.strides[k][d] = in.strides[k - 1][d];
      }
      in.x[0] = y;
      int64_t stride = 1;
      for (int d = in.rank - 1; d >= 0; --d) {
        in.strides[0][d] = in.out_dims[d] == 1 ? 0 : stride;
        stride *= in.out_dims[d];
      }
      ++in.count;
    }
    launch(in);
    next += n;
  }
}

// MaxGradient / MinGradient, output element i, over the chunk `in` of inputs [first, first +
// in.count): winner[i] = the first input (in input order) equal to y[i], -1 while none is. The
// first chunk starts from -1; later chunks leave a found winner alone.
PARITY_HD void ExtremumWinnerBody(const VariadicInputs& in, int first, const float* y,
                                  int32_t* winner, int64_t i) {
  int32_t w = first == 0 ? -1 : winner[i];
  for (int k = 0; w < 0 && k < in.count; ++k) {
    if (in.x[k][VariadicOffset(in, k, i)] == y[i]) w = first + k;
  }
  winner[i] = w;
}

// The CPU's term at output element k for input `input`: (1 if it holds the extremum there, else
// 0) * dY, so a 0 * Inf or 0 * NaN is NaN there as on the CPU.
PARITY_HD float ExtremumGradientTerm(const int32_t* winner, int32_t input, const float* dy,
                                     int64_t k) {
  return Mul(winner[k] == input ? 1.0f : 0.0f, dy[k]);
}

// Element e of dX_input: the terms of its `count` broadcast copies in Y (`g`: Y seen as X's dims
// kept and its broadcast dims reduced, BroadcastReduceGeometryOf's), in Y's row-major order. With
// one copy the term itself (the CPU assigns it). Else the CPU's accumulation into zeros: where X
// varies along Y's innermost run, each term added in turn (`block` 1); where X is constant along
// it (its BroadcastPlan's scalar mode), each run of `block` terms summed first (Eigen's serial
// .sum() of the unvectorizable expression, from its first term) and the run's sum added.
PARITY_HD void ExtremumGradientBody(const int32_t* winner, int32_t input, const float* dy,
                                    float* dx, int64_t count, int64_t block,
                                    const ReduceGeometry& g, int64_t e) {
  const int64_t base = ReduceBaseOffset(g, e);
  if (count == 1) {
    dx[e] = ExtremumGradientTerm(winner, input, dy, base);
    return;
  }
  float sum = 0.0f;
  for (int64_t r = 0; r < count; r += block) {
    float run = ExtremumGradientTerm(winner, input, dy, ReducedElementOffset(g, base, r));
    for (int64_t q = 1; q < block; ++q) {
      run = Add(run, ExtremumGradientTerm(winner, input, dy, ReducedElementOffset(g, base, r + q)));
    }
    sum = Add(sum, run);
  }
  dx[e] = sum;
}

// Mean's scaling of the sum and MeanGradient: y[i] = x[i] * scale (scale = float(1.0 / n), the
// CPU's factor). y may be x.
PARITY_HD void ScaleBody(const float* x, float* y, float scale, int64_t i) {
  y[i] = Mul(x[i], scale);
}

}  // namespace parity::gpu::kernels

#endif  // PARITY_GPU_KERNELS_VARIADIC_BODY_H_
