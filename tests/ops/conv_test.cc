// Conv and ConvRelu against hand-computed values (worked out in comments), and their
// argument/shape errors.
#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include "core/schema.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

// X [1, 1, 3, 3] = [[1, 2, 3], [4, 5, 6], [7, 8, 9]].
const std::vector<float> kX9 = {1, 2, 3, 4, 5, 6, 7, 8, 9};

std::vector<TensorType> Infer(const caffe2::OperatorDef& def, const std::vector<TensorType>& in) {
  return OpSchemaRegistry::Get(def.type()).InferShapes(def, in);
}
TensorType Type(std::vector<int64_t> dims) {
  TensorType t;
  t.dims = std::move(dims);
  return t;
}
Tensor Ones(const std::vector<int64_t>& dims) {
  Tensor t;
  t.Resize(dims);
  float* data = t.mutable_data<float>();
  for (int64_t i = 0; i < t.numel(); ++i) data[i] = 1;
  return t;
}

TEST(Conv, NoPaddingWithBias) {
  // W [[1, 2], [3, 4]]: Y[0,0] = 1 + 2*2 + 3*4 + 4*5 = 37, Y[0,1] = 2 + 6 + 15 + 24 = 47,
  // Y[1,0] = 4 + 10 + 21 + 32 = 67, Y[1,1] = 5 + 12 + 24 + 36 = 77; plus bias 1.
  auto ws = RunOp(MakeOp("Conv", {"x", "w", "b"}, {"y"}, {{"kernel", 2}}),
                  {{"x", MakeTensor<float>({1, 1, 3, 3}, kX9)},
                   {"w", MakeTensor<float>({1, 1, 2, 2}, {1, 2, 3, 4})},
                   {"b", MakeTensor<float>({1}, {1})}});
  ExpectTensorNear(ws->GetTensor("y"), {1, 1, 2, 2}, {38, 48, 68, 78});
}

TEST(Conv, KernelArgumentForms) {
  // kernels [2, 2] and kernel_h + kernel_w mean kernel 2 (no bias: 37 47 67 77).
  for (const auto& arg : {TestArg("kernels", Ints{2, 2}), TestArg("kernel_h", 2)}) {
    std::vector<TestArg> args = {arg};
    if (arg.arg.name() == "kernel_h") args.emplace_back("kernel_w", 2);
    auto ws = RunOp(MakeOp("Conv", {"x", "w"}, {"y"}, args),
                    {{"x", MakeTensor<float>({1, 1, 3, 3}, kX9)},
                     {"w", MakeTensor<float>({1, 1, 2, 2}, {1, 2, 3, 4})}});
    ExpectTensorNear(ws->GetTensor("y"), {1, 1, 2, 2}, {37, 47, 67, 77});
  }
}

TEST(Conv, PaddingSumsNeighbourhoods) {
  // 3x3 ones with pad 1: each output is the sum of the input's 3x3 neighbourhood:
  //   [1+2+4+5, 1..6, 2+3+5+6] = [12, 21, 16]; [27, 45, 33]; [4+5+7+8, 4..9, 5+6+8+9] = [24, 39, 28].
  auto ws = RunOp(MakeOp("Conv", {"x", "w"}, {"y"}, {{"kernel", 3}, {"pad", 1}}),
                  {{"x", MakeTensor<float>({1, 1, 3, 3}, kX9)}, {"w", Ones({1, 1, 3, 3})}});
  ExpectTensorNear(ws->GetTensor("y"), {1, 1, 3, 3}, {12, 21, 16, 27, 45, 33, 24, 39, 28});
}

TEST(Conv, StrideWithPadding) {
  // Output size floor((3 + 2 - 3) / 2) + 1 = 2: the corners of PaddingSumsNeighbourhoods.
  auto ws = RunOp(MakeOp("Conv", {"x", "w"}, {"y"}, {{"kernel", 3}, {"pad", 1}, {"stride", 2}}),
                  {{"x", MakeTensor<float>({1, 1, 3, 3}, kX9)}, {"w", Ones({1, 1, 3, 3})}});
  ExpectTensorNear(ws->GetTensor("y"), {1, 1, 2, 2}, {12, 16, 24, 28});
  // strides [2, 1]: rows 0 and 2 of that output, all three columns.
  ws = RunOp(MakeOp("Conv", {"x", "w"}, {"y"}, {{"kernel", 3}, {"pad", 1}, {"strides", Ints{2, 1}}}),
             {{"x", MakeTensor<float>({1, 1, 3, 3}, kX9)}, {"w", Ones({1, 1, 3, 3})}});
  ExpectTensorNear(ws->GetTensor("y"), {1, 1, 2, 3}, {12, 21, 16, 24, 39, 28});
}

