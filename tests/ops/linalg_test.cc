// FC, FCTransposed, FCRelu, MatMul and BatchMatMul against hand-computed values (worked out in
// comments).
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/schema.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

// X [[1, 2, 3], [4, 5, 6]], W [[1, 0, -1], [2, 1, 0]], b [0.5, -1]:
//   Y[0] = [1 - 3 + 0.5, 2 + 2 - 1] = [-1.5, 3];  Y[1] = [4 - 6 + 0.5, 8 + 5 - 1] = [-1.5, 12].
const std::vector<float> kX = {1, 2, 3, 4, 5, 6};
const std::vector<float> kW = {1, 0, -1, 2, 1, 0};
const std::vector<float> kB = {0.5f, -1};
const std::vector<double> kY = {-1.5, 3, -1.5, 12};

std::vector<TensorType> Infer(const caffe2::OperatorDef& def, const std::vector<TensorType>& in) {
  return OpSchemaRegistry::Get(def.type()).InferShapes(def, in);
}
TensorType Type(std::vector<int64_t> dims, DataType dtype = DataType::kFloat) {
  TensorType t;
  t.dtype = dtype;
  t.dims = std::move(dims);
  return t;
}

TEST(FC, Basic) {
  auto ws = RunOp(MakeOp("FC", {"x", "w", "b"}, {"y"}),
                  {{"x", MakeTensor<float>({2, 3}, kX)},
                   {"w", MakeTensor<float>({2, 3}, kW)},
                   {"b", MakeTensor<float>({2}, kB)}});
  ExpectTensorNear(ws->GetTensor("y"), {2, 2}, kY);
}

TEST(FC, Double) {
  auto ws = RunOp(MakeOp("FC", {"x", "w", "b"}, {"y"}),
                  {{"x", MakeTensor<double>({2, 3}, {1, 2, 3, 4, 5, 6})},
                   {"w", MakeTensor<double>({2, 3}, {1, 0, -1, 2, 1, 0})},
                   {"b", MakeTensor<double>({2}, {0.5, -1})}});
  EXPECT_EQ(ws->GetTensor("y").dtype(), DataType::kDouble);
  ExpectTensorNear(ws->GetTensor("y"), {2, 2}, kY, 1e-12, 1e-12);
}

TEST(FC, Axis2) {
  // X [2, 2, 2] = 1..8 at axis 2: rows [1,2] [3,4] [5,6] [7,8]; W [[1,1],[1,-1],[0,2]], b [0,0,1]:
  //   row [a, c] -> [a + c, a - c, 2c + 1]: [3,-1,5] [7,-1,9] [11,-1,13] [15,-1,17]; Y [2, 2, 3].
  auto ws = RunOp(MakeOp("FC", {"x", "w", "b"}, {"y"}, {{"axis", 2}}),
                  {{"x", MakeTensor<float>({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8})},
                   {"w", MakeTensor<float>({3, 2}, {1, 1, 1, -1, 0, 2})},
                   {"b", MakeTensor<float>({3}, {0, 0, 1})}});
  ExpectTensorNear(ws->GetTensor("y"), {2, 2, 3}, {3, -1, 5, 7, -1, 9, 11, -1, 13, 15, -1, 17});
}

TEST(FC, NegativeAxisAndAxisW) {
  // axis -1 on X [2, 1, 3] is axis 2: M = 2, K = 3, Y [2, 1, N]. axis_w 2 on W [1, 2, 3]: N = 2,
  // K = 3. Same numbers as Basic.
  auto ws = RunOp(MakeOp("FC", {"x", "w", "b"}, {"y"}, {{"axis", -1}, {"axis_w", 2}}),
                  {{"x", MakeTensor<float>({2, 1, 3}, kX)},
                   {"w", MakeTensor<float>({1, 2, 3}, kW)},
                   {"b", MakeTensor<float>({2}, kB)}});
  ExpectTensorNear(ws->GetTensor("y"), {2, 1, 2}, kY);
  // With the default axis_w = 1 that W is [N, K] = [1, 6]: K 6 does not match X's 3.
  ExpectError([] {
    RunOp(MakeOp("FC", {"x", "w", "b"}, {"y"}, {{"axis", -1}}),
          {{"x", MakeTensor<float>({2, 1, 3}, kX)}, {"w", MakeTensor<float>({1, 2, 3}, kW)},
           {"b", MakeTensor<float>({1}, {0})}});
  }, ErrorKind::kShapeMismatch, {"FC", "K = 3", "[1, 2, 3]", "K = 6"});
}

