#include "core/rnn/recurrent_network_schema.h"

#include <limits>

namespace parity {

using Strings = std::vector<std::string>;
using Ints = std::vector<int64_t>;

void RecurrentNetworkArgs(OpSchema& s) {
  s.RequiredArg("step_net", ArgType::kNet, "the step net (NetDef, or its text)")
      .Arg("backward_step_net", ArgType::kNet, {},
           "the gradient of the step net; absent or empty: forward-only")
      .Arg("recurrent_states", ArgType::kStrings, Strings{},
           "op-level state blobs, (T + L) x N x D")
      .Arg("initial_recurrent_state_ids", ArgType::kInts, Ints{},
           "for each state, the input holding its initial value ([D], [N, D] or [L, N, D])")
      .Arg("link_internal", ArgType::kStrings, Strings{}, "step-net blob of each link")
      .Arg("link_external", ArgType::kStrings, Strings{}, "op-level blob of each link")
      .Arg("link_offset", ArgType::kInts, Ints{}, "first row of each link, from the timestep")
      .Arg("link_window", ArgType::kInts, Ints{}, "rows of each link (default 1)")
      .Arg("alias_src", ArgType::kStrings, Strings{}, "aliased op-level blob")
      .Arg("alias_dst", ArgType::kStrings, Strings{}, "alias (an output)")
      .Arg("alias_offset", ArgType::kInts, Ints{}, "first row; negative counts from the end")
      .Arg("timestep", ArgType::kString, std::string("timestep"), "the step net's timestep blob")
      .Arg("enable_rnn_executor", ArgType::kInt, int64_t{0},
           "accepted for Caffe2 compatibility; steps always run as simple nets")
      .Arg("num_workspaces", ArgType::kInt, int64_t{2},
           "step workspaces reused in turn when forward-only")
      .Arg("param", ArgType::kInts, Ints{}, "inputs that are parameters of the step net")
      .Arg("param_grads", ArgType::kStrings, Strings{},
           "the backward step net's gradient blob of each param")
      .Arg("outputs_with_grads", ArgType::kInts, Ints{0},
           "outputs whose gradients the gradient op reads")
      .Arg("backward_link_internal", ArgType::kStrings, Strings{}, "gradient links")
      .Arg("backward_link_external", ArgType::kStrings, Strings{}, "gradient links")
      .Arg("backward_link_offset", ArgType::kInts, Ints{}, "gradient links")
      .Arg("recompute_blobs_on_backward", ArgType::kStrings, Strings{},
           "step blobs kept once (shared) and recomputed by the backward step net");
}

namespace {

// The aliases' types: an alias of state i at `offset` has rows [start, T + L) of the
// (T + L) x N x D state, L and D from the initial state's dims. The step workspaces are a known
// non-tensor. Unknown where an initial state's type is.
std::vector<TensorType> RecurrentNetworkShapes(const caffe2::OperatorDef& def,
                                               const ArgumentHelper& args,
                                               const std::vector<TensorType>& in) {
  std::vector<TensorType> out(def.output_size(), TensorType{DataType::kFloat, {}, false});
  out.back() = TensorType{DataType::kUndefined, {}, true};
  if (!in[0].known || in[0].dims.size() < 2) return out;
  const int64_t steps = in[0].dims[0], batch = in[0].dims[1];
  const auto states = args.GetVector<std::string>("recurrent_states");
  const auto ids = args.GetVector<int64_t>("initial_recurrent_state_ids");
  const auto src = args.GetVector<std::string>("alias_src");
  const auto dst = args.GetVector<std::string>("alias_dst");
  const auto offset = args.GetVector<int64_t>("alias_offset");
  for (size_t j = 0; j < src.size() && j < dst.size() && j < offset.size(); ++j) {
    for (size_t i = 0; i < states.size() && i < ids.size(); ++i) {
      if (states[i] != src[j] || ids[i] < 0 || ids[i] >= static_cast<int64_t>(in.size())) continue;
      const TensorType& init = in[ids[i]];
      if (!init.known || init.dims.empty() || init.dims.size() > 3) continue;
      const int64_t rows = steps + (init.dims.size() == 3 ? init.dims[0] : 1);
      const int64_t start = offset[j] >= 0 ? offset[j] : rows + offset[j];
      if (start < 0 || start > rows) continue;
      for (int o = 0; o + 1 < def.output_size(); ++o) {
        if (def.output(o) == dst[j]) {
          out[o] = TensorType{in[0].dtype, {rows - start, batch, init.dims.back()}, true};
        }
      }
    }
  }
  return out;
}

}  // namespace

PARITY_OP_SCHEMA(RecurrentNetwork)
    .NumInputs(1, std::numeric_limits<int>::max())
    .NumOutputs(1, std::numeric_limits<int>::max())
    .Apply(RecurrentNetworkArgs)
    .ShapeInference(RecurrentNetworkShapes)
    .InputDoc(0, "input", "T x N x ... sequence; T and N come from it")
    .Doc(
        "Runs step_net once per timestep with links as views into op-level tensors; outputs are "
        "the aliases, then the step workspaces (for RecurrentNetworkGradient).");

PARITY_OP_SCHEMA(RecurrentNetworkGradient)
    .NumInputs(2, std::numeric_limits<int>::max())
    .NumOutputs(1, std::numeric_limits<int>::max())
    .Apply(RecurrentNetworkArgs)
    .NotDifferentiable()
    .Doc(
        "Runs backward_step_net from the last timestep to the first in the forward op's step "
        "workspaces. Inputs: the output gradients named by outputs_with_grads, the forward "
        "inputs, the forward outputs. Outputs: the gradients of input 0, of each param, of each "
        "initial state.");

}  // namespace parity
