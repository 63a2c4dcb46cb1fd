// Test specs of the pooling family: MaxPool and AveragePool (2-D, NCHW, global_pooling,
// count_include_pad, dilation, every argument spelling; MaxPool also int8 / uint8 and its Indices
// output). MaxPool's float inputs are distinct (no ties, so no window's maximum is straddled by
// finite differences); AveragePool is linear.
#include <rapidcheck.h>

#include <algorithm>
#include <cstdint>

#include "fuzz/spec.h"
#include "fuzz/specs/conv_args.h"

namespace parity::fuzz {
namespace {

// kDistinct spaces values 0.02 apart up to this many elements (closer beyond): finite differences
// (step 1e-3 along a random direction) then never reorder two elements of a window.
constexpr int64_t kMaxDistinctElements = 100;

std::optional<OpInstance> MakePool(const Primary* primary, bool average) {
  std::vector<int64_t> x;
  if (primary) {
    x = *primary;
  } else {
    x = {Dim(1, 2), Dim(1, 4), Dim(1, 7), Dim(1, 7)};
    if (!average) {
      // Few enough elements for kDistinct's full spacing: fewer channels, then one image.
      while (x[0] * x[1] * x[2] * x[3] > kMaxDistinctElements && x[1] > 1) --x[1];
      if (x[0] * x[1] * x[2] * x[3] > kMaxDistinctElements) x[0] = 1;
    }
  }
  if (x.size() != 4 || x[1] < 1 || x[2] < 1 || x[3] < 1) return std::nullopt;

  // One fresh MaxPool in 4 also writes its Indices (output 1, int64).
  const int outputs = !average && !primary && Pick(4) == 0 ? 2 : 1;
  OpInstance op(average ? "AveragePool" : "MaxPool", outputs);
  if (!average && !primary && Pick(5) == 0) {
    // ONNX's MaxPool on int8 / uint8 over the whole range (ties allowed: no gradient).
    op.IntegerInput(x, *rc::gen::element(DataType::kInt8, DataType::kUint8), INT64_MIN,
                    INT64_MAX);
  } else {
    op.Input(x, average ? Domain::kAny : Domain::kDistinct);
  }
  if (*rc::gen::inRange(0, 5) == 0) {
    // Global pooling: the window is the whole image. Kernel, stride and pads absent, or (one case
    // in 3) given as Caffe2 accepts them: any kernel >= 0, which H x W replaces (densenet121 gives
    // 0), stride 1, pad 0.
    op.Arg("global_pooling", int64_t{1});
    if (*rc::gen::inRange(0, 4) == 0) op.Arg("order", std::string("NCHW"));
    if (Pick(3) == 0) {
      op.Arg("kernel", *rc::gen::element<int64_t>(0, 1, 3));
      op.Arg("stride", int64_t{1});
      op.Arg("pad", int64_t{0});
    }
  } else {
    conv_args::Geometry g;
    conv_args::DrawDim(x[2], true, &g.kh, &g.dh, &g.pt, &g.pb);
    conv_args::DrawDim(x[3], true, &g.kw, &g.dw, &g.pl, &g.pr);
    g.sh = *rc::gen::inRange<int64_t>(1, 4);
    g.sw = *rc::gen::inRange<int64_t>(1, 4);
    // A dilation that leaves a window of padding only falls back to none.
    const auto undilate = [](int64_t in, int64_t k, int64_t s, int64_t* d, int64_t* head,
                             int64_t* tail) {
      if (conv_args::WindowsCoverInput(in, k, *d, s, *head, *tail)) return;
      *d = 1;
      *head = std::min(*head, k - 1);
      *tail = std::min(*tail, k - 1);
    };
    undilate(x[2], g.kh, g.sh, &g.dh, &g.pt, &g.pb);
    undilate(x[3], g.kw, g.sw, &g.dw, &g.pl, &g.pr);
    conv_args::GeometryArgs(op, g, g.dh != 1 || g.dw != 1);
    if (*rc::gen::inRange(0, 6) == 0) op.Arg("global_pooling", int64_t{0});
  }
  if (average) {
    switch (*rc::gen::inRange(0, 3)) {
      case 0:
        break;  // default 0
      case 1:
        op.Arg("count_include_pad", int64_t{0});
        break;
      default:
        op.Arg("count_include_pad", int64_t{1});
    }
  }
  return op;
}

// The forward value is an input element, but the gradient sums windows' gradients in f32.
PARITY_OP_SPEC(MaxPool).Tolerance("default").ConsumesIntermediates(true).Make([](const Primary* p) {
  return MakePool(p, false);
});

PARITY_OP_SPEC(AveragePool)
    .Tolerance("accumulation")
    .ConsumesIntermediates(true)
    .Make([](const Primary* p) { return MakePool(p, true); });

}  // namespace
}  // namespace parity::fuzz
