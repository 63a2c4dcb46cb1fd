// Shared base of the filler ops (ConstantFill, GivenTensor*Fill, random fills): Caffe2's rule for
// the output shape and the seed of random fillers.
#ifndef PARITY_CORE_OPS_FILL_FILL_H_
#define PARITY_CORE_OPS_FILL_FILL_H_

#include <cstdint>
#include <vector>

#include "core/operator.h"

namespace parity {

class FillerOp : public Operator {
 public:
  using Operator::Operator;

 protected:
  // `shape`, or the input's dims / values followed by `extra_shape` (see fill.cc).
  std::vector<int64_t> OutputShape() const;
  // DeviceOption.random_seed, or 0 so that runs are reproducible by default.
  uint32_t Seed() const;
};

// The seed of a random op's generator (fills, Dropout): DeviceOption.random_seed, or 0.
uint32_t OpRandomSeed(const caffe2::OperatorDef& def);

}  // namespace parity

#endif  // PARITY_CORE_OPS_FILL_FILL_H_
