// MaxPool and AveragePool against hand-computed values (worked out in comments), and their errors.
#include <limits>

#include "core/schema.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

// X [1, 1, 3, 3] = [[1, 5, 2], [7, 3, 9], [4, 8, 6]].
const std::vector<float> kX = {1, 5, 2, 7, 3, 9, 4, 8, 6};

std::vector<TensorType> Infer(const caffe2::OperatorDef& def, const std::vector<TensorType>& in) {
  return OpSchemaRegistry::Get(def.type()).InferShapes(def, in);
}

std::unique_ptr<Workspace> Pool(const std::string& type, const std::vector<TestArg>& args,
                                const Tensor& x) {
  return RunOp(MakeOp(type, {"x"}, {"y"}, args), {{"x", x}});
}

TEST(MaxPool, Kernel2Stride1) {
  // Windows: {1,5,7,3} -> 7, {5,2,3,9} -> 9, {7,3,4,8} -> 8, {3,9,8,6} -> 9.
  auto ws = Pool("MaxPool", {{"kernel", 2}}, MakeTensor<float>({1, 1, 3, 3}, kX));
  ExpectTensorNear(ws->GetTensor("y"), {1, 1, 2, 2}, {7, 9, 8, 9});
}

TEST(MaxPool, IndicesOutput) {
  // X [1, 2, 3, 3]: plane 0 = [[1, 200, 3], [4, 5, 255], [7, 8, 9]], plane 1 all 7 (ties).
  // kernel 2, stride 1. Plane 0's maxima: 200 at (0, 1) = 1, 255 at (1, 2) = 5, 8 at (2, 1) = 7,
  // 255 again = 5. Plane 1: each window's first element in scan order, (0, 0), (0, 1), (1, 0),
  // (1, 1) = 0, 1, 3, 4, offset by the plane's 9 elements.
  std::vector<float> x = {1, 200, 3, 4, 5, 255, 7, 8, 9};
  x.resize(18, 7.0f);
  auto ws = RunOp(MakeOp("MaxPool", {"x"}, {"y", "i"}, {{"kernel", 2}}),
                  {{"x", MakeTensor<float>({1, 2, 3, 3}, x)}});
  ExpectTensorNear(ws->GetTensor("y"), {1, 2, 2, 2}, {200, 255, 8, 255, 7, 7, 7, 7});
  EXPECT_EQ(ws->GetTensor("i").dtype(), DataType::kInt64);
  EXPECT_EQ(ws->GetTensor("i").dims(), (std::vector<int64_t>{1, 2, 2, 2}));
  EXPECT_EQ(Values<int64_t>(ws->GetTensor("i")),
            (std::vector<int64_t>{1, 5, 7, 5, 9, 10, 12, 13}));
  // Padding is never an index: kernel 2, stride 2, pad 1 over kX puts (0, 0) alone in the first
  // window, and the last window {3, 9, 8, 6} picks 9 at (1, 2) = 5.
  ws = RunOp(MakeOp("MaxPool", {"x"}, {"y", "i"}, {{"kernel", 2}, {"stride", 2}, {"pad", 1}}),
             {{"x", MakeTensor<float>({1, 1, 3, 3}, kX)}});
  EXPECT_EQ(Values<int64_t>(ws->GetTensor("i")), (std::vector<int64_t>{0, 1, 3, 5}));
  const auto out = Infer(MakeOp("MaxPool", {"x"}, {"y", "i"}, {{"kernel", 2}}),
                         {TensorType{DataType::kUint8, {2, 3, 4, 4}}});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].dtype, DataType::kInt64);
  EXPECT_EQ(out[1].dims, (std::vector<int64_t>{2, 3, 3, 3}));
}

TEST(MaxPool, PaddingNeverWins) {
  // kernel 2, stride 2, pad 1: output floor((3 + 2 - 2) / 2) + 1 = 2; window rows {0} then {1, 2},
  // likewise columns: {1} -> 1, {5, 2} -> 5, {7, 4} -> 7, {3, 9, 8, 6} -> 9. All inputs are
  // positive, so a padding zero would not win anyway: use negated inputs to show it is skipped.
  std::vector<float> neg(kX.size());
  for (size_t i = 0; i < kX.size(); ++i) neg[i] = -kX[i];
  auto ws = Pool("MaxPool", {{"kernel", 2}, {"stride", 2}, {"pad", 1}},
                 MakeTensor<float>({1, 1, 3, 3}, neg));
  // Negated windows: {-1} -> -1, {-5, -2} -> -2, {-7, -4} -> -4, {-3, -9, -8, -6} -> -3.
  ExpectTensorNear(ws->GetTensor("y"), {1, 1, 2, 2}, {-1, -2, -4, -3});
}

