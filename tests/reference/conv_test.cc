// Hand-computed values for Conv, ConvRelu, MaxPool, AveragePool (padding, dilation, stride, group).
#include <cmath>

#include "tests/reference/test_util.h"

namespace parity::reference::testing {
namespace {

std::vector<double> Iota(int n) {
  std::vector<double> v;
  for (int k = 1; k <= n; ++k) v.push_back(k);
  return v;
}

// X = [[1,2,3],[4,5,6],[7,8,9]]; a diagonal 2x2 filter sums x(i,j) + x(i+1,j+1).
TEST(Conv, Basic) {
  const Tensors in = {
      {"x", F({1, 1, 3, 3}, Iota(9))}, {"w", F({1, 1, 2, 2}, {1, 0, 0, 1})}, {"b", F({1}, {10})}};
  auto y = RunOp(Op("Conv", {"x", "w"}, {"y"}).I("kernel", 2), in, "y");
  EXPECT_EQ(Dims(y), (std::vector<int64_t>{1, 1, 2, 2}));
  EXPECT_VALUES_NEAR(y, (std::vector<double>{6, 8, 12, 14}), 0);
  // Bias added per output channel.
  EXPECT_VALUES_NEAR(RunOp(Op("Conv", {"x", "w", "b"}, {"y"}).I("kernel", 2), in, "y"),
                     (std::vector<double>{16, 18, 22, 24}), 0);
  // The kernel size is never taken from the filter (Caffe2's ConvPoolOpBase requires it).
  ExpectError([&] { RunOps({Op("Conv", {"x", "w", "b"}, {"y"})}, in); }, ErrorKind::kBadArgument);
  ExpectError(
      [&] {
        RunOps({Op("Conv", {"x", "w"}, {"y"}).I("kernel", 3)}, in);
      },
      ErrorKind::kShapeMismatch);
}

TEST(Conv, Padding) {
  // pad 1 all round: y(i,j) = x(i-1,j-1) + x(i,j) with zeros outside.
  auto y = RunOp(Op("Conv", {"x", "w"}, {"y"}).I("kernel", 2).I("pad", 1),
                 {{"x", F({1, 1, 3, 3}, Iota(9))}, {"w", F({1, 1, 2, 2}, {1, 0, 0, 1})}}, "y");
  EXPECT_EQ(Dims(y), (std::vector<int64_t>{1, 1, 4, 4}));
  EXPECT_VALUES_NEAR(y, (std::vector<double>{1, 2, 3, 0, 4, 6, 8, 3, 7, 12, 14, 6, 0, 7, 8, 9}), 0);
  // Asymmetric pads (t, l, b, r) = (1, 0, 0, 0) on [[1,2],[3,4]] with an all-ones 2x2 filter:
  // windows rows {-1,0} and {0,1}: 1+2 = 3 and 1+2+3+4 = 10.
  auto a = RunOp(Op("Conv", {"x", "w"}, {"y"}).I("kernel", 2).Ints("pads", {1, 0, 0, 0}),
                 {{"x", F({1, 1, 2, 2}, {1, 2, 3, 4})}, {"w", F({1, 1, 2, 2}, {1, 1, 1, 1})}}, "y");
  EXPECT_EQ(Dims(a), (std::vector<int64_t>{1, 1, 2, 1}));
  EXPECT_VALUES_NEAR(a, (std::vector<double>{3, 10}), 0);
  // The same with pad_t.
  auto t = RunOp(Op("Conv", {"x", "w"}, {"y"}).I("kernel", 2).I("pad_t", 1),
                 {{"x", F({1, 1, 2, 2}, {1, 2, 3, 4})}, {"w", F({1, 1, 2, 2}, {1, 1, 1, 1})}}, "y");
  EXPECT_VALUES_NEAR(t, (std::vector<double>{3, 10}), 0);
}

TEST(Conv, DilationStrideGroup) {
  // Dilation 2 turns a 2x2 filter of ones into the four corners: 1 + 3 + 7 + 9 = 20.
  auto d = RunOp(Op("Conv", {"x", "w"}, {"y"}).I("kernel", 2).I("dilation", 2),
                 {{"x", F({1, 1, 3, 3}, Iota(9))}, {"w", F({1, 1, 2, 2}, {1, 1, 1, 1})}}, "y");
  EXPECT_EQ(Dims(d), (std::vector<int64_t>{1, 1, 1, 1}));
  EXPECT_VALUES_NEAR(d, (std::vector<double>{20}), 0);
  // Stride 2 with a 1x1 filter of 2 picks the corners, doubled.
  auto s = RunOp(Op("Conv", {"x", "w"}, {"y"}).I("kernel", 1).I("stride", 2),
                 {{"x", F({1, 1, 3, 3}, Iota(9))}, {"w", F({1, 1, 1, 1}, {2})}}, "y");
  EXPECT_VALUES_NEAR(s, (std::vector<double>{2, 6, 14, 18}), 0);
  // Two groups: each output channel sees only its own input channel.
  const Tensors g = {{"x", F({1, 2, 1, 1}, {3, 5})}, {"w", F({2, 1, 1, 1}, {10, 100})}};
  EXPECT_VALUES_NEAR(RunOp(Op("Conv", {"x", "w"}, {"y"}).I("kernel", 1).I("group", 2), g, "y"),
                     (std::vector<double>{30, 500}), 0);
  ExpectError([&] { RunOps({Op("Conv", {"x", "w"}, {"y"}).I("kernel", 1)}, g); },
              ErrorKind::kShapeMismatch);
  // Two batch items, two input channels, one output channel: sums the channels.
  auto b = RunOp(Op("Conv", {"x", "w"}, {"y"}).I("kernel", 1),
                 {{"x", F({2, 2, 1, 1}, {1, 2, 3, 4})}, {"w", F({1, 2, 1, 1}, {1, 10})}}, "y");
  EXPECT_VALUES_NEAR(b, (std::vector<double>{21, 43}), 0);
}

// ConvRelu: Conv, then negatives clamped. On X = Iota(9) the diagonal 2x2 filter gives
// [6, 8, 12, 14] (Conv.Basic); two output channels, +1 and -1 times it, bias [-10, 20]:
// channel 0: [-4, -2, 2, 4] -> [0, 0, 2, 4]; channel 1: [14, 12, 8, 6].
TEST(Conv, ConvRelu) {
  const Tensors in = {{"x", F({1, 1, 3, 3}, Iota(9))},
                      {"w", F({2, 1, 2, 2}, {1, 0, 0, 1, -1, 0, 0, -1})},
                      {"b", F({2}, {-10, 20})}};
  auto y = RunOp(Op("ConvRelu", {"x", "w", "b"}, {"y"}).I("kernel", 2), in, "y");
  EXPECT_EQ(Dims(y), (std::vector<int64_t>{1, 2, 2, 2}));
  EXPECT_VALUES_NEAR(y, (std::vector<double>{0, 0, 2, 4, 14, 12, 8, 6}), 0);
  // Without a bias: channel 1 is all negative, clamped.
  auto n = RunOp(Op("ConvRelu", {"x", "w"}, {"y"}).Ints("kernels", {2, 2}), in, "y");
  EXPECT_VALUES_NEAR(n, (std::vector<double>{6, 8, 12, 14, 0, 0, 0, 0}), 0);
  // Conv's geometry: pad 1, stride 2, two groups (channel 1 of X negated, filters of ones).
  std::vector<double> x2 = Iota(9);
  for (int k = 1; k <= 9; ++k) x2.push_back(-k);
  auto g = RunOp(
      Op("ConvRelu", {"x", "w"}, {"y"}).I("kernel", 3).I("pad", 1).I("stride", 2).I("group", 2),
      {{"x", F({1, 2, 3, 3}, x2)}, {"w", F({2, 1, 3, 3}, std::vector<double>(18, 1))}}, "y");
  EXPECT_EQ(Dims(g), (std::vector<int64_t>{1, 2, 2, 2}));
  EXPECT_VALUES_NEAR(g, (std::vector<double>{12, 16, 24, 28, 0, 0, 0, 0}), 0);
  // NaN stays NaN.
  auto nan = RunOp(Op("ConvRelu", {"x", "w"}, {"y"}).I("kernel", 1),
                   {{"x", F({1, 1, 1, 2}, {std::nan(""), -1})}, {"w", F({1, 1, 1, 1}, {1})}}, "y");
  const std::vector<double> v = Values(nan);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_TRUE(std::isnan(v[0]));
  EXPECT_EQ(v[1], 0);
  // Conv's checks: the kernel must be given and match the filter.
  ExpectError(
      [&] {
        RunOps({Op("ConvRelu", {"x", "w", "b"}, {"y"})}, in);
      },
      ErrorKind::kBadArgument);
  ExpectError(
      [&] {
        RunOps({Op("ConvRelu", {"x", "w"}, {"y"}).I("kernel", 3)}, in);
      },
      ErrorKind::kShapeMismatch);
}

// X = [[1,5,2],[3,4,6],[7,0,8]].
TEST(Pool, MaxPool) {
  const std::vector<double> x = {1, 5, 2, 3, 4, 6, 7, 0, 8};
  auto y = RunOp(Op("MaxPool", {"x"}, {"y"}).I("kernel", 2), {{"x", F({1, 1, 3, 3}, x)}}, "y");
  EXPECT_VALUES_NEAR(y, (std::vector<double>{5, 6, 7, 8}), 0);
  // Padding is never a candidate: with -X the corner window (only x(0,0) real) stays -1.
  std::vector<double> neg;
  for (double v : x) neg.push_back(-v);
  auto p = RunOp(Op("MaxPool", {"x"}, {"y"}).I("kernel", 2).I("pad", 1).I("stride", 2),
                 {{"x", F({1, 1, 3, 3}, neg)}}, "y");
  EXPECT_EQ(Dims(p), (std::vector<int64_t>{1, 1, 2, 2}));
  EXPECT_VALUES_NEAR(p, (std::vector<double>{-1, -2, -3, 0}), 0);
  // Output 1: the flat index in X of each maximum. Unpadded windows {1,5,3,4} -> 5 at 1,
  // {5,2,4,6} -> 6 at 5, {3,4,7,0} -> 7 at 6, {4,6,0,8} -> 8 at 8; padded, -X's windows pick
  // (0,0) = 0, -2 at (0,2) = 2 over (0,1), -3 at (1,0) = 3 over (2,0), and 0 at (2,1) = 7.
  auto i = RunOps({Op("MaxPool", {"x"}, {"y", "i"}).I("kernel", 2)}, {{"x", F({1, 1, 3, 3}, x)}});
  EXPECT_EQ(i.blobs["i"].data_type(), caffe2::TensorProto::INT64);
  EXPECT_EQ(IntValues(i.blobs["i"]), (std::vector<int64_t>{1, 5, 6, 8}));
  auto pi = RunOps({Op("MaxPool", {"x"}, {"y", "i"}).I("kernel", 2).I("pad", 1).I("stride", 2)},
                   {{"x", F({1, 1, 3, 3}, neg)}});
  EXPECT_EQ(IntValues(pi.blobs["i"]), (std::vector<int64_t>{0, 2, 3, 7}));
  auto g =
      RunOp(Op("MaxPool", {"x"}, {"y"}).I("global_pooling", 1), {{"x", F({1, 1, 3, 3}, x)}}, "y");
  EXPECT_EQ(Dims(g), (std::vector<int64_t>{1, 1, 1, 1}));
  EXPECT_VALUES_NEAR(g, (std::vector<double>{8}), 0);
  ExpectError(
      [&] {
        RunOps({Op("MaxPool", {"x"}, {"y"})}, {{"x", F({1, 1, 3, 3}, x)}});
      },
      ErrorKind::kBadArgument);
  ExpectError(
      [&] {
        RunOps({Op("MaxPool", {"x"}, {"y"}).I("kernel", 4)}, {{"x", F({1, 1, 3, 3}, x)}});
      },
      ErrorKind::kShapeMismatch);
}

TEST(Pool, AveragePoolCountIncludePad) {
  const Tensors in = {{"x", F({1, 1, 3, 3}, {1, 5, 2, 3, 4, 6, 7, 0, 8})}};
  // Windows (pad 1, kernel 2, stride 2): {1}, {5, 2}, {3, 7}, {4, 6, 0, 8}.
  auto a =
      RunOp(Op("AveragePool", {"x"}, {"y"}).I("kernel", 2).I("pad", 1).I("stride", 2), in, "y");
  EXPECT_VALUES_NEAR(a, (std::vector<double>{1, 3.5, 5, 4.5}), 0);
  // Counting the padded taps: every window has 4 taps inside the padded extent.
  auto b = RunOp(Op("AveragePool", {"x"}, {"y"})
                     .I("kernel", 2)
                     .I("pad", 1)
                     .I("stride", 2)
                     .I("count_include_pad", 1),
                 in, "y");
  EXPECT_VALUES_NEAR(b, (std::vector<double>{0.25, 1.75, 2.5, 4.5}), 0);
  auto g = RunOp(Op("AveragePool", {"x"}, {"y"}).I("global_pooling", 1), in, "y");
  EXPECT_VALUES_NEAR(g, (std::vector<double>{4}), 0);
  // Caffe2 takes global_pooling with kernel 0 (any kernel >= 0 is replaced by H x W), stride 1
  // and pad 0 given explicitly: densenet121's last pool.
  g = RunOp(Op("AveragePool", {"x"}, {"y"})
                .I("global_pooling", 1)
                .I("kernel", 0)
                .I("stride", 1)
                .I("pad", 0),
            in, "y");
  EXPECT_VALUES_NEAR(g, (std::vector<double>{4}), 0);
  g = RunOp(Op("MaxPool", {"x"}, {"y"}).I("global_pooling", 1).I("kernel", 2).I("dilation", 1), in,
            "y");
  EXPECT_VALUES_NEAR(g, (std::vector<double>{8}), 0);
  ExpectError(
      [&] { RunOps({Op("AveragePool", {"x"}, {"y"}).I("global_pooling", 1).I("kernel", -1)}, in); },
      ErrorKind::kBadArgument);
  ExpectError(
      [&] { RunOps({Op("AveragePool", {"x"}, {"y"}).I("global_pooling", 1).I("stride", 2)}, in); },
      ErrorKind::kBadArgument);
  ExpectError([&] { RunOps({Op("MaxPool", {"x"}, {"y"}).I("global_pooling", 1).I("pad", 1)}, in); },
              ErrorKind::kBadArgument);
}

// ConvTranspose scatters: each input pixel adds x * W at (input * stride - pad), W [C, M / g, ..].
TEST(ConvTranspose, ScatterStrideAdjGroup) {
  const Tensors in = {{"x", F({1, 1, 2, 2}, {1, 2, 3, 4})},
                      {"w", F({1, 1, 2, 2}, {1, 10, 100, 1000})},
                      {"b", F({1}, {0.5})}};
  // Stride 2: the four stamps side by side.
  auto y = RunOp(Op("ConvTranspose", {"x", "w"}, {"y"}).I("kernel", 2).I("stride", 2), in, "y");
  EXPECT_EQ(Dims(y), (std::vector<int64_t>{1, 1, 4, 4}));
  EXPECT_VALUES_NEAR(y, (std::vector<double>{1, 10, 2, 20, 100, 1000, 200, 2000, 3, 30, 4, 40,
                                             300, 3000, 400, 4000}),
                     0);
  // adj_h 1: a last row only the bias reaches (adj_h goes with adj_w, as kernel_h with kernel_w).
  auto a = RunOp(Op("ConvTranspose", {"x", "w", "b"}, {"y"})
                     .I("kernel", 2)
                     .I("stride", 2)
                     .I("adj_h", 1)
                     .I("adj_w", 0),
                 in, "y");
  EXPECT_EQ(Dims(a), (std::vector<int64_t>{1, 1, 5, 4}));
  EXPECT_VALUES_NEAR(a, (std::vector<double>{1.5, 10.5, 2.5, 20.5, 100.5, 1000.5, 200.5, 2000.5,
                                             3.5, 30.5, 4.5, 40.5, 300.5, 3000.5, 400.5, 4000.5,
                                             0.5, 0.5, 0.5, 0.5}),
                     0);
  ExpectError(
      [&] {
        RunOps({Op("ConvTranspose", {"x", "w"}, {"y"}).I("kernel", 2).I("stride", 2).I("adj", 2)},
               in);
      },
      ErrorKind::kBadArgument);
  // Stride 1, ones: overlapping stamps add; pad 1 keeps the centre only.
  const Tensors ones = {{"x", F({1, 1, 2, 2}, {1, 2, 3, 4})}, {"w", F({1, 1, 2, 2}, {1, 1, 1, 1})}};
  EXPECT_VALUES_NEAR(RunOp(Op("ConvTranspose", {"x", "w"}, {"y"}).I("kernel", 2), ones, "y"),
                     (std::vector<double>{1, 3, 2, 4, 10, 6, 3, 7, 4}), 0);
  EXPECT_VALUES_NEAR(
      RunOp(Op("ConvTranspose", {"x", "w"}, {"y"}).I("kernel", 2).I("pad", 1), ones, "y"),
      (std::vector<double>{10}), 0);
  // Group 2: each channel scales itself; one group: both add into one output channel.
  const Tensors g = {{"x", F({1, 2, 1, 1}, {1, 2})}, {"w", F({2, 1, 1, 1}, {3, 5})}};
  EXPECT_VALUES_NEAR(
      RunOp(Op("ConvTranspose", {"x", "w"}, {"y"}).I("kernel", 1).I("group", 2), g, "y"),
      (std::vector<double>{3, 10}), 0);
  EXPECT_VALUES_NEAR(RunOp(Op("ConvTranspose", {"x", "w"}, {"y"}).I("kernel", 1), g, "y"),
                     (std::vector<double>{13}), 0);
}

}  // namespace
}  // namespace parity::reference::testing
