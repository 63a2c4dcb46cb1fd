// The shape-inference oracle: every op's schema-inferred output types (OpSchema::InferShapes,
// which the executor, the net generator and the transforms rely on) against what the kernels
// actually produce — dims and dtype on production, dims on the f32 reference. An output may be
// unknown only where the schema says so (data-dependent shapes, or an op without an inference
// function); a known type must be exact.
#include <sstream>

#include "core/schema.h"
#include "oracles/finding.h"
#include "oracles/oracle.h"

namespace parity::oracles {
namespace {

TensorType TypeOf(const caffe2::TensorProto& t) {
  TensorType type;
  type.dtype = static_cast<DataType>(t.data_type());
  type.dims.assign(t.dims().begin(), t.dims().end());
  return type;
}

// The first op whose inferred types differ from `run`'s traced outputs, as a finding.
std::optional<Finding> CheckRun(const Case& c, const BackendRun& run, const std::string& side,
                                bool compare_dtype) {
  Blobs current = CaseInputs(c);
  for (const OpTrace& entry : run.trace) {
    const caffe2::OperatorDef& def = c.net().op(entry.op_index);
    const OpSchema* schema = OpSchemaRegistry::Find(def.type());
    std::vector<TensorType> in;
    bool inputs_known = true;
    for (const auto& name : def.input()) {
      auto it = current.find(name);
      if (it == current.end()) {
        inputs_known = false;
        break;
      }
      in.push_back(TypeOf(it->second));
    }
    if (schema != nullptr && schema->has_shape_inference() && inputs_known) {
      std::vector<TensorType> inferred;
      try {
        inferred = schema->InferShapes(def, in);
      } catch (const Error& error) {
        // The kernels ran this op; a shape function that rejects it is wrong about the op.
        Finding finding = MakeFinding("shape", c, "shape inference error",
                                      std::string("the schema's shape function fails where ") +
                                          side + " ran the op: " + error.what());
        SetBlame(&finding, entry.op_index, c.net());
        return finding;
      }
      for (int i = 0; i < def.output_size() && i < static_cast<int>(inferred.size()); ++i) {
        auto actual = entry.outputs.find(def.output(i));
        if (!inferred[i].known || actual == entry.outputs.end()) continue;
        TensorType real = TypeOf(actual->second);
        if (!compare_dtype) real.dtype = inferred[i].dtype;
        if (real.dims == inferred[i].dims && real.dtype == inferred[i].dtype) continue;
        std::ostringstream message;
        message << "output " << i << " '" << def.output(i) << "': the schema infers "
                << TensorTypeString(inferred[i]) << ", " << side << " produced "
                << TensorTypeString(real);
        Finding finding = MakeFinding("shape", c, "shape inference mismatch", message.str());
        SetBlame(&finding, entry.op_index, c.net());
        finding.mutable_signature()->set_dtype(DataTypeName(real.dtype));
        return finding;
      }
    }
    for (const auto& [name, value] : entry.outputs) current[name] = value;
  }
  return std::nullopt;
}

OracleResult CheckShapes(const Case& c, const OracleOptions& options) {
  const RunOptions traced{true, ""};
  BackendRun production = options.backend->Run(c, traced);
  // The f32 reference: its tensors carry the dtypes the schemas speak of (the f64 one widens
  // every float to double).
  BackendRun truth = GetBackend(kReferenceF32).Run(c, traced);
  if (production.error && truth.error) return {std::nullopt, "", production.error};
  // Ops that ran are checked even when a later one failed (the forward oracle reports that).
  if (auto finding = CheckRun(c, production, "production", true)) return {finding, ""};
  if (auto finding = CheckRun(c, truth, "the reference", false)) return {finding, ""};
  return {};
}

const bool kRegistered = RegisterOracle("shape", CheckShapes);

}  // namespace
}  // namespace parity::oracles