TEST(Conv, AsymmetricPads) {
  // pads (t, l, b, r) = (1, 0, 0, 0), 2x2 ones: padded input 4x3, output 3x2; row -1 is zero:
  //   oh 0: row 0: [1+2, 2+3] = [3, 5]; oh 1: rows 0-1: [12, 16]; oh 2: rows 1-2: [24, 28].
  const std::vector<double> expected = {3, 5, 12, 16, 24, 28};
  auto ws = RunOp(MakeOp("Conv", {"x", "w"}, {"y"}, {{"kernel", 2}, {"pads", Ints{1, 0, 0, 0}}}),
                  {{"x", MakeTensor<float>({1, 1, 3, 3}, kX9)}, {"w", Ones({1, 1, 2, 2})}});
  ExpectTensorNear(ws->GetTensor("y"), {1, 1, 3, 2}, expected);
  ws = RunOp(MakeOp("Conv", {"x", "w"}, {"y"},
                    {{"kernel", 2}, {"pad_t", 1}, {"pad_l", 0}, {"pad_b", 0}, {"pad_r", 0}}),
             {{"x", MakeTensor<float>({1, 1, 3, 3}, kX9)}, {"w", Ones({1, 1, 2, 2})}});
  ExpectTensorNear(ws->GetTensor("y"), {1, 1, 3, 2}, expected);
}

TEST(Conv, Dilation) {
  // X 4x4 = 1..16, 2x2 ones dilated by 2 (span 3): output 2x2, each the sum of 4 taps two apart:
  //   [1+3+9+11, 2+4+10+12; 5+7+13+15, 6+8+14+16] = [24, 28, 40, 44].
  std::vector<float> x16(16);
  for (int i = 0; i < 16; ++i) x16[i] = i + 1;
  auto ws = RunOp(MakeOp("Conv", {"x", "w"}, {"y"}, {{"kernel", 2}, {"dilation", 2}}),
                  {{"x", MakeTensor<float>({1, 1, 4, 4}, x16)}, {"w", Ones({1, 1, 2, 2})}});
  ExpectTensorNear(ws->GetTensor("y"), {1, 1, 2, 2}, {24, 28, 40, 44});
  // dilation_h 2, dilation_w 1: taps (0,0) (0,1) (2,0) (2,1); output 2x3:
  //   [1+2+9+10, 2+3+10+11, 3+4+11+12; 5+6+13+14, 6+7+14+15, 7+8+15+16].
  ws = RunOp(MakeOp("Conv", {"x", "w"}, {"y"}, {{"kernel", 2}, {"dilation_h", 2}, {"dilation_w", 1}}),
             {{"x", MakeTensor<float>({1, 1, 4, 4}, x16)}, {"w", Ones({1, 1, 2, 2})}});
  ExpectTensorNear(ws->GetTensor("y"), {1, 1, 2, 3}, {22, 26, 30, 38, 42, 46});
}

