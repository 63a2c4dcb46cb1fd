// ConvGradient against hand-derived values (worked out in comments), its schema checks, and the
// gradient oracle (production backward pass vs central differences of the f64 reference) on Conv
// with and without bias, padding, stride, dilation, groups, and inputs large enough for several
// im2col blocks.
#include <random>

#include "core/schema.h"
#include "oracles/testing/op_checks.h"
#include "tests/grad_kernels/grad_test_util.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

// X [1, 1, 3, 3] = [[1, 2, 3], [4, 5, 6], [7, 8, 9]], W [1, 1, 2, 2] = [[1, 2], [3, 4]], stride 1,
// no padding: Y is [1, 1, 2, 2]; dY = [[1, 2], [3, 4]].
//   dW[i][j] = sum over (oh, ow) of dY[oh][ow] * X[oh + i][ow + j]:
//     dW[0][0] = 1*1 + 2*2 + 3*4 + 4*5 = 37     dW[0][1] = 1*2 + 2*3 + 3*5 + 4*6 = 47
//     dW[1][0] = 1*4 + 2*5 + 3*7 + 4*8 = 67     dW[1][1] = 1*5 + 2*6 + 3*8 + 4*9 = 77
//   db = 1 + 2 + 3 + 4 = 10
//   dX[ih][iw] = sum over (oh, ow, i, j) with oh + i = ih, ow + j = iw of dY[oh][ow] * W[i][j]:
//     dX[0] = [1*1, 1*2 + 2*1, 2*2]                     = [1, 4, 4]
//     dX[1] = [1*3 + 3*1, 1*4 + 2*3 + 3*2 + 4*1, 2*4 + 4*2] = [6, 20, 16]
//     dX[2] = [3*3, 3*4 + 4*3, 4*4]                     = [9, 24, 16]
std::map<std::string, Tensor> SmallInputs() {
  return {{"x", MakeTensor<float>({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9})},
          {"w", MakeTensor<float>({1, 1, 2, 2}, {1, 2, 3, 4})},
          {"dy", MakeTensor<float>({1, 1, 2, 2}, {1, 2, 3, 4})}};
}

TEST(ConvGradient, HandDerived) {
  auto ws = RunOp(MakeOp("ConvGradient", {"x", "w", "dy"}, {"dw", "db", "dx"}, {{"kernel", 2}}),
                  SmallInputs());
  ExpectTensorNear(ws->GetTensor("dw"), {1, 1, 2, 2}, {37, 47, 67, 77});
  ExpectTensorNear(ws->GetTensor("db"), {1}, {10});
  ExpectTensorNear(ws->GetTensor("dx"), {1, 1, 3, 3}, {1, 4, 4, 6, 20, 16, 9, 24, 16});
}

TEST(ConvGradient, Double) {
  std::map<std::string, Tensor> inputs = {
      {"x", MakeTensor<double>({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9})},
      {"w", MakeTensor<double>({1, 1, 2, 2}, {1, 2, 3, 4})},
      {"dy", MakeTensor<double>({1, 1, 2, 2}, {1, 2, 3, 4})}};
  auto ws =
      RunOp(MakeOp("ConvGradient", {"x", "w", "dy"}, {"dw", "db", "dx"}, {{"kernel", 2}}), inputs);
  EXPECT_EQ(ws->GetTensor("dx").dtype(), DataType::kDouble);
  ExpectTensorNear(ws->GetTensor("dw"), {1, 1, 2, 2}, {37, 47, 67, 77});
  ExpectTensorNear(ws->GetTensor("db"), {1}, {10});
  ExpectTensorNear(ws->GetTensor("dx"), {1, 1, 3, 3}, {1, 4, 4, 6, 20, 16, 9, 24, 16});
}

TEST(ConvGradient, WithoutDx) {
  // Two outputs with a bias: (dW, db) only.
  auto ws =
      RunOp(MakeOp("ConvGradient", {"x", "w", "dy"}, {"dw", "db"}, {{"kernel", 2}}), SmallInputs());
  ExpectTensorNear(ws->GetTensor("dw"), {1, 1, 2, 2}, {37, 47, 67, 77});
  ExpectTensorNear(ws->GetTensor("db"), {1}, {10});
  EXPECT_FALSE(ws->HasBlob("dx"));
}

