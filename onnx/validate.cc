#include "onnx/validate.h"

#include <map>
#include <set>

#include "core/proto/error.h"
#include "core/tensor.h"

namespace parity::onnx {
namespace {

bool IsDefaultDomain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

// "node #3 'conv1' (Conv)", the form UnsupportedNode uses.
std::string NodeName(int index, const ::onnx::NodeProto& node) {
  return "node #" + std::to_string(index) + " '" + node.name() + "' (" + node.op_type() + ")";
}

// Attributes that divide or size a window: positive (or, for pads, non-negative) in every op.
void CheckAttributes(const std::string& where, const ::onnx::NodeProto& node) {
  std::set<std::string> seen;
  for (const auto& attr : node.attribute()) {
    PARITY_ENFORCE(seen.insert(attr.name()).second, ErrorKind::kBadArgument, where,
                   ": attribute '", attr.name(), "' is given twice");
    const std::string& name = attr.name();
    const bool positive = name == "strides" || name == "dilations" || name == "kernel_shape" ||
                          name == "blocksize" || name == "group";
    // Pad's own 'pads' (opset < 11) may be negative: it crops.
    if (positive || (name == "pads" && node.op_type() != "Pad")) {
      std::vector<int64_t> values(attr.ints().begin(), attr.ints().end());
      if (attr.type() == ::onnx::AttributeProto::INT || attr.has_i()) values.push_back(attr.i());
      for (int64_t v : values) {
        PARITY_ENFORCE(positive ? v > 0 : v >= 0, ErrorKind::kBadArgument, where, ": attribute '",
                       name, "' = ", ShapeString(values), " must be ",
                       positive ? "positive" : "non-negative");
      }
    }
  }
}

// Walks `graph` in order: every value read must be defined before (by an outer scope, a graph
// input, an initializer or an earlier node), every value defined once.
void CheckGraph(const ::onnx::GraphProto& graph, const std::set<std::string>& outer,
                const std::string& scope) {
  // name -> who defines it, for messages.
  std::map<std::string, std::string> defined;
  for (const auto& name : outer) defined[name] = "an outer graph";
  std::set<std::string> initializers;
  for (const auto& t : graph.initializer()) {
    PARITY_ENFORCE(!t.name().empty(), ErrorKind::kInvalidNet, scope,
                   "an initializer has no name");
    PARITY_ENFORCE(initializers.insert(t.name()).second, ErrorKind::kInvalidNet, scope,
                   "initializer '", t.name(), "' is given twice");
    std::vector<int64_t> dims(t.dims().begin(), t.dims().end());
    try {
      CheckedNumElements(dims);
    } catch (const Error& e) {
      throw MakeError(e.kind(), scope, "initializer '", t.name(), "' ", ShapeString(dims), ": ",
                      e.what());
    }
    defined[t.name()] = "initializer '" + t.name() + "'";
  }
  std::set<std::string> inputs;
  for (const auto& v : graph.input()) {
    PARITY_ENFORCE(inputs.insert(v.name()).second, ErrorKind::kInvalidNet, scope, "graph input '",
                   v.name(), "' is declared twice");
    defined[v.name()] = "graph input '" + v.name() + "'";
  }
  // A graph input with an initializer (a default value) must agree with it.
  for (const auto& v : graph.input()) {
    for (const auto& t : graph.initializer()) {
      if (t.name() != v.name() || !v.type().has_tensor_type()) continue;
      const auto& tt = v.type().tensor_type();
      PARITY_ENFORCE(tt.elem_type() == 0 || tt.elem_type() == t.data_type(),
                     ErrorKind::kShapeMismatch, scope, "graph input '", v.name(),
                     "' is declared of elem_type ", tt.elem_type(), " but its initializer is ",
                     t.data_type());
      if (!tt.has_shape()) continue;
      std::vector<int64_t> dims(t.dims().begin(), t.dims().end());
      bool contradicts = tt.shape().dim_size() != t.dims_size();
      for (int i = 0; !contradicts && i < tt.shape().dim_size(); ++i) {
        const auto& d = tt.shape().dim(i);
        contradicts = d.has_dim_value() && d.dim_value() != t.dims(i);
      }
      PARITY_ENFORCE(!contradicts, ErrorKind::kShapeMismatch, scope, "graph input '", v.name(),
                     "' is declared with ", tt.shape().dim_size(),
                     " dims that contradict its initializer ", ShapeString(dims));
    }
  }
  // Values a later node defines, to tell "out of order or a cycle" from "nobody defines it".
  std::map<std::string, int> written_by;
  for (int i = graph.node_size() - 1; i >= 0; --i) {
    for (const auto& out : graph.node(i).output()) {
      if (!out.empty()) written_by[out] = i;
    }
  }
  for (int i = 0; i < graph.node_size(); ++i) {
    const ::onnx::NodeProto& node = graph.node(i);
    const std::string where = scope + NodeName(i, node);
    PARITY_ENFORCE(!node.op_type().empty(), ErrorKind::kInvalidNet, where, ": no op_type");
    CheckAttributes(where, node);
    for (const auto& in : node.input()) {
      if (in.empty() || defined.count(in)) continue;  // "" is an omitted optional input
      auto later = written_by.find(in);
      if (later != written_by.end() && later->second >= i) {
        throw MakeError(ErrorKind::kInvalidNet, where, ": reads '", in, "' before ",
                        NodeName(later->second, graph.node(later->second)),
                        " writes it (nodes out of topological order, or a cycle)");
      }
      throw MakeError(ErrorKind::kInvalidNet, where, ": reads '", in,
                      "', which no graph input, initializer or earlier node defines");
    }
    // Sub-graphs see what is defined so far.
    std::set<std::string> visible;
    for (const auto& [name, who] : defined) visible.insert(name);
    for (const auto& attr : node.attribute()) {
      if (attr.has_g()) CheckGraph(attr.g(), visible, where + " attribute '" + attr.name() + "': ");
      for (const auto& g : attr.graphs()) {
        CheckGraph(g, visible, where + " attribute '" + attr.name() + "': ");
      }
    }
    for (const auto& out : node.output()) {
      if (out.empty()) continue;
      auto it = defined.find(out);
      PARITY_ENFORCE(it == defined.end(), ErrorKind::kInvalidNet, where, ": output '", out,
                     "' is already defined by ", it == defined.end() ? "" : it->second,
                     " (ONNX values are assigned once)");
      defined[out] = NodeName(i, node);
    }
  }
  for (const auto& v : graph.output()) {
    PARITY_ENFORCE(defined.count(v.name()), ErrorKind::kInvalidNet, scope, "graph output '",
                   v.name(), "' is defined by no node, graph input or initializer");
  }
}

}  // namespace

void ValidateModel(const ::onnx::ModelProto& model) {
  PARITY_ENFORCE(model.has_graph(), ErrorKind::kInvalidNet, "the ONNX model has no graph");
  std::set<std::string> domains;
  for (const auto& opset : model.opset_import()) {
    const std::string domain = IsDefaultDomain(opset.domain()) ? "ai.onnx" : opset.domain();
    PARITY_ENFORCE(domains.insert(domain).second, ErrorKind::kInvalidNet, "opset_import lists '",
                   domain, "' twice");
    PARITY_ENFORCE(opset.version() >= 1, ErrorKind::kInvalidNet, "opset_import of '", domain,
                   "' has version ", opset.version(), " (versions start at 1)");
    PARITY_ENFORCE(domain != "ai.onnx" || opset.version() <= kMaxKnownOpset,
                   ErrorKind::kInvalidNet, "opset_import of '", domain, "' has version ",
                   opset.version(), "; the importer knows versions 1 to ", kMaxKnownOpset);
  }
  const ::onnx::GraphProto& graph = model.graph();
  PARITY_ENFORCE(graph.output_size() > 0, ErrorKind::kInvalidNet, "graph '", graph.name(),
                 "' has no outputs (an empty graph computes nothing)");
  CheckGraph(graph, {}, "");
}

void ValidateBindings(const ::onnx::GraphProto& graph,
                      const std::vector<caffe2::TensorProto>& bound) {
  std::set<std::string> initializers, seen;
  for (const auto& t : graph.initializer()) initializers.insert(t.name());
  for (const auto& tensor : bound) {
    const std::string& name = tensor.name();
    PARITY_ENFORCE(seen.insert(name).second, ErrorKind::kBadArgument, "--bind '", name,
                   "' is given twice");
    const ::onnx::ValueInfoProto* input = nullptr;
    for (const auto& v : graph.input()) {
      if (v.name() == name) input = &v;
    }
    PARITY_ENFORCE(input != nullptr && !initializers.count(name), ErrorKind::kBadArgument,
                   "--bind '", name, "': the model has no graph input '", name,
                   "' (only inputs without an initializer can be bound)");
    if (!input->type().has_tensor_type() || !input->type().tensor_type().has_shape()) continue;
    const auto& shape = input->type().tensor_type().shape();
    std::vector<int64_t> dims(tensor.dims().begin(), tensor.dims().end());
    bool contradicts = shape.dim_size() != tensor.dims_size();
    for (int i = 0; !contradicts && i < shape.dim_size(); ++i) {
      contradicts = shape.dim(i).has_dim_value() && shape.dim(i).dim_value() != tensor.dims(i);
    }
    std::vector<int64_t> declared;
    for (const auto& d : shape.dim()) declared.push_back(d.has_dim_value() ? d.dim_value() : -1);
    PARITY_ENFORCE(!contradicts, ErrorKind::kBadArgument, "--bind '", name, "': a tensor of shape ",
                   ShapeString(dims), " for an input declared ", ShapeString(declared),
                   " (-1: any size)");
  }
}

}  // namespace parity::onnx
