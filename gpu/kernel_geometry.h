// The geometries the CUDA ops hand their kernels, built from the shapes the CPU kernels' helpers
// computed: plain C++ (no CUDA), so the host tests (tests/gpu/*_body_test.cc) build them exactly
// as the ops do and run the kernel bodies on them.
#ifndef PARITY_GPU_KERNEL_GEOMETRY_H_
#define PARITY_GPU_KERNEL_GEOMETRY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/ops/common/conv_geometry.h"
#include "gpu/kernels/conv_pool_body.h"
#include "gpu/kernels/elementwise_body.h"
#include "gpu/kernels/reduce_body.h"

namespace parity::gpu {

// A binary op's output dims `out` padded on the left to the kernel's rank, with each operand's
// element strides (0 along the dims it broadcasts). `b_plan` is B as the numpy plan sees it
// (BinaryDims, core/ops/elementwise/binary.h). kUnknownOp beyond kMaxRank dims.
kernels::BroadcastGeometry BroadcastGeometryOf(const std::string& label,
                                               const std::vector<int64_t>& out,
                                               const std::vector<int64_t>& a,
                                               const std::vector<int64_t>& b_plan);

// The input `dims` as kept and reduced dims (`reduced` per axis, PlanReduce's), each with its
// element strides, runs of one kind merged so most reductions fit kMaxRank whatever the input's
// rank. kUnknownOp beyond kMaxRank alternating runs.
kernels::ReduceGeometry ReduceGeometryOf(const std::string& label,
                                         const std::vector<int64_t>& dims,
                                         const std::vector<bool>& reduced);

// The gradient of a broadcasting binary op reduced to one operand: the output gradient (dims
// `out`) summed over every dim the operand (dims `operand`, numpy-aligned like BinaryDims's
// b_plan: missing leading dims count as 1) broadcasts, i.e. where the operand has 1 and `out` does
// not. Its output elements are the operand's in row-major order; `count` gets the number of
// elements summed into each (1 where nothing is broadcast). kUnknownOp as ReduceGeometryOf.
kernels::ReduceGeometry BroadcastReduceGeometryOf(const std::string& label,
                                                  const std::vector<int64_t>& out,
                                                  const std::vector<int64_t>& operand,
                                                  int64_t* count);

// A convolution's or pooling's geometry `g` (after ConvOutputDims: global pooling is a kernel of
// H x W) over `planes` planes of H x W with an out_h x out_w output.
kernels::ConvPoolGeometry ConvPoolGeometryOf(const ConvGeometry& g, int64_t planes, int64_t H,
                                             int64_t W, int64_t out_h, int64_t out_w);

// One strided-batched GEMM, row-major: for b < batch, Y_b [M, N] = op(A_b) [M, K] op(B_b) [K, N]
// (+ Y_b), A_b = a + b * stride_a and likewise B_b, Y_b (gpu/ops/gemm.h's StridedBatchedGemm,
// which hands it to cuBLAS).
struct BatchedGemm {
  bool trans_a = false, trans_b = false;
  int64_t M = 0, N = 0, K = 0;
  int64_t stride_a = 0, stride_b = 0, stride_y = 0;
  int64_t batch = 0;
};

// The GEMMs Conv and ConvGradient run per image n, over the groups (batch = group), with col the
// image unfolded (im2col, [C * kh * kw, out_hw]; a pointwise convolution's image itself):
//   forward      Y_n [M/G, out_hw] per group = W_g * col_g           (A = W, B = col, Y = Y_n)
//   weight_grad  dW_g [M/G, k] += dY_n,g * col_g^T                  (A = dY_n, B = col, Y = dW)
//   data_grad    dcol_g [k, out_hw] = W_g^T * dY_n,g                (A = W, B = dY_n, Y = dcol)
// x [N, C, H, W] and y [N, M, out_h, out_w] are the op's dims.
struct ConvGemms {
  BatchedGemm forward, weight_grad, data_grad;
};
ConvGemms ConvGemmsOf(const std::vector<int64_t>& x, const std::vector<int64_t>& y,
                      const ConvGeometry& g, int64_t group);

}  // namespace parity::gpu

#endif  // PARITY_GPU_KERNEL_GEOMETRY_H_