TEST(ConvGradient, NoBias) {
  // no_bias=1: (dW, dX), or (dW) alone.
  auto ws =
      RunOp(MakeOp("ConvGradient", {"x", "w", "dy"}, {"dw", "dx"}, {{"kernel", 2}, {"no_bias", 1}}),
            SmallInputs());
  ExpectTensorNear(ws->GetTensor("dw"), {1, 1, 2, 2}, {37, 47, 67, 77});
  ExpectTensorNear(ws->GetTensor("dx"), {1, 1, 3, 3}, {1, 4, 4, 6, 20, 16, 9, 24, 16});
  auto only =
      RunOp(MakeOp("ConvGradient", {"x", "w", "dy"}, {"dw"}, {{"kernel", 2}, {"no_bias", 1}}),
            SmallInputs());
  ExpectTensorNear(only->GetTensor("dw"), {1, 1, 2, 2}, {37, 47, 67, 77});
}

TEST(ConvGradient, PaddingDropsTheTapsOverIt) {
  // X [1, 1, 2, 2] = [[1, 2], [3, 4]], W 3x3 of ones, pad 1: Y [1, 1, 2, 2]; dY = [[1, 2], [3, 4]].
  // dW[i][j] = sum over (oh, ow) of dY[oh][ow] * X[oh + i - 1][ow + j - 1] (0 in the padding):
  //   row i = 0 reads X row oh - 1, so only oh = 1 (X row 0):
  //     j = 0: dY[1][1] * X[0][0] = 4;  j = 1: dY[1][0] X[0][0] + dY[1][1] X[0][1] = 3 + 8 = 11;
  //     j = 2: dY[1][0] * X[0][1] = 6
  //   row i = 1 (X row oh): j = 0: dY[0][1] X[0][0] + dY[1][1] X[1][0] = 2 + 12 = 14;
  //     j = 1: 1 + 4 + 9 + 16 = 30;  j = 2: dY[0][0] X[0][1] + dY[1][0] X[1][1] = 2 + 12 = 14
  //   row i = 2 (X row oh + 1, so oh = 0): j = 0: dY[0][1] X[1][0] = 6;
  //     j = 1: dY[0][0] X[1][0] + dY[0][1] X[1][1] = 3 + 8 = 11;  j = 2: dY[0][0] X[1][1] = 4
  // dX: every 3x3 window (pad 1) covers the whole 2x2 image with weight 1, so each dX element is
  // the sum of dY = 10; db = 10.
  std::map<std::string, Tensor> inputs = {
      {"x", MakeTensor<float>({1, 1, 2, 2}, {1, 2, 3, 4})},
      {"w", MakeTensor<float>({1, 1, 3, 3}, {1, 1, 1, 1, 1, 1, 1, 1, 1})},
      {"dy", MakeTensor<float>({1, 1, 2, 2}, {1, 2, 3, 4})}};
  auto ws = RunOp(
      MakeOp("ConvGradient", {"x", "w", "dy"}, {"dw", "db", "dx"}, {{"kernel", 3}, {"pad", 1}}),
      inputs);
  ExpectTensorNear(ws->GetTensor("dw"), {1, 1, 3, 3}, {4, 11, 6, 14, 30, 14, 6, 11, 4});
  ExpectTensorNear(ws->GetTensor("db"), {1}, {10});
  ExpectTensorNear(ws->GetTensor("dx"), {1, 1, 2, 2}, {10, 10, 10, 10});
}

TEST(ConvGradient, PointwiseGroups) {
  // X [1, 2, 1, 1] = [2, 3], W [2, 1, 1, 1] = [5, 7], group 2 (channel c -> output c): Y = [10,
  // 21]. dY = [1, 2]: dW = [1*2, 2*3] = [2, 6]; dX = [1*5, 2*7] = [5, 14]; db = [1, 2].
  std::map<std::string, Tensor> inputs = {{"x", MakeTensor<float>({1, 2, 1, 1}, {2, 3})},
                                          {"w", MakeTensor<float>({2, 1, 1, 1}, {5, 7})},
                                          {"dy", MakeTensor<float>({1, 2, 1, 1}, {1, 2})}};
  auto ws = RunOp(
      MakeOp("ConvGradient", {"x", "w", "dy"}, {"dw", "db", "dx"}, {{"kernel", 1}, {"group", 2}}),
      inputs);
  ExpectTensorNear(ws->GetTensor("dw"), {2, 1, 1, 1}, {2, 6});
  ExpectTensorNear(ws->GetTensor("db"), {2}, {1, 2});
  ExpectTensorNear(ws->GetTensor("dx"), {1, 2, 1, 1}, {5, 14});
}

