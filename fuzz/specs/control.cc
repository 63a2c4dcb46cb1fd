// Test specs of the control ops: CreateScope, HasScope, Do, If, While.
//
// Their nets are chains of 1..3 ops drawn from the other specs (the same descriptions the net
// generator uses; no control op inside, which bounds the size), so every op of the set runs inside
// a Do, a branch or a loop body. Each op of a chain gets its extra inputs (weights, shapes, ...)
// as inputs of the control op: If and While run in the op's workspace and name them by
// placeholder ("$i"), Do binds them to inner names.
//
// * Do(x, params..., scope) -> (y, scope): the chain runs on inner "a0" and writes "out", its
//   locals stay in the child workspace (the gradient Do reads them there).
// * If(cond, x, params...) -> (y, intermediates...): both branches keep x's dims, so y has one
//   type; one If in 4 has no else and updates x in place (then = Copy, chain, write back), so the
//   gradient If's generated else zero-fills what only then computes.
// * While(cond, x, params..., scope, i, k, one) -> (x, scope, i, cond): k in [0, 3] passes of
//   x <- Do{ xin = Copy(x); chain(xin); x = Copy(result) } with cond_net i = i + 1, cond = i <= k:
//   the loop shape whose gradient Caffe2 supports (a single Do body, one workspace per pass).
#include <rapidcheck.h>

#include <set>

#include "core/schema.h"
#include "core/tensor.h"
#include "fuzz/spec.h"

