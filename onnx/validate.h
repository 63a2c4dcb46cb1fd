// What onnx.checker would reject (and a little more), checked before any rule translates a node:
// a model that is not valid is refused with one Error naming the node (index, op type, name), the
// value or the attribute, never half-imported. Rules may then trust that every value a node reads
// is defined earlier (no cycles), that every value is defined once (SSA), that the opsets are ones
// the importer knows, and that window attributes (strides, dilations, kernel_shape, blocksize)
// are positive and pads non-negative, so none of them divides by zero.
#ifndef PARITY_ONNX_VALIDATE_H_
#define PARITY_ONNX_VALIDATE_H_

#include <string>
#include <vector>

#include "core/proto/caffe2.pb.h"
#include "onnx/onnx.pb.h"

namespace parity::onnx {

// The newest ai.onnx opset the importer knows: 18 (ONNX 1.13). What 18 changed in the ops it
// translates: Reduce*'s axes became input 1, Pad gained input 3 (axes), Split the attribute
// num_outputs (onnx/rules_misc.cc, rules_shape.cc); every other change there is a new op or a new
// attribute, which the rules refuse by name.
constexpr int kMaxKnownOpset = 18;

// kInvalidNet (structure, opsets), kBadArgument (attributes), kShapeMismatch (an input's declared
// type against its initializer), kResourceLimit (an initializer's element count overflowing).
void ValidateModel(const ::onnx::ModelProto& model);

// --bind values against the graph: each names a graph input that is not an initializer, once,
// with the declared dtype and static dims where the model declares them (kBadArgument).
void ValidateBindings(const ::onnx::GraphProto& graph,
                      const std::vector<caffe2::TensorProto>& bound);

}  // namespace parity::onnx

#endif  // PARITY_ONNX_VALIDATE_H_
