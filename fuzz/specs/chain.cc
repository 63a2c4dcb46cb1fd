#include "fuzz/specs/chain.h"

#include <algorithm>
#include <rapidcheck.h>

#include <set>

#include "core/grad/gradient.h"
#include "core/proto/error.h"
#include "core/schema.h"
#include "core/tensor.h"

namespace parity::fuzz {

namespace {

constexpr int64_t kMaxChainElements = 4096;

// Ops that run nets or manage workspaces: a chain of them would nest without bound.
bool RunsNets(const std::string& type) {
  static const std::set<std::string> types = {"CreateScope", "HasScope", "Do",
                                              "If",          "While",    "RecurrentNetwork"};
  return types.count(type) > 0;
}

}  // namespace

namespace {

// Whether the gradient of `def` reads its input 0: run in place, the op would overwrite what its
// backward needs, and the backward pass refuses it (as Caffe2's does).
bool GradientReadsPrimary(const caffe2::OperatorDef& def) {
  try {
    std::vector<std::string> output_gradients;
    for (const std::string& output : def.output()) output_gradients.push_back(output + "_grad");
    for (const caffe2::OperatorDef& op : GetGradientForOp(def, output_gradients).ops) {
      for (const std::string& input : op.input()) {
        if (input == def.input(0)) return true;
      }
    }
    return false;
  } catch (const Error&) {
    return true;  // no gradient to build: leave the op out of place
  }
}

}  // namespace

std::optional<Chain> DrawChain(OpInstance* op, const std::string& in, std::vector<int64_t> dims,
                               const std::string& out,
                               const std::function<std::string(int)>& input_name,
                               const std::function<std::string()>& local_name, bool same_dims,
                               int max_len) {
  std::vector<std::string> types;
  for (const auto& type : SpecRegistry::Types()) {
    const OpSpec* spec = SpecRegistry::Find(type);
    // Ops whose specs skip an oracle would be checked by it inside a control op: left out.
    if (!RunsNets(type) && spec->consumes_intermediates() && spec->skips().empty()) {
      types.push_back(type);
    }
  }
  const int length = *rc::gen::inRange(1, max_len + 1);
  Chain chain;
  std::string current = in;
  for (int k = 0; k < length; ++k) {
    bool placed = false;
    for (int attempt = 0; attempt < 8 && !placed; ++attempt) {
      const OpSpec& spec = *SpecRegistry::Find(*rc::gen::elementOf(types));
      std::optional<OpInstance> inst = spec.Instantiate(&dims);
      if (!inst || inst->inputs().empty() || inst->inputs()[0].dtype != DataType::kFloat ||
          !inst->inplace_outputs().empty() || !inst->op_input_order().empty()) {
        continue;
      }
      caffe2::OperatorDef def;
      def.set_type(inst->type());
      def.add_input(current);
      std::vector<TensorType> in_types = {TensorType{DataType::kFloat, dims, true}};
      std::vector<InputSpec> extra;
      for (size_t i = 1; i < inst->inputs().size(); ++i) {
        extra.push_back(inst->inputs()[i]);
        def.add_input("");  // named below, once the op is accepted
        in_types.push_back(TensorType{extra.back().dtype, extra.back().dims, true});
      }
      // Sometimes an op inside the body runs in place on the chain's blob, where its schema
      // allows: sub-nets get the in-place writes top-level nets get (issue 37: a planted bug in
      // in-place handling inside sub-nets survived a campaign). Only on the chain's own locals,
      // never on `in`, so what the control op binds keeps its meaning; decided once the op is
      // whole (below), since its gradient must not need the blob it overwrites.
      const bool try_in_place = k > 0 && k + 1 < length &&
                                OpSchemaRegistry::Get(inst->type()).IsInplaceAllowed(0, 0) &&
                                *rc::gen::inRange(0, 4) == 0;
      const std::string result = k + 1 == length ? out : local_name();
      def.add_output(result);
      for (int j = 1; j < inst->num_outputs(); ++j) def.add_output(local_name());
      for (const auto& arg : inst->args()) *def.add_arg() = arg;
      const bool in_place = try_in_place && !GradientReadsPrimary(def);
      if (in_place) def.set_output(0, current);
      std::vector<TensorType> out_types;
      bool all_differentiable = true;
      try {
        const OpSchema& schema = OpSchemaRegistry::Get(def.type());
        schema.Verify(def);
        out_types = schema.InferShapes(def, in_types);
        for (int j = 0; j < def.output_size(); ++j) {
          all_differentiable = all_differentiable && schema.IsOutputDifferentiable(j);
        }
      } catch (const Error&) {
        continue;
      }
      // Statistics outputs (LayerNorm's mean, SoftmaxWithLoss's probabilities) carry no gradient;
      // as outputs of an If they would be seeded like any other, so chains leave such ops out.
      if (!all_differentiable) continue;
      const TensorType& y = out_types[0];
      if (!y.known || y.dtype != DataType::kFloat || y.dims.empty() ||
          CheckedNumElements(y.dims) == 0 || CheckedNumElements(y.dims) > kMaxChainElements ||
          (same_dims && y.dims != dims) || (in_place && y.dims != dims)) {
        continue;
      }
      for (size_t i = 0; i < extra.size(); ++i) {
        def.set_input(static_cast<int>(i) + 1, input_name(op->AddInput(extra[i])));
      }
      for (int j = 0; j < def.output_size(); ++j) {
        if (def.output(j) != out &&
            std::find(chain.intermediates.begin(), chain.intermediates.end(), def.output(j)) ==
                chain.intermediates.end()) {
          chain.intermediates.push_back(def.output(j));
        }
      }
      chain.ops.push_back(def);
      current = def.output(0);
      dims = y.dims;
      placed = true;
    }
    if (!placed) return std::nullopt;
  }
  chain.dims = dims;
  return chain;
}

caffe2::NetDef MakeNet(const std::string& name, const std::vector<caffe2::OperatorDef>& ops) {
  caffe2::NetDef net;
  net.set_name(name);
  for (const auto& op : ops) *net.add_op() = op;
  return net;
}

caffe2::Argument NetArg(const std::string& name, const caffe2::NetDef& net) {
  caffe2::Argument arg;
  arg.set_name(name);
  *arg.mutable_n() = net;
  return arg;
}

caffe2::OperatorDef SimpleOp(const std::string& type, const std::vector<std::string>& inputs,
                             const std::vector<std::string>& outputs) {
  caffe2::OperatorDef op;
  op.set_type(type);
  for (const auto& in : inputs) op.add_input(in);
  for (const auto& out : outputs) op.add_output(out);
  return op;
}

std::string Placeholder(char kind, int index) { return kind + std::to_string(index); }

}  // namespace parity::fuzz
