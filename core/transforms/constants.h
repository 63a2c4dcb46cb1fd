// Constants of a deployed net: parameters an init net writes with GivenTensorFill (the form Export
// produces) and the predict net reads before writing them. Passes that fold arithmetic into
// parameters (fuse_conv_bn, constant_fold) read and add them here.
#ifndef PARITY_CORE_TRANSFORMS_CONSTANTS_H_
#define PARITY_CORE_TRANSFORMS_CONSTANTS_H_

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/transforms/pass.h"
#include "core/transforms/ssa.h"

namespace parity::transforms {

// The setting naming the blobs fed at run time (comma-separated): the init net may fill them
// (Export's fake data) but a feed overwrites them, so they are never constants.
inline constexpr char kFedInputsSetting[] = "inputs";

// The blobs the setting `inputs` names.
std::set<std::string> FedBlobs(const TransformedNet& t);

struct FloatConstant {
  std::vector<int64_t> dims;
  std::vector<double> values;  // the f32 values, widened
};

// The value of `read` (a versioned input of the predict net): a constant when it is version 0 (no
// predict op wrote it before), not fed (FedBlobs), and the init net's last write of the blob is a float GivenTensorFill
// whose values fill its shape. nullopt otherwise.
std::optional<FloatConstant> FindFloatConstant(const TransformedNet& t, const VersionedBlob& read);

// Appends a GivenTensorFill of `value` named `name` to the init net, declared where the nets
// declare their inputs and outputs. Values are rounded to f32, as the tensor will hold them.
void AddFloatConstant(TransformedNet* t, const std::string& name, const FloatConstant& value);

// Appends `fill` (a constant fill) to the init net, its outputs declared the same way.
void AddConstant(TransformedNet* t, const caffe2::OperatorDef& fill);

}  // namespace parity::transforms

#endif  // PARITY_CORE_TRANSFORMS_CONSTANTS_H_
