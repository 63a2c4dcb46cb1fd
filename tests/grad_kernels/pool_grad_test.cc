// MaxPoolGradient and AveragePoolGradient against hand-derived values (worked out in comments),
// their schema checks, and the gradient oracle (production backward pass vs central differences of
// the f64 reference) on MaxPool (inputs without ties) and AveragePool (both count_include_pad).
#include <algorithm>
#include <numeric>
#include <random>

#include "core/schema.h"
#include "oracles/testing/op_checks.h"
#include "tests/grad_kernels/grad_test_util.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

// Distinct values 0.05 apart (a shuffled arithmetic sequence around 0): no ties, and no two
// elements within the finite-difference steps (1e-3) of each other, so no window's maximum can
// change under the oracle's perturbations.
Tensor NoTies(const Ints& dims, uint32_t seed) {
  Tensor t;
  t.Resize(dims);
  std::vector<int64_t> order(t.numel());
  std::iota(order.begin(), order.end(), 0);
  std::mt19937 rng(seed);
  std::shuffle(order.begin(), order.end(), rng);
  float* data = t.mutable_data<float>();
  for (int64_t i = 0; i < t.numel(); ++i) {
    data[i] = 0.05f * static_cast<float>(order[i] - t.numel() / 2);
  }
  return t;
}

// Runs a pool gradient op on (x, y, dy) and returns the workspace.
std::unique_ptr<Workspace> PoolGrad(const std::string& type, const std::vector<TestArg>& args,
                                    const Tensor& x, const Tensor& y, const Tensor& dy) {
  return RunOp(MakeOp(type, {"x", "y", "dy"}, {"dx"}, args), {{"x", x}, {"y", y}, {"dy", dy}});
}

// ---- MaxPoolGradient ----

TEST(MaxPoolGradient, HandDerived) {
  // X [1, 1, 3, 3] = [[1, 5, 2], [7, 3, 4], [6, 9, 8]], kernel 2, stride 1: Y [1, 1, 2, 2].
  // Windows and their maxima: (0,0) {1, 5, 7, 3} -> 7 at X(1,0); (0,1) {5, 2, 3, 4} -> 5 at
  // X(0,1); (1,0) {7, 3, 6, 9} -> 9 at X(2,1); (1,1) {3, 4, 9, 8} -> 9 at X(2,1).
  // dY = [1, 2, 3, 4]: dX(1,0) = 1, dX(0,1) = 2, dX(2,1) = 3 + 4 = 7, the rest 0.
  auto ws = PoolGrad("MaxPoolGradient", {{"kernel", 2}},
                     MakeTensor<float>({1, 1, 3, 3}, {1, 5, 2, 7, 3, 4, 6, 9, 8}),
                     MakeTensor<float>({1, 1, 2, 2}, {7, 5, 9, 9}),
                     MakeTensor<float>({1, 1, 2, 2}, {1, 2, 3, 4}));
  ExpectTensorNear(ws->GetTensor("dx"), {1, 1, 3, 3}, {0, 2, 0, 1, 0, 0, 0, 7, 0});
}

TEST(MaxPoolGradient, TiesGoToTheFirstMaximumInScanOrder) {
  // X [1, 1, 2, 2] all 1: one window, four tied maxima; scan order is (0,0), (0,1), (1,0), (1,1),
  // so all of dY = 5 goes to (0,0).
  auto ws =
      PoolGrad("MaxPoolGradient", {{"kernel", 2}}, MakeTensor<float>({1, 1, 2, 2}, {1, 1, 1, 1}),
               MakeTensor<float>({1, 1, 1, 1}, {1}), MakeTensor<float>({1, 1, 1, 1}, {5}));
  ExpectTensorNear(ws->GetTensor("dx"), {1, 1, 2, 2}, {5, 0, 0, 0});
  // Row before column: X [[0, 2], [2, 0]] ties (0,1) and (1,0); (0,1) comes first.
  ws = PoolGrad("MaxPoolGradient", {{"kernel", 2}}, MakeTensor<float>({1, 1, 2, 2}, {0, 2, 2, 0}),
                MakeTensor<float>({1, 1, 1, 1}, {2}), MakeTensor<float>({1, 1, 1, 1}, {5}));
  ExpectTensorNear(ws->GetTensor("dx"), {1, 1, 2, 2}, {0, 5, 0, 0});
  // Per window: X [1, 1, 1, 3] = [4, 4, 1], kernel 1x2, stride 1: window 0 {4, 4} credits
  // column 0, window 1 {4, 1} column 1. dY = [1, 2] -> dX = [1, 2, 0].
  ws = PoolGrad("MaxPoolGradient", {{"kernel_h", 1}, {"kernel_w", 2}},
                MakeTensor<float>({1, 1, 1, 3}, {4, 4, 1}), MakeTensor<float>({1, 1, 1, 2}, {4, 4}),
                MakeTensor<float>({1, 1, 1, 2}, {1, 2}));
  ExpectTensorNear(ws->GetTensor("dx"), {1, 1, 1, 3}, {1, 2, 0});
}