TEST(FC, BiasOfShapeN1) {
  // Caffe2 accepts b with dim(0) == N and N elements, e.g. [N, 1].
  auto ws = RunOp(MakeOp("FC", {"x", "w", "b"}, {"y"}),
                  {{"x", MakeTensor<float>({2, 3}, kX)},
                   {"w", MakeTensor<float>({2, 3}, kW)},
                   {"b", MakeTensor<float>({2, 1}, kB)}});
  ExpectTensorNear(ws->GetTensor("y"), {2, 2}, kY);
}

TEST(FCTransposed, WeightIsKByN) {
  // W^T of Basic's: [[1, 2], [0, 1], [-1, 0]].
  auto ws = RunOp(MakeOp("FCTransposed", {"x", "w", "b"}, {"y"}),
                  {{"x", MakeTensor<float>({2, 3}, kX)},
                   {"w", MakeTensor<float>({3, 2}, {1, 2, 0, 1, -1, 0})},
                   {"b", MakeTensor<float>({2}, kB)}});
  ExpectTensorNear(ws->GetTensor("y"), {2, 2}, kY);
}

TEST(FC, EmptyBatchAndEmptyInnerDim) {
  auto ws = RunOp(MakeOp("FC", {"x", "w", "b"}, {"y"}),
                  {{"x", MakeTensor<float>({0, 3}, {})},
                   {"w", MakeTensor<float>({2, 3}, kW)},
                   {"b", MakeTensor<float>({2}, kB)}});
  ExpectTensorNear(ws->GetTensor("y"), {0, 2}, {});
  // K = 0: the product is empty, so Y is the bias in every row.
  ws = RunOp(MakeOp("FC", {"x", "w", "b"}, {"y"}),
             {{"x", MakeTensor<float>({2, 0}, {})},
              {"w", MakeTensor<float>({2, 0}, {})},
              {"b", MakeTensor<float>({2}, kB)}});
  ExpectTensorNear(ws->GetTensor("y"), {2, 2}, {0.5, -1, 0.5, -1});
}

TEST(FC, InnerDimMismatchNamesShapesAndK) {
  auto def = MakeOp("FC", {"x", "w", "b"}, {"y"});
  ExpectError([&] {
    RunOp(def, {{"x", MakeTensor<float>({2, 3}, kX)},
                {"w", MakeTensor<float>({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8})},
                {"b", MakeTensor<float>({2}, kB)}});
  }, ErrorKind::kShapeMismatch, {"FC", "[2, 3]", "[2, 4]", "K = 3", "K = 4"});
  // Shape inference raises the same error.
  ExpectError([&] { Infer(def, {Type({2, 3}), Type({2, 4}), Type({2})}); },
              ErrorKind::kShapeMismatch, {"FC", "[2, 3]", "[2, 4]", "K = 3"});
}

TEST(FC, WrongBiasSize) {
  auto def = MakeOp("FC", {"x", "w", "b"}, {"y"});
  ExpectError([&] {
    RunOp(def, {{"x", MakeTensor<float>({2, 3}, kX)},
                {"w", MakeTensor<float>({2, 3}, kW)},
                {"b", MakeTensor<float>({3}, {1, 2, 3})}});
  }, ErrorKind::kShapeMismatch, {"FC", "bias", "[3]", "N = 2"});
  ExpectError([&] { Infer(def, {Type({2, 3}), Type({2, 3}), Type({3})}); },
              ErrorKind::kShapeMismatch, {"FC", "bias", "[3]"});
}

TEST(FC, AxisOutOfRange) {
  auto def = MakeOp("FC", {"x", "w", "b"}, {"y"}, {{"axis", 2}});
  ExpectError([&] {
    RunOp(def, {{"x", MakeTensor<float>({2, 3}, kX)},
                {"w", MakeTensor<float>({2, 3}, kW)},
                {"b", MakeTensor<float>({2}, kB)}});
  }, ErrorKind::kBadArgument, {"FC", "'axis' = 2", "[2, 3]"});
  ExpectError([&] { Infer(def, {Type({2, 3}), Type({2, 3}), Type({2})}); },
              ErrorKind::kBadArgument, {"FC", "'axis' = 2"});
  ExpectError([&] {
    Infer(MakeOp("FC", {"x", "w", "b"}, {"y"}, {{"axis_w", -3}}),
          {Type({2, 3}), Type({2, 3}), Type({2})});
  }, ErrorKind::kBadArgument, {"FC", "'axis_w' = -3"});
}

