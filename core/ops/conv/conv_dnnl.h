// oneDNN (Debian libdnnl-dev) convolution primitives behind Conv, ConvRelu and ConvGradient's
// engine "DNNL", the default CPU engine of those ops for float tensors (conv.cc, conv_grad.cc).
//
// Why oneDNN: it is what PyTorch calls on these machines; its direct convolution kernels work on
// blocked layouts (nChw16c) with AVX-512 and beat im2col + sgemm on the bench shapes
// (bench/conv_bench.cc, README). The tensors stay NCHW: each run reorders X (and W) into the layout
// the primitive chose and the result back, as PyTorch does for plain tensors; a pointwise
// convolution (1x1, stride 1, no padding) runs on the plain layouts, as a GEMM per image.
//
// What it covers: float, 2-D NCHW, any group (depthwise included), stride, dilation and asymmetric
// pads, bias optional. Anything else, or an instance for which oneDNN has no implementation (it
// throws unimplemented while building the primitive), is declined: Run returns false, nothing
// written, and the op falls back to its im2col kernel. The algorithm is always
// convolution_direct (never Winograd, whose transforms lose accuracy) with strict f32 math (no
// implicit bf16 even where the CPU has it), so the only difference from im2col is the order in
// which each output's C/G * kh * kw products are summed.
//
// Caching: building a primitive JIT-compiles code and chooses a work split (0.1 to 1 ms), and the
// oracles create the ops of one case many times over, so the primitives, their descriptors and
// reorders of a shape (a plan: everything that holds no data) live in a process-wide cache keyed
// on the geometry, group, X's and W's dims, which optional tensors take part and the thread count;
// a declined shape is remembered too. Each op keeps the plan of the shapes it last ran with its
// own buffers (the reordered tensors, the scratchpad), so repeated runs at one shape only execute,
// and ops running at once never share a buffer.
//
// Threads: oneDNN's OpenMP threads, as for the float GEMM (gemm.h): the calling thread's
// ComputeThreads() (core/threads.h). The primitives are deterministic for a given thread count, but
// the work split, hence the summation order, may change with it: the DAG executor's workers run
// with their creator's count (thread_pool.cc) so that SimpleNet and DAG give the same bits.
#ifndef PARITY_CORE_OPS_CONV_CONV_DNNL_H_
#define PARITY_CORE_OPS_CONV_CONV_DNNL_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "core/ops/common/conv_geometry.h"

namespace parity {

// The kernel choices of the conv ops, one per registered engine.
enum class ConvEngine {
  kIm2Col,  // "IM2COL": im2col + GEMM for every dtype and instance
  kDnnl,    // "DNNL" and the default: oneDNN for float, im2col for what it declines
};

// The shapes one set of primitives is built for (the op's geometry and group are fixed).
struct DnnlConvKey {
  std::vector<int64_t> x, w;
  bool bias = false;  // forward: b given; backward: db requested
  bool dx = false;    // backward: dX requested
  bool operator==(const DnnlConvKey& o) const {
    return x == o.x && w == o.w && bias == o.bias && dx == o.dx;
  }
};

// Y = conv(X, W) (+ b): X [N, C, H, W], W [M, C / group, kh, kw], b [M] or null, Y [N, M, oh,
// ow], all float NCHW and contiguous, shapes already validated by ConvShape.
class DnnlConvForward {
 public:
  DnnlConvForward(const ConvGeometry& geometry, int64_t group);
  ~DnnlConvForward();
  DnnlConvForward(const DnnlConvForward&) = delete;
  DnnlConvForward& operator=(const DnnlConvForward&) = delete;

  // False when oneDNN declines the instance (nothing written): the caller runs im2col.
  bool Run(const std::vector<int64_t>& x_dims, const std::vector<int64_t>& w_dims,
           const std::vector<int64_t>& y_dims, const float* x, const float* w, const float* b,
           float* y);

  struct Primitives;  // defined in conv_dnnl.cc, where dnnl.hpp is included

 private:
  const ConvGeometry geometry_;
  const int64_t group_;
  DnnlConvKey key_;
  int threads_ = 0;                     // ComputeThreads() when cached_ was made
  bool built_ = false;                  // key_ holds the shapes of the last build
  std::unique_ptr<Primitives> cached_;  // built for key_; null when oneDNN declined it
};

// ConvGradient: dW (always), db [M] (when db is non-null) and dX (when dx is non-null) from X, W
// and dY [N, M, oh, ow], by oneDNN's backward-weights and backward-data primitives.
class DnnlConvBackward {
 public:
  DnnlConvBackward(const ConvGeometry& geometry, int64_t group);
  ~DnnlConvBackward();
  DnnlConvBackward(const DnnlConvBackward&) = delete;
  DnnlConvBackward& operator=(const DnnlConvBackward&) = delete;

  // False when oneDNN declines the instance (nothing written): the caller runs im2col.
  bool Run(const std::vector<int64_t>& x_dims, const std::vector<int64_t>& w_dims,
           const std::vector<int64_t>& y_dims, const float* x, const float* w, const float* dy,
           float* dw, float* db, float* dx);

  struct Primitives;  // defined in conv_dnnl.cc

 private:
  const ConvGeometry geometry_;
  const int64_t group_;
  DnnlConvKey key_;
  int threads_ = 0;
  bool built_ = false;
  std::unique_ptr<Primitives> cached_;
};

}  // namespace parity

#endif  // PARITY_CORE_OPS_CONV_CONV_DNNL_H_
