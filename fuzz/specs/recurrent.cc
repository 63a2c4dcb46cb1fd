// Test specs of RecurrentNetwork and its internal step ops.
//
// RecurrentNetwork cases come in two families. Most are built with the RecurrentNet builder
// (core/rnn/recurrent_net.h), so the backward step net, links and aliases are the builder's, around
// one of these step nets:
//   * Caffe2's test cells: sum-mul o_t = x_t * (x_t + o_{t-1}), mul o_t = x_t * o_{t-1}, and
//     o_t = Tanh(x_t + w * o_{t-1}) (w a [D] weight read through the step net: `param`);
//   * a random cell: s = Sum(x_t, o_{t-1}), u = Tanh(s), then a chain of 1..2 ops drawn from the
//     other specs (chain.h) keeping [1, N, D] (the step's view of its rows), whose extra inputs
//     become the op's references (`param`s when they carry a gradient); one in three recomputes s
//     on the backward pass. The Tanh keeps the chain's input in [-1, 1] at every step: a chain
//     with Exp fed its own output would reach 1e70 in four steps, past f32's range.
// x is T x N x D (T in 1..4), the initial state [D], [N, D] or [1, N, D]; the outputs `_all` and
// `_last` both carry gradients.
//
// The other family is forward-only (no backward step net, so the gradient oracle does not apply)
// and exercises what the builder never emits: L in 1..3 initial steps ([L, N, D]), a window of the
// W <= L latest states (link offset L - W, window W), the output linked at offset L, and `_all`
// aliased from row 1 (Caffe2's choice, keeping L - 1 initial rows) or from row L. The step net
// reduces the window (ReduceSum over axis 0, keeping it), adds x_t, squashes with Tanh and runs a
// random chain.
//
// In generated nets the op takes an intermediate [T, N, D] blob as its sequence. A random scope
// keeps two RNNs of one net on separate states. The outputs are views of one state tensor, as in
// Caffe2, so the net generator keeps in-place updates off them (OutputsAreViews): an op updating
// `_all` in place would change `_last` too, which the reference (copies) does not model.
#include <rapidcheck.h>

#include "core/rnn/recurrent_net.h"
#include "fuzz/spec.h"
#include "fuzz/specs/chain.h"