TEST(MaxPoolGradient, TheCreditedElementIsTheOneTheForwardChose) {
  // Run MaxPool, then its gradient with dY = 1 everywhere: each window credits exactly one
  // element, which holds that window's Y. With ties everywhere (integers 0..2) the first one in
  // scan order must be that element; compare with a scan written here.
  const Ints dims = {2, 3, 5, 6};
  Tensor x;
  x.Resize(dims);
  std::mt19937 rng(5);
  for (int64_t i = 0; i < x.numel(); ++i)
    x.mutable_data<float>()[i] = static_cast<float>(rng() % 3);
  const std::vector<TestArg> args = {{"kernel", 3}, {"stride", 2}, {"pad", 1}};
  auto fwd = RunOp(MakeOp("MaxPool", {"x"}, {"y"}, args), {{"x", x}});
  const Tensor& y = fwd->GetTensor("y");
  ASSERT_EQ(y.dims(), (Ints{2, 3, 3, 3}));  // (5 + 2 - 3) / 2 + 1 = 3, (6 + 2 - 3) / 2 + 1 = 3
  Tensor dy;
  dy.Resize(y.dims());
  std::fill(dy.mutable_data<float>(), dy.mutable_data<float>() + dy.numel(), 1.0f);
  auto ws = PoolGrad("MaxPoolGradient", args, x, y, dy);
  std::vector<float> expected(x.numel(), 0.0f);
  const float* xs = x.data<float>();
  for (int64_t p = 0; p < 6; ++p) {
    for (int64_t oh = 0; oh < 3; ++oh) {
      for (int64_t ow = 0; ow < 3; ++ow) {
        int64_t best = -1;
        for (int64_t h = oh * 2 - 1; h < oh * 2 + 2; ++h) {
          for (int64_t w = ow * 2 - 1; w < ow * 2 + 2; ++w) {
            if (h < 0 || h >= 5 || w < 0 || w >= 6) continue;
            const int64_t i = p * 30 + h * 6 + w;
            if (best < 0 || xs[i] > xs[best]) best = i;
          }
        }
        EXPECT_EQ(xs[best], y.data<float>()[p * 9 + oh * 3 + ow]);
        expected[best] += 1.0f;
      }
    }
  }
  EXPECT_EQ(Values<float>(ws->GetTensor("dx")), expected);
}

TEST(MaxPoolGradient, PaddingNeverWins) {
  // X [1, 1, 2, 2] = [[-1, -2], [-3, -4]] (all below the padding's 0), kernel 2, stride 2, pad 1:
  // Y [1, 1, 2, 2], each window holding one real element, which takes that window's dY.
  auto ws = PoolGrad("MaxPoolGradient", {{"kernel", 2}, {"stride", 2}, {"pad", 1}},
                     MakeTensor<float>({1, 1, 2, 2}, {-1, -2, -3, -4}),
                     MakeTensor<float>({1, 1, 2, 2}, {-1, -2, -3, -4}),
                     MakeTensor<float>({1, 1, 2, 2}, {1, 2, 3, 4}));
  ExpectTensorNear(ws->GetTensor("dx"), {1, 1, 2, 2}, {1, 2, 3, 4});
}

TEST(MaxPoolGradient, GlobalPoolingDouble) {
  // X [1, 2, 2, 2]: channel 0 [[1, 8], [3, 2]] max at (0,1); channel 1 [[0, 0], [6, 6]] ties at
  // (1,0) and (1,1): the first, (1,0). dY = [10, 20].
  auto ws = PoolGrad("MaxPoolGradient", {{"global_pooling", 1}},
                     MakeTensor<double>({1, 2, 2, 2}, {1, 8, 3, 2, 0, 0, 6, 6}),
                     MakeTensor<double>({1, 2, 1, 1}, {8, 6}),
                     MakeTensor<double>({1, 2, 1, 1}, {10, 20}));
  EXPECT_EQ(ws->GetTensor("dx").dtype(), DataType::kDouble);
  ExpectTensorNear(ws->GetTensor("dx"), {1, 2, 2, 2}, {0, 10, 0, 0, 0, 0, 20, 0});
}