TEST(FC, DtypeErrors) {
  ExpectError([] {
    RunOp(MakeOp("FC", {"x", "w", "b"}, {"y"}),
          {{"x", MakeTensor<int32_t>({1, 1}, {1})},
           {"w", MakeTensor<int32_t>({1, 1}, {1})},
           {"b", MakeTensor<int32_t>({1}, {1})}});
  }, ErrorKind::kShapeMismatch, {"FC", "float or double", "int32"});
  ExpectError([] {
    RunOp(MakeOp("FC", {"x", "w", "b"}, {"y"}),
          {{"x", MakeTensor<float>({2, 3}, kX)},
           {"w", MakeTensor<double>({2, 3}, {1, 0, -1, 2, 1, 0})},
           {"b", MakeTensor<float>({2}, kB)}});
  }, ErrorKind::kShapeMismatch, {"FC", "W is double", "X is float"});
}

TEST(FC, ShapeInference) {
  auto out = Infer(MakeOp("FC", {"x", "w", "b"}, {"y"}, {{"axis", 2}}),
                   {Type({2, 2, 2}), Type({3, 2}), Type({3})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].dims, (std::vector<int64_t>{2, 2, 3}));
  EXPECT_EQ(out[0].dtype, DataType::kFloat);
  out = Infer(MakeOp("FCTransposed", {"x", "w", "b"}, {"y"}),
              {Type({4, 3}, DataType::kDouble), Type({3, 5}, DataType::kDouble),
               Type({5}, DataType::kDouble)});
  EXPECT_EQ(out[0].dims, (std::vector<int64_t>{4, 5}));
  EXPECT_EQ(out[0].dtype, DataType::kDouble);
}

TEST(FC, RepeatedRunsReuseTheOutput) {
  Workspace ws;
  *ws.CreateTensor("x") = MakeTensor<float>({2, 3}, kX);
  *ws.CreateTensor("w") = MakeTensor<float>({2, 3}, kW);
  *ws.CreateTensor("b") = MakeTensor<float>({2}, kB);
  auto op = CreateOperator(MakeOp("FC", {"x", "w", "b"}, {"y"}), &ws);
  op->Run();
  const void* first = ws.GetTensor("y").raw_data();
  op->Run();
  EXPECT_EQ(ws.GetTensor("y").raw_data(), first);
  ExpectTensorNear(ws.GetTensor("y"), {2, 2}, kY);
}

// ---- FCRelu: FC's inputs, arguments and checks; Y = max(FC(X, W, b), 0).

TEST(FCRelu, Basic) {
  // FC gives [[-1.5, 3], [-1.5, 12]] (kY); the Relu zeroes the negatives.
  auto ws = RunOp(MakeOp("FCRelu", {"x", "w", "b"}, {"y"}), {{"x", MakeTensor<float>({2, 3}, kX)},
                                                             {"w", MakeTensor<float>({2, 3}, kW)},
                                                             {"b", MakeTensor<float>({2}, kB)}});
  ExpectTensorNear(ws->GetTensor("y"), {2, 2}, {0, 3, 0, 12});
}

TEST(FCRelu, DoubleWithAxes) {
  // Axis2's numbers in double: FC rows [3,-1,5] [7,-1,9] [11,-1,13] [15,-1,17]; column 1 clamps.
  auto ws = RunOp(MakeOp("FCRelu", {"x", "w", "b"}, {"y"}, {{"axis", -1}, {"axis_w", 1}}),
                  {{"x", MakeTensor<double>({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8})},
                   {"w", MakeTensor<double>({3, 2}, {1, 1, 1, -1, 0, 2})},
                   {"b", MakeTensor<double>({3}, {0, 0, 1})}});
  EXPECT_EQ(ws->GetTensor("y").dtype(), DataType::kDouble);
  ExpectTensorNear(ws->GetTensor("y"), {2, 2, 3}, {3, 0, 5, 7, 0, 9, 11, 0, 13, 15, 0, 17}, 1e-12,
                   1e-12);
}