namespace parity::fuzz {
namespace {

constexpr int64_t kMaxChainElements = 4096;

bool IsControl(const std::string& type) {
  static const std::set<std::string> control = {"CreateScope", "HasScope", "Do", "If", "While"};
  return control.count(type) > 0;
}

struct Chain {
  std::vector<caffe2::OperatorDef> ops;
  std::vector<int64_t> dims;
  std::vector<std::string> intermediates;  // every blob the chain writes but `out`
};

// A chain of 1..max_len ops reading `in` (of `dims`) and writing `out`. Each op's other inputs are
// added to `op`, and named in the chain by `input_name(index in op)`; the chain's other blobs by
// `local_name()`. With `same_dims` every op keeps the dims.
std::optional<Chain> DrawChain(OpInstance* op, const std::string& in, std::vector<int64_t> dims,
                               const std::string& out,
                               const std::function<std::string(int)>& input_name,
                               const std::function<std::string()>& local_name, bool same_dims,
                               int max_len) {
  std::vector<std::string> types;
  for (const auto& type : SpecRegistry::Types()) {
    const OpSpec* spec = SpecRegistry::Find(type);
    // Ops whose specs skip an oracle would be checked by it inside a control op: left out.
    if (!IsControl(type) && spec->consumes_intermediates() && spec->skips().empty()) {
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
      const std::string result = k + 1 == length ? out : local_name();
      def.add_output(result);
      for (int j = 1; j < inst->num_outputs(); ++j) def.add_output(local_name());
      for (const auto& arg : inst->args()) *def.add_arg() = arg;
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
          (same_dims && y.dims != dims)) {
        continue;
      }
      for (size_t i = 0; i < extra.size(); ++i) {
        def.set_input(static_cast<int>(i) + 1, input_name(op->AddInput(extra[i])));
      }
      for (int j = 0; j < def.output_size(); ++j) {
        if (def.output(j) != out) chain.intermediates.push_back(def.output(j));
      }
      chain.ops.push_back(def);
      current = result;
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

std::vector<int64_t> PrimaryOrFresh(const Primary* p) { return p ? *p : AnyDims(1, 3, 4); }

// Do's bindings: instance input k (k < num_inputs, scope excluded) is inner "a<k>", output 0 is
// inner "out".
void BindDo(OpInstance* op, int num_inputs, bool with_output) {
  caffe2::Argument inner, index;
  inner.set_name("inner_blobs");
  index.set_name("outer_blobs_idx");
  for (int k = 0; k < num_inputs; ++k) {
    inner.add_strings("a" + std::to_string(k));
    index.add_ints(k);
  }
  if (with_output) {
    inner.add_strings("out");
    index.add_ints(num_inputs);
  }
  op->RawArg(inner);
  op->RawArg(index);
}

PARITY_OP_SPEC(CreateScope)
    .Tolerance("exact")
    .Make([](const Primary* p) -> std::optional<OpInstance> {
      if (p) return std::nullopt;
      OpInstance op("CreateScope");
      op.ScopeOutput(0);
      return op;
    });

PARITY_OP_SPEC(HasScope).Tolerance("exact").Make([](const Primary* p) -> std::optional<OpInstance> {
  if (p) return std::nullopt;
  // Do(x, scope) -> (y, scope) first would make it true; in a single-op case the stack is
  // fresh. Nets reach the true case through every While's gradient (HasScope is its
  // condition).
  OpInstance op("HasScope");
  op.ScopeInput();
  return op;
});

PARITY_OP_SPEC(Do).Tolerance("exact").ConsumesIntermediates(true).Make(
    [](const Primary* p) -> std::optional<OpInstance> {
      OpInstance op("Do", 2);
      op.Input(PrimaryOrFresh(p));
      int locals = 0;
      auto chain = DrawChain(
          &op, "a0", op.inputs()[0].dims, "out", [](int k) { return "a" + std::to_string(k); },
          [&locals] { return "h" + std::to_string(locals++); }, false, 3);
      if (!chain) return std::nullopt;
      const int num_inputs = static_cast<int>(op.inputs().size());
      op.OutputInPlace(1, op.ScopeInput());
      op.RawArg(NetArg("net", MakeNet("do_body", chain->ops)));
      BindDo(&op, num_inputs, true);
      if (*rc::gen::inRange(0, 4) == 0) op.Arg("reuse_workspace", int64_t{1});
      return op;
    });

PARITY_OP_SPEC(If).Tolerance("exact").ConsumesIntermediates(true).Make(
    [](const Primary* p) -> std::optional<OpInstance> {
      OpInstance op("If", 1);
      op.Input(PrimaryOrFresh(p));
      op.Input({1}, Domain::kBool, DataType::kBool);
      const bool with_else = *rc::gen::inRange(0, 4) != 0;
      int outputs = 1;
      auto output = [&outputs] { return Placeholder('@', outputs++); };
      auto input = [](int k) { return Placeholder('$', k); };
      const std::vector<int64_t> dims = op.inputs()[0].dims;
      if (with_else) {
        auto then_chain = DrawChain(&op, "$0", dims, "@0", input, output, true, 3);
        auto else_chain = DrawChain(&op, "$0", dims, "@0", input, output, true, 2);
        if (!then_chain || !else_chain) return std::nullopt;
        op.RawArg(NetArg("then_net", MakeNet("then", then_chain->ops)));
        op.RawArg(NetArg("else_net", MakeNet("else", else_chain->ops)));
      } else {
        // No else: x is updated in place, so it has its type whichever way the If goes.
        const std::string copy = output();
        auto chain = DrawChain(&op, copy, dims, "$0", input, output, true, 3);
        if (!chain) return std::nullopt;
        chain->ops.insert(chain->ops.begin(), SimpleOp("Copy", {"$0"}, {copy}));
        op.RawArg(NetArg("then_net", MakeNet("then", chain->ops)));
        op.OutputInPlace(0, 0);
      }
      op.SetNumOutputs(outputs);
      std::vector<int> order = {1, 0};
      for (int k = 2; k < static_cast<int>(op.inputs().size()); ++k) order.push_back(k);
      op.OpInputOrder(order);
      return op;
    });

PARITY_OP_SPEC(While).Tolerance("exact").ConsumesIntermediates(true).Make(
    [](const Primary* p) -> std::optional<OpInstance> {
      OpInstance op("While", 4);
      op.Input(PrimaryOrFresh(p));
      op.Input({1}, Domain::kBool, DataType::kBool);  // recomputed by cond_net before each pass
      int locals = 0;
      auto chain = DrawChain(
          &op, "xin", op.inputs()[0].dims, "res", [](int k) { return "a" + std::to_string(k); },
          [&locals] { return "h" + std::to_string(locals++); }, true, 2);
      if (!chain) return std::nullopt;
      // The loop-body Do binds x and the chain's inputs (instance inputs 0 and 2..) as a0, a2, ...
      std::vector<int> body_inputs = {0};
      for (int k = 2; k < static_cast<int>(op.inputs().size()); ++k) body_inputs.push_back(k);
      const int scope = op.ScopeInput();
      const int i = op.ShapeInput({0}, DataType::kInt32);
      const int k = op.ShapeInput({*rc::gen::inRange<int64_t>(0, 4)}, DataType::kInt32);
      const int one = op.ShapeInput({1}, DataType::kInt32);
      chain->ops.insert(chain->ops.begin(), SimpleOp("Copy", {"a0"}, {"xin"}));
      chain->ops.push_back(SimpleOp("Copy", {"res"}, {"a0"}));
      caffe2::OperatorDef body = SimpleOp("Do", {}, {Placeholder('$', 0), Placeholder('$', scope)});
      caffe2::Argument inner, index;
      inner.set_name("inner_blobs");
      index.set_name("outer_blobs_idx");
      for (size_t b = 0; b < body_inputs.size(); ++b) {
        body.add_input(Placeholder('$', body_inputs[b]));
        inner.add_strings("a" + std::to_string(body_inputs[b]));
        index.add_ints(static_cast<int64_t>(b));
      }
      body.add_input(Placeholder('$', scope));
      *body.add_arg() = NetArg("net", MakeNet("loop_body", chain->ops));
      *body.add_arg() = inner;
      *body.add_arg() = index;
      op.RawArg(NetArg("loop_net", MakeNet("loop", {body})));
      op.RawArg(NetArg(
          "cond_net", MakeNet("cond", {SimpleOp("Add", {Placeholder('$', i), Placeholder('$', one)},
                                                {Placeholder('$', i)}),
                                       SimpleOp("LE", {Placeholder('$', i), Placeholder('$', k)},
                                                {Placeholder('@', 3)})})));
      op.OutputInPlace(0, 0).OutputInPlace(1, scope).OutputInPlace(2, i).OutputInPlace(3, 1);
      std::vector<int> order = {1, 0};
      for (int n = 2; n < static_cast<int>(op.inputs().size()); ++n) order.push_back(n);
      op.OpInputOrder(order);
      return op;
    });

}  // namespace
}  // namespace parity::fuzz
