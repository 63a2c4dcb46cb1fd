// What FC / FCTransposed share with their gradient kernels (linalg_grad.cc): the 2-D coercion of
// X and W with its checks, and the argument declarations.
#ifndef PARITY_CORE_OPS_LINALG_LINALG_H_
#define PARITY_CORE_OPS_LINALG_LINALG_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/schema.h"

namespace parity {

struct FcSizes {
  int64_t M = 0, K = 0, N = 0;
};

// X coerced to [M, K] at `axis`, W to [N, K] (FC) or [K, N] (transposed_weight) at `axis_w`;
// writes Y's dims X.dims[:axis] + [N]. kBadArgument for an axis out of range, kShapeMismatch when
// the K's differ or (b given) the bias does not hold N elements with b[0] == N.
FcSizes FcShape(const std::string& label, bool transposed_weight, int64_t axis, int64_t axis_w,
                const std::vector<int64_t>& x, const std::vector<int64_t>& w,
                const std::vector<int64_t>* b, std::vector<int64_t>* y_dims);

// The arguments of FC and FCTransposed (`axis`, `axis_w`): .Apply(FcArgs) on the forward schemas
// and on their gradients', which receive the forward op's arguments.
OpSchema& FcArgs(OpSchema& schema);

// FCGradient's sizes: X and W coerced as the forward op does, and dY holding M x N values
// (kShapeMismatch otherwise). Shared with the CUDA kernel.
FcSizes FcGradientShape(const std::string& label, bool transposed_weight, int64_t axis,
                        int64_t axis_w, const std::vector<int64_t>& x,
                        const std::vector<int64_t>& w, const std::vector<int64_t>& dy,
                        std::vector<int64_t>* y_dims);

// MatMul's sizes: A coerced to 2-D at axis_a, B at axis_b, optionally transposed; Y's dims are
// [M, N] or shape_like's. Shared with the CUDA kernel (gpu/ops), so both raise the same errors.
struct MatMulSizes {
  int64_t M = 0, N = 0, K = 0;
};
MatMulSizes MatMulShape(const std::string& label, int64_t axis_a, int64_t axis_b, bool trans_a,
                        bool trans_b, const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                        const std::vector<int64_t>* shape_like, std::vector<int64_t>* y_dims);

// BatchMatMul's plan (numpy.matmul rules, linalg.cc): the GEMM sizes, the effective transposes,
// and for each output batch index the batch strides of A and B (0 where one broadcasts).
struct BatchMatMulPlan {
  int64_t M = 0, N = 0, K = 0;
  bool trans_a = false, trans_b = false;  // effective: a 1-D operand is never transposed
  int64_t a_batch = 1, b_batch = 1, y_batch = 1;
  std::vector<int64_t> y_batch_dims, a_strides, b_strides;
};
void PlanBatchMatMul(const std::string& label, const std::vector<int64_t>& a,
                     const std::vector<int64_t>& b, bool trans_a, bool trans_b, bool broadcast,
                     BatchMatMulPlan* p, std::vector<int64_t>* y_dims);

}  // namespace parity

#endif  // PARITY_CORE_OPS_LINALG_LINALG_H_