TEST(Conv, GroupsWithBias) {
  // X [1, 2, 2, 2]: ch0 [1, 2, 3, 4], ch1 [5, 6, 7, 8]; group 2, 1x1 filters [2] and [-1], bias
  // [1, 10]: Y ch0 = 2 ch0 + 1 = [3, 5, 7, 9]; ch1 = -ch1 + 10 = [5, 4, 3, 2].
  auto ws = RunOp(MakeOp("Conv", {"x", "w", "b"}, {"y"}, {{"kernel", 1}, {"group", 2}}),
                  {{"x", MakeTensor<float>({1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8})},
                   {"w", MakeTensor<float>({2, 1, 1, 1}, {2, -1})},
                   {"b", MakeTensor<float>({2}, {1, 10})}});
  ExpectTensorNear(ws->GetTensor("y"), {1, 2, 2, 2}, {3, 5, 7, 9, 5, 4, 3, 2});
  // 2x2 filters through im2col: group 0 picks ch0's top-left (1), group 1 ch1's bottom-right (8).
  ws = RunOp(MakeOp("Conv", {"x", "w"}, {"y"}, {{"kernel", 2}, {"group", 2}}),
             {{"x", MakeTensor<float>({1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8})},
              {"w", MakeTensor<float>({2, 1, 2, 2}, {1, 0, 0, 0, 0, 0, 0, 1})}});
  ExpectTensorNear(ws->GetTensor("y"), {1, 2, 1, 1}, {1, 8});
  // Two channels per group: X [1, 4, 1, 1] = [1, 2, 3, 4], W [[1, 1], [1, -1]]:
  //   out0 = 1 + 2 = 3 (channels 0-1), out1 = 3 - 4 = -1 (channels 2-3).
  ws = RunOp(MakeOp("Conv", {"x", "w"}, {"y"}, {{"kernel", 1}, {"group", 2}}),
             {{"x", MakeTensor<float>({1, 4, 1, 1}, {1, 2, 3, 4})},
              {"w", MakeTensor<float>({2, 2, 1, 1}, {1, 1, 1, -1})}});
  ExpectTensorNear(ws->GetTensor("y"), {1, 2, 1, 1}, {3, -1});
}

TEST(Conv, GroupsWithDilationAndPadding) {
  // Newer Caffe2 allows group with dilation. X [1, 2, 3, 3]: ch0 = 1..9, ch1 = -(1..9); group 2,
  // 2x2 ones dilated by 2 with pad 1: span 3, padded 5, output 3x3. Each output at (oh, ow) sums
  // taps at input rows oh-1, oh+1 and columns ow-1, ow+1 that fall inside:
  //   (0,0): x[1][1] = 5; (0,1): x[1][0] + x[1][2] = 10; (0,2): x[1][1] = 5;
  //   (1,0): x[0][1] + x[2][1] = 10; (1,1): x00 + x02 + x20 + x22 = 20; (1,2): 10;
  //   (2,*): like row 0. Channel 1 is the negation.
  std::vector<float> x(18);
  for (int i = 0; i < 9; ++i) x[i] = i + 1, x[9 + i] = -(i + 1);
  auto ws = RunOp(MakeOp("Conv", {"x", "w"}, {"y"},
                         {{"kernel", 2}, {"dilation", 2}, {"pad", 1}, {"group", 2}}),
                  {{"x", MakeTensor<float>({1, 2, 3, 3}, x)}, {"w", Ones({2, 1, 2, 2})}});
  ExpectTensorNear(ws->GetTensor("y"), {1, 2, 3, 3},
                   {5, 10, 5, 10, 20, 10, 5, 10, 5, -5, -10, -5, -10, -20, -10, -5, -10, -5});
}

TEST(Conv, BatchAndOutputChannels) {
  // img0 [1, 2, 3, 4], img1 [0, 1, 0, 1]; filters ones and [1, 0, 0, -1]:
  //   img0: [10, 1 - 4] = [10, -3]; img1: [2, 0 - 1] = [2, -1].
  auto ws = RunOp(MakeOp("Conv", {"x", "w"}, {"y"}, {{"kernel", 2}}),
                  {{"x", MakeTensor<float>({2, 1, 2, 2}, {1, 2, 3, 4, 0, 1, 0, 1})},
                   {"w", MakeTensor<float>({2, 1, 2, 2}, {1, 1, 1, 1, 1, 0, 0, -1})}});
  ExpectTensorNear(ws->GetTensor("y"), {2, 2, 1, 1}, {10, -3, 2, -1});
}

TEST(Conv, PointwiseMixesChannels) {
  // X ch0 [1, 2], ch1 [3, 4]; W rows [1, 0], [0, 1], [1, 1]: Y = [1, 2], [3, 4], [4, 6].
  auto ws = RunOp(MakeOp("Conv", {"x", "w"}, {"y"}, {{"kernel", 1}}),
                  {{"x", MakeTensor<double>({1, 2, 1, 2}, {1, 2, 3, 4})},
                   {"w", MakeTensor<double>({3, 2, 1, 1}, {1, 0, 0, 1, 1, 1})}});
  EXPECT_EQ(ws->GetTensor("y").dtype(), DataType::kDouble);
  ExpectTensorNear(ws->GetTensor("y"), {1, 3, 1, 2}, {1, 2, 3, 4, 4, 6});
}

