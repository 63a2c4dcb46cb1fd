// ConvTranspose's argument and shape rules (conv_transpose.cc), shared with its CUDA kernel
// (gpu/ops/conv_transpose.cc) so both devices accept and reject the same nets with the same words.
#ifndef PARITY_CORE_OPS_CONV_CONV_TRANSPOSE_H_
#define PARITY_CORE_OPS_CONV_CONV_TRANSPOSE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/argument.h"
#include "core/ops/common/conv_geometry.h"

namespace parity {

// The extra output rows / columns (Caffe2's adj), in [0, stride).
struct ConvTransposeAdj {
  int64_t h = 0, w = 0;
};

// adj as `adj` (both dims), `adjs` ([h, w]) or `adj_h` + `adj_w`, one form at a time
// (kBadArgument naming the op otherwise, or for an adj outside [0, stride)).
ConvTransposeAdj ParseConvTransposeAdj(const ArgumentHelper& args, const ConvGeometry& g);

// The checks Caffe2's ConvTransposeOp makes on X [N, C, H, W], W [C, M / group, kh, kw] and the
// optional bias [M] (kShapeMismatch naming `label` and the shapes), and Y's dims.
void ConvTransposeShape(const std::string& label, const ConvGeometry& g,
                        const ConvTransposeAdj& adj, int64_t group, const std::vector<int64_t>& x,
                        const std::vector<int64_t>& w, const std::vector<int64_t>* b,
                        std::vector<int64_t>* y_dims);

}  // namespace parity

#endif  // PARITY_CORE_OPS_CONV_CONV_TRANSPOSE_H_