TEST(MaxPool, InfinityAndDouble) {
  const double inf = std::numeric_limits<double>::infinity();
  auto ws = Pool("MaxPool", {{"kernel_h", 1}, {"kernel_w", 2}},
                 MakeTensor<double>({1, 1, 1, 3}, {-inf, -inf, 2}));
  EXPECT_EQ(ws->GetTensor("y").dtype(), DataType::kDouble);
  ASSERT_EQ(ws->GetTensor("y").dims(), (std::vector<int64_t>{1, 1, 1, 2}));
  EXPECT_EQ(Values<double>(ws->GetTensor("y")), (std::vector<double>{-inf, 2}));
}

TEST(AveragePool, Kernel2Stride1) {
  // {1,5,7,3} / 4 = 4, {5,2,3,9} / 4 = 4.75, {7,3,4,8} / 4 = 5.5, {3,9,8,6} / 4 = 6.5.
  auto ws = Pool("AveragePool", {{"kernel", 2}}, MakeTensor<float>({1, 1, 3, 3}, kX));
  ExpectTensorNear(ws->GetTensor("y"), {1, 1, 2, 2}, {4, 4.75, 5.5, 6.5});
}

TEST(AveragePool, CountIncludePadBothWays) {
  // kernel 2, stride 2, pad 1 (windows as in MaxPool.PaddingNeverWins): {1}, {5, 2}, {7, 4},
  // {3, 9, 8, 6}. Default (count_include_pad 0): 1, 3.5, 5.5, 6.5. With 1: sums / 4:
  // 0.25, 1.75, 2.75, 6.5.
  const Tensor x = MakeTensor<float>({1, 1, 3, 3}, kX);
  auto ws = Pool("AveragePool", {{"kernel", 2}, {"stride", 2}, {"pad", 1}}, x);
  ExpectTensorNear(ws->GetTensor("y"), {1, 1, 2, 2}, {1, 3.5, 5.5, 6.5});
  ws = Pool("AveragePool", {{"kernel", 2}, {"stride", 2}, {"pad", 1}, {"count_include_pad", 0}},
            x);
  ExpectTensorNear(ws->GetTensor("y"), {1, 1, 2, 2}, {1, 3.5, 5.5, 6.5});
  ws = Pool("AveragePool", {{"kernel", 2}, {"stride", 2}, {"pad", 1}, {"count_include_pad", 1}},
            x);
  ExpectTensorNear(ws->GetTensor("y"), {1, 1, 2, 2}, {0.25, 1.75, 2.75, 6.5});
}

TEST(AveragePool, BottomRightPadding) {
  // pads (t, l, b, r) = (0, 0, 1, 1), kernel 2, stride 2: padded 4x4, output 2x2; window rows
  // {0, 1} then {2}, likewise columns: {1,5,7,3} -> 16, {2, 9} -> 11, {4, 8} -> 12, {6} -> 6.
  // Averages over the inputs: 4, 5.5, 6, 6; over the full kernel: 4, 2.75, 3, 1.5.
  const Tensor x = MakeTensor<float>({1, 1, 3, 3}, kX);
  auto ws = Pool("AveragePool", {{"kernel", 2}, {"stride", 2}, {"pads", Ints{0, 0, 1, 1}}}, x);
  ExpectTensorNear(ws->GetTensor("y"), {1, 1, 2, 2}, {4, 5.5, 6, 6});
  ws = Pool("AveragePool",
            {{"kernel", 2}, {"stride_h", 2}, {"stride_w", 2}, {"pad_t", 0}, {"pad_l", 0},
             {"pad_b", 1}, {"pad_r", 1}, {"count_include_pad", 1}},
            x);
  ExpectTensorNear(ws->GetTensor("y"), {1, 1, 2, 2}, {4, 2.75, 3, 1.5});
}

