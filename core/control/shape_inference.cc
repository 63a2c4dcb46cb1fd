#include "core/control/shape_inference.h"

#include "core/control/do_bindings.h"
#include "core/proto/error.h"

namespace parity {
namespace {

TensorType Unknown() {
  TensorType t;
  t.known = false;
  return t;
}

bool SameType(const TensorType& a, const TensorType& b) {
  return a.known && b.known && a.dtype == b.dtype && a.dims == b.dims;
}

std::map<std::string, TensorType> InputTypes(const caffe2::OperatorDef& def,
                                             const std::vector<TensorType>& in) {
  std::map<std::string, TensorType> known;
  for (int i = 0; i < def.input_size() && i < static_cast<int>(in.size()); ++i) {
    known[def.input(i)] = in[i];
  }
  return known;
}

TensorType Lookup(const std::map<std::string, TensorType>& types, const std::string& name) {
  auto it = types.find(name);
  return it == types.end() ? Unknown() : it->second;
}

}  // namespace

TensorType ScopeType() { return TensorType{DataType::kUndefined, {}, true}; }

std::map<std::string, TensorType> InferNetTypes(const caffe2::NetDef& net,
                                                std::map<std::string, TensorType> known) {
  for (const auto& op : net.op()) {
    std::vector<TensorType> in;
    for (const auto& name : op.input()) in.push_back(Lookup(known, name));
    std::vector<TensorType> out(op.output_size(), Unknown());
    if (const OpSchema* schema = OpSchemaRegistry::Find(op.type())) {
      try {
        out = schema->InferShapes(op, in);
      } catch (const Error&) {
        // The net may still run (or fail at run time with a clear error); its types are unknown.
      }
    }
    for (int j = 0; j < op.output_size(); ++j) known[op.output(j)] = out[j];
  }
  return known;
}

std::vector<TensorType> DoShapes(const caffe2::OperatorDef& def, const ArgumentHelper& args,
                                 const std::vector<TensorType>& in) {
  std::vector<TensorType> out(def.output_size(), Unknown());
  out.back() = ScopeType();
  DoBindings bindings;
  try {
    bindings = ReadDoBindings(def);
  } catch (const Error&) {
    return out;  // the op itself reports bad bindings when it is created
  }
  std::map<std::string, TensorType> inner;
  for (size_t i = 0; i < bindings.inputs.size(); ++i) {
    inner[bindings.outer_to_inner.at(bindings.inputs[i])] = in[i];
  }
  const auto after = InferNetTypes(args.GetNet("net"), inner);
  for (size_t j = 0; j < bindings.outputs.size(); ++j) {
    out[j] = Lookup(after, bindings.outer_to_inner.at(bindings.outputs[j]));
  }
  return out;
}

std::vector<TensorType> IfShapes(const caffe2::OperatorDef& def, const ArgumentHelper& args,
                                 const std::vector<TensorType>& in) {
  const auto before = InputTypes(def, in);
  const auto then_types = InferNetTypes(args.GetNet("then_net"), before);
  const auto else_types =
      args.Has("else_net") ? InferNetTypes(args.GetNet("else_net"), before) : before;
  std::vector<TensorType> out;
  for (const auto& name : def.output()) {
    const TensorType a = Lookup(then_types, name), b = Lookup(else_types, name);
    out.push_back(SameType(a, b) ? a : Unknown());
  }
  return out;
}

std::vector<TensorType> WhileShapes(const caffe2::OperatorDef& def, const ArgumentHelper& args,
                                    const std::vector<TensorType>& in) {
  const auto before = InputTypes(def, in);
  auto after = before;
  if (args.Has("cond_net")) after = InferNetTypes(args.GetNet("cond_net"), after);
  after = InferNetTypes(args.GetNet("loop_net"), after);
  if (args.Has("cond_net")) after = InferNetTypes(args.GetNet("cond_net"), after);
  std::vector<TensorType> out;
  for (const auto& name : def.output()) {
    const TensorType a = Lookup(after, name);
    auto it = before.find(name);
    // A blob first made inside the loop has no type before the first pass: it is known only when
    // it is not also an input (then every pass writes the same type) — and the loop may run zero
    // times, leaving it unset, so only loop-carried blobs with a fixed point are known.
    out.push_back(it != before.end() && SameType(a, it->second) ? a : Unknown());
  }
  return out;
}

}  // namespace parity