// ---- AveragePoolGradient ----

// X [1, 1, 2, 2], kernel 2, stride 1, pad 1: Y [1, 1, 3, 3] ((2 + 2 - 2) / 1 + 1 = 3). Window
// (oh, ow) covers rows oh - 1 .. oh and columns ow - 1 .. ow, clipped to the image; its clipped
// size is 1 at the corners, 2 on the edges, 4 in the middle. dY = [[1, 2, 3], [4, 5, 6], [7, 8,
// 9]]. Each X element lies in the four windows around it:
//   count_include_pad 0 (divide by the clipped size):
//     dX(0,0) = 1/1 + 2/2 + 4/2 + 5/4 = 5.25     dX(0,1) = 2/2 + 3/1 + 5/4 + 6/2 = 8.25
//     dX(1,0) = 4/2 + 5/4 + 7/1 + 8/2 = 14.25    dX(1,1) = 5/4 + 6/2 + 8/2 + 9/1 = 17.25
//     (they sum to 45 = the sum of dY: each window hands out all of its dY)
//   count_include_pad 1 (divide by 4 always):
//     dX(0,0) = (1 + 2 + 4 + 5) / 4 = 3          dX(0,1) = (2 + 3 + 5 + 6) / 4 = 4
//     dX(1,0) = (4 + 5 + 7 + 8) / 4 = 6          dX(1,1) = (5 + 6 + 8 + 9) / 4 = 7
TEST(AveragePoolGradient, CountIncludePadBothWays) {
  const Tensor x = MakeTensor<float>({1, 1, 2, 2}, {1, 2, 3, 4});
  const Tensor y = MakeTensor<float>({1, 1, 3, 3}, {0, 0, 0, 0, 0, 0, 0, 0, 0});  // shape only
  const Tensor dy = MakeTensor<float>({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  auto ws = PoolGrad("AveragePoolGradient", {{"kernel", 2}, {"pad", 1}}, x, y, dy);
  ExpectTensorNear(ws->GetTensor("dx"), {1, 1, 2, 2}, {5.25, 8.25, 14.25, 17.25});
  ws = PoolGrad("AveragePoolGradient", {{"kernel", 2}, {"pad", 1}, {"count_include_pad", 1}}, x, y,
                dy);
  ExpectTensorNear(ws->GetTensor("dx"), {1, 1, 2, 2}, {3, 4, 6, 7});
}

TEST(AveragePoolGradient, StrideLeavesGaps) {
  // X [1, 1, 1, 5], kernel 1x2, stride 1x3: windows columns {0, 1} and {3, 4}; column 2 is in no
  // window. dY = [2, 4]: dX = [1, 1, 0, 2, 2].
  auto ws =
      PoolGrad("AveragePoolGradient", {{"kernel_h", 1}, {"kernel_w", 2}, {"strides", Ints{1, 3}}},
               MakeTensor<float>({1, 1, 1, 5}, {1, 2, 3, 4, 5}),
               MakeTensor<float>({1, 1, 1, 2}, {0, 0}), MakeTensor<float>({1, 1, 1, 2}, {2, 4}));
  ExpectTensorNear(ws->GetTensor("dx"), {1, 1, 1, 5}, {1, 1, 0, 2, 2});
}

TEST(AveragePoolGradient, GlobalPooling) {
  // X [2, 1, 2, 3]: one window of 6 per plane; dY = [6, 12] -> dX plane 0 all 1, plane 1 all 2.
  auto ws = PoolGrad("AveragePoolGradient", {{"global_pooling", 1}},
                     MakeTensor<float>({2, 1, 2, 3}, std::vector<float>(12, 0.5f)),
                     MakeTensor<float>({2, 1, 1, 1}, {0.5f, 0.5f}),
                     MakeTensor<float>({2, 1, 1, 1}, {6, 12}));
  ExpectTensorNear(ws->GetTensor("dx"), {2, 1, 2, 3}, {1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2});
}

TEST(PoolGradient, RepeatedRunsOverwrite) {
  Workspace ws;
  ws.CreateTensor("x")->CopyFrom(MakeTensor<float>({1, 1, 2, 2}, {1, 2, 3, 4}));
  ws.CreateTensor("y")->CopyFrom(MakeTensor<float>({1, 1, 1, 1}, {4}));
  ws.CreateTensor("dy")->CopyFrom(MakeTensor<float>({1, 1, 1, 1}, {8}));
  caffe2::NetDef net;
  net.set_name("grad");
  *net.add_op() = MakeOp("MaxPoolGradient", {"x", "y", "dy"}, {"dmax"}, {{"kernel", 2}});
  *net.add_op() = MakeOp("AveragePoolGradient", {"x", "y", "dy"}, {"davg"}, {{"kernel", 2}});
  ws.CreateNet(net);
  ws.RunNet("grad");
  ws.RunNet("grad");
  ExpectTensorNear(ws.GetTensor("dmax"), {1, 1, 2, 2}, {0, 0, 0, 8});
  ExpectTensorNear(ws.GetTensor("davg"), {1, 1, 2, 2}, {2, 2, 2, 2});
}

TEST(PoolGradient, ShapeInference) {
  for (const char* type : {"MaxPoolGradient", "AveragePoolGradient"}) {
    auto out = Infer(MakeOp(type, {"x", "y", "dy"}, {"dx"}, {{"kernel", 3}, {"stride", 2}}),
                     {Type({2, 3, 7, 8}, DataType::kDouble), Type({2, 3, 3, 3}, DataType::kDouble),
                      Type({2, 3, 3, 3}, DataType::kDouble)});
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].dims, (Ints{2, 3, 7, 8})) << type;
    EXPECT_EQ(out[0].dtype, DataType::kDouble) << type;
  }
}

