// Dropout and DropoutGrad: test mode exactly, training mode by its relation to the mask it writes
// (every element either kept and scaled by 1 / (1 - ratio), or 0) and statistically (the kept
// fraction), the generator's seeding, DropoutGrad against hand-computed values, the gradient
// maker's two forms and the argument checks.
#include <cmath>

#include "core/grad/gradient.h"
#include "core/schema.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

std::vector<bool> Mask(const Tensor& t) {
  EXPECT_EQ(t.dtype(), DataType::kBool);
  const bool* m = t.data<bool>();
  return std::vector<bool>(m, m + t.numel());
}

TEST(Dropout, TestModeIsTheIdentityWithAnAllTrueMask) {
  const Tensor x = MakeTensor<float>({2, 3}, {1, -2, 3.5f, 0, -0.25f, 7});
  auto ws =
      RunOp(MakeOp("Dropout", {"x"}, {"y", "m"}, {{"is_test", 1}, {"ratio", 0.9f}}), {{"x", x}});
  ExpectTensorNear(ws->GetTensor("y"), {2, 3}, {1, -2, 3.5, 0, -0.25, 7}, 0, 0);
  EXPECT_EQ(ws->GetTensor("m").dims(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(Mask(ws->GetTensor("m")), std::vector<bool>(6, true));
  // In place (alexnet's fc6 -> fc6), one output, double.
  ws = RunOp(MakeOp("Dropout", {"x"}, {"x"}, {{"is_test", 1}}),
             {{"x", MakeTensor<double>({3}, {1, 2, 3})}});
  ExpectTensorNear(ws->GetTensor("x"), {3}, {1, 2, 3}, 0, 0);
}

TEST(Dropout, TrainingKeepsWhatTheMaskSaysScaledAndDropsTheRest) {
  const int64_t n = 20000;
  const Tensor x = RandomTensor({n}, 7, 0.5f, 2.0f);  // never 0: a kept element is nonzero
  const float ratio = 0.3f;
  auto ws = RunOp(MakeOp("Dropout", {"x"}, {"y", "m"}, {{"ratio", ratio}}), {{"x", x}});
  const std::vector<bool> mask = Mask(ws->GetTensor("m"));
  const std::vector<float> xs = Values<float>(x), ys = Values<float>(ws->GetTensor("y"));
  int64_t kept = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double want = mask[i] ? xs[i] / (1.0 - ratio) : 0.0;
    ASSERT_NEAR(ys[i], want, 1e-6 * std::abs(want)) << "element " << i;
    kept += mask[i];
  }
  // Kept with probability 0.7: the fraction lies within 5 standard deviations (sqrt(0.21 / n)).
  EXPECT_NEAR(static_cast<double>(kept) / n, 0.7, 5 * std::sqrt(0.21 / n));
}

TEST(Dropout, RatioZeroKeepsEverything) {
  const Tensor x = RandomTensor({1000}, 3);
  auto ws = RunOp(MakeOp("Dropout", {"x"}, {"y", "m"}, {{"ratio", 0.0f}}), {{"x", x}});
  EXPECT_EQ(Values<float>(ws->GetTensor("y")), Values<float>(x));
  EXPECT_EQ(Mask(ws->GetTensor("m")), std::vector<bool>(1000, true));
}

// Caffe2 multiplies by the mask: an inf or NaN that is dropped comes out NaN, not 0.
TEST(Dropout, DroppedInfinitiesBecomeNaN) {
  const Tensor x = MakeTensor<float>({64}, std::vector<float>(64, INFINITY));
  auto ws = RunOp(MakeOp("Dropout", {"x"}, {"y", "m"}), {{"x", x}});
  const std::vector<bool> mask = Mask(ws->GetTensor("m"));
  const std::vector<float> y = Values<float>(ws->GetTensor("y"));
  int dropped = 0;
  for (int i = 0; i < 64; ++i) {
    EXPECT_EQ(std::isnan(y[i]), !mask[i]) << i;
    dropped += !mask[i];
  }
  EXPECT_GT(dropped, 0);
}

// The generator is seeded by DeviceOption.random_seed (0 without one) and lives in the op, so a
// second run of one net continues the stream.
TEST(Dropout, MaskFollowsTheSeedAndContinuesAcrossRuns) {
  const Tensor x = RandomTensor({256}, 5, 0.5f, 1.0f);
  auto mask_of = [&](int seed) {
    caffe2::OperatorDef def = MakeOp("Dropout", {"x"}, {"y", "m"});
    if (seed >= 0) def.mutable_device_option()->set_random_seed(seed);
    return Mask(RunOp(def, {{"x", x}})->GetTensor("m"));
  };
  EXPECT_EQ(mask_of(-1), mask_of(0));
  EXPECT_EQ(mask_of(11), mask_of(11));
  EXPECT_NE(mask_of(11), mask_of(12));
  Workspace ws;
  ws.CreateTensor("x")->CopyFrom(x);
  caffe2::NetDef net;
  *net.add_op() = MakeOp("Dropout", {"x"}, {"y", "m"});
  NetBase* instance = ws.CreateNet(net);
  instance->Run();
  const std::vector<bool> first = Mask(ws.GetTensor("m"));
  instance->Run();
  EXPECT_NE(Mask(ws.GetTensor("m")), first);
}

TEST(DropoutGrad, ScalesWhereTheMaskKeeps) {
  Tensor mask(DataType::kBool, {4});
  const bool m[] = {true, false, true, true};
  for (int i = 0; i < 4; ++i) mask.mutable_data<bool>()[i] = m[i];
  const Tensor dy = MakeTensor<float>({2, 2}, {1, 2, -3, 0.5f});
  auto ws = RunOp(MakeOp("DropoutGrad", {"dy", "mask"}, {"dx"}, {{"ratio", 0.75f}}),
                  {{"dy", dy}, {"mask", mask}});
  ExpectTensorNear(ws->GetTensor("dx"), {2, 2}, {4, 0, -12, 2});
  // Default ratio 0.5; in place over dY.
  ws = RunOp(MakeOp("DropoutGrad", {"dy", "mask"}, {"dy"}), {{"dy", dy}, {"mask", mask}});
  ExpectTensorNear(ws->GetTensor("dy"), {2, 2}, {2, 0, -6, 1});
  // Test mode: dX = dY, with or without the mask.
  ws = RunOp(MakeOp("DropoutGrad", {"dy"}, {"dx"}, {{"is_test", 1}}), {{"dy", dy}});
  ExpectTensorNear(ws->GetTensor("dx"), {2, 2}, {1, 2, -3, 0.5}, 0, 0);
  ws = RunOp(MakeOp("DropoutGrad", {"dy", "mask"}, {"dx"}, {{"is_test", 1}}),
             {{"dy", dy}, {"mask", mask}});
  ExpectTensorNear(ws->GetTensor("dx"), {2, 2}, {1, 2, -3, 0.5}, 0, 0);
}

TEST(Dropout, GradientMakerReadsTheMaskOnlyInTraining) {
  GradientOpsMeta train =
      GetGradientForOp(MakeOp("Dropout", {"x"}, {"y", "m"}, {{"ratio", 0.2f}}), {"y_grad", ""});
  ASSERT_EQ(train.ops.size(), 1u);
  EXPECT_EQ(train.ops[0].type(), "DropoutGrad");
  EXPECT_EQ(std::vector<std::string>(train.ops[0].input().begin(), train.ops[0].input().end()),
            (std::vector<std::string>{"y_grad", "m"}));
  EXPECT_EQ(train.g_input, (std::vector<std::string>{"x_grad"}));
  GradientOpsMeta test =
      GetGradientForOp(MakeOp("Dropout", {"x"}, {"y"}, {{"is_test", 1}}), {"y_grad"});
  ASSERT_EQ(test.ops.size(), 1u);
  EXPECT_EQ(test.ops[0].input_size(), 1);
}

TEST(Dropout, ShapeInferenceGivesABoolMask) {
  const auto out = OpSchemaRegistry::Get("Dropout").InferShapes(
      MakeOp("Dropout", {"x"}, {"y", "m"}), {TensorType{DataType::kDouble, {2, 5}}});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].dtype, DataType::kDouble);
  EXPECT_EQ(out[1].dtype, DataType::kBool);
  EXPECT_EQ(out[1].dims, (std::vector<int64_t>{2, 5}));
}