// Large enough that im2col runs in several row blocks. X[c][h][w] = 100 h + w for all 64 channels,
// 3x3 ones filter, pad 1: Y[oh][ow] sums the in-image taps, ih in rows(oh) and iw in cols(ow):
//   Y = 64 * (100 * |cols| * sum(rows) + |rows| * sum(cols)),
// rows(oh) = {oh * stride - 1, +1, +2} within [0, H), likewise cols; plus the bias 0.5.
void CheckBlockedConv(int64_t stride) {
  const int64_t C = 64, H = 40;
  std::vector<float> x(C * H * H);
  for (int64_t c = 0; c < C; ++c)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t w = 0; w < H; ++w) x[(c * H + h) * H + w] = 100 * h + w;
  auto ws = RunOp(MakeOp("Conv", {"x", "w", "b"}, {"y"},
                         {{"kernel", 3}, {"pad", 1}, {"stride", static_cast<int>(stride)}}),
                  {{"x", MakeTensor<float>({1, C, H, H}, x)},
                   {"w", Ones({1, C, 3, 3})},
                   {"b", MakeTensor<float>({1}, {0.5f})}});
  const int64_t out = (H + 2 - 3) / stride + 1;
  std::vector<double> expected;
  for (int64_t oh = 0; oh < out; ++oh) {
    for (int64_t ow = 0; ow < out; ++ow) {
      double rows = 0, cols = 0, n_rows = 0, n_cols = 0;
      for (int64_t t = 0; t < 3; ++t) {
        const int64_t ih = oh * stride - 1 + t, iw = ow * stride - 1 + t;
        if (ih >= 0 && ih < H) rows += ih, n_rows += 1;
        if (iw >= 0 && iw < H) cols += iw, n_cols += 1;
      }
      expected.push_back(C * (100 * n_cols * rows + n_rows * cols) + 0.5);
    }
  }
  ExpectTensorNear(ws->GetTensor("y"), {1, 1, out, out}, expected, 1e-3, 1e-6);
}

TEST(Conv, LargeImageSpansSeveralBlocks) {
  CheckBlockedConv(1);  // the one-memcpy-per-tap path
  CheckBlockedConv(2);  // the general path
}

TEST(Conv, RepeatedRunsReuseBuffers) {
  Workspace ws;
  *ws.CreateTensor("x") = MakeTensor<float>({1, 1, 3, 3}, kX9);
  *ws.CreateTensor("w") = Ones({1, 1, 3, 3});
  auto op = CreateOperator(MakeOp("Conv", {"x", "w"}, {"y"}, {{"kernel", 3}, {"pad", 1}}), &ws);
  op->Run();
  const void* first = ws.GetTensor("y").raw_data();
  op->Run();
  EXPECT_EQ(ws.GetTensor("y").raw_data(), first);
  ExpectTensorNear(ws.GetTensor("y"), {1, 1, 3, 3}, {12, 21, 16, 27, 45, 33, 24, 39, 28});
}

TEST(Conv, ShapeInference) {
  auto out = Infer(MakeOp("Conv", {"x", "w", "b"}, {"y"},
                          {{"kernel", 3}, {"stride", 2}, {"pads", Ints{1, 0, 1, 0}}, {"group", 2}}),
                   {Type({2, 4, 7, 8}), Type({6, 2, 3, 3}), Type({6})});
  // H: floor((7 + 2 - 3) / 2) + 1 = 4; W: floor((8 - 3) / 2) + 1 = 3.
  EXPECT_EQ(out[0].dims, (std::vector<int64_t>{2, 6, 4, 3}));
}

// ---- ConvRelu: Conv's inputs, arguments and checks; Y = max(Conv(X, W, b), 0).

