// ONNX -> Caffe2 import (issue 17): a ModelProto becomes a NetDef of parity ops, and its
// initializers an init NetDef of GivenTensor*Fill ops, the way Caffe2's own ONNX backend mapped
// models (Gemm -> MatMul + Add, BatchNormalization -> SpatialBN, kernel_shape -> kernels, ...).
// The rules live in onnx/rules_*.cc; docs/onnx.md lists them with their opset-dependent forms.
//
//   ImportResult r = ImportModel(LoadModel("model.onnx"));   // kBadArgument listing what is not
//   SaveNetDef("net.pbtxt", r.net);                          // translated, node by node
//
// Values must have static shapes where a rule needs them (Slice, Softmax, Conv's auto_pad, ...):
// the model's declared shapes, the shapes parity's ops infer, and ImportOptions::input_dims.
#ifndef PARITY_ONNX_IMPORTER_H_
#define PARITY_ONNX_IMPORTER_H_

#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/proto/caffe2.pb.h"
#include "onnx/import_context.h"
#include "onnx/onnx.pb.h"

namespace parity::onnx {

struct ImportOptions {
  // Graph inputs taken as constants with these values (TensorProto.name is the input's name).
  // Rules that need a constant read them (Reshape's shape, Slice's starts, Clip's min, ...): the
  // net is then specific to these values. One that an op still reads as data gets a fill in the
  // init net. The conformance runner binds the ParameterInputs of each case this way.
  std::vector<caffe2::TensorProto> constant_inputs;
  // Dims of graph inputs whose declared shape is missing or symbolic.
  std::map<std::string, std::vector<int64_t>> input_dims;
};

struct ImportResult {
  caffe2::NetDef net;
  caffe2::NetDef init_net;          // initializers and bound inputs read as data, as fills
  std::vector<std::string> inputs;  // graph inputs to feed, in graph order
  std::vector<std::string> outputs;
  std::vector<std::string> bound;  // graph inputs taken as constants
  std::vector<std::string> notes;  // compositions and rewrites used ("LogSoftmax = Log(Softmax)")
  // Everything not translated; the nets are incomplete unless this is empty.
  std::vector<UnsupportedNode> unsupported;
};

// Translates what it can and lists the rest in `unsupported` (never throws for an unsupported
// node; kInvalidNet for a model that is not one).
ImportResult TranslateModel(const ::onnx::ModelProto& model, const ImportOptions& options = {});
// TranslateModel, or kBadArgument naming every unsupported node, op type and attribute.
ImportResult ImportModel(const ::onnx::ModelProto& model, const ImportOptions& options = {});

// A binary ModelProto (.onnx), or text for .pbtxt/.prototxt/.txt (kIo, kInvalidNet).
::onnx::ModelProto LoadModel(const std::string& path);

// Graph inputs (not initializers) that feed a parameter slot of a node (ParameterSlots in
// onnx/rules.h): in ONNX's node tests these carry the shapes, axes and bounds that older opsets
// had as attributes.
std::set<std::string> ParameterInputs(const ::onnx::ModelProto& model);

}  // namespace parity::onnx

#endif  // PARITY_ONNX_IMPORTER_H_