// ---- errors: one per check ----

std::map<std::string, Tensor> PoolInputs() {
  return {{"x", MakeTensor<float>({1, 1, 3, 3}, {1, 5, 2, 7, 3, 4, 6, 9, 8})},
          {"y", MakeTensor<float>({1, 1, 2, 2}, {7, 5, 9, 9})},
          {"dy", MakeTensor<float>({1, 1, 2, 2}, {1, 2, 3, 4})}};
}

void ExpectPoolGradError(const std::string& type, const std::vector<TestArg>& args,
                         const std::map<std::string, Tensor>& inputs, ErrorKind kind,
                         std::initializer_list<std::string> needles) {
  ExpectError([&] { RunOp(MakeOp(type, {"x", "y", "dy"}, {"dx"}, args), inputs); }, kind, needles);
}

TEST(PoolGradientErrors, Arity) {
  for (const char* type : {"MaxPoolGradient", "AveragePoolGradient"}) {
    ExpectError(
        [&] {
          RunOp(MakeOp(type, {"x", "dy"}, {"dx"}, {{"kernel", 2}}), PoolInputs());
        },
        ErrorKind::kBadArgument, {type, "takes 3 inputs"});
    ExpectError(
        [&] {
          RunOp(MakeOp(type, {"x", "y", "dy"}, {"dx", "dy2"}, {{"kernel", 2}}), PoolInputs());
        },
        ErrorKind::kBadArgument, {type, "produces 1 outputs"});
  }
}

TEST(PoolGradientErrors, Geometry) {
  ExpectPoolGradError("MaxPoolGradient", {}, PoolInputs(), ErrorKind::kBadArgument,
                      {"kernel size must be set"});
  ExpectPoolGradError("MaxPoolGradient", {{"global_pooling", 1}, {"dilation", 2}}, PoolInputs(),
                      ErrorKind::kBadArgument, {"pads, stride and dilation must not be set"});
  ExpectPoolGradError("AveragePoolGradient", {{"kernel", 2}, {"pad", 2}}, PoolInputs(),
                      ErrorKind::kBadArgument, {"must be smaller than the kernel"});
  ExpectPoolGradError("AveragePoolGradient", {{"global_pooling", 1}, {"stride", 2}}, PoolInputs(),
                      ErrorKind::kBadArgument, {"global_pooling"});
}

TEST(PoolGradientErrors, ArgumentTypes) {
  // The forward's arguments are declared on the gradients, so copied ones are type-checked.
  ExpectPoolGradError("MaxPoolGradient", {{"kernel", 2.0f}}, PoolInputs(), ErrorKind::kBadArgument,
                      {"'kernel'"});
  ExpectPoolGradError("AveragePoolGradient", {{"kernel", 2}, {"count_include_pad", "yes"}},
                      PoolInputs(), ErrorKind::kBadArgument, {"'count_include_pad'"});
}

TEST(PoolGradientErrors, InputNot4D) {
  auto inputs = PoolInputs();
  inputs["x"] = MakeTensor<float>({3, 3}, {1, 5, 2, 7, 3, 4, 6, 9, 8});
  ExpectPoolGradError("MaxPoolGradient", {{"kernel", 2}}, inputs, ErrorKind::kShapeMismatch,
                      {"4-D NCHW input X"});
}

