// Test specs of the convolution family: Conv and ConvRelu (2-D, NCHW, groups, dilation, every
// argument spelling). Conv is bilinear in (X, W) plus b: no kinks, every input gradient-checked;
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

}  // namespace
}  // namespace parity::fuzz