TEST(ConvGradient, StrideTwoAccumulatesOverImages) {
  // X [2, 1, 1, 3]: image 0 = [1, 2, 3], image 1 = [4, 5, 6]; kernel 1x1, stride 2 (not
  // pointwise: the stride skips column 1): Y [2, 1, 1, 2] reads columns 0 and 2. W = [3];
  // dY = image 0 [1, 2], image 1 [3, 4].
  //   dW = 1*1 + 2*3 + 3*4 + 4*6 = 1 + 6 + 12 + 24 = 43;  db = 1 + 2 + 3 + 4 = 10
  //   dX = W * dY at the read columns, 0 at column 1: [3, 0, 6], [9, 0, 12]
  std::map<std::string, Tensor> inputs = {
      {"x", MakeTensor<float>({2, 1, 1, 3}, {1, 2, 3, 4, 5, 6})},
      {"w", MakeTensor<float>({1, 1, 1, 1}, {3})},
      {"dy", MakeTensor<float>({2, 1, 1, 2}, {1, 2, 3, 4})}};
  auto ws = RunOp(
      MakeOp("ConvGradient", {"x", "w", "dy"}, {"dw", "db", "dx"}, {{"kernel", 1}, {"stride", 2}}),
      inputs);
  ExpectTensorNear(ws->GetTensor("dw"), {1, 1, 1, 1}, {43});
  ExpectTensorNear(ws->GetTensor("db"), {1}, {10});
  ExpectTensorNear(ws->GetTensor("dx"), {2, 1, 1, 3}, {3, 0, 6, 9, 0, 12});
}

TEST(ConvGradient, RepeatedRunsOverwrite) {
  Workspace ws;
  for (const auto& [name, t] : SmallInputs()) ws.CreateTensor(name)->CopyFrom(t);
  caffe2::NetDef net;
  net.set_name("grad");
  *net.add_op() = MakeOp("ConvGradient", {"x", "w", "dy"}, {"dw", "db", "dx"}, {{"kernel", 2}});
  ws.CreateNet(net);
  ws.RunNet("grad");
  ws.RunNet("grad");
  ExpectTensorNear(ws.GetTensor("dw"), {1, 1, 2, 2}, {37, 47, 67, 77});
  ExpectTensorNear(ws.GetTensor("db"), {1}, {10});
  ExpectTensorNear(ws.GetTensor("dx"), {1, 1, 3, 3}, {1, 4, 4, 6, 20, 16, 9, 24, 16});
}

TEST(ConvGradient, ShapeInference) {
  const std::vector<TensorType> in = {Type({2, 4, 7, 6}), Type({6, 2, 3, 3}),
                                      Type({2, 6, 3, 2})};  // stride 2, pad 0: (7-3)/2+1, (6-3)/2+1
  auto three = Infer(MakeOp("ConvGradient", {"x", "w", "dy"}, {"dw", "db", "dx"},
                            {{"kernel", 3}, {"stride", 2}, {"group", 2}}),
                     in);
  ASSERT_EQ(three.size(), 3u);
  EXPECT_EQ(three[0].dims, (Ints{6, 2, 3, 3}));
  EXPECT_EQ(three[1].dims, (Ints{6}));
  EXPECT_EQ(three[2].dims, (Ints{2, 4, 7, 6}));
  auto no_bias = Infer(MakeOp("ConvGradient", {"x", "w", "dy"}, {"dw", "dx"},
                              {{"kernel", 3}, {"stride", 2}, {"group", 2}, {"no_bias", 1}}),
                       in);
  ASSERT_EQ(no_bias.size(), 2u);
  EXPECT_EQ(no_bias[1].dims, (Ints{2, 4, 7, 6}));
}

// ---- errors: one per check ----

void ExpectConvGradError(const std::vector<std::string>& outputs, const std::vector<TestArg>& args,
                         std::map<std::string, Tensor> inputs, ErrorKind kind,
                         std::initializer_list<std::string> needles) {
  ExpectError(
      [&] {
        RunOp(MakeOp("ConvGradient", {"x", "w", "dy"}, outputs, args), inputs);
      },
      kind, needles);
}

TEST(ConvGradientErrors, Arity) {
  ExpectError(
      [] {
        RunOp(MakeOp("ConvGradient", {"x", "w"}, {"dw", "db"}, {{"kernel", 2}}), SmallInputs());
      },
      ErrorKind::kBadArgument, {"ConvGradient", "takes 3 inputs"});
  ExpectConvGradError({"dw", "db", "dx", "extra"}, {{"kernel", 2}}, SmallInputs(),
                      ErrorKind::kBadArgument, {"1 to 3 outputs"});
}