TEST(ConvRelu, ClampsConvsNegatives) {
  // W [[1, -1], [-1, 1]] on kX9: every window gives a - b - d + e = 1 - 2 - 4 + 5 = 0 (shifts
  // add equally to a, e and to b, d), so with bias -1 Conv is all -1 and ConvRelu all 0; with
  // W [[1, 2], [3, 4]] + 1 (NoPaddingWithBias) all positive and unchanged.
  auto ws = RunOp(MakeOp("ConvRelu", {"x", "w", "b"}, {"y"}, {{"kernel", 2}}),
                  {{"x", MakeTensor<float>({1, 1, 3, 3}, kX9)},
                   {"w", MakeTensor<float>({1, 1, 2, 2}, {1, -1, -1, 1})},
                   {"b", MakeTensor<float>({1}, {-1})}});
  ExpectTensorNear(ws->GetTensor("y"), {1, 1, 2, 2}, {0, 0, 0, 0});
  ws = RunOp(MakeOp("ConvRelu", {"x", "w", "b"}, {"y"}, {{"kernel", 2}}),
             {{"x", MakeTensor<float>({1, 1, 3, 3}, kX9)},
              {"w", MakeTensor<float>({1, 1, 2, 2}, {1, 2, 3, 4})},
              {"b", MakeTensor<float>({1}, {1})}});
  ExpectTensorNear(ws->GetTensor("y"), {1, 1, 2, 2}, {38, 48, 68, 78});
}

TEST(ConvRelu, GroupsPaddingStrideNoBias) {
  // Two groups, pad 1, stride 2, 3x3 filters: channel 0 sums kX9's neighbourhoods (the corners
  // of PaddingSumsNeighbourhoods: 12 16 24 28), channel 1 is minus that (all clamped to 0).
  std::vector<float> x = kX9;
  x.insert(x.end(), kX9.begin(), kX9.end());
  std::vector<float> w(9, 1.0f);
  w.insert(w.end(), 9, -1.0f);
  auto ws =
      RunOp(MakeOp("ConvRelu", {"x", "w"}, {"y"},
                   {{"kernels", Ints{3, 3}}, {"pad", 1}, {"stride", 2}, {"group", 2}}),
            {{"x", MakeTensor<float>({1, 2, 3, 3}, x)}, {"w", MakeTensor<float>({2, 1, 3, 3}, w)}});
  ExpectTensorNear(ws->GetTensor("y"), {1, 2, 2, 2}, {12, 16, 24, 28, 0, 0, 0, 0});
}

// Y = max(sum over taps + b, 0), summed in double here over random data with dilation and
// asymmetric pads; and the fused op is bit for bit Conv followed by Relu on the production engine.
TEST(ConvRelu, MatchesConvThenReluAndANaiveSum) {
  const int64_t N = 2, C = 3, H = 6, W = 5, M = 4, KH = 2, KW = 3;
  const int64_t pt = 1, pl = 0, pb = 0, pr = 2, dh = 2, dw = 1, sh = 1, sw = 2;
  const int64_t OH = (H + pt + pb - (dh * (KH - 1) + 1)) / sh + 1;
  const int64_t OW = (W + pl + pr - (dw * (KW - 1) + 1)) / sw + 1;
  const Tensor x = RandomTensor({N, C, H, W}, 4), w = RandomTensor({M, C, KH, KW}, 5),
               b = RandomTensor({M}, 6);
  const std::vector<TestArg> args = {
      {"kernel_h", 2},           {"kernel_w", 3}, {"pads", Ints{1, 0, 0, 2}},
      {"dilations", Ints{2, 1}}, {"stride_h", 1}, {"stride_w", 2}};
  const std::map<std::string, Tensor> feeds = {{"x", x}, {"w", w}, {"b", b}};
  auto fused = RunOp(MakeOp("ConvRelu", {"x", "w", "b"}, {"y"}, args), feeds);
  const std::vector<float> xv = Values<float>(x), wv = Values<float>(w), bv = Values<float>(b);
  std::vector<double> expected;
  int negatives = 0;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          double sum = bv[m];
          for (int64_t c = 0; c < C; ++c)
            for (int64_t i = 0; i < KH; ++i)
              for (int64_t j = 0; j < KW; ++j) {
                const int64_t ih = oh * sh - pt + i * dh, iw = ow * sw - pl + j * dw;
                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                sum += double{xv[((n * C + c) * H + ih) * W + iw]} *
                       wv[((m * C + c) * KH + i) * KW + j];
              }
          negatives += sum < 0;
          expected.push_back(std::max(sum, 0.0));
        }
  EXPECT_GT(negatives, 0);
  EXPECT_LT(negatives, static_cast<int>(expected.size()));
  ExpectTensorNear(fused->GetTensor("y"), {N, M, OH, OW}, expected, 1e-5, 1e-5);

  caffe2::NetDef net;
  *net.add_op() = MakeOp("Conv", {"x", "w", "b"}, {"h"}, args);
  *net.add_op() = MakeOp("Relu", {"h"}, {"y"});
  Workspace unfused;
  for (const auto& [name, tensor] : feeds) unfused.CreateTensor(name)->CopyFrom(tensor);
  unfused.RunNetOnce(net);
  EXPECT_EQ(Values<float>(fused->GetTensor("y")), Values<float>(unfused.GetTensor("y")));
}

