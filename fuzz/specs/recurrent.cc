// Test specs of RecurrentNetwork and its internal step ops.
//
// RecurrentNetwork cases are built with the RecurrentNet builder (core/rnn/recurrent_net.h) around
// Caffe2's test cells, so the backward step net, links and aliases are the builder's:
//   sum-mul o_t = x_t * (x_t + o_{t-1}), mul o_t = x_t * o_{t-1}, and a cell with a parameter
//   o_t = Tanh(x_t + w * o_{t-1}) (w a [D] weight read through the step net: `param`);
// x is T x N x D (T in 1..4), the initial state [D], [N, D] or [1, N, D]; the outputs `_all` and
// `_last` both carry gradients. A random scope keeps two RNNs of one case on separate states.
// Single-op cases only (not in generated nets): the outputs are views of one state tensor, as in
// Caffe2, so a later op updating `_all` in place changes `_last` too, which the reference (copies)
// does not model; the net generator does not yet keep in-place ops off view outputs.
#include <rapidcheck.h>

#include "core/rnn/recurrent_net.h"
#include "fuzz/spec.h"

namespace parity::fuzz {
namespace {

caffe2::OperatorDef CellOp(const std::string& type, std::vector<std::string> in,
                           std::vector<std::string> out) {
  caffe2::OperatorDef op;
  op.set_type(type);
  for (const std::string& i : in) op.add_input(i);
  for (const std::string& o : out) op.add_output(o);
  return op;
}

PARITY_OP_SPEC(RecurrentNetwork)
    .Tolerance("accumulation")
    .ConsumesIntermediates(false)
    .Make([](const Primary* p) -> std::optional<OpInstance> {
      std::vector<int64_t> x = {Dim(1, 4), Dim(1, 3), Dim(1, 4)};
      if (p) {
        if (p->size() != 3 || (*p)[0] < 1 || (*p)[1] < 1) return std::nullopt;
        x = *p;
      }
      const int64_t n = x[1], d = x[2];
      const int cell_kind = *rc::gen::inRange(0, 3);
      const int init_rank = *rc::gen::inRange(1, 4);
      std::vector<int64_t> init = {d};
      if (init_rank >= 2) init.insert(init.begin(), n);
      if (init_rank == 3) init.insert(init.begin(), 1);

      OpInstance op("RecurrentNetwork", 3);
      // Products over the steps: keep |x| near 1 so o_t neither vanishes nor explodes.
      op.Input(x, cell_kind == 2 ? Domain::kAny : Domain::kAwayFromZero);  // $0
      op.Input(init);                                                      // $1
      caffe2::NetDef cell;
      cell.set_name("cell");
      cell.add_external_input("input_t");
      cell.add_external_input("o_prev");
      if (cell_kind == 0) {
        *cell.add_op() = CellOp("Sum", {"input_t", "o_prev"}, {"s"});
        *cell.add_op() = CellOp("Mul", {"input_t", "s"}, {"o"});
      } else if (cell_kind == 1) {
        *cell.add_op() = CellOp("Mul", {"input_t", "o_prev"}, {"o"});
      } else {
        op.Input({d});  // $2: the weight, a reference of the step net
        cell.add_external_input("$2");
        *cell.add_op() = CellOp("Mul", {"o_prev", "$2"}, {"wo"});
        *cell.add_op() = CellOp("Add", {"wo", "input_t"}, {"pre"});
        *cell.add_op() = CellOp("Tanh", {"pre"}, {"o"});
      }
      cell.add_external_output("o");
      RecurrentNetSpec spec;
      spec.cell_net = cell;
      spec.input = {"input_t", "$0"};
      spec.initial_cell_inputs = {{"o_prev", "$1"}};
      spec.links = {{"o_prev", "o"}};
      spec.scope = "rnn" + std::to_string(*rc::gen::inRange(0, 1000000));
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
