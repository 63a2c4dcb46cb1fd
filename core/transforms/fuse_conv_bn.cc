// fuse_conv_bn: an inference SpatialBN after a Conv, both with constant parameters (an init net's
// GivenTensorFill, as Export writes them), becomes the Conv alone with scaled weights and a new
// bias. Per output channel m, with s = scale[m] / sqrt(var[m] + epsilon):
//   W'[m, ...] = W[m, ...] * s        b'[m] = (b[m] - mean[m]) * s + bias[m]     (b = 0 if absent)
// Both layouts keep the output channel first in W ([M, C/g, k...] for NCHW, [M, k..., C/g] for
// NHWC), and the BN must normalize the Conv's channel axis (the same order). The folded values are
// computed in f64 and rounded once to f32.
#include <cmath>

#include "core/argument.h"
#include "core/schema.h"
#include "core/transforms/constants.h"
#include "core/transforms/fusion.h"
#include "core/transforms/net_edits.h"
#include "core/transforms/pass.h"
#include "core/transforms/ssa.h"

namespace parity::transforms {
namespace {

std::string OrderOf(const caffe2::OperatorDef& op) {
  return ArgumentHelper(op, OpSchemaRegistry::Find(op.type())).Get<std::string>("order", "NCHW");
}

// Whether the op at `conv` (a Conv) and its only reader `bn` fold, and the folded weights and bias.
struct Folded {
  FloatConstant weights;
  FloatConstant bias;
};

std::optional<Folded> Fold(const TransformedNet& t, const Ssa& ssa, int conv, int bn) {
  const caffe2::OperatorDef& c = t.predict.op(conv);
  const caffe2::OperatorDef& n = t.predict.op(bn);
  const ArgumentHelper bn_args(n, OpSchemaRegistry::Find("SpatialBN"));
  if (n.input_size() != 5 || n.output_size() != 1 || bn_args.Get<int64_t>("is_test", 0) == 0 ||
      OrderOf(c) != OrderOf(n)) {
    return std::nullopt;
  }
  const auto w = FindFloatConstant(t, ssa.ops[conv].inputs[1]);
  if (!w || w->dims.empty() || w->dims[0] <= 0) return std::nullopt;
  const int64_t channels = w->dims[0];
  std::optional<FloatConstant> b;
  if (c.input_size() == 3) {
    b = FindFloatConstant(t, ssa.ops[conv].inputs[2]);
    if (!b) return std::nullopt;
  } else {
    b = FloatConstant{{channels}, std::vector<double>(channels, 0.0)};
  }
  std::vector<FloatConstant> bn_params;  // scale, bias, mean, var
  for (int i = 1; i <= 4; ++i) {
    auto p = FindFloatConstant(t, ssa.ops[bn].inputs[i]);
    if (!p) return std::nullopt;
    bn_params.push_back(*p);
  }
  const std::vector<int64_t> per_channel = {channels};
  if (b->dims != per_channel) return std::nullopt;
  for (const auto& p : bn_params) {
    if (p.dims != per_channel) return std::nullopt;
  }
  const double epsilon = bn_args.Get<float>("epsilon");
  Folded folded{*w, {per_channel, std::vector<double>(channels)}};
  const int64_t per_filter = static_cast<int64_t>(w->values.size()) / channels;
  for (int64_t m = 0; m < channels; ++m) {
    const double s = bn_params[0].values[m] / std::sqrt(bn_params[3].values[m] + epsilon);
    for (int64_t k = 0; k < per_filter; ++k) folded.weights.values[m * per_filter + k] *= s;
    folded.bias.values[m] = (b->values[m] - bn_params[2].values[m]) * s + bn_params[1].values[m];
  }
  return folded;
}

void FuseConvBn(TransformedNet* t) {
  RefuseSubNets(t->predict, "fuse_conv_bn", "they may read the Conv's output");
  FusePairs(t, {"Conv"}, "SpatialBN", [](TransformedNet* t, const Ssa& ssa, int conv, int bn) {
    if (t->predict.op(conv).input_size() < 2) return false;
    const auto folded = Fold(*t, ssa, conv, bn);
    if (!folded) return false;
    const std::string weights = FreshName(*t, t->predict.op(conv).input(1) + "_bn_folded");
    AddFloatConstant(t, weights, folded->weights);
    const std::string bias = FreshName(*t, t->predict.op(conv).output(0) + "_bn_folded_bias");
    AddFloatConstant(t, bias, folded->bias);
    caffe2::OperatorDef& fused = *t->predict.mutable_op(conv);
    fused.set_input(1, weights);
    if (fused.input_size() == 3) {
      fused.set_input(2, bias);
    } else {
      fused.add_input(bias);
    }
    return true;
  });
}

PARITY_REGISTER_PASS(PassInfo{
    "fuse_conv_bn",
    "Requires nothing; refuses nets with sub-nets. Folds each inference SpatialBN (is_test=1, "
    "one output, the Conv's order) that is the only reader of a Conv's output into the Conv, "
    "when the weights, bias and the BN's scale, bias, mean and var are constants of the init net "
    "(float GivenTensorFill, unwritten in the predict net): new constants W*s and "
    "(b-mean)*s+bias with s = scale/sqrt(var+epsilon), computed in f64. Same outputs up to f32 "
    "rounding of the folded constants.",
    /*preserves_outputs=*/true, FuseConvBn, /*uses_constants=*/true,
    /*rewrites=*/{{"Conv", "SpatialBN"}}});

}  // namespace
}  // namespace parity::transforms
