// Gradient makers of Conv, ConvRelu and ConvTranspose: which gradient ops the backward pass emits for each op of
// this family (Caffe2's GetGradientDefs), beside their kernels. Gradient-op input/output
// conventions are tabulated in core/ops/GRADIENTS.md.
#include <numeric>
#include <string>
#include <vector>

#include "core/argument.h"
#include "core/grad/gradient.h"
#include "core/proto/error.h"

namespace parity {

PARITY_REGISTER_GRADIENT(Conv, [](GradientContext& g) {
  if (g.num_inputs() == 3) {
    return Ops{g.Op("ConvGradient", {g.I(0), g.I(1), g.GO(0)}, {g.GI(1), g.GI(2), g.GI(0)})};
  }
  return Ops{
      g.Op("ConvGradient", {g.I(0), g.I(1), g.GO(0)}, {g.GI(1), g.GI(0)}, {IntArg("no_bias", 1)})};
});

// ConvRelu = Relu(Conv(X, W, [b])): the unfused pair's gradient ops, in order. ReluGradient
// (Y, dY) masks dY where Y <= 0 into a temporary (not an input gradient, see Sqrt's maker), which
// ConvGradient takes as its output gradient, as Conv's maker wires it (no_bias=1 without b). Only
// ConvGradient gets ConvRelu's arguments; ReluGradient takes none.
PARITY_REGISTER_GRADIENT_OWN_ARGS(ConvRelu, [](GradientContext& g) {
  const std::string masked = g.O(0) + "_grad_relu_tmp";
  std::vector<caffe2::Argument> conv_args;
  if (g.num_inputs() != 3) conv_args.push_back(IntArg("no_bias", 1));
  conv_args.insert(conv_args.end(), g.def().arg().begin(), g.def().arg().end());
  Ops ops{g.Op("ReluGradient", {g.O(0), g.GO(0)}, {masked})};
  if (g.num_inputs() == 3) {
    ops.push_back(
        g.Op("ConvGradient", {g.I(0), g.I(1), masked}, {g.GI(1), g.GI(2), g.GI(0)}, conv_args));
  } else {
    ops.push_back(g.Op("ConvGradient", {g.I(0), g.I(1), masked}, {g.GI(1), g.GI(0)}, conv_args));
  }
  return ops;
});

// ConvTranspose is the adjoint of Conv with its geometry, linear in X and in W: dX = Conv(dY, W)
// (Conv's filter [out, in / group] is ConvTranspose's [C, M / group]), dW is the filter gradient of
// that Conv with X as its output gradient (ConvGradient(dY, W, X), no_bias), and db sums dY over
// N, H and W. adj only extends Y, which Conv's rounded-down output size undoes (adj < stride), so
// the Conv ops get every argument but adj's (adj, adjs, adj_h, adj_w).
PARITY_REGISTER_GRADIENT_OWN_ARGS(ConvTranspose, [](GradientContext& g) {
  std::vector<caffe2::Argument> conv_args;
  for (const auto& arg : g.def().arg()) {
    const std::string& name = arg.name();
    if (name != "adj" && name != "adjs" && name != "adj_h" && name != "adj_w") {
      conv_args.push_back(arg);
    }
  }
  std::vector<caffe2::Argument> grad_args = conv_args;
  grad_args.push_back(IntArg("no_bias", 1));
  Ops ops{g.Op("ConvGradient", {g.GO(0), g.I(1), g.I(0)}, {g.GI(1)}, grad_args),
          g.Op("Conv", {g.GO(0), g.I(1)}, {g.GI(0)}, conv_args)};
  if (g.num_inputs() == 3) {
    ops.push_back(g.Op("ReduceSum", {g.GO(0)}, {g.GI(2)},
                       {IntsArg("axes", {0, 2, 3}), IntArg("keepdims", 0)}));
  }
  return ops;
});

}  // namespace parity