namespace parity::fuzz {
namespace {

caffe2::Argument StringsArg(const std::string& name, const std::vector<std::string>& values) {
  caffe2::Argument arg;
  arg.set_name(name);
  for (const std::string& v : values) arg.add_strings(v);
  return arg;
}

caffe2::Argument IntsArg(const std::string& name, const std::vector<int64_t>& values) {
  caffe2::Argument arg;
  arg.set_name(name);
  for (int64_t v : values) arg.add_ints(v);
  return arg;
}

// A chain from `in` to "o" of [1, n, d] blobs (a link's view keeps its window of rows); its extra
// inputs are instance inputs of `op`, read by placeholder and listed as external inputs of `cell`.
// False when no chain could be drawn.
bool AddChain(OpInstance* op, const std::string& in, int64_t n, int64_t d, caffe2::NetDef* cell) {
  const size_t first_extra = op->inputs().size();
  int locals = 0;
  auto chain = DrawChain(
      op, in, {1, n, d}, "o", [](int k) { return Placeholder('$', k); },
      [&locals] { return "h" + std::to_string(locals++); }, true, 2);
  if (!chain) return false;
  for (size_t k = first_extra; k < op->inputs().size(); ++k) {
    cell->add_external_input(Placeholder('$', static_cast<int>(k)));
  }
  for (const caffe2::OperatorDef& def : chain->ops) *cell->add_op() = def;
  return true;
}

// The builder's cells (see the file comment); kinds 0..3.
std::optional<OpInstance> BuiltRnn(const std::vector<int64_t>& x, int cell_kind) {
  const int64_t n = x[1], d = x[2];
  const int init_rank = 1 + Pick(3);
  std::vector<int64_t> init = {d};
  if (init_rank >= 2) init.insert(init.begin(), n);
  if (init_rank == 3) init.insert(init.begin(), 1);

  OpInstance op("RecurrentNetwork", 3);
  // Products over the steps: keep |x| near 1 so o_t neither vanishes nor explodes.
  op.Input(x, cell_kind == 0 || cell_kind == 1 ? Domain::kAwayFromZero : Domain::kAny);  // $0
  op.Input(init);                                                                        // $1
  caffe2::NetDef cell;
  cell.set_name("cell");
  cell.add_external_input("input_t");
  cell.add_external_input("o_prev");
  RecurrentNetSpec spec;
  if (cell_kind == 0) {
    *cell.add_op() = SimpleOp("Sum", {"input_t", "o_prev"}, {"s"});
    *cell.add_op() = SimpleOp("Mul", {"input_t", "s"}, {"o"});
  } else if (cell_kind == 1) {
    *cell.add_op() = SimpleOp("Mul", {"input_t", "o_prev"}, {"o"});
  } else if (cell_kind == 2) {
    op.Input({d});  // $2: the weight, a reference of the step net
    cell.add_external_input("$2");
    *cell.add_op() = SimpleOp("Mul", {"o_prev", "$2"}, {"wo"});
    *cell.add_op() = SimpleOp("Add", {"wo", "input_t"}, {"pre"});
    *cell.add_op() = SimpleOp("Tanh", {"pre"}, {"o"});
  } else {
    *cell.add_op() = SimpleOp("Sum", {"input_t", "o_prev"}, {"s"});
    *cell.add_op() = SimpleOp("Tanh", {"s"}, {"u"});
    if (!AddChain(&op, "u", n, d, &cell)) return std::nullopt;
    if (Pick(3) == 0) spec.recompute_blobs_on_backward = {"s"};
  }
  cell.add_external_output("o");
  spec.cell_net = cell;
  spec.input = {"input_t", "$0"};
  spec.initial_cell_inputs = {{"o_prev", "$1"}};
  spec.links = {{"o_prev", "o"}};
  spec.scope = "rnn" + std::to_string(Pick(1000000));
  spec.outputs_with_grads = {0, 1};
  caffe2::NetDef built;
  RecurrentNet(&built, spec);
  // The instance names its inputs and outputs: the builder's names become placeholders.
  for (caffe2::Argument arg : built.op(0).arg()) {
    if (arg.name() == "alias_dst") {
      arg.set_strings(0, "@0");
      arg.set_strings(1, "@1");
    }
    op.RawArg(arg);
  }
  op.ScopeOutput(2);  // the step workspaces
  return op;
}

// The forward-only family with L initial steps and a window (see the file comment).
std::optional<OpInstance> WindowedRnn(const std::vector<int64_t>& x) {
  const int64_t n = x[1], d = x[2];
  const int64_t steps = 1 + Pick(3);                         // L
  const int64_t window = 1 + Pick(static_cast<int>(steps));  // W
  std::vector<int64_t> init = {steps, n, d};
  if (steps == 1) {
    const int rank = 1 + Pick(3);
    if (rank == 1) init = {d};
    if (rank == 2) init = {n, d};
  }
  OpInstance op("RecurrentNetwork", 3);
  op.Input(x);     // $0
  op.Input(init);  // $1
  caffe2::NetDef cell;
  cell.set_name("windowed_cell");
  cell.add_external_input("input_t");
  cell.add_external_input("history");
  caffe2::OperatorDef reduce = SimpleOp("ReduceSum", {"history"}, {"recent"});
  *reduce.add_arg() = IntsArg("axes", {0});
  caffe2::Argument keepdims;
  keepdims.set_name("keepdims");
  keepdims.set_i(1);
  *reduce.add_arg() = keepdims;
  *cell.add_op() = reduce;
  *cell.add_op() = SimpleOp("Sum", {"input_t", "recent"}, {"s"});
  *cell.add_op() = SimpleOp("Tanh", {"s"}, {"u"});
  if (!AddChain(&op, "u", n, d, &cell)) return std::nullopt;
  cell.add_external_output("o");

  const std::string state = "rnn" + std::to_string(Pick(1000000)) + "/states";
  const int64_t all_offset = *rc::gen::element<int64_t>(1, steps);
  op.RawArg(StringsArg("alias_src", {state, state}))
      .RawArg(StringsArg("alias_dst", {"@0", "@1"}))
      .RawArg(IntsArg("alias_offset", {all_offset, -1}))
      .RawArg(StringsArg("recurrent_states", {state}))
      .RawArg(IntsArg("initial_recurrent_state_ids", {1}))
      .RawArg(StringsArg("link_internal", {"history", "o", "input_t"}))
      .RawArg(StringsArg("link_external", {state, state, "$0"}))
      .RawArg(IntsArg("link_offset", {steps - window, steps, 0}))
      .RawArg(IntsArg("link_window", {window, 1, 1}))
      .RawArg(NetArg("step_net", cell))
      .Arg("timestep", std::string("timestep"));
  if (Pick(2) == 0) op.Arg("num_workspaces", int64_t{1 + Pick(3)});
  // No backward step net, no gradient: the generated case asks the gradient oracle for none.
  for (size_t i = 0; i < op.inputs().size(); ++i) op.NotDifferentiable(static_cast<int>(i));
  op.ScopeOutput(2);
  return op;
}

PARITY_OP_SPEC(RecurrentNetwork)
    .Tolerance("accumulation")
    .ConsumesIntermediates(true)
    .OutputsAreViews(true)
    .Make([](const Primary* p) -> std::optional<OpInstance> {
      std::vector<int64_t> x = {Dim(1, 4), Dim(1, 3), Dim(1, 4)};
      if (p) {
        if (p->size() != 3 || (*p)[0] < 1 || (*p)[1] < 1) return std::nullopt;
        x = *p;
      }
      const int kind = Pick(6);
      if (kind == 5) return WindowedRnn(x);
      return BuiltRnn(x, std::min(kind, 3));
    });

// rnn_internal_apply_link on its own: row window of a [R, N, D] tensor at timestep t.
PARITY_OP_SPEC(rnn_internal_apply_link)
    .Tolerance("exact")
    .Skip("gradient", "an internal step op of RecurrentNetwork: no gradient")
    .Make([](const Primary*) -> std::optional<OpInstance> {
      const int64_t offset = *rc::gen::inRange<int64_t>(0, 2);
      const int64_t window = *rc::gen::inRange<int64_t>(0, 3);
      const int64_t t = *rc::gen::inRange<int64_t>(0, 3);
      OpInstance op("rnn_internal_apply_link", 2);
      op.ShapeInput({t}, DataType::kInt32);
      op.Input({t + offset + window + *rc::gen::inRange<int64_t>(0, 2), Dim(1, 3), Dim(1, 3)});
      op.OutputInPlace(1, 1);
      op.Arg("offset", offset);
      op.Arg("window", window);
      return op;
    });

// rnn_internal_accumulate_gradient_input on its own: g[t + offset] += og[t].
PARITY_OP_SPEC(rnn_internal_accumulate_gradient_input)
    .Tolerance("default")
    .Skip("gradient", "an internal op of RecurrentNetworkGradient: no gradient")
    .Make([](const Primary*) -> std::optional<OpInstance> {
      const int64_t steps = Dim(1, 4), n = Dim(1, 3), d = Dim(1, 3);
      const int64_t offset = *rc::gen::inRange<int64_t>(0, 2);
      OpInstance op("rnn_internal_accumulate_gradient_input", 1);
      op.ShapeInput({*rc::gen::inRange<int64_t>(0, steps)}, DataType::kInt32);
      op.Input({steps, n, d});
      op.Input({steps + offset, n, d});
      op.OutputInPlace(0, 2);
      op.Arg("offset", offset);
      return op;
    });

}  // namespace
}  // namespace parity::fuzz