// Y[m, n] = max(sum_k X[m, k] W[n, k] + b[n], 0), summed in double here; and the fused op is bit
// for bit FC followed by Relu on the production engine (the fusion transform must not change a
// value).
TEST(FCRelu, MatchesFcThenReluAndANaiveSum) {
  const int64_t M = 7, K = 13, N = 5;
  const Tensor x = RandomTensor({M, K}, 1), w = RandomTensor({N, K}, 2), b = RandomTensor({N}, 3);
  const std::map<std::string, Tensor> feeds = {{"x", x}, {"w", w}, {"b", b}};
  auto fused = RunOp(MakeOp("FCRelu", {"x", "w", "b"}, {"y"}), feeds);
  const std::vector<float> xs = Values<float>(x), wv = Values<float>(w), bs = Values<float>(b);
  std::vector<double> expected;
  int negatives = 0;
  for (int64_t m = 0; m < M; ++m) {
    for (int64_t n = 0; n < N; ++n) {
      double sum = bs[n];
      for (int64_t k = 0; k < K; ++k) sum += double{xs[m * K + k]} * wv[n * K + k];
      negatives += sum < 0;
      expected.push_back(std::max(sum, 0.0));
    }
  }
  EXPECT_GT(negatives, 0) << "the data should exercise the clamp";
  EXPECT_LT(negatives, M * N) << "the data should exercise the pass-through";
  ExpectTensorNear(fused->GetTensor("y"), {M, N}, expected, 1e-5, 1e-5);

  caffe2::NetDef net;
  *net.add_op() = MakeOp("FC", {"x", "w", "b"}, {"h"});
  *net.add_op() = MakeOp("Relu", {"h"}, {"y"});
  Workspace unfused;
  for (const auto& [name, tensor] : feeds) unfused.CreateTensor(name)->CopyFrom(tensor);
  unfused.RunNetOnce(net);
  EXPECT_EQ(Values<float>(fused->GetTensor("y")), Values<float>(unfused.GetTensor("y")));
}

TEST(FCRelu, NanStaysNan) {
  // Relu(NaN) is NaN, as for Relu: a NaN in X reaches its row of Y.
  std::vector<float> x = kX;
  x[0] = std::numeric_limits<float>::quiet_NaN();
  auto ws = RunOp(MakeOp("FCRelu", {"x", "w", "b"}, {"y"}), {{"x", MakeTensor<float>({2, 3}, x)},
                                                             {"w", MakeTensor<float>({2, 3}, kW)},
                                                             {"b", MakeTensor<float>({2}, kB)}});
  const std::vector<float> y = Values<float>(ws->GetTensor("y"));
  EXPECT_TRUE(std::isnan(y[0]));
  EXPECT_TRUE(std::isnan(y[1]));
  EXPECT_EQ(y[2], 0.0f);
  EXPECT_EQ(y[3], 12.0f);
}