TEST(Pool, GlobalPooling) {
  // X [1, 2, 3, 3]: ch0 = kX (sum 45, max 9), ch1 = zeros but -1 in the middle (max 0, mean -1/9).
  std::vector<float> x = kX;
  for (int i = 0; i < 9; ++i) x.push_back(i == 4 ? -1 : 0);
  const Tensor t = MakeTensor<float>({1, 2, 3, 3}, x);
  auto ws = Pool("MaxPool", {{"global_pooling", 1}}, t);
  ExpectTensorNear(ws->GetTensor("y"), {1, 2, 1, 1}, {9, 0});
  ws = Pool("AveragePool", {{"global_pooling", 1}}, t);
  ExpectTensorNear(ws->GetTensor("y"), {1, 2, 1, 1}, {5, -1.0 / 9});
  // The kernel argument is ignored (Caffe2 overrides it with the image size).
  ws = Pool("AveragePool", {{"global_pooling", 1}, {"kernel", 2}}, t);
  ExpectTensorNear(ws->GetTensor("y"), {1, 2, 1, 1}, {5, -1.0 / 9});
  // densenet121's form: kernel 0, stride 1 and pad 0 given explicitly (valid in Caffe2).
  ws = Pool("AveragePool", {{"global_pooling", 1}, {"kernel", 0}, {"stride", 1}, {"pad", 0}}, t);
  ExpectTensorNear(ws->GetTensor("y"), {1, 2, 1, 1}, {5, -1.0 / 9});
  ws = Pool("MaxPool", {{"global_pooling", 1}, {"kernel", 0}, {"stride", 1}, {"dilation", 1}}, t);
  ExpectTensorNear(ws->GetTensor("y"), {1, 2, 1, 1}, {9, 0});
  // Caffe2 checks every kernel >= 0, global or not.
  ExpectError(
      [&] {
        Pool("AveragePool", {{"global_pooling", 1}, {"kernel", -1}}, t);
      },
      ErrorKind::kBadArgument, {"AveragePool", "kernel -1x-1 must not be negative"});
}

TEST(Pool, BatchAndChannelsAreIndependentPlanes) {
  // X [2, 1, 2, 2]: img0 [1, 2, 3, 4], img1 [8, 6, 7, 5]; kernel 2 -> one window per plane.
  const Tensor x = MakeTensor<double>({2, 1, 2, 2}, {1, 2, 3, 4, 8, 6, 7, 5});
  auto ws = Pool("MaxPool", {{"kernel", 2}}, x);
  ExpectTensorNear(ws->GetTensor("y"), {2, 1, 1, 1}, {4, 8});
  ws = Pool("AveragePool", {{"kernel", 2}}, x);
  ExpectTensorNear(ws->GetTensor("y"), {2, 1, 1, 1}, {2.5, 6.5});
}

TEST(Pool, ShapeInference) {
  auto out = Infer(MakeOp("MaxPool", {"x"}, {"y"}, {{"kernel", 3}, {"stride", 2}, {"pad", 1}}),
                   {TensorType{DataType::kFloat, {2, 3, 8, 7}}});
  // H: floor((8 + 2 - 3) / 2) + 1 = 4; W: floor((7 + 2 - 3) / 2) + 1 = 4.
  EXPECT_EQ(out[0].dims, (std::vector<int64_t>{2, 3, 4, 4}));
  out = Infer(MakeOp("AveragePool", {"x"}, {"y"}, {{"global_pooling", 1}}),
              {TensorType{DataType::kDouble, {2, 3, 8, 7}}});
  EXPECT_EQ(out[0].dims, (std::vector<int64_t>{2, 3, 1, 1}));
  EXPECT_EQ(out[0].dtype, DataType::kDouble);
}

// ---- errors: one per schema check, raised alike by the kernel and by shape inference.

void ExpectPoolError(const std::string& type, const std::vector<TestArg>& args,
                     const std::vector<int64_t>& dims, ErrorKind kind,
                     std::initializer_list<std::string> needles) {
  Tensor x;
  x.Resize(dims);
  float* data = x.mutable_data<float>();
  for (int64_t i = 0; i < x.numel(); ++i) data[i] = 1;
  auto def = MakeOp(type, {"x"}, {"y"}, args);
  ExpectError([&] { RunOp(def, {{"x", x}}); }, kind, needles);
  ExpectError([&] { Infer(def, {TensorType{DataType::kFloat, dims}}); }, kind, needles);
}

TEST(PoolErrors, PadNotSmallerThanKernel) {
  ExpectPoolError("MaxPool", {{"kernel", 2}, {"pad", 2}}, {1, 1, 3, 3}, ErrorKind::kBadArgument,
                  {"MaxPool", "smaller than the kernel 2x2"});
}

