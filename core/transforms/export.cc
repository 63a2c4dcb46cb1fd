#include "core/transforms/export.h"

#include <algorithm>
#include <set>

#include "core/proto/error.h"
#include "core/tensor_proto.h"
#include "core/transforms/constants.h"
#include "core/transforms/ssa.h"
#include "core/types.h"

namespace parity::transforms {

caffe2::OperatorDef ConstantFillOf(const caffe2::TensorProto& given) {
  // Through a Tensor, so values come from whichever field `given` uses (raw_data too).
  const caffe2::TensorProto value = TensorToProto(TensorFromProto(given), given.name());
  caffe2::OperatorDef fill;
  fill.add_output(value.name());
  caffe2::Argument* shape = fill.add_arg();
  shape->set_name("shape");
  for (int64_t d : value.dims()) shape->add_ints(d);
  caffe2::Argument* values = fill.add_arg();
  values->set_name("values");
  switch (value.data_type()) {
    case caffe2::TensorProto::FLOAT:
      fill.set_type("GivenTensorFill");
      for (float v : value.float_data()) values->add_floats(v);
      break;
    case caffe2::TensorProto::DOUBLE:
      // Argument.floats holds floats: the fill keeps a double parameter to f32 precision, as
      // Caffe2's GivenTensorDoubleFill does.
      fill.set_type("GivenTensorDoubleFill");
      for (double v : value.double_data()) values->add_floats(static_cast<float>(v));
      break;
    case caffe2::TensorProto::INT32:
      fill.set_type("GivenTensorIntFill");
      for (int32_t v : value.int32_data()) values->add_ints(v);
      break;
    case caffe2::TensorProto::BOOL:
      fill.set_type("GivenTensorBoolFill");
      for (int32_t v : value.int32_data()) values->add_ints(v);
      break;
    case caffe2::TensorProto::INT64:
      fill.set_type("GivenTensorInt64Fill");
      for (int64_t v : value.int64_data()) values->add_ints(v);
      break;
    default:
      PARITY_ENFORCE(false, ErrorKind::kBadArgument, "blob '", value.name(), "' of dtype ",
                     DataTypeName(static_cast<DataType>(value.data_type())),
                     ": no GivenTensor*Fill writes it");
  }
  return fill;
}

TransformedNet Export(const Workspace& workspace, const caffe2::NetDef& net,
                      const std::vector<std::string>& params) {
  TransformedNet out;
  out.predict = net;
  const Ssa ssa = GetSsa(net);
  std::set<std::string> read;
  for (const OpSsa& op : ssa.ops) {
    for (const auto& [name, version] : op.inputs) read.insert(name);
  }
  const std::set<std::string> param_set(params.begin(), params.end());
  std::vector<std::string> input_blobs;
  std::vector<std::string> output_blobs;
  for (const std::string& blob : ssa.versions.order()) {
    const int64_t version = ssa.versions.Get(blob);
    if (version == 0 && !param_set.count(blob)) input_blobs.push_back(blob);
    if (version != 0 && !read.count(blob)) output_blobs.push_back(blob);
  }
  for (const std::string& param : params) {
    const Blob* blob = workspace.GetBlob(param);
    PARITY_ENFORCE(blob != nullptr && blob->IsTensor(), ErrorKind::kMissingBlob,
                   "Export: parameter '", param, "' is not a tensor in the workspace");
    *out.init.add_op() = ConstantFillOf(TensorToProto(blob->GetTensor(), param));
  }
  // Caffe2's fake data: the blob exists in a predictor's workspace, and a feed overwrites it.
  for (const std::string& blob : input_blobs) {
    caffe2::TensorProto zero;
    zero.set_name(blob);
    zero.set_data_type(caffe2::TensorProto::FLOAT);
    zero.add_dims(1);
    zero.add_dims(1);
    zero.add_float_data(0.0f);
    *out.init.add_op() = ConstantFillOf(zero);
  }
  // Caffe2 appends the net's own external inputs after these inputs; each is listed once here
  // (Caffe2 lists a declared non-parameter input twice).
  out.predict.clear_external_input();
  std::vector<std::string> external_inputs = input_blobs;
  for (const auto& name : net.external_input()) {
    if (std::find(external_inputs.begin(), external_inputs.end(), name) == external_inputs.end()) {
      external_inputs.push_back(name);
    }
  }
  for (const auto& name : external_inputs) out.predict.add_external_input(name);
  out.predict.clear_external_output();
  for (const auto& name : output_blobs) out.predict.add_external_output(name);
  // The fake data is no constant: passes that fold constants leave it alone.
  std::string fed;
  for (const auto& name : input_blobs) fed += (fed.empty() ? "" : ",") + name;
  out.settings[kFedInputsSetting] = fed;
  return out;
}

}  // namespace parity::transforms
