#include "onnx/importer.h"

#include <algorithm>
#include <functional>

#include "core/io.h"
#include "core/tensor_proto.h"
#include "onnx/rules.h"
#include "onnx/tensor.h"
#include "onnx/validate.h"

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

// A 0-d constant of `dtype` holding `value`, written to a fresh blob.
std::string ScalarConstant(ImportContext& ctx, const std::string& base, DataType dtype,
                           double value) {
  Tensor scalar(dtype, {});
  DispatchNumeric(dtype, "constant '" + base + "'", [&](auto zero) {
    using T = decltype(zero);
    *scalar.mutable_data<T>() = static_cast<T>(value);
  });
  const std::string name = ctx.Temp(base);
  ctx.EmitFill(name, scalar);
  ctx.SetConstant(name, scalar);
  return name;
}

// What a Loop or a Scan becomes: a While over `graph` (the body) in the same workspace.
struct WhileLoop {
  const ::onnx::GraphProto* graph = nullptr;
  std::string counter;         // the pass number blob (int64 scalar, from 0)
  std::string cond;            // the body's condition input ("" for none: Scan)
  std::string initial_cond;    // its first value ("" for true)
  std::string trip_count;      // int64 scalar blob bounding the passes ("" for none)
  int first_carried = 0;       // body inputs [first_carried, first_carried + carried.size())
  std::vector<std::string> carried;   // their initial values, outer blobs
  int first_output = 0;        // body outputs: [cond_out], carried values, then scan values
  std::vector<std::string> carried_outputs, scan_outputs;  // outer results ("" when unused)
  // Ops each pass runs before the body (Scan's slices of its scan inputs).
  std::function<void()> prologue;
};

