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

// A convolution's or pooling's geometry `g` (after ConvOutputDims: global pooling is a kernel of
// H x W) over `planes` planes of H x W with an out_h x out_w output.
kernels::ConvPoolGeometry ConvPoolGeometryOf(const ConvGeometry& g, int64_t planes, int64_t H,
                                             int64_t W, int64_t out_h, int64_t out_w);

}  // namespace parity::gpu

#endif  // PARITY_GPU_KERNEL_GEOMETRY_H_