TEST(FCRelu, ChecksAndShapeInferenceAreFcs) {
  auto def = MakeOp("FCRelu", {"x", "w", "b"}, {"y"});
  ExpectError(
      [&] {
        RunOp(def, {{"x", MakeTensor<float>({2, 3}, kX)},
                    {"w", MakeTensor<float>({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8})},
                    {"b", MakeTensor<float>({2}, kB)}});
      },
      ErrorKind::kShapeMismatch, {"FCRelu", "[2, 3]", "[2, 4]", "K = 3", "K = 4"});
  ExpectError(
      [&] {
        Infer(def, {Type({2, 3}), Type({2, 4}), Type({2})});
      },
      ErrorKind::kShapeMismatch, {"FCRelu", "[2, 3]", "[2, 4]", "K = 3"});
  ExpectError(
      [&] {
        Infer(def, {Type({2, 3}), Type({2, 3}), Type({3})});
      },
      ErrorKind::kShapeMismatch, {"FCRelu", "bias", "[3]"});
  ExpectError(
      [&] {
        Infer(MakeOp("FCRelu", {"x", "w", "b"}, {"y"}, {{"axis", 2}}),
              {Type({2, 3}), Type({2, 3}), Type({2})});
      },
      ErrorKind::kBadArgument, {"FCRelu", "'axis' = 2"});
  ExpectError(
      [&] {
        Infer(def, {Type({2, 3}), Type({2, 3}, DataType::kDouble), Type({2})});
      },
      ErrorKind::kShapeMismatch, {"FCRelu", "W is double", "X is float"});
  auto out = Infer(MakeOp("FCRelu", {"x", "w", "b"}, {"y"}, {{"axis", 2}}),
                   {Type({2, 3, 4}), Type({5, 4}), Type({5})});
  EXPECT_EQ(out[0].dims, (std::vector<int64_t>{2, 3, 5}));
  EXPECT_EQ(out[0].dtype, DataType::kFloat);
  const OpSchema& fc = OpSchemaRegistry::Get("FC");
  const OpSchema& fused = OpSchemaRegistry::Get("FCRelu");
  ASSERT_EQ(fused.args().size(), fc.args().size());
  for (size_t i = 0; i < fc.args().size(); ++i) {
    EXPECT_EQ(fused.args()[i].name, fc.args()[i].name);
    EXPECT_EQ(ArgValueString(fused.args()[i].default_value),
              ArgValueString(fc.args()[i].default_value));
  }
  EXPECT_EQ(fused.min_inputs(), 3);
  EXPECT_EQ(fused.max_inputs(), 3);
}

// MatMul: A [[1, 2, 3], [4, 5, 6]] * B [[1, 0], [0, 1], [1, 1]] = [[1 + 3, 2 + 3], [4 + 6, 5 + 6]]
//   = [[4, 5], [10, 11]].
const std::vector<double> kAB = {4, 5, 10, 11};

TEST(MatMul, Basic) {
  auto ws = RunOp(MakeOp("MatMul", {"a", "b"}, {"y"}),
                  {{"a", MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6})},
                   {"b", MakeTensor<float>({3, 2}, {1, 0, 0, 1, 1, 1})}});
  ExpectTensorNear(ws->GetTensor("y"), {2, 2}, kAB);
}

TEST(MatMul, TransposeFlags) {
  const Tensor a_t = MakeTensor<float>({3, 2}, {1, 4, 2, 5, 3, 6});  // A^T
  const Tensor b_t = MakeTensor<float>({2, 3}, {1, 0, 1, 0, 1, 1});  // B^T
  const Tensor a = MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor b = MakeTensor<float>({3, 2}, {1, 0, 0, 1, 1, 1});
  auto ws = RunOp(MakeOp("MatMul", {"a", "b"}, {"y"}, {{"trans_a", 1}}), {{"a", a_t}, {"b", b}});
  ExpectTensorNear(ws->GetTensor("y"), {2, 2}, kAB);
  ws = RunOp(MakeOp("MatMul", {"a", "b"}, {"y"}, {{"trans_b", 1}}), {{"a", a}, {"b", b_t}});
  ExpectTensorNear(ws->GetTensor("y"), {2, 2}, kAB);
  ws = RunOp(MakeOp("MatMul", {"a", "b"}, {"y"}, {{"trans_a", 1}, {"trans_b", 1}}),
             {{"a", a_t}, {"b", b_t}});
  ExpectTensorNear(ws->GetTensor("y"), {2, 2}, kAB);
}

TEST(MatMul, AxesCoerceTo2D) {
  // A [2, 1, 3] at axis_a -1 (= 2) is [2, 3]; B [3, 2, 1] at axis_b 1 is [3, 2].
  auto ws = RunOp(MakeOp("MatMul", {"a", "b"}, {"y"}, {{"axis_a", -1}, {"axis_b", 1}}),
                  {{"a", MakeTensor<float>({2, 1, 3}, {1, 2, 3, 4, 5, 6})},
                   {"b", MakeTensor<float>({3, 2, 1}, {1, 0, 0, 1, 1, 1})}});
  ExpectTensorNear(ws->GetTensor("y"), {2, 2}, kAB);
}

TEST(MatMul, ThirdInputGivesYItsDims) {
  auto ws = RunOp(MakeOp("MatMul", {"a", "b", "like"}, {"y"}),
                  {{"a", MakeTensor<double>({2, 3}, {1, 2, 3, 4, 5, 6})},
                   {"b", MakeTensor<double>({3, 2}, {1, 0, 0, 1, 1, 1})},
                   {"like", MakeTensor<float>({4}, {0, 0, 0, 0})}});
  ExpectTensorNear(ws->GetTensor("y"), {4}, kAB);
}