// The body's inputs are blobs of their own names: before the While the counter 0, the condition
// (or true) and the initial values; each pass ends by copying the body's outputs back through
// temporaries (a body that swaps two values reads the old ones), counter + 1, and recomputing the
// While's condition (the body's, and counter < trip count). Each scan value accumulates along a
// new first axis: an empty [0, dims...] tensor before the loop (dims from the value's static
// shape; body inputs declared without a shape take their first-pass value's type, so the body's
// inference can reach it), ExpandDims + Concat per pass. After the While the carried values and
// the accumulators are copied to the outer results.
void EmitWhileLoop(ImportContext& ctx, const WhileLoop& loop) {
  const ::onnx::GraphProto& graph = *loop.graph;
  const int carried = static_cast<int>(loop.carried.size());
  const int scans = static_cast<int>(loop.scan_outputs.size());
  auto input = [&](int k) { return graph.input(loop.first_carried + k).name(); };
  auto adopt = [&](const std::string& name, const TensorType& type) {
    if (!ctx.HasDims(name)) ctx.SetType(name, type);
  };
  adopt(loop.counter, TensorType{DataType::kInt64, {}});
  if (!loop.cond.empty()) adopt(loop.cond, TensorType{DataType::kBool, {}});
  for (int k = 0; k < carried; ++k) {
    if (ctx.HasDtype(loop.carried[k]) && ctx.HasDims(loop.carried[k])) {
      adopt(input(k), TensorType{ctx.Dtype(loop.carried[k]), ctx.Dims(loop.carried[k])});
    }
  }

  // Before the loop.
  Tensor zero(DataType::kInt64, {});
  *zero.mutable_data<int64_t>() = 0;
  ctx.EmitFill(loop.counter, zero);
  if (!loop.cond.empty()) {
    ctx.Emit("Copy",
             {loop.initial_cond.empty() ? ScalarConstant(ctx, "true", DataType::kBool, 1)
                                        : loop.initial_cond},
             {loop.cond});
  }
  for (int k = 0; k < carried; ++k) ctx.Emit("Copy", {loop.carried[k]}, {input(k)});
  const std::string keep = ctx.Temp("loop_keep");
  auto emit_keep = [&] {
    if (loop.trip_count.empty()) {
      ctx.Emit("Copy", {loop.cond}, {keep});
      return;
    }
    if (loop.cond.empty()) {
      ctx.Emit("LT", {loop.counter, loop.trip_count}, {keep});
      return;
    }
    const std::string below = ctx.Temp("loop_below_m");
    ctx.Emit("LT", {loop.counter, loop.trip_count}, {below});
    ctx.Emit("And", {below, loop.cond}, {keep});
  };
  emit_keep();

  // The body, then the rewrites of its inputs.
  caffe2::NetDef* outer = ctx.net();
  caffe2::NetDef body;
  body.set_name(graph.name().empty() ? "loop_body" : graph.name());
  ctx.set_net(&body);
  std::vector<std::string> accumulators;
  try {
    if (loop.prologue) loop.prologue();
    std::vector<UnsupportedNode> unsupported;
    TranslateNodes(ctx, graph, &unsupported);
    if (!unsupported.empty()) {
      std::string list;
      for (const auto& u : unsupported) list += (list.empty() ? "" : "; ") + u.ToString();
      throw MakeError(ErrorKind::kBadArgument, "body: ", list);
    }
    const int first_value = loop.first_output + (loop.cond.empty() ? 0 : 1);
    std::vector<std::string> next;
    for (int k = loop.first_output; k < first_value + carried; ++k) {
      next.push_back(ctx.Temp("loop_next"));
      ctx.Emit("Copy", {graph.output(k).name()}, {next.back()});
    }
    if (!loop.cond.empty()) ctx.Emit("Copy", {next[0]}, {loop.cond});
    for (int k = 0; k < carried; ++k) {
      ctx.Emit("Copy", {next[next.size() - carried + k]}, {input(k)});
    }
    for (int j = 0; j < scans; ++j) {
      const std::string value = graph.output(first_value + carried + j).name();
      accumulators.push_back(ctx.Temp("loop_scan"));
      const std::string row = ctx.Temp(value), grown = ctx.Temp(value);
      ctx.Emit("ExpandDims", {value}, {row}).Ints("dims", {0});
      ctx.Emit("Concat", {accumulators.back(), row}, {grown, ctx.Temp("split_info")})
          .Int("axis", 0);
      ctx.Emit("Copy", {grown}, {accumulators.back()});
    }
    ctx.Emit("Add", {loop.counter, ScalarConstant(ctx, "one", DataType::kInt64, 1)},
             {loop.counter});
    emit_keep();
  } catch (...) {
    ctx.set_net(outer);
    throw;
  }
  ctx.set_net(outer);
  const int first_scan = loop.first_output + (loop.cond.empty() ? 0 : 1) + carried;
  for (int j = 0; j < scans; ++j) {
    const std::string value = graph.output(first_scan + j).name();
    PARITY_ENFORCE(ctx.HasDtype(value) && ctx.HasDims(value), ErrorKind::kBadArgument,
                   "scan output '", value, "' has no static type");
    std::vector<int64_t> dims = ctx.Dims(value);
    dims.insert(dims.begin(), 0);
    ctx.Emit("ConstantFill", {}, {accumulators[j]})
        .Ints("shape", dims)
        .Float("value", 0.0)
        .Int("dtype", static_cast<int>(ctx.Dtype(value)));
  }
  std::vector<std::string> state = {loop.counter, keep};
  if (!loop.cond.empty()) state.push_back(loop.cond);
  for (int k = 0; k < carried; ++k) state.push_back(input(k));
  state.insert(state.end(), accumulators.begin(), accumulators.end());
  std::vector<std::string> inputs = {keep};
  inputs.insert(inputs.end(), state.begin(), state.end());
  ctx.Emit("While", inputs, state).Net("loop_net", body);
  for (int k = 0; k < carried; ++k) {
    if (!loop.carried_outputs[k].empty()) ctx.Emit("Copy", {input(k)}, {loop.carried_outputs[k]});
  }
  for (int j = 0; j < scans; ++j) {
    if (!loop.scan_outputs[j].empty()) ctx.Emit("Copy", {accumulators[j]}, {loop.scan_outputs[j]});
  }
}

const ::onnx::GraphProto& BodyGraph(const Node& node) {
  const ::onnx::AttributeProto* attr = node.Attr("body");
  PARITY_ENFORCE(attr != nullptr && attr->has_g(), ErrorKind::kBadArgument,
                 "required graph attribute 'body' is missing");
  return attr->g();
}

// Loop(M, cond, v...) -> While; the body (i, cond, v...) -> (cond', v'..., scan values...).
void TranslateLoop(ImportContext& ctx, const Node& node) {
  const ::onnx::GraphProto& graph = BodyGraph(node);
  const int carried = node.num_inputs() - 2;
  PARITY_ENFORCE(carried >= 0 && graph.input_size() == carried + 2 &&
                     graph.output_size() >= carried + 1,
                 ErrorKind::kBadArgument, "body with ", graph.input_size(), " inputs and ",
                 graph.output_size(), " outputs for ", carried, " loop-carried values");
  DeclareGraphTypes(ctx, graph);
  WhileLoop loop;
  loop.graph = &graph;
  loop.counter = graph.input(0).name();
  loop.cond = graph.input(1).name();
  loop.initial_cond = node.In(1);
  loop.trip_count = node.In(0);
  loop.first_carried = 2;
  loop.first_output = 0;
  for (int k = 0; k < carried; ++k) {
    loop.carried.push_back(node.In(2 + k));
    loop.carried_outputs.push_back(node.Out(k));
  }
  for (int j = carried; j < graph.output_size() - 1; ++j) {
    loop.scan_outputs.push_back(j < node.num_outputs() ? node.Out(j) : "");
  }
  EmitWhileLoop(ctx, loop);
  ctx.Note("Loop: While over the body, scan outputs concatenated per pass");
}