TEST(ConvRelu, DoubleAndNan) {
  // Pointwise, double: ch0 [1, NaN], ch1 [3, 4]; W rows [1, 1], [-1, -1]: Conv gives [4, NaN],
  // [-4, NaN]; the Relu clamps -4 and keeps the NaNs (as Relu does).
  auto ws = RunOp(
      MakeOp("ConvRelu", {"x", "w"}, {"y"}, {{"kernel", 1}}),
      {{"x", MakeTensor<double>({1, 2, 1, 2}, {1, std::numeric_limits<double>::quiet_NaN(), 3, 4})},
       {"w", MakeTensor<double>({2, 2, 1, 1}, {1, 1, -1, -1})}});
  ASSERT_EQ(ws->GetTensor("y").dtype(), DataType::kDouble);
  const std::vector<double> y = Values<double>(ws->GetTensor("y"));
  ASSERT_EQ(y.size(), 4u);
  EXPECT_EQ(y[0], 4);
  EXPECT_TRUE(std::isnan(y[1]));
  EXPECT_EQ(y[2], 0);
  EXPECT_TRUE(std::isnan(y[3]));
}

TEST(ConvRelu, LargeImageSpansSeveralBlocks) {
  // CheckBlockedConv's image (several im2col row blocks) with a negated filter and bias: Conv is
  // minus a positive sum everywhere, ConvRelu all 0; with the positive filter, unchanged.
  const int64_t C = 64, H = 40;
  Tensor x = RandomTensor({1, C, H, H}, 7, 0.0f, 1.0f);
  std::vector<float> neg(C * 9, -1.0f);
  auto ws = RunOp(MakeOp("ConvRelu", {"x", "w", "b"}, {"y"}, {{"kernel", 3}, {"pad", 1}}),
                  {{"x", x},
                   {"w", MakeTensor<float>({1, C, 3, 3}, neg)},
                   {"b", MakeTensor<float>({1}, {-0.5f})}});
  ExpectTensorNear(ws->GetTensor("y"), {1, 1, H, H}, std::vector<double>(H * H, 0.0));
  auto conv = RunOp(MakeOp("Conv", {"x", "w", "b"}, {"y"}, {{"kernel", 3}, {"pad", 1}}),
                    {{"x", x}, {"w", Ones({1, C, 3, 3})}, {"b", MakeTensor<float>({1}, {0.5f})}});
  auto fused = RunOp(MakeOp("ConvRelu", {"x", "w", "b"}, {"y"}, {{"kernel", 3}, {"pad", 1}}),
                     {{"x", x}, {"w", Ones({1, C, 3, 3})}, {"b", MakeTensor<float>({1}, {0.5f})}});
  EXPECT_EQ(Values<float>(fused->GetTensor("y")), Values<float>(conv->GetTensor("y")));
}

