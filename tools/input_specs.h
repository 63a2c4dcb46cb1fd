// The `--input` option shared by the commands that run user nets (run, check): tensors to feed,
// read from .npy / TensorProtos files.
#ifndef PARITY_TOOLS_INPUT_SPECS_H_
#define PARITY_TOOLS_INPUT_SPECS_H_

#include <string>
#include <vector>

#include "core/proto/caffe2.pb.h"

namespace parity::tools {

// `--input` values: "NAME=FILE" (one tensor, or the one named NAME in a multi-tensor file) or
// "FILE" (every tensor under its own name).
std::vector<caffe2::TensorProto> LoadInputSpecs(const std::vector<std::string>& specs);

}  // namespace parity::tools

#endif  // PARITY_TOOLS_INPUT_SPECS_H_
