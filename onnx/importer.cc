#include "onnx/importer.h"

#include <algorithm>
#include <functional>

#include "core/io.h"
#include "core/tensor_proto.h"
#include "onnx/rules.h"
#include "onnx/tensor.h"

namespace parity::onnx {
namespace {

bool IsDefaultDomain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

void CollectNames(const ::onnx::GraphProto& graph, std::set<std::string>* names) {
  for (const auto& v : graph.input()) names->insert(v.name());
  for (const auto& v : graph.output()) names->insert(v.name());
  for (const auto& v : graph.value_info()) names->insert(v.name());
  for (const auto& t : graph.initializer()) names->insert(t.name());
  for (const auto& node : graph.node()) {
    for (const auto& name : node.input()) names->insert(name);
    for (const auto& name : node.output()) names->insert(name);
    for (const auto& attr : node.attribute()) {
      if (attr.has_g()) CollectNames(attr.g(), names);
      for (const auto& g : attr.graphs()) CollectNames(g, names);
    }
  }
}

void DeclareGraphTypes(ImportContext& ctx, const ::onnx::GraphProto& graph) {
  for (const auto& v : graph.input()) ctx.Declare(v.name(), v.type());
  for (const auto& v : graph.output()) ctx.Declare(v.name(), v.type());
  for (const auto& v : graph.value_info()) ctx.Declare(v.name(), v.type());
}

// Why one of the node's values cannot be imported, or "".
std::string UnholdableValue(const ImportContext& ctx, const Node& node) {
  auto check = [&](const std::string& name, const char* role) -> std::string {
    if (name.empty()) return "";
    const std::string why = ctx.Unholdable(name);
    if (!why.empty())
      return std::string(role) + " '" + name + "' is " + why +
             " (parity holds "
             "tensors of float, double, int8-64, uint8/16, bool)";
    if (ctx.HasDtype(name) && ctx.Dtype(name) == DataType::kFloat16) {
      return std::string(role) + " '" + name +
             "' is a FLOAT16 tensor (parity stores float16 but computes in no float16 kernel)";
    }
    return "";
  };
  for (int i = 0; i < node.num_inputs(); ++i) {
    if (auto why = check(node.In(i), "input"); !why.empty()) return why;
  }
  for (int i = 0; i < node.num_outputs(); ++i) {
    if (auto why = check(node.Out(i), "output"); !why.empty()) return why;
  }
  return "";
}

// Translates `graph`'s nodes into ctx.net(), listing what it cannot translate in `unsupported`.
// Nodes reading a value an untranslated node writes are skipped without a listing of their own
// (their shapes are unknown), unless they are unsupported for a reason of their own (op type,
// attribute), which is always listed.
void TranslateNodes(ImportContext& ctx, const ::onnx::GraphProto& graph,
                    std::vector<UnsupportedNode>* unsupported) {
  std::set<std::string> poisoned;
  for (int i = 0; i < graph.node_size(); ++i) {
    const ::onnx::NodeProto& proto = graph.node(i);
    const Node node(proto, i, ctx.Opset(proto.domain()));
    auto fail = [&](const std::string& reason) {
      unsupported->push_back({i, proto.name(), proto.op_type(), reason});
    };
    bool ok = true;
    const Rule* rule = nullptr;
    if (!IsDefaultDomain(proto.domain())) {
      fail("domain '" + proto.domain() + "' (only ai.onnx is translated)");
      ok = false;
    } else if (auto it = Rules().find(proto.op_type()); it == Rules().end()) {
      fail(WhyNoRule(proto.op_type()));
      ok = false;
    } else {
      rule = &it->second;
      for (const auto& attr : proto.attribute()) {
        const auto& known = rule->attributes;
        if (std::find(known.begin(), known.end(), attr.name()) == known.end() &&
            !(attr.name() == "consumed_inputs" && node.opset() < 6)) {
          fail("attribute '" + attr.name() + "' is not translated");
          ok = false;
        }
      }
    }
    for (const auto& name : proto.input()) ok = ok && poisoned.count(name) == 0;
    if (ok) {
      if (const std::string why = UnholdableValue(ctx, node); !why.empty()) {
        fail(why);
        ok = false;
      }
    }
    if (ok) {
      const int first = ctx.net()->op_size();
      try {
        rule->translate(ctx, node);
        ctx.InferTypes(first);
      } catch (const Error& e) {
        ctx.net()->mutable_op()->DeleteSubrange(first, ctx.net()->op_size() - first);
        fail(e.what());
        ok = false;
      }
    }
    if (!ok) {
      for (const auto& name : proto.output()) poisoned.insert(name);
    }
  }
}

// A fill in `init` for each constant in `names` that an op of `net` (or of a sub-net) reads.
void FillReadConstants(ImportContext& ctx, const std::vector<std::string>& names,
                       const caffe2::NetDef& net, caffe2::NetDef* init) {
  std::set<std::string> read;
  std::function<void(const caffe2::NetDef&)> collect = [&](const caffe2::NetDef& n) {
    for (const auto& op : n.op()) {
      read.insert(op.input().begin(), op.input().end());
      for (const auto& arg : op.arg()) {
        if (arg.has_n()) collect(arg.n());
      }
    }
  };
  collect(net);
  caffe2::NetDef* saved = ctx.net();
  ctx.set_net(init);
  for (const auto& name : names) {
    if (read.count(name)) ctx.EmitFill(name, *ctx.Constant(name));
  }
  ctx.set_net(saved);
}

}  // namespace

// If -> parity's If with the branch graphs as then_net / else_net; each branch ends with a Copy
// of its output to the If's output (ONNX branches name their own outputs). Branches read outer
// values by name, which parity's If sees through its parent workspace.
void TranslateIf(ImportContext& ctx, const Node& node) {
  caffe2::NetDef* outer = ctx.net();
  std::vector<caffe2::NetDef> branches;
  for (const char* name : {"then_branch", "else_branch"}) {
    const ::onnx::AttributeProto* attr = node.Attr(name);
    PARITY_ENFORCE(attr != nullptr && attr->has_g(), ErrorKind::kBadArgument,
                   "required graph attribute '", name, "' is missing");
    const ::onnx::GraphProto& graph = attr->g();
    PARITY_ENFORCE(graph.output_size() == node.num_outputs(), ErrorKind::kBadArgument, name,
                   " has ", graph.output_size(), " outputs, the node ", node.num_outputs());
    caffe2::NetDef branch;
    branch.set_name(name);
    DeclareGraphTypes(ctx, graph);
    ctx.set_net(&branch);
    std::vector<UnsupportedNode> unsupported;
    TranslateNodes(ctx, graph, &unsupported);
    for (int j = 0; j < graph.output_size(); ++j) {
      ctx.Emit("Copy", {graph.output(j).name()}, {node.Out(j)});
    }
    ctx.set_net(outer);
    if (!unsupported.empty()) {
      std::string list;
      for (const auto& u : unsupported) list += (list.empty() ? "" : "; ") + u.ToString();
      throw MakeError(ErrorKind::kBadArgument, name, ": ", list);
    }
    branches.push_back(branch);
  }
  std::vector<std::string> outputs;
  for (int j = 0; j < node.num_outputs(); ++j) outputs.push_back(node.Out(j));
  ctx.Emit("If", {node.In(0)}, outputs).Net("then_net", branches[0]).Net("else_net", branches[1]);
}

ImportResult TranslateModel(const ::onnx::ModelProto& model, const ImportOptions& options) {
  PARITY_ENFORCE(model.has_graph(), ErrorKind::kInvalidNet, "the ONNX model has no graph");
  const ::onnx::GraphProto& graph = model.graph();
  std::map<std::string, int> opsets;
  for (const auto& opset : model.opset_import()) {
    opsets[IsDefaultDomain(opset.domain()) ? "" : opset.domain()] =
        static_cast<int>(opset.version());
  }
  if (model.opset_import_size() == 0) opsets[""] = 1;  // IR version < 3: opset 1
  std::set<std::string> names;
  CollectNames(graph, &names);
  ImportContext ctx(names, opsets);
  ImportResult result;
  result.net.set_name(graph.name());
  result.init_net.set_name(graph.name() + "_init");
  DeclareGraphTypes(ctx, graph);

  std::set<std::string> initializers;
  std::vector<std::string> initializer_order;
  for (const auto& tensor : graph.initializer()) {
    try {
      ctx.SetConstant(tensor.name(), TensorFromOnnx(tensor));
      initializers.insert(tensor.name());
      initializer_order.push_back(tensor.name());
    } catch (const Error& e) {
      result.unsupported.push_back({-1, "", "", "initializer: " + std::string(e.what())});
    }
  }
  std::map<std::string, caffe2::TensorProto> bound;
  for (const auto& tensor : options.constant_inputs) bound[tensor.name()] = tensor;
  for (const auto& input : graph.input()) {
    const std::string& name = input.name();
    if (initializers.count(name)) continue;
    if (auto it = bound.find(name); it != bound.end()) {
      ctx.SetConstant(name, TensorFromProto(it->second));
      result.bound.push_back(name);
      continue;
    }
    result.inputs.push_back(name);
    if (auto it = options.input_dims.find(name); it != options.input_dims.end()) {
      TensorType type;
      type.dims = it->second;
      if (ctx.HasDtype(name)) type.dtype = ctx.Dtype(name);
      if (!ctx.HasDims(name)) ctx.SetType(name, type);
    }
  }

  ctx.set_net(&result.net);
  TranslateNodes(ctx, graph, &result.unsupported);
  ctx.set_net(nullptr);

  for (const auto& name : result.inputs) result.net.add_external_input(name);
  for (const auto& name : initializer_order) result.net.add_external_input(name);
  for (const auto& output : graph.output()) {
    result.outputs.push_back(output.name());
    result.net.add_external_output(output.name());
  }
  ctx.set_net(&result.init_net);
  for (const auto& name : initializer_order) {
    try {
      ctx.EmitFill(name, *ctx.Constant(name));
    } catch (const Error& e) {
      result.unsupported.push_back({-1, "", "", "initializer: " + std::string(e.what())});
    }
  }
  ctx.set_net(nullptr);
  FillReadConstants(ctx, result.bound, result.net, &result.init_net);
  result.notes.assign(ctx.notes().begin(), ctx.notes().end());
  return result;
}

ImportResult ImportModel(const ::onnx::ModelProto& model, const ImportOptions& options) {
  ImportResult result = TranslateModel(model, options);
  if (!result.unsupported.empty()) {
    std::string list;
    for (const auto& u : result.unsupported) list += (list.empty() ? "" : "; ") + u.ToString();
    throw MakeError(ErrorKind::kBadArgument, "the ONNX model has ", result.unsupported.size(),
                    " thing(s) parity does not translate: ", list);
  }
  return result;
}

::onnx::ModelProto LoadModel(const std::string& path) {
  ::onnx::ModelProto model;
  ParseProto(ReadFileBytes(path), IsTextProtoPath(path), "ONNX model '" + path + "'", &model);
  return model;
}

std::set<std::string> ParameterInputs(const ::onnx::ModelProto& model) {
  std::set<std::string> fed;
  for (const auto& input : model.graph().input()) fed.insert(input.name());
  for (const auto& tensor : model.graph().initializer()) fed.erase(tensor.name());
  std::set<std::string> out;
  for (const auto& node : model.graph().node()) {
    for (int slot : ParameterSlots(node.op_type())) {
      if (slot < node.input_size() && fed.count(node.input(slot))) out.insert(node.input(slot));
    }
  }
  return out;
}

}  // namespace parity::onnx