// Dilation 2 (ONNX's `dilations`): a kernel 2 window takes every other element. With pad 1 and
// stride 1 the output is 3x3 (5 - 3 + 1); window (oh, ow) takes rows oh - 1, oh + 1 and columns
// ow - 1, ow + 1 that fall in the image:
//   (0, 0) {X[1][1]} = {3}      (0, 1) {X[1][0], X[1][2]} = {7, 9}      (0, 2) {3}
//   (1, 0) {X[0][1], X[2][1]} = {5, 8}   (1, 1) {1, 2, 4, 6}   (1, 2) {5, 8}   (2, *) as (0, *).
TEST(Pool, Dilation) {
  const Tensor x = MakeTensor<float>({1, 1, 3, 3}, kX);
  const std::vector<TestArg> args = {{"kernel", 2}, {"dilation", 2}, {"pad", 1}};
  ExpectTensorNear(Pool("MaxPool", args, x)->GetTensor("y"), {1, 1, 3, 3},
                   {3, 9, 3, 8, 6, 8, 3, 9, 3});
  ExpectTensorNear(Pool("AveragePool", args, x)->GetTensor("y"), {1, 1, 3, 3},
                   {3, 8, 3, 6.5, 3.25, 6.5, 3, 8, 3});
  // count_include_pad: every window divides by the 4 taps of the kernel.
  std::vector<TestArg> include = args;
  include.push_back({"count_include_pad", 1});
  ExpectTensorNear(Pool("AveragePool", include, x)->GetTensor("y"), {1, 1, 3, 3},
                   {0.75, 4, 0.75, 3.25, 3.25, 3.25, 0.75, 4, 0.75});
  // Without pads: one window, the four corners {1, 2, 4, 6}; its gradient goes to the 6 only.
  ExpectTensorNear(Pool("MaxPool", {{"kernel", 2}, {"dilation", 2}}, x)->GetTensor("y"),
                   {1, 1, 1, 1}, {6});
  auto grad = RunOp(MakeOp("MaxPoolGradient", {"x", "y", "dy"}, {"dx"},
                           {{"kernel", 2}, {"dilation", 2}}),
                    {{"x", x},
                     {"y", MakeTensor<float>({1, 1, 1, 1}, {6})},
                     {"dy", MakeTensor<float>({1, 1, 1, 1}, {1})}});
  ExpectTensorNear(grad->GetTensor("dx"), {1, 1, 3, 3}, {0, 0, 0, 0, 0, 0, 0, 0, 1});
}

TEST(PoolErrors, DilatedWindowOfPaddingOnly) {
  // H = W = 1, kernel 2, dilation 2, pad 1: the one window's taps are -1 and 1, both padding.
  ExpectPoolError("AveragePool", {{"kernel", 2}, {"dilation", 2}, {"pad", 1}}, {1, 1, 1, 1},
                  ErrorKind::kBadArgument, {"AveragePool", "covers only padding"});
}

TEST(PoolErrors, GlobalPoolingWithPadsOrStride) {
  ExpectPoolError("MaxPool", {{"global_pooling", 1}, {"pad", 1}}, {1, 1, 3, 3},
                  ErrorKind::kBadArgument, {"MaxPool", "global_pooling"});
  ExpectPoolError("MaxPool", {{"global_pooling", 1}, {"stride", 2}}, {1, 1, 3, 3},
                  ErrorKind::kBadArgument, {"MaxPool", "global_pooling"});
}

TEST(PoolErrors, KernelLargerThanInput) {
  ExpectPoolError("AveragePool", {{"kernel", 4}}, {1, 1, 3, 3}, ErrorKind::kShapeMismatch,
                  {"AveragePool", "kernel 4x4", "[1, 1, 3, 3]"});
}

TEST(PoolErrors, InputRankAndEmptyImage) {
  ExpectPoolError("MaxPool", {{"kernel", 1}}, {1, 3, 3}, ErrorKind::kShapeMismatch,
                  {"MaxPool", "4-D", "[1, 3, 3]"});
  ExpectPoolError("MaxPool", {{"kernel", 1}}, {1, 0, 3, 3}, ErrorKind::kShapeMismatch,
                  {"MaxPool", "[1, 0, 3, 3]"});
}

TEST(PoolErrors, BadArguments) {
  ExpectPoolError("MaxPool", {}, {1, 1, 3, 3}, ErrorKind::kBadArgument,
                  {"MaxPool", "kernel size must be set"});
  ExpectPoolError("MaxPool", {{"kernel", -1}}, {1, 1, 3, 3}, ErrorKind::kBadArgument,
                  {"MaxPool", "kernel -1x-1"});
  ExpectPoolError("AveragePool", {{"kernel", 2}, {"stride", 0}}, {1, 1, 3, 3},
                  ErrorKind::kBadArgument, {"AveragePool", "stride 0x0"});
  ExpectPoolError("AveragePool", {{"kernel", 2}, {"order", "NHWC"}}, {1, 1, 3, 3},
                  ErrorKind::kBadArgument, {"AveragePool", "NHWC"});
}

TEST(PoolErrors, Dtype) {
  ExpectError([] {
    RunOp(MakeOp("MaxPool", {"x"}, {"y"}, {{"kernel", 1}}),
          {{"x", MakeTensor<int64_t>({1, 1, 1, 1}, {1})}});
  }, ErrorKind::kShapeMismatch, {"MaxPool", "int64"});
}

}  // namespace
}  // namespace parity::testing