TEST(MatMul, Errors) {
  auto def = MakeOp("MatMul", {"a", "b"}, {"y"});
  ExpectError([&] {
    RunOp(def, {{"a", MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6})},
                {"b", MakeTensor<float>({2, 2}, {1, 2, 3, 4})}});
  }, ErrorKind::kShapeMismatch, {"MatMul", "[2, 3]", "[2, 2]", "K 3 and 2"});
  ExpectError([&] { Infer(def, {Type({2, 3}), Type({2, 2})}); }, ErrorKind::kShapeMismatch,
              {"MatMul", "[2, 3]", "[2, 2]"});
  ExpectError([] {
    Infer(MakeOp("MatMul", {"a", "b"}, {"y"}, {{"axis_b", 2}}), {Type({2, 3}), Type({3, 2})});
  }, ErrorKind::kBadArgument, {"MatMul", "'axis_b' = 2"});
  ExpectError([] {
    Infer(MakeOp("MatMul", {"a", "b", "c"}, {"y"}), {Type({2, 3}), Type({3, 2}), Type({5})});
  }, ErrorKind::kShapeMismatch, {"MatMul", "[5]"});
  auto out = Infer(def, {Type({2, 3}), Type({3, 7})});
  EXPECT_EQ(out[0].dims, (std::vector<int64_t>{2, 7}));
}

// BatchMatMul. A [2, 2, 2]: A0 = [[1, 2], [3, 4]], A1 = I. B [2, 2, 2]: B0 = [[1, 1], [0, 1]],
// B1 = [[2, 3], [4, 5]]. A0 B0 = [[1, 1 + 2], [3, 3 + 4]] = [[1, 3], [3, 7]]; A1 B1 = B1.
const std::vector<float> kA3 = {1, 2, 3, 4, 1, 0, 0, 1};
const std::vector<float> kB3 = {1, 1, 0, 1, 2, 3, 4, 5};

TEST(BatchMatMul, Batched) {
  auto ws = RunOp(MakeOp("BatchMatMul", {"a", "b"}, {"y"}),
                  {{"a", MakeTensor<float>({2, 2, 2}, kA3)},
                   {"b", MakeTensor<float>({2, 2, 2}, kB3)}});
  ExpectTensorNear(ws->GetTensor("y"), {2, 2, 2}, {1, 3, 3, 7, 2, 3, 4, 5});
}

TEST(BatchMatMul, TransposeFlags) {
  // A0^T = [[1, 3], [2, 4]], A1^T = I; B0^T = [[1, 0], [1, 1]], B1^T = [[2, 4], [3, 5]].
  const Tensor a_t = MakeTensor<float>({2, 2, 2}, {1, 3, 2, 4, 1, 0, 0, 1});
  const Tensor b_t = MakeTensor<float>({2, 2, 2}, {1, 0, 1, 1, 2, 4, 3, 5});
  const std::vector<double> y = {1, 3, 3, 7, 2, 3, 4, 5};
  auto ws = RunOp(MakeOp("BatchMatMul", {"a", "b"}, {"y"}, {{"trans_a", 1}, {"trans_b", 1}}),
                  {{"a", a_t}, {"b", b_t}});
  ExpectTensorNear(ws->GetTensor("y"), {2, 2, 2}, y);
  ws = RunOp(MakeOp("BatchMatMul", {"a", "b"}, {"y"}, {{"trans_b", 1}}),
             {{"a", MakeTensor<float>({2, 2, 2}, kA3)}, {"b", b_t}});
  ExpectTensorNear(ws->GetTensor("y"), {2, 2, 2}, y);
}