TEST(ConvRelu, ChecksAndShapeInferenceAreConvs) {
  auto out = Infer(MakeOp("ConvRelu", {"x", "w", "b"}, {"y"},
                          {{"kernel", 3}, {"stride", 2}, {"pads", Ints{1, 0, 1, 0}}, {"group", 2}}),
                   {Type({2, 4, 7, 8}), Type({6, 2, 3, 3}), Type({6})});
  EXPECT_EQ(out[0].dims, (std::vector<int64_t>{2, 6, 4, 3}));
  const std::vector<int64_t> x = {1, 1, 3, 3}, w = {1, 1, 2, 2};
  for (const auto& [args, kind, needle] :
       std::vector<std::tuple<std::vector<TestArg>, ErrorKind, std::string>>{
           {{{"kernel", 2}, {"group", 0}}, ErrorKind::kBadArgument, "'group' = 0"},
           {{{"kernel", 2}, {"order", "NHWC"}}, ErrorKind::kBadArgument, "NHWC"},
           {{}, ErrorKind::kBadArgument, "kernel size must be set"},
           {{{"kernel", 3}}, ErrorKind::kShapeMismatch, "kernel 3x3"}}) {
    auto def = MakeOp("ConvRelu", {"x", "w"}, {"y"}, args);
    ExpectError([&] { RunOp(def, {{"x", Ones(x)}, {"w", Ones(w)}}); }, kind, {"ConvRelu", needle});
    ExpectError([&] { Infer(def, {Type(x), Type(w)}); }, kind, {"ConvRelu", needle});
  }
  const OpSchema& conv = OpSchemaRegistry::Get("Conv");
  const OpSchema& fused = OpSchemaRegistry::Get("ConvRelu");
  ASSERT_EQ(fused.args().size(), conv.args().size());
  for (size_t i = 0; i < conv.args().size(); ++i) {
    EXPECT_EQ(fused.args()[i].name, conv.args()[i].name);
  }
  EXPECT_EQ(fused.min_inputs(), 2);
  EXPECT_EQ(fused.max_inputs(), 3);
}

// ---- errors: one per schema check; messages name the op and the shapes or argument.

void ExpectConvError(const std::vector<TestArg>& args, const std::vector<int64_t>& x_dims,
                     const std::vector<int64_t>& w_dims, ErrorKind kind,
                     std::initializer_list<std::string> needles,
                     const std::vector<int64_t>* b_dims = nullptr) {
  std::vector<std::string> inputs = {"x", "w"};
  std::map<std::string, Tensor> feeds = {{"x", Ones(x_dims)}, {"w", Ones(w_dims)}};
  std::vector<TensorType> types = {Type(x_dims), Type(w_dims)};
  if (b_dims != nullptr) {
    inputs.push_back("b");
    feeds["b"] = Ones(*b_dims);
    types.push_back(Type(*b_dims));
  }
  auto def = MakeOp("Conv", inputs, {"y"}, args);
  ExpectError([&] { RunOp(def, feeds); }, kind, needles);
  ExpectError([&] { Infer(def, types); }, kind, needles);  // shape inference agrees
}

TEST(ConvErrors, ChannelsNotDivisibleByGroup) {
  ExpectConvError({{"kernel", 1}, {"group", 2}}, {1, 3, 2, 2}, {2, 1, 1, 1},
                  ErrorKind::kShapeMismatch, {"Conv", "[1, 3, 2, 2]", "group 2"});
}

TEST(ConvErrors, FilterChannelsMismatch) {
  ExpectConvError({{"kernel", 1}}, {1, 2, 2, 2}, {1, 3, 1, 1}, ErrorKind::kShapeMismatch,
                  {"Conv", "[1, 2, 2, 2]", "[1, 3, 1, 1]"});
}

TEST(ConvErrors, OutputChannelsNotDivisibleByGroup) {
  ExpectConvError({{"kernel", 1}, {"group", 2}}, {1, 2, 1, 1}, {3, 1, 1, 1},
                  ErrorKind::kShapeMismatch, {"Conv", "[3, 1, 1, 1]", "group 2"});
}

TEST(ConvErrors, KernelLargerThanPaddedInput) {
  ExpectConvError({{"kernel", 3}}, {1, 1, 2, 2}, {1, 1, 3, 3}, ErrorKind::kShapeMismatch,
                  {"Conv", "[1, 1, 2, 2]", "kernel 3x3"});
  // Dilation counts: 2x2 dilated by 3 spans 4 > 3 + 0.
  ExpectConvError({{"kernel", 2}, {"dilation", 3}}, {1, 1, 3, 3}, {1, 1, 2, 2},
                  ErrorKind::kShapeMismatch, {"Conv", "spans 4"});
}

TEST(ConvErrors, KernelDoesNotMatchFilter) {
  ExpectConvError({{"kernel", 2}}, {1, 1, 3, 3}, {1, 1, 3, 3}, ErrorKind::kShapeMismatch,
                  {"Conv", "kernel 2x2", "[1, 1, 3, 3]"});
}