TEST(Dropout, ArgumentChecks) {
  const Tensor x = MakeTensor<float>({2}, {1, 2});
  ExpectError(
      [&] {
        RunOp(MakeOp("Dropout", {"x"}, {"y", "m"}, {{"ratio", 1.0f}}), {{"x", x}});
      },
      ErrorKind::kBadArgument, {"Dropout", "ratio", "[0, 1)"});
  ExpectError(
      [&] {
        RunOp(MakeOp("Dropout", {"x"}, {"y", "m"}, {{"ratio", -0.1f}}), {{"x", x}});
      },
      ErrorKind::kBadArgument, {"ratio"});
  ExpectError(
      [&] {
        RunOp(MakeOp("Dropout", {"x"}, {"y"}), {{"x", x}});
      },
      ErrorKind::kBadArgument, {"training mode", "mask"});
  ExpectError(
      [&] {
        RunOp(MakeOp("DropoutGrad", {"x"}, {"dx"}), {{"x", x}});
      },
      ErrorKind::kBadArgument, {"needs inputs dY and mask"});
  ExpectError(
      [&] {
        RunOp(MakeOp("DropoutGrad", {"x", "x"}, {"dx"}), {{"x", x}});
      },
      ErrorKind::kShapeMismatch, {"must be bool"});
  ExpectError(
      [&] {
        RunOp(MakeOp("Dropout", {"x"}, {"y"}, {{"is_test", 1}}),
              {{"x", MakeTensor<int32_t>({2}, {1, 2})}});
      },
      ErrorKind::kShapeMismatch, {"float or double"});
}

}  // namespace
}  // namespace parity::testing