TEST(BatchMatMul, BroadcastSharedB) {
  // B [2, 2] = B0 for both batches: A0 B0 = [[1, 3], [3, 7]], A1 B0 = B0.
  auto def = MakeOp("BatchMatMul", {"a", "b"}, {"y"}, {{"broadcast", 1}});
  auto ws = RunOp(def, {{"a", MakeTensor<float>({2, 2, 2}, kA3)},
                        {"b", MakeTensor<float>({2, 2}, {1, 1, 0, 1})}});
  ExpectTensorNear(ws->GetTensor("y"), {2, 2, 2}, {1, 3, 3, 7, 1, 1, 0, 1});
  // Without broadcast=1 the batch dims [2] and [] (padded [1]) must match.
  ExpectError([] {
    RunOp(MakeOp("BatchMatMul", {"a", "b"}, {"y"}),
          {{"a", MakeTensor<float>({2, 2, 2}, kA3)},
           {"b", MakeTensor<float>({2, 2}, {1, 1, 0, 1})}});
  }, ErrorKind::kShapeMismatch, {"BatchMatMul", "[2, 2, 2]", "[2, 2]", "broadcast=1"});
}

TEST(BatchMatMul, BroadcastSharedA) {
  // A [[1, 2], [3, 4]] times B0, B1: [[1, 3], [3, 7]] and [[2 + 8, 3 + 10], [6 + 16, 9 + 20]].
  auto ws = RunOp(MakeOp("BatchMatMul", {"a", "b"}, {"y"}, {{"broadcast", 1}}),
                  {{"a", MakeTensor<float>({2, 2}, {1, 2, 3, 4})},
                   {"b", MakeTensor<float>({2, 2, 2}, kB3)}});
  ExpectTensorNear(ws->GetTensor("y"), {2, 2, 2}, {1, 3, 3, 7, 10, 13, 22, 29});
}

TEST(BatchMatMul, BroadcastBothWays) {
  // A [2, 1, 1, 2]: rows a0 = [1, 2], a1 = [3, 4]; B [1, 3, 2, 1]: columns b0 = [1, 0],
  // b1 = [0, 1], b2 = [1, 1]. Batch dims [2, 1] and [1, 3] broadcast to [2, 3]; Y[i][j] = ai . bj:
  // [1, 2, 3] and [3, 4, 7].
  auto ws = RunOp(MakeOp("BatchMatMul", {"a", "b"}, {"y"}, {{"broadcast", 1}}),
                  {{"a", MakeTensor<float>({2, 1, 1, 2}, {1, 2, 3, 4})},
                   {"b", MakeTensor<float>({1, 3, 2, 1}, {1, 0, 0, 1, 1, 1})}});
  ExpectTensorNear(ws->GetTensor("y"), {2, 3, 1, 1}, {1, 2, 3, 3, 4, 7});
}

TEST(BatchMatMul, RanksDifferButPaddedBatchDimsMatch) {
  // A [2, 2, 2] and B [1, 2, 2, 2]: batch dims [2] and [1, 2] are equal once padded, which newer
  // Caffe2 accepts without broadcast=1. Y [1, 2, 2, 2] = Batched's.
  auto ws = RunOp(MakeOp("BatchMatMul", {"a", "b"}, {"y"}),
                  {{"a", MakeTensor<float>({2, 2, 2}, kA3)},
                   {"b", MakeTensor<float>({1, 2, 2, 2}, kB3)}});
  ExpectTensorNear(ws->GetTensor("y"), {1, 2, 2, 2}, {1, 3, 3, 7, 2, 3, 4, 5});
}