TEST(ConvGradientErrors, OutputsAgainstNoBias) {
  ExpectConvGradError({"dw"}, {{"kernel", 2}}, SmallInputs(), ErrorKind::kBadArgument,
                      {"ConvGradient", "(dW, db) or (dW, db, dX)", "got 1 output"});
  ExpectConvGradError({"dw", "db", "dx"}, {{"kernel", 2}, {"no_bias", 1}}, SmallInputs(),
                      ErrorKind::kBadArgument, {"no_bias=1", "(dW) or (dW, dX)", "got 3"});
}

TEST(ConvGradientErrors, BadGeometry) {
  ExpectConvGradError({"dw", "db"}, {}, SmallInputs(), ErrorKind::kBadArgument,
                      {"ConvGradient", "kernel size must be set"});
  ExpectConvGradError({"dw", "db"}, {{"kernel", 2}, {"stride", 0}}, SmallInputs(),
                      ErrorKind::kBadArgument, {"stride 0x0"});
  ExpectConvGradError({"dw", "db"}, {{"kernel", 2}, {"group", 0}}, SmallInputs(),
                      ErrorKind::kBadArgument, {"'group' = 0"});
  ExpectConvGradError({"dw", "db"}, {{"kernel", 2}, {"no_bias", 1.0f}}, SmallInputs(),
                      ErrorKind::kBadArgument, {"no_bias"});
}