TEST(ConvErrors, WrongBias) {
  const std::vector<int64_t> b = {2};
  ExpectConvError({{"kernel", 1}}, {1, 1, 2, 2}, {1, 1, 1, 1}, ErrorKind::kShapeMismatch,
                  {"Conv", "bias", "[2]"}, &b);
}

TEST(ConvErrors, InputRank) {
  ExpectConvError({{"kernel", 1}}, {1, 1, 2}, {1, 1, 1, 1}, ErrorKind::kShapeMismatch,
                  {"Conv", "4-D", "[1, 1, 2]"});
  ExpectConvError({{"kernel", 1}}, {1, 1, 2, 2}, {1, 1, 1}, ErrorKind::kShapeMismatch,
                  {"Conv", "filter", "[1, 1, 1]"});
}

TEST(ConvErrors, BadArguments) {
  const std::vector<int64_t> x = {1, 1, 3, 3}, w = {1, 1, 2, 2};
  ExpectConvError({{"kernel", 2}, {"stride", 0}}, x, w, ErrorKind::kBadArgument,
                  {"Conv", "stride 0x0"});
  ExpectConvError({{"kernel", 2}, {"strides", Ints{1, -1}}}, x, w, ErrorKind::kBadArgument,
                  {"Conv", "stride 1x-1"});
  ExpectConvError({{"kernel", 0}}, x, w, ErrorKind::kBadArgument, {"Conv", "kernel 0x0"});
  ExpectConvError({}, x, w, ErrorKind::kBadArgument, {"Conv", "kernel size must be set"});
  ExpectConvError({{"kernel", 2}, {"dilation", -1}}, x, w, ErrorKind::kBadArgument,
                  {"Conv", "dilation"});
  ExpectConvError({{"kernel", 2}, {"pad", -1}}, x, w, ErrorKind::kBadArgument, {"Conv", "pads"});
  ExpectConvError({{"kernel", 2}, {"group", 0}}, x, w, ErrorKind::kBadArgument,
                  {"Conv", "'group' = 0"});
  ExpectConvError({{"kernel", 2}, {"order", "NHWC"}}, x, w, ErrorKind::kBadArgument,
                  {"Conv", "order", "NHWC"});
  ExpectConvError({{"kernel", 2}, {"legacy_pad", 2}}, x, w, ErrorKind::kBadArgument,
                  {"Conv", "legacy_pad"});
  ExpectConvError({{"kernel", 2}, {"kernels", Ints{2, 2}}}, x, w, ErrorKind::kBadArgument,
                  {"Conv", "only one of 'kernel'"});
  ExpectConvError({{"kernel_h", 2}}, x, w, ErrorKind::kBadArgument, {"Conv", "'kernel_w'"});
  ExpectConvError({{"kernels", Ints{2, 2, 2}}}, x, w, ErrorKind::kBadArgument,
                  {"Conv", "'kernels' has 3 values"});
  ExpectConvError({{"kernel", 2}, {"pads", Ints{1, 1}}}, x, w, ErrorKind::kBadArgument,
                  {"Conv", "'pads' has 2 values"});
  ExpectConvError({{"kernel", 2}, {"pad_t", 1}}, x, w, ErrorKind::kBadArgument,
                  {"Conv", "pad_t"});
}

TEST(ConvErrors, Dtypes) {
  ExpectError([] {
    RunOp(MakeOp("Conv", {"x", "w"}, {"y"}, {{"kernel", 1}}),
          {{"x", MakeTensor<int32_t>({1, 1, 1, 1}, {1})}, {"w", MakeTensor<int32_t>({1, 1, 1, 1}, {1})}});
  }, ErrorKind::kShapeMismatch, {"Conv", "int32"});
  ExpectError([] {
    RunOp(MakeOp("Conv", {"x", "w"}, {"y"}, {{"kernel", 1}}),
          {{"x", MakeTensor<float>({1, 1, 1, 1}, {1})}, {"w", MakeTensor<double>({1, 1, 1, 1}, {1})}});
  }, ErrorKind::kShapeMismatch, {"Conv", "W is double"});
}

}  // namespace
}  // namespace parity::testing