TEST(PoolGradientErrors, YAndDyDims) {
  auto inputs = PoolInputs();
  inputs["y"] = MakeTensor<float>({1, 1, 1, 4}, {7, 5, 9, 9});
  ExpectPoolGradError("MaxPoolGradient", {{"kernel", 2}}, inputs, ErrorKind::kShapeMismatch,
                      {"Y [1, 1, 1, 4]", "forward output's dims [1, 1, 2, 2]"});
  inputs = PoolInputs();
  inputs["dy"] = MakeTensor<float>({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  ExpectPoolGradError("AveragePoolGradient", {{"kernel", 2}}, inputs, ErrorKind::kShapeMismatch,
                      {"dY [1, 1, 3, 3]", "forward output's dims [1, 1, 2, 2]"});
}

TEST(PoolGradientErrors, Dtypes) {
  auto inputs = PoolInputs();
  inputs["y"] = MakeTensor<double>({1, 1, 2, 2}, {7, 5, 9, 9});
  ExpectPoolGradError("MaxPoolGradient", {{"kernel", 2}}, inputs, ErrorKind::kShapeMismatch,
                      {"Y is double"});
  inputs = PoolInputs();
  inputs["dy"] = MakeTensor<double>({1, 1, 2, 2}, {1, 2, 3, 4});
  ExpectPoolGradError("AveragePoolGradient", {{"kernel", 2}}, inputs, ErrorKind::kShapeMismatch,
                      {"dY is double"});
  std::map<std::string, Tensor> ints = {
      {"x", MakeTensor<int32_t>({1, 1, 3, 3}, {1, 5, 2, 7, 3, 4, 6, 9, 8})},
      {"y", MakeTensor<int32_t>({1, 1, 2, 2}, {7, 5, 9, 9})},
      {"dy", MakeTensor<int32_t>({1, 1, 2, 2}, {1, 2, 3, 4})}};
  ExpectPoolGradError("MaxPoolGradient", {{"kernel", 2}}, ints, ErrorKind::kShapeMismatch,
                      {"float or double"});
}

TEST(PoolGradientErrors, ShapeInferenceRaisesTheSame) {
  ExpectError(
      [] {
        Infer(MakeOp("AveragePoolGradient", {"x", "y", "dy"}, {"dx"}, {{"kernel", 2}}),
              {Type({1, 1, 3, 3}), Type({1, 1, 2, 2}), Type({1, 1, 2, 3})});
      },
      ErrorKind::kShapeMismatch, {"dY [1, 1, 2, 3]"});
  ExpectError(
      [] {
        Infer(MakeOp("MaxPoolGradient", {"x", "y", "dy"}, {"dx"}, {{"kernel", 2}}),
              {Type({1, 1, 3, 3}), Type({1, 1, 2, 2}, DataType::kDouble), Type({1, 1, 2, 2})});
      },
      ErrorKind::kShapeMismatch, {"Y is double"});
}

// ---- the gradient oracle ----

TEST(PoolGradientOracle, MaxPool) {
  const std::vector<std::vector<TestArg>> geometries = {
      {{"kernel", 2}},
      {{"kernel", 3}, {"stride", 2}, {"pad", 1}},
      {{"kernel_h", 2}, {"kernel_w", 3}, {"pads", Ints{1, 0, 0, 2}}, {"strides", Ints{1, 2}}},
      {{"global_pooling", 1}},
  };
  for (size_t i = 0; i < geometries.size(); ++i) {
    EXPECT_GRADIENT_CHECKS(MakeOp("MaxPool", {"x"}, {"y"}, geometries[i]),
                           {{"x", NoTies({2, 3, 5, 6}, 21 + i)}}, 0)
        << "geometry " << i;
  }
}

TEST(PoolGradientOracle, AveragePool) {
  const std::vector<std::vector<TestArg>> geometries = {
      {{"kernel", 2}},
      {{"kernel", 3}, {"stride", 2}, {"pad", 1}},
      {{"kernel_h", 2}, {"kernel_w", 3}, {"pads", Ints{1, 0, 0, 2}}, {"strides", Ints{1, 2}}},
      {{"global_pooling", 1}},
  };
  for (int include_pad = 0; include_pad < 2; ++include_pad) {
    for (size_t i = 0; i < geometries.size(); ++i) {
      std::vector<TestArg> args = geometries[i];
      args.push_back({"count_include_pad", include_pad});
      EXPECT_GRADIENT_CHECKS(MakeOp("AveragePool", {"x"}, {"y"}, args),
                             {{"x", Random({2, 3, 5, 6}, 31 + i)}}, 0)
          << "geometry " << i << " count_include_pad " << include_pad;
    }
  }
}

}  // namespace
}  // namespace parity::testing
