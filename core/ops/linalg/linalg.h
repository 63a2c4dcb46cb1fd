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

}  // namespace parity

#endif  // PARITY_CORE_OPS_LINALG_LINALG_H_