TEST(ConvGradientErrors, InputNot4D) {
  auto inputs = SmallInputs();
  inputs["x"] = MakeTensor<float>({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  ExpectConvGradError({"dw", "db"}, {{"kernel", 2}}, inputs, ErrorKind::kShapeMismatch,
                      {"4-D NCHW input X"});
}

TEST(ConvGradientErrors, FilterChannelsAndGroups) {
  auto inputs = SmallInputs();
  inputs["w"] = MakeTensor<float>({1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  ExpectConvGradError({"dw", "db"}, {{"kernel", 2}}, inputs, ErrorKind::kShapeMismatch,
                      {"should have 1 channels in dim 1"});
  ExpectConvGradError({"dw", "db"}, {{"kernel", 2}, {"group", 2}}, SmallInputs(),
                      ErrorKind::kShapeMismatch, {"not divisible by group 2"});
}

TEST(ConvGradientErrors, KernelDoesNotMatchFilter) {
  ExpectConvGradError({"dw", "db"}, {{"kernel", 3}}, SmallInputs(), ErrorKind::kShapeMismatch,
                      {"kernel 3x3 does not match filter W [1, 1, 2, 2]"});
}

TEST(ConvGradientErrors, DyDims) {
  auto inputs = SmallInputs();
  inputs["dy"] = MakeTensor<float>({1, 1, 1, 4}, {1, 2, 3, 4});
  ExpectConvGradError({"dw", "db", "dx"}, {{"kernel", 2}}, inputs, ErrorKind::kShapeMismatch,
                      {"dY [1, 1, 1, 4]", "forward output's dims [1, 1, 2, 2]"});
}

TEST(ConvGradientErrors, Dtypes) {
  auto inputs = SmallInputs();
  inputs["dy"] = MakeTensor<double>({1, 1, 2, 2}, {1, 2, 3, 4});
  ExpectConvGradError({"dw", "db"}, {{"kernel", 2}}, inputs, ErrorKind::kShapeMismatch,
                      {"dY is double"});
  std::map<std::string, Tensor> ints = {
      {"x", MakeTensor<int32_t>({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9})},
      {"w", MakeTensor<int32_t>({1, 1, 2, 2}, {1, 2, 3, 4})},
      {"dy", MakeTensor<int32_t>({1, 1, 2, 2}, {1, 2, 3, 4})}};
  ExpectConvGradError({"dw", "db"}, {{"kernel", 2}}, ints, ErrorKind::kShapeMismatch,
                      {"float or double"});
}

TEST(ConvGradientErrors, ShapeInferenceRaisesTheSame) {
  ExpectError(
      [] {
        Infer(MakeOp("ConvGradient", {"x", "w", "dy"}, {"dw", "db"}, {{"kernel", 2}}),
              {Type({1, 1, 3, 3}), Type({1, 1, 2, 2}), Type({1, 1, 3, 3})});
      },
      ErrorKind::kShapeMismatch, {"dY [1, 1, 3, 3]"});
  ExpectError(
      [] {
        Infer(MakeOp("ConvGradient", {"x", "w", "dy"}, {"dw"}, {{"kernel", 2}}),
              {Type({1, 1, 3, 3}), Type({1, 1, 2, 2}), Type({1, 1, 2, 2})});
      },
      ErrorKind::kBadArgument, {"got 1 output"});
}

// ---- the gradient oracle ----

oracles::NamedTensors ConvInputs(const Ints& x, const Ints& w, bool bias) {
  oracles::NamedTensors inputs = {{"x", Random(x, 11)}, {"w", Random(w, 12)}};
  if (bias) inputs.push_back({"b", Random({w[0]}, 13)});
  return inputs;
}

void CheckConv(const std::vector<TestArg>& args, const Ints& x, const Ints& w, bool bias,
               const std::string& type = "Conv") {
  const auto op = MakeOp(
      type, bias ? std::vector<std::string>{"x", "w", "b"} : std::vector<std::string>{"x", "w"},
      {"y"}, args);
  const auto inputs = ConvInputs(x, w, bias);
  for (int i = 0; i < op.input_size(); ++i) {
    EXPECT_GRADIENT_CHECKS(op, inputs, i) << "input " << i;
  }
}

TEST(ConvGradientOracle, Plain) { CheckConv({{"kernel", 3}}, {2, 3, 5, 5}, {4, 3, 3, 3}, true); }

TEST(ConvGradientOracle, NoBias) { CheckConv({{"kernel", 2}}, {2, 2, 4, 5}, {3, 2, 2, 2}, false); }

TEST(ConvGradientOracle, AsymmetricPadding) {
  CheckConv({{"kernel_h", 3}, {"kernel_w", 2}, {"pads", Ints{1, 0, 2, 1}}}, {1, 2, 4, 4},
            {3, 2, 3, 2}, true);
}

TEST(ConvGradientOracle, Stride) {
  CheckConv({{"kernel", 3}, {"stride_h", 2}, {"stride_w", 3}, {"pad", 1}}, {2, 2, 6, 7},
            {2, 2, 3, 3}, true);
}

TEST(ConvGradientOracle, Dilation) {
  CheckConv({{"kernel", 2}, {"dilation_h", 2}, {"dilation_w", 3}, {"pad", 1}}, {1, 2, 5, 6},
            {2, 2, 2, 2}, false);
}

TEST(ConvGradientOracle, Groups) {
  CheckConv({{"kernel", 3}, {"group", 2}, {"pad", 1}}, {2, 4, 4, 4}, {6, 2, 3, 3}, true);
}

TEST(ConvGradientOracle, PointwiseGroups) {
  CheckConv({{"kernel", 1}, {"group", 3}}, {2, 6, 3, 3}, {3, 2, 1, 1}, true);
}

TEST(ConvGradientOracle, EverythingAtOnce) {
  CheckConv({{"kernel", 3},
             {"group", 2},
             {"strides", Ints{2, 1}},
             {"dilations", Ints{1, 2}},
             {"pads", Ints{2, 1, 0, 2}}},
            {1, 4, 7, 6}, {2, 2, 3, 3}, true);
}

// ConvRelu's gradient is ReluGradient then ConvGradient (conv/makers.cc), checked end to end
// against finite differences of the reference's ConvRelu (these inputs keep every output of the
// convolution away from the Relu's kink).
TEST(ConvGradientOracle, ConvRelu) {
  CheckConv({{"kernel", 3}}, {2, 3, 5, 5}, {4, 3, 3, 3}, true, "ConvRelu");
  CheckConv({{"kernel", 2}, {"group", 2}, {"stride", 2}, {"pad", 1}}, {1, 4, 5, 4}, {2, 2, 2, 2},
            false, "ConvRelu");
}

TEST(ConvGradientOracle, SeveralIm2ColBlocks) {
  // C * kh * kw = 144 rows of col, out_w = 256: 144 KiB per output row of float, so a 512 KiB
  // block holds 3 of the 8 output rows: three blocks, overlapping in X (stride 1, kernel 3).
  // dX has 16 * 10 * 258 elements: checked in the vJu direction only (full mode is for <= 4096).
  const auto op = MakeOp("Conv", {"x", "w", "b"}, {"y"}, {{"kernel", 3}});
  const auto inputs = ConvInputs({1, 16, 10, 258}, {2, 16, 3, 3}, true);
  EXPECT_GRADIENT_CHECKS(op, inputs, 0);
  EXPECT_GRADIENT_CHECKS(op, inputs, 1);
}

}  // namespace
}  // namespace parity::testing
