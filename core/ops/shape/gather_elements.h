// GatherElements' index check (gather_elements.cc), shared with its CUDA kernels (gpu/ops/misc.cc),
// which check a host copy of INDICES before launching: both devices refuse an index alike.
#ifndef PARITY_CORE_OPS_SHAPE_GATHER_ELEMENTS_H_
#define PARITY_CORE_OPS_SHAPE_GATHER_ELEMENTS_H_

#include <cstdint>
#include <string>

#include "core/proto/error.h"

namespace parity {

// Each of the `n` indices within [-bound, bound) (bound = DATA's dim along `axis`), else
// kBadArgument naming the index, its position, the axis and DATA (`data`, its shape as text).
template <typename Index>
void CheckGatherElementsIndices(const Index* idx, int64_t n, int64_t bound, int axis,
                                const std::string& label, const std::string& data) {
  for (int64_t i = 0; i < n; ++i) {
    PARITY_ENFORCE(idx[i] >= -bound && idx[i] < bound, ErrorKind::kBadArgument, label, ": index ",
                   idx[i], " at position ", i, " of INDICES is out of range [", -bound, ", ", bound,
                   ") for axis ", axis, " of DATA ", data);
  }
}

}  // namespace parity

#endif  // PARITY_CORE_OPS_SHAPE_GATHER_ELEMENTS_H_
