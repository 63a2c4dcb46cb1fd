// Test specs of the convolution family: Conv, ConvRelu and ConvTranspose (2-D, NCHW, groups,
// dilation, every argument spelling; ConvTranspose's adj). Conv is bilinear in (X, W) plus b: no kinks, every input gradient-checked;
// GEMM-sized sums, so the "accumulation" tolerance class. ConvRelu draws Conv's cases; its Relu's
// kink sits on the convolution's outputs, which no input domain keeps away from 0: where a
// finite-differences step straddles it, the gradient oracle finds the objective not smooth and
// gives no verdict (as for a Relu on an intermediate blob in a generated net).
#include <rapidcheck.h>

#include "fuzz/spec.h"
#include "fuzz/specs/conv_args.h"

namespace parity::fuzz {
namespace {

// One case in 25 drawn on its own is an image large enough that the kernels unfold it in several
// row blocks (the size path Conv declares: ConvRowBlocks, kConvColBlockBytes = 512 KiB of
// unfolded floats). 4 channels of 64-72 x 60-72 with a 3x3 kernel give 2 blocks, with a partial
// last one, at a cost of ~0.3M multiply-adds per reference run: few large cases, many small.
OpInstance LargeConv(const std::string& type) {
  const int64_t c = 4, m = *rc::gen::inRange<int64_t>(1, 3);
  OpInstance op(type);
  op.Input({1, c, *rc::gen::inRange<int64_t>(64, 73), *rc::gen::inRange<int64_t>(60, 73)});
  op.Input({m, c, 3, 3});
  if (*rc::gen::arbitrary<bool>()) op.Input({m});
  conv_args::Geometry g;
  g.kh = g.kw = 3;
  g.pt = g.pb = g.pl = g.pr = 1;
  conv_args::GeometryArgs(op, g, true);
  if (Pick(2) == 0) op.Engine("IM2COL");  // the row blocks are IM2COL's size path
  return op;
}

// X [N, C, H, W] (small: N <= 2, C <= 4, H, W <= 7 when drawn here), filter
// [M, C / group, kh, kw], optional bias [M].
std::optional<OpInstance> MakeConv(const Primary* primary, const std::string& type) {
  if (primary == nullptr && *rc::gen::inRange(0, 25) == 0) return LargeConv(type);
  std::vector<int64_t> x =
      primary ? *primary : std::vector<int64_t>{Dim(1, 2), Dim(1, 4), Dim(1, 7), Dim(1, 7)};
  if (x.size() != 4 || x[1] > 8 || x[2] > 16 || x[3] > 16) return std::nullopt;
  const int64_t c = x[1];
  std::vector<int64_t> groups;
  for (int64_t g = 1; g <= c; ++g) {
    if (c % g == 0) groups.push_back(g);
  }
  // Mostly one group; otherwise any divisor of C.
  const int64_t group = *rc::gen::inRange(0, 3) == 0 ? *rc::gen::elementOf(groups) : 1;
  const int64_t m = group * *rc::gen::inRange<int64_t>(1, std::max<int64_t>(1, 4 / group) + 1);

  conv_args::Geometry g;
  conv_args::DrawDim(x[2], false, &g.kh, &g.dh, &g.pt, &g.pb);
  conv_args::DrawDim(x[3], false, &g.kw, &g.dw, &g.pl, &g.pr);
  g.sh = *rc::gen::inRange<int64_t>(1, 4);
  g.sw = *rc::gen::inRange<int64_t>(1, 4);

  OpInstance op(type);
  op.Input(x);
  op.Input({m, c / group, g.kh, g.kw});
  if (*rc::gen::arbitrary<bool>()) op.Input({m});
  conv_args::GeometryArgs(op, g, true);
  if (group != 1 || *rc::gen::inRange(0, 4) == 0) op.Arg("group", group);
  // Conv and ConvRelu have two CPU kernels: oneDNN's (DNNL, the default) and IM2COL. One case in
  // four asks for IM2COL by name (its gradient maker passes the engine on to ConvGradient, which
  // has both too), so each kernel meets every argument form.
  if (Pick(4) == 0) op.Engine("IM2COL");
  return op;
}

PARITY_OP_SPEC(Conv)
    .Tolerance("accumulation")
    .ConsumesIntermediates(true)
    .Make([](const Primary* p) { return MakeConv(p, "Conv"); });

PARITY_OP_SPEC(ConvRelu)
    .Tolerance("accumulation")
    .ConsumesIntermediates(true)
    .Make([](const Primary* p) { return MakeConv(p, "ConvRelu"); });

// ConvTranspose: X [N, C, H, W] (small), filter [C, M / group, kh, kw], optional bias [M]. Each
// pad at most half the dilated kernel's reach, so the output (in - 1) * stride + dilation *
// (kernel - 1) + 1 - pads + adj is never empty; adj in [0, stride). Bilinear like Conv.
std::optional<OpInstance> MakeConvTranspose(const Primary* primary) {
  std::vector<int64_t> x =
      primary ? *primary : std::vector<int64_t>{Dim(1, 2), Dim(1, 4), Dim(1, 5), Dim(1, 5)};
  if (x.size() != 4 || x[1] > 8 || x[2] > 8 || x[3] > 8) return std::nullopt;
  const int64_t c = x[1];
  std::vector<int64_t> groups;
  for (int64_t g = 1; g <= c; ++g) {
    if (c % g == 0) groups.push_back(g);
  }
  const int64_t group = *rc::gen::inRange(0, 3) == 0 ? *rc::gen::elementOf(groups) : 1;
  const int64_t mg = *rc::gen::inRange<int64_t>(1, 4);
  conv_args::Geometry g;
  g.kh = *rc::gen::inRange<int64_t>(1, 4);
  g.kw = *rc::gen::inRange<int64_t>(1, 4);
  g.sh = *rc::gen::inRange<int64_t>(1, 4);
  g.sw = *rc::gen::inRange<int64_t>(1, 4);
  g.dh = *rc::gen::inRange<int64_t>(1, 3);
  g.dw = *rc::gen::inRange<int64_t>(1, 3);
  const int64_t reach_h = g.dh * (g.kh - 1) / 2, reach_w = g.dw * (g.kw - 1) / 2;
  g.pt = *rc::gen::inRange<int64_t>(0, reach_h + 1);
  g.pb = *rc::gen::inRange<int64_t>(0, reach_h + 1);
  g.pl = *rc::gen::inRange<int64_t>(0, reach_w + 1);
  g.pr = *rc::gen::inRange<int64_t>(0, reach_w + 1);
  OpInstance op("ConvTranspose");
  op.Input(x);
  op.Input({c, mg, g.kh, g.kw});
  if (*rc::gen::arbitrary<bool>()) op.Input({mg * group});
  conv_args::GeometryArgs(op, g, *rc::gen::arbitrary<bool>() || g.dh != 1 || g.dw != 1);
  if (group != 1 || *rc::gen::inRange(0, 4) == 0) op.Arg("group", group);
  const int64_t adj_h = *rc::gen::inRange<int64_t>(0, g.sh);
  const int64_t adj_w = *rc::gen::inRange<int64_t>(0, g.sw);
  conv_args::PairArg(op, "adj", "adjs", "adj_h", "adj_w", adj_h, adj_w, 0, false);
  return op;
}

PARITY_OP_SPEC(ConvTranspose)
    .Tolerance("accumulation")
    .ConsumesIntermediates(true)
    .Make(MakeConvTranspose);

}  // namespace
}  // namespace parity::fuzz