TEST(BatchMatMul, VectorOperands) {
  // Both 1-D: [1, 2, 3] . [4, 5, 6] = 4 + 10 + 18 = 32, as Y [1].
  auto ws = RunOp(MakeOp("BatchMatMul", {"a", "b"}, {"y"}),
                  {{"a", MakeTensor<float>({3}, {1, 2, 3})},
                   {"b", MakeTensor<float>({3}, {4, 5, 6})}});
  ExpectTensorNear(ws->GetTensor("y"), {1}, {32});
  // A [1, 2] as a row times B0, B1: [1, 1 + 2] = [1, 3]; [2 + 8, 3 + 10] = [10, 13]. Y [2, 2].
  ws = RunOp(MakeOp("BatchMatMul", {"a", "b"}, {"y"}),
             {{"a", MakeTensor<float>({2}, {1, 2})}, {"b", MakeTensor<float>({2, 2, 2}, kB3)}});
  ExpectTensorNear(ws->GetTensor("y"), {2, 2}, {1, 3, 10, 13});
  // trans_b: Y[b, p] = B[b, p, :] . a: B0 rows [1, 1] -> 3, [0, 1] -> 2; B1 [2, 3] -> 8,
  // [4, 5] -> 14.
  ws = RunOp(MakeOp("BatchMatMul", {"a", "b"}, {"y"}, {{"trans_b", 1}}),
             {{"a", MakeTensor<float>({2}, {1, 2})}, {"b", MakeTensor<float>({2, 2, 2}, kB3)}});
  ExpectTensorNear(ws->GetTensor("y"), {2, 2}, {3, 2, 8, 14});
  // B [1, 2] as a column: A0 b = [1 + 4, 3 + 8] = [5, 11]; A1 b = [1, 2].
  ws = RunOp(MakeOp("BatchMatMul", {"a", "b"}, {"y"}),
             {{"a", MakeTensor<float>({2, 2, 2}, kA3)}, {"b", MakeTensor<float>({2}, {1, 2})}});
  ExpectTensorNear(ws->GetTensor("y"), {2, 2}, {5, 11, 1, 2});
  // trans_a: Y[b, m] = A[b, :, m] . b: A0 columns [1, 3] -> 7, [2, 4] -> 10; A1 -> [1, 2].
  ws = RunOp(MakeOp("BatchMatMul", {"a", "b"}, {"y"}, {{"trans_a", 1}}),
             {{"a", MakeTensor<float>({2, 2, 2}, kA3)}, {"b", MakeTensor<float>({2}, {1, 2})}});
  ExpectTensorNear(ws->GetTensor("y"), {2, 2}, {7, 10, 1, 2});
}

TEST(BatchMatMul, VectorBWithTransAHasMEntries) {
  // A [1, 2, 3] with trans_a is [1, 3, 2] (M = 3, K = 2): A0 = [[1, 2, 3], [4, 5, 6]] stored, so
  // Y = [1 + 8, 2 + 10, 3 + 12] = [9, 12, 15], dims [1, 3] (Caffe2 would size it [1, 2]).
  auto ws = RunOp(MakeOp("BatchMatMul", {"a", "b"}, {"y"}, {{"trans_a", 1}}),
                  {{"a", MakeTensor<double>({1, 2, 3}, {1, 2, 3, 4, 5, 6})},
                   {"b", MakeTensor<double>({2}, {1, 2})}});
  ExpectTensorNear(ws->GetTensor("y"), {1, 3}, {9, 12, 15});
}

TEST(BatchMatMul, EmptyBatch) {
  auto ws = RunOp(MakeOp("BatchMatMul", {"a", "b"}, {"y"}),
                  {{"a", MakeTensor<float>({0, 2, 3}, {})}, {"b", MakeTensor<float>({0, 3, 4}, {})}});
  ExpectTensorNear(ws->GetTensor("y"), {0, 2, 4}, {});
}

TEST(BatchMatMul, Errors) {
  auto def = MakeOp("BatchMatMul", {"a", "b"}, {"y"}, {{"broadcast", 1}});
  ExpectError([&] {
    RunOp(def, {{"a", MakeTensor<float>({2, 2, 3}, std::vector<float>(12, 1))},
                {"b", MakeTensor<float>({2, 2, 2}, kB3)}});
  }, ErrorKind::kShapeMismatch, {"BatchMatMul", "[2, 2, 3]", "[2, 2, 2]", "K = 3"});
  ExpectError([&] { Infer(def, {Type({2, 2, 2}), Type({3, 2, 2})}); },
              ErrorKind::kShapeMismatch, {"BatchMatMul", "do not broadcast", "2 vs 3"});
  ExpectError([&] { Infer(def, {Type({3}), Type({4})}); }, ErrorKind::kShapeMismatch,
              {"BatchMatMul", "[3]", "[4]"});
  ExpectError([&] { Infer(def, {Type({}), Type({4})}); }, ErrorKind::kShapeMismatch,
              {"BatchMatMul", "rank >= 1"});
  auto out = Infer(def, {Type({5, 1, 2, 3}), Type({4, 3, 7})});
  EXPECT_EQ(out[0].dims, (std::vector<int64_t>{5, 4, 2, 7}));
  out = Infer(MakeOp("BatchMatMul", {"a", "b"}, {"y"}), {Type({3}), Type({3})});
  EXPECT_EQ(out[0].dims, (std::vector<int64_t>{1}));
}

}  // namespace
}  // namespace parity::testing