// Scan (opset >= 9; forward, axis 0 everywhere) -> While over the scan inputs' first axis: each
// pass Gathers element `counter` of every scan input into the body's scan-input blobs; states are
// loop-carried values; the trip count is the scan inputs' static length.
void TranslateScan(ImportContext& ctx, const Node& node) {
  PARITY_ENFORCE(node.opset() >= 9, ErrorKind::kBadArgument,
                 "opset ", node.opset(), " Scan (batched, with sequence_lens)");
  for (const char* name : {"scan_input_axes", "scan_input_directions", "scan_output_axes",
                           "scan_output_directions"}) {
    for (int64_t v : node.Ints(name)) {
      PARITY_ENFORCE(v == 0, ErrorKind::kBadArgument, "attribute '", name,
                     "' other than 0 (forward along axis 0)");
    }
  }
  const ::onnx::GraphProto& graph = BodyGraph(node);
  const int scan_inputs = static_cast<int>(node.RequiredInt("num_scan_inputs"));
  const int states = node.num_inputs() - scan_inputs;
  PARITY_ENFORCE(states >= 0 && graph.input_size() == node.num_inputs() &&
                     graph.output_size() == node.num_outputs(),
                 ErrorKind::kBadArgument, "body with ", graph.input_size(), " inputs and ",
                 graph.output_size(), " outputs for ", node.num_inputs(), " inputs and ",
                 node.num_outputs(), " outputs");
  PARITY_ENFORCE(scan_inputs > 0, ErrorKind::kBadArgument, "no scan input");
  // A 0-d scan input has no axis to scan (its dims()[0] was read out of bounds).
  for (int j = 0; j < scan_inputs; ++j) {
    const std::string& in = node.In(states + j);
    PARITY_ENFORCE(ctx.HasDims(in), ErrorKind::kBadArgument, "scan input '", in,
                   "' has no static shape");
    PARITY_ENFORCE(!ctx.Dims(in).empty(), ErrorKind::kShapeMismatch, "scan input '", in,
                   "' is 0-d ", ShapeString(ctx.Dims(in)), "; Scan needs an axis 0 to scan");
  }
  const int64_t length = ctx.Dims(node.In(states))[0];
  DeclareGraphTypes(ctx, graph);
  WhileLoop loop;
  loop.graph = &graph;
  loop.counter = ctx.Temp("scan_counter");
  loop.trip_count = ScalarConstant(ctx, "scan_length", DataType::kInt64, length);
  loop.first_carried = 0;
  loop.first_output = 0;
  for (int k = 0; k < states; ++k) {
    loop.carried.push_back(node.In(k));
    loop.carried_outputs.push_back(node.Out(k));
  }
  for (int j = states; j < node.num_outputs(); ++j) loop.scan_outputs.push_back(node.Out(j));
  for (int j = 0; j < scan_inputs; ++j) {
    const std::string element = graph.input(states + j).name();
    const std::vector<int64_t> dims = ctx.Dims(node.In(states + j));
    PARITY_ENFORCE(dims[0] == length, ErrorKind::kBadArgument, "scan inputs of lengths ", length,
                   " and ", dims[0]);
    if (!ctx.HasDims(element)) {
      ctx.SetType(element, TensorType{ctx.Dtype(node.In(states + j)),
                                      std::vector<int64_t>(dims.begin() + 1, dims.end())});
    }
  }
  loop.prologue = [&] {
    for (int j = 0; j < scan_inputs; ++j) {
      ctx.Emit("Gather", {node.In(states + j), loop.counter}, {graph.input(states + j).name()})
          .Int("axis", 0);
    }
  };
  EmitWhileLoop(ctx, loop);
  ctx.Note("Scan: While over the scan inputs' first axis");
}

ImportResult TranslateModel(const ::onnx::ModelProto& model, const ImportOptions& options) {
  ValidateModel(model);
  const ::onnx::GraphProto& graph = model.graph();
  ValidateBindings(graph, options.constant_inputs);
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
      result.unsupported.push_back(
          {-1, "", "", "initializer '" + tensor.name() + "': " + std::string(e.what())});
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
      result.unsupported.push_back({-1, "", "", "initializer '" + name + "': " + e.what()});
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
