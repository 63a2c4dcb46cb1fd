// Deploying a net: its parameters as constant fills of an init net (Caffe2's predictor_exporter
// Export, seed 001 #9 and #11), the form the constant-using passes (fuse_conv_bn, constant_fold)
// rewrite.
#ifndef PARITY_CORE_TRANSFORMS_EXPORT_H_
#define PARITY_CORE_TRANSFORMS_EXPORT_H_

#include <string>
#include <vector>

#include "core/proto/caffe2.pb.h"
#include "core/transforms/pass.h"
#include "core/workspace.h"

namespace parity::transforms {

// The GivenTensor*Fill op writing `value` (named by value.name()) with its shape: GivenTensorFill
// for float, and the typed fill for double, int32, int64 and bool (Caffe2's Export writes
// GivenTensorFill for every blob, which would turn an integer parameter into floats).
// kBadArgument for a dtype no fill produces.
caffe2::OperatorDef ConstantFillOf(const caffe2::TensorProto& value);

// Caffe2's Export: an init net with one fill per parameter (its value from `workspace`) and a
// [1, 1] zero fill for every other input the net reads before writing it, so a predictor finds
// every blob; the predict net's external inputs are those inputs, then the net's own external
// inputs; its external outputs are the blobs written and never read. The setting `inputs`
// (kFedInputsSetting, core/transforms/constants.h) lists those inputs, which passes must not take
// for constants. kMissingBlob when a parameter is not in the workspace.
TransformedNet Export(const Workspace& workspace, const caffe2::NetDef& net,
                      const std::vector<std::string>& params);

}  // namespace parity::transforms

#endif  // PARITY_CORE_TRANSFORMS_EXPORT_H_
