// Binary elementwise ops (Add Sub Mul Div Pow, comparisons, logical ops) against hand-computed
// values: broadcasting corners, the legacy broadcast=1 form, in-place use, empty tensors, errors.
#include <limits>

#include "core/schema.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

// [2, 3] = {1, 2, 3, 4, 5, 6}, used throughout.
Tensor A23() { return MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6}); }

TEST(Add, SameShape) {
  auto ws = RunOp(MakeOp("Add", {"a", "b"}, {"c"}),
                  {{"a", MakeTensor<float>({2, 2}, {1, 2, 3, 4})},
                   {"b", MakeTensor<float>({2, 2}, {10, 20, 30, 40})}});
  ExpectTensorNear(ws->GetTensor("c"), {2, 2}, {11, 22, 33, 44});
  EXPECT_EQ(ws->GetTensor("c").dtype(), DataType::kFloat);
}

TEST(Arithmetic, DoubleAndIntegerDtypes) {
  // 7 - 2 = 5, 7 * 2 = 14 in each dtype.
  auto ws = RunOp(MakeOp("Sub", {"a", "b"}, {"c"}),
                  {{"a", MakeTensor<double>({1}, {7})}, {"b", MakeTensor<double>({1}, {2})}});
  EXPECT_EQ(ws->GetTensor("c").dtype(), DataType::kDouble);
  ExpectTensorNear(ws->GetTensor("c"), {1}, {5});
  ws = RunOp(MakeOp("Mul", {"a", "b"}, {"c"}),
             {{"a", MakeTensor<int32_t>({1}, {7})}, {"b", MakeTensor<int32_t>({1}, {2})}});
  EXPECT_EQ(Values<int32_t>(ws->GetTensor("c")), (std::vector<int32_t>{14}));
  ws = RunOp(MakeOp("Add", {"a", "b"}, {"c"}),
             {{"a", MakeTensor<int64_t>({1}, {int64_t{1} << 40})},
              {"b", MakeTensor<int64_t>({1}, {1})}});
  EXPECT_EQ(Values<int64_t>(ws->GetTensor("c")), (std::vector<int64_t>{(int64_t{1} << 40) + 1}));
}

TEST(Arithmetic, IntegerOverflowWraps) {
  // INT32_MAX + 1 wraps to INT32_MIN; INT32_MIN * -1 wraps to INT32_MIN.
  const int32_t kMax = std::numeric_limits<int32_t>::max();
  const int32_t kMin = std::numeric_limits<int32_t>::min();
  auto ws = RunOp(MakeOp("Add", {"a", "b"}, {"c"}),
                  {{"a", MakeTensor<int32_t>({1}, {kMax})}, {"b", MakeTensor<int32_t>({1}, {1})}});
  EXPECT_EQ(Values<int32_t>(ws->GetTensor("c")), (std::vector<int32_t>{kMin}));
  ws = RunOp(MakeOp("Mul", {"a", "b"}, {"c"}),
             {{"a", MakeTensor<int32_t>({1}, {kMin})}, {"b", MakeTensor<int32_t>({1}, {-1})}});
  EXPECT_EQ(Values<int32_t>(ws->GetTensor("c")), (std::vector<int32_t>{kMin}));
}

TEST(Div, IntegerDivisionTruncatesTowardZero) {
  // 7/2 = 3, -7/2 = -3, 7/-2 = -3, -7/-2 = 3; INT_MIN / -1 wraps to INT_MIN.
  const int32_t kMin = std::numeric_limits<int32_t>::min();
  auto ws = RunOp(MakeOp("Div", {"a", "b"}, {"c"}),
                  {{"a", MakeTensor<int32_t>({5}, {7, -7, 7, -7, kMin})},
                   {"b", MakeTensor<int32_t>({5}, {2, 2, -2, -2, -1})}});
  EXPECT_EQ(Values<int32_t>(ws->GetTensor("c")), (std::vector<int32_t>{3, -3, -3, 3, kMin}));
  // Floats divide exactly: 1 / 4 = 0.25, 3 / -2 = -1.5.
  ws = RunOp(MakeOp("Div", {"a", "b"}, {"c"}),
             {{"a", MakeTensor<float>({2}, {1, 3})}, {"b", MakeTensor<float>({2}, {4, -2})}});
  ExpectTensorNear(ws->GetTensor("c"), {2}, {0.25, -1.5});
}

TEST(Div, IntegerDivisionByZeroIsAnError) {
  ExpectError([] {
    RunOp(MakeOp("Div", {"a", "b"}, {"c"}),
          {{"a", MakeTensor<int64_t>({2}, {1, 2})}, {"b", MakeTensor<int64_t>({2}, {1, 0})}});
  }, ErrorKind::kBadArgument, {"Div", "division by zero"});
}

// ---------------------------------------------------------------------------------------------
// numpy broadcasting corners.

TEST(Broadcast, OneElementAgainstMatrixBothWays) {
  // [2, 3] + [1]{10} = every element + 10; [1]{10} - [2, 3] = 10 - each element.
  auto ws = RunOp(MakeOp("Add", {"a", "b"}, {"c"}),
                  {{"a", A23()}, {"b", MakeTensor<float>({1}, {10})}});
  ExpectTensorNear(ws->GetTensor("c"), {2, 3}, {11, 12, 13, 14, 15, 16});
  ws = RunOp(MakeOp("Sub", {"b", "a"}, {"c"}),
             {{"a", A23()}, {"b", MakeTensor<float>({1}, {10})}});
  ExpectTensorNear(ws->GetTensor("c"), {2, 3}, {9, 8, 7, 6, 5, 4});
}

TEST(Broadcast, RankZeroScalar) {
  // A rank-0 tensor holds one element: [2, 3] * 2.
  auto ws = RunOp(MakeOp("Mul", {"a", "s"}, {"c"}),
                  {{"a", A23()}, {"s", MakeTensor<float>({}, {2})}});
  ExpectTensorNear(ws->GetTensor("c"), {2, 3}, {2, 4, 6, 8, 10, 12});
}

TEST(Broadcast, ColumnAgainstRow) {
  // [2, 1]{1, 2} + [1, 3]{10, 20, 30} = [[11, 21, 31], [12, 22, 32]].
  auto ws = RunOp(MakeOp("Add", {"a", "b"}, {"c"}),
                  {{"a", MakeTensor<float>({2, 1}, {1, 2})},
                   {"b", MakeTensor<float>({1, 3}, {10, 20, 30})}});
  ExpectTensorNear(ws->GetTensor("c"), {2, 3}, {11, 21, 31, 12, 22, 32});
}

TEST(Broadcast, RankMismatchAlignsFromTheRight) {
  // [2, 3] - [3]{1, 2, 3}: rows {1,2,3} - {1,2,3} = 0s and {4,5,6} - {1,2,3} = 3s.
  auto ws = RunOp(MakeOp("Sub", {"a", "b"}, {"c"}),
                  {{"a", A23()}, {"b", MakeTensor<float>({3}, {1, 2, 3})}});
  ExpectTensorNear(ws->GetTensor("c"), {2, 3}, {0, 0, 0, 3, 3, 3});
}

TEST(Broadcast, MiddleDimension) {
  // A[i, j, k] = 6i + 2j + k on [2, 3, 2]; B = [3, 1]{100, 200, 300} adds 100 (j + 1).
  std::vector<float> a(12);
  for (int i = 0; i < 12; ++i) a[i] = static_cast<float>(i);
  auto ws = RunOp(MakeOp("Add", {"a", "b"}, {"c"}),
                  {{"a", MakeTensor<float>({2, 3, 2}, a)},
                   {"b", MakeTensor<float>({3, 1}, {100, 200, 300})}});
  ExpectTensorNear(ws->GetTensor("c"), {2, 3, 2},
                   {100, 101, 202, 203, 304, 305, 106, 107, 208, 209, 310, 311});
}

TEST(Broadcast, BothOperandsExpand) {
  // [3, 1, 2] vs [2, 1]: out [3, 2, 2], out[i, j, k] = A[i, 0, k] * B[j, 0].
  // A = {1, 2, 3, 4, 5, 6} as [3, 1, 2]; B = {1, 10}.
  auto ws = RunOp(MakeOp("Mul", {"a", "b"}, {"c"}),
                  {{"a", MakeTensor<float>({3, 1, 2}, {1, 2, 3, 4, 5, 6})},
                   {"b", MakeTensor<float>({2, 1}, {1, 10})}});
  ExpectTensorNear(ws->GetTensor("c"), {3, 2, 2},
                   {1, 2, 10, 20, 3, 4, 30, 40, 5, 6, 50, 60});
}

TEST(Broadcast, EmptyTensors) {
  // [0, 3] + [3] = [0, 3]; [2, 0] + [1] = [2, 0].
  auto ws = RunOp(MakeOp("Add", {"a", "b"}, {"c"}),
                  {{"a", MakeTensor<float>({0, 3}, {})}, {"b", MakeTensor<float>({3}, {1, 2, 3})}});
  EXPECT_EQ(ws->GetTensor("c").dims(), (std::vector<int64_t>{0, 3}));
  ws = RunOp(MakeOp("Add", {"a", "b"}, {"c"}),
             {{"a", MakeTensor<float>({2, 0}, {})}, {"b", MakeTensor<float>({1}, {1})}});
  EXPECT_EQ(ws->GetTensor("c").dims(), (std::vector<int64_t>{2, 0}));
  ws = RunOp(MakeOp("Add", {"a", "b"}, {"c"}),
             {{"a", MakeTensor<float>({0}, {})}, {"b", MakeTensor<float>({0}, {})}});
  EXPECT_EQ(ws->GetTensor("c").numel(), 0);
}

TEST(Broadcast, IncompatibleShapesNameBoth) {
  ExpectError([] {
    RunOp(MakeOp("Add", {"a", "b"}, {"c"}),
          {{"a", A23()}, {"b", MakeTensor<float>({2}, {1, 2})}});
  }, ErrorKind::kShapeMismatch, {"Add", "[2, 3]", "[2]"});
  ExpectError([] {
    RunOp(MakeOp("Mul", {"a", "b"}, {"c"}),
          {{"a", MakeTensor<float>({0}, {})}, {"b", MakeTensor<float>({2}, {1, 2})}});
  }, ErrorKind::kShapeMismatch, {"Mul", "[0]", "[2]"});
}

// ---------------------------------------------------------------------------------------------
// Caffe2's legacy broadcast=1 form.

TEST(LegacyBroadcast, SuffixMatchingByDefault) {
  // broadcast=1, B [3] matches A's last dim: same as numpy here.
  auto ws = RunOp(MakeOp("Add", {"a", "b"}, {"c"}, {{"broadcast", 1}}),
                  {{"a", A23()}, {"b", MakeTensor<float>({3}, {10, 20, 30})}});
  ExpectTensorNear(ws->GetTensor("c"), {2, 3}, {11, 22, 33, 14, 25, 36});
}

TEST(LegacyBroadcast, AxisZeroBroadcastsAlongRows) {
  // B [2]{10, 20} at axis 0 of A [2, 3]: numpy would reject this; row i gets B[i].
  auto ws = RunOp(MakeOp("Add", {"a", "b"}, {"c"}, {{"broadcast", 1}, {"axis", 0}}),
                  {{"a", A23()}, {"b", MakeTensor<float>({2}, {10, 20})}});
  ExpectTensorNear(ws->GetTensor("c"), {2, 3}, {11, 12, 13, 24, 25, 26});
}

TEST(LegacyBroadcast, MiddleAxisAndStrippedOnes) {
  // A[i, j, k] = 6i + 2j + k on [2, 3, 2]; B [3]{100, 200, 300} at axis 1 adds 100 (j + 1).
  std::vector<float> a(12);
  for (int i = 0; i < 12; ++i) a[i] = static_cast<float>(i);
  const std::vector<double> expected = {100, 101, 202, 203, 304, 305,
                                        106, 107, 208, 209, 310, 311};
  auto ws = RunOp(MakeOp("Add", {"a", "b"}, {"c"}, {{"broadcast", 1}, {"axis", 1}}),
                  {{"a", MakeTensor<float>({2, 3, 2}, a)},
                   {"b", MakeTensor<float>({3}, {100, 200, 300})}});
  ExpectTensorNear(ws->GetTensor("c"), {2, 3, 2}, expected);
  // B [1, 3, 1]: leading and trailing 1s are dropped (Caffe2), so it is B [3] at axis 1 again.
  ws = RunOp(MakeOp("Add", {"a", "b"}, {"c"}, {{"broadcast", 1}}),
             {{"a", MakeTensor<float>({2, 3, 2}, a)},
              {"b", MakeTensor<float>({1, 3, 1}, {100, 200, 300})}});
  ExpectTensorNear(ws->GetTensor("c"), {2, 3, 2}, expected);
}

TEST(LegacyBroadcast, AxisStrFromOrder) {
  // A [1, 2, 1, 2] NCHW = {1, 2, 3, 4}; axis_str "C" is axis 1: channel c adds B[c] = 10 (c + 1).
  auto ws = RunOp(MakeOp("Add", {"a", "b"}, {"c"}, {{"broadcast", 1}, {"axis_str", "C"}}),
                  {{"a", MakeTensor<float>({1, 2, 1, 2}, {1, 2, 3, 4})},
                   {"b", MakeTensor<float>({2}, {10, 20})}});
  ExpectTensorNear(ws->GetTensor("c"), {1, 2, 1, 2}, {11, 12, 23, 24});
}

TEST(LegacyBroadcast, NegativeAxis) {
  // axis = -1 is Caffe2's "suffix matching", the default: B [3] on A [2, 3] matches dim 1.
  auto ws = RunOp(MakeOp("Mul", {"a", "b"}, {"c"}, {{"broadcast", 1}, {"axis", -1}}),
                  {{"a", A23()}, {"b", MakeTensor<float>({3}, {1, 0, -1})}});
  ExpectTensorNear(ws->GetTensor("c"), {2, 3}, {1, 0, -3, 4, 0, -6});
  // Any other negative axis is out of range, as in Caffe2.
  ExpectError([] {
    RunOp(MakeOp("Mul", {"a", "b"}, {"c"}, {{"broadcast", 1}, {"axis", -2}}),
          {{"a", A23()}, {"b", MakeTensor<float>({2}, {1, 2})}});
  }, ErrorKind::kBadArgument, {"Mul", "axis", "-2", "[2, 3]", "[2]"});
}

TEST(LegacyBroadcast, OneElementIsAScalarWhateverItsShape) {
  // B [1, 1, 1] has more dims than A [2] but one element: A + 5.
  auto ws = RunOp(MakeOp("Add", {"a", "b"}, {"c"}, {{"broadcast", 1}}),
                  {{"a", MakeTensor<float>({2}, {1, 2})},
                   {"b", MakeTensor<float>({1, 1, 1}, {5})}});
  ExpectTensorNear(ws->GetTensor("c"), {2}, {6, 7});
}

TEST(LegacyBroadcast, Errors) {
  // B [2] does not match A [2, 3]'s last dim.
  ExpectError([] {
    RunOp(MakeOp("Add", {"a", "b"}, {"c"}, {{"broadcast", 1}}),
          {{"a", A23()}, {"b", MakeTensor<float>({2}, {1, 2})}});
  }, ErrorKind::kShapeMismatch, {"Add", "[2, 3]", "[2]"});
  // B of higher rank than A.
  ExpectError([] {
    RunOp(MakeOp("Add", {"a", "b"}, {"c"}, {{"broadcast", 1}}),
          {{"a", MakeTensor<float>({3}, {1, 2, 3})}, {"b", A23()}});
  }, ErrorKind::kShapeMismatch, {"Add", "[3]", "[2, 3]"});
  // axis past A.ndim - B.ndim.
  ExpectError([] {
    RunOp(MakeOp("Add", {"a", "b"}, {"c"}, {{"broadcast", 1}, {"axis", 2}}),
          {{"a", A23()}, {"b", MakeTensor<float>({3}, {1, 2, 3})}});
  }, ErrorKind::kBadArgument, {"Add", "axis", "2"});
  // axis and axis_str together; axis_str not a letter of order.
  ExpectError([] {
    RunOp(MakeOp("Add", {"a", "b"}, {"c"}, {{"broadcast", 1}, {"axis", 1}, {"axis_str", "C"}}),
          {{"a", A23()}, {"b", MakeTensor<float>({3}, {1, 2, 3})}});
  }, ErrorKind::kBadArgument, {"Add", "axis_str"});
  ExpectError([] {
    RunOp(MakeOp("Add", {"a", "b"}, {"c"}, {{"broadcast", 1}, {"axis_str", "X"}}),
          {{"a", A23()}, {"b", MakeTensor<float>({3}, {1, 2, 3})}});
  }, ErrorKind::kBadArgument, {"Add", "axis_str", "X", "NCHW"});
  // With broadcast=1 only input 0 may be overwritten.
  ExpectError([] {
    RunOp(MakeOp("Add", {"a", "b"}, {"b"}, {{"broadcast", 1}}),
          {{"a", A23()}, {"b", MakeTensor<float>({3}, {1, 2, 3})}});
  }, ErrorKind::kBadArgument, {"Add", "in place", "'b'"});
}

TEST(LegacyBroadcast, AxisIgnoredWithoutBroadcast) {
  // As in the newer Caffe2, axis means nothing with broadcast=0: numpy rules apply.
  auto ws = RunOp(MakeOp("Add", {"a", "b"}, {"c"}, {{"axis", 0}}),
                  {{"a", A23()}, {"b", MakeTensor<float>({3}, {1, 1, 1})}});
  ExpectTensorNear(ws->GetTensor("c"), {2, 3}, {2, 3, 4, 5, 6, 7});
}

// ---------------------------------------------------------------------------------------------
// In place, buffer reuse, aliasing.

TEST(InPlace, OverInputZeroWithBroadcastB) {
  Workspace ws;
  *ws.CreateTensor("a") = A23();
  *ws.CreateTensor("b") = MakeTensor<float>({3}, {1, 1, 1});
  caffe2::NetDef net;
  *net.add_op() = MakeOp("Add", {"a", "b"}, {"a"});
  ws.RunNetOnce(net);
  ExpectTensorNear(ws.GetTensor("a"), {2, 3}, {2, 3, 4, 5, 6, 7});
}

TEST(InPlace, OverInputOneWhenShapesMatch) {
  // Sub in place of B: b = a - b = {1 - 10, 2 - 20}.
  Workspace ws;
  *ws.CreateTensor("a") = MakeTensor<float>({2}, {1, 2});
  *ws.CreateTensor("b") = MakeTensor<float>({2}, {10, 20});
  caffe2::NetDef net;
  *net.add_op() = MakeOp("Sub", {"a", "b"}, {"b"});
  ws.RunNetOnce(net);
  ExpectTensorNear(ws.GetTensor("b"), {2}, {-9, -18});
}

TEST(InPlace, BroadcastThatGrowsTheInputIsAnError) {
  // b [3] would become [2, 3]; Caffe2 refuses, and so does parity (kernel and shape inference).
  ExpectError([] {
    RunOp(MakeOp("Add", {"a", "b"}, {"b"}), {{"a", A23()}, {"b", MakeTensor<float>({3}, {1, 2, 3})}});
  }, ErrorKind::kShapeMismatch, {"Add", "in place", "[2, 3]", "[3]"});
  ExpectError([] {
    OpSchemaRegistry::Get("Add").InferShapes(MakeOp("Add", {"a", "b"}, {"b"}),
                                            {{DataType::kFloat, {2, 3}}, {DataType::kFloat, {3}}});
  }, ErrorKind::kShapeMismatch, {"Add", "in place", "[2, 3]", "[3]"});
}

TEST(InPlace, SchemaRules) {
  // Caffe2: Add/Sub/Mul over either input, Div only over A, comparisons never, logical over A.
  const auto& add = OpSchemaRegistry::Get("Add");
  EXPECT_TRUE(add.IsInplaceAllowed(0, 0));
  EXPECT_TRUE(add.IsInplaceAllowed(1, 0));
  EXPECT_FALSE(OpSchemaRegistry::Get("Div").IsInplaceAllowed(1, 0));
  EXPECT_FALSE(OpSchemaRegistry::Get("LT").IsInplaceAllowed(0, 0));
  EXPECT_TRUE(OpSchemaRegistry::Get("And").IsInplaceAllowed(0, 0));
  EXPECT_FALSE(OpSchemaRegistry::Get("And").IsInplaceAllowed(1, 0));
  ExpectError([] {
    RunOp(MakeOp("EQ", {"a", "b"}, {"a"}), {{"a", A23()}, {"b", A23()}});
  }, ErrorKind::kBadArgument, {"EQ", "in place"});
}

TEST(Buffers, RepeatedRunsReuseTheOutputBuffer) {
  Workspace ws;
  *ws.CreateTensor("a") = A23();
  *ws.CreateTensor("b") = MakeTensor<float>({2, 1}, {1, 2});
  caffe2::NetDef net;
  net.set_name("n");
  *net.add_op() = MakeOp("Add", {"a", "b"}, {"c"});
  NetBase* created = ws.CreateNet(net);
  created->Run();
  const void* first = ws.GetTensor("c").raw_data();
  created->Run();
  EXPECT_EQ(ws.GetTensor("c").raw_data(), first);
  // a + b per row: {1,2,3} + 1, {4,5,6} + 2.
  ExpectTensorNear(ws.GetTensor("c"), {2, 3}, {2, 3, 4, 6, 7, 8});
}

TEST(Aliasing, OutputSharingAnInputsBufferIsComputedAside) {
  // x is filled as [2, 3] then refilled as [1, 3] = {1, 1, 1}, keeping its 6-float buffer; y
  // aliases x, so y = x + z (z = [2, 1]{10, 20}, out [2, 3]) writes into the buffer x is read from.
  // Written directly, row 1 would read the updated row 0 (11 + 20 = 31); the answer is 21.
  Workspace ws;
  *ws.CreateTensor("z") = MakeTensor<float>({2, 1}, {10, 20});
  caffe2::NetDef net;
  *net.add_op() = MakeOp("ConstantFill", {}, {"x"}, {{"shape", Ints{2, 3}}, {"value", 0.0f}});
  *net.add_op() = MakeOp("ConstantFill", {}, {"x"}, {{"shape", Ints{1, 3}}, {"value", 1.0f}});
  *net.add_op() = MakeOp("Alias", {"x"}, {"y"});
  *net.add_op() = MakeOp("Add", {"x", "z"}, {"y"});
  ws.RunNetOnce(net);
  ExpectTensorNear(ws.GetTensor("y"), {2, 3}, {11, 11, 11, 21, 21, 21});
}

// ---------------------------------------------------------------------------------------------
// Dtype errors and shape inference.

TEST(Dtypes, MismatchAndUnsupportedNameTheOp) {
  ExpectError([] {
    RunOp(MakeOp("Add", {"a", "b"}, {"c"}),
          {{"a", A23()}, {"b", MakeTensor<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6})}});
  }, ErrorKind::kShapeMismatch, {"Add", "float [2, 3]", "int32 [2, 3]", "same dtype"});
  ExpectError([] {
    RunOp(MakeOp("Mul", {"a", "b"}, {"c"}),
          {{"a", MakeTensor<bool>({1}, {true})}, {"b", MakeTensor<bool>({1}, {true})}});
  }, ErrorKind::kShapeMismatch, {"Mul", "bool [1]", "float, double, int32, int64"});
}

TEST(ShapeInference, MatchesTheKernel) {
  const auto& add = OpSchemaRegistry::Get("Add");
  auto out = add.InferShapes(MakeOp("Add", {"a", "b"}, {"c"}),
                             {{DataType::kFloat, {2, 1, 3}}, {DataType::kFloat, {4, 1}}});
  EXPECT_EQ(out[0].dims, (std::vector<int64_t>{2, 4, 3}));
  EXPECT_EQ(out[0].dtype, DataType::kFloat);
  out = add.InferShapes(MakeOp("Add", {"a", "b"}, {"c"}, {{"broadcast", 1}, {"axis", 0}}),
                        {{DataType::kDouble, {2, 3}}, {DataType::kDouble, {2}}});
  EXPECT_EQ(out[0].dims, (std::vector<int64_t>{2, 3}));
  out = OpSchemaRegistry::Get("GE").InferShapes(
      MakeOp("GE", {"a", "b"}, {"c"}), {{DataType::kInt64, {3}}, {DataType::kInt64, {2, 1}}});
  EXPECT_EQ(out[0].dims, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(out[0].dtype, DataType::kBool);
  ExpectError([&] {
    add.InferShapes(MakeOp("Add", {"a", "b"}, {"c"}),
                    {{DataType::kFloat, {2, 3}}, {DataType::kFloat, {2}}});
  }, ErrorKind::kShapeMismatch, {"Add", "[2, 3]", "[2]"});
  ExpectError([&] {
    add.InferShapes(MakeOp("Add", {"a", "b"}, {"c"}),
                    {{DataType::kFloat, {2}}, {DataType::kInt32, {2}}});
  }, ErrorKind::kShapeMismatch, {"Add", "float [2]", "int32 [2]"});
}

// ---------------------------------------------------------------------------------------------
// Comparisons and logical ops.

TEST(Comparison, AllSixOnFloats) {
  // a = {1, 2, 3}, b = {2, 2, 2}.
  const std::map<std::string, std::vector<bool>> expected = {
      {"LT", {true, false, false}}, {"LE", {true, true, false}}, {"GT", {false, false, true}},
      {"GE", {false, true, true}},  {"EQ", {false, true, false}}, {"NE", {true, false, true}}};
  for (const auto& [type, values] : expected) {
    auto ws = RunOp(MakeOp(type, {"a", "b"}, {"c"}),
                    {{"a", MakeTensor<float>({3}, {1, 2, 3})},
                     {"b", MakeTensor<float>({3}, {2, 2, 2})}});
    EXPECT_EQ(ws->GetTensor("c").dtype(), DataType::kBool) << type;
    EXPECT_EQ(Values<bool>(ws->GetTensor("c")), values) << type;
    EXPECT_FALSE(OpSchemaRegistry::Get(type).differentiable()) << type;
  }
}

TEST(Comparison, BroadcastIntegersAndBools) {
  // [2, 1]{1, 5} < [3]{0, 3, 6} -> [[F, T, T], [F, F, T]].
  auto ws = RunOp(MakeOp("LT", {"a", "b"}, {"c"}),
                  {{"a", MakeTensor<int32_t>({2, 1}, {1, 5})},
                   {"b", MakeTensor<int32_t>({3}, {0, 3, 6})}});
  EXPECT_EQ(ws->GetTensor("c").dims(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(Values<bool>(ws->GetTensor("c")),
            (std::vector<bool>{false, true, true, false, false, true}));
  // bool == bool, and legacy broadcast of a [2] at axis 0 of [2, 2] (int64 GE).
  ws = RunOp(MakeOp("EQ", {"a", "b"}, {"c"}),
             {{"a", MakeTensor<bool>({2}, {true, false})}, {"b", MakeTensor<bool>({1}, {false})}});
  EXPECT_EQ(Values<bool>(ws->GetTensor("c")), (std::vector<bool>{false, true}));
  // a = [[1, 2], [3, 4]] >= b[i] = {2, 3} per row -> [[F, T], [T, T]].
  ws = RunOp(MakeOp("GE", {"a", "b"}, {"c"}, {{"broadcast", 1}, {"axis", 0}}),
             {{"a", MakeTensor<int64_t>({2, 2}, {1, 2, 3, 4})},
              {"b", MakeTensor<int64_t>({2}, {2, 3})}});
  EXPECT_EQ(Values<bool>(ws->GetTensor("c")), (std::vector<bool>{false, true, true, true}));
}

TEST(Comparison, NaNComparesFalseExceptNE) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto ws = RunOp(MakeOp("EQ", {"a", "b"}, {"c"}),
                  {{"a", MakeTensor<float>({1}, {nan})}, {"b", MakeTensor<float>({1}, {nan})}});
  EXPECT_EQ(Values<bool>(ws->GetTensor("c")), (std::vector<bool>{false}));
  ws = RunOp(MakeOp("NE", {"a", "b"}, {"c"}),
             {{"a", MakeTensor<float>({1}, {nan})}, {"b", MakeTensor<float>({1}, {nan})}});
  EXPECT_EQ(Values<bool>(ws->GetTensor("c")), (std::vector<bool>{true}));
}

TEST(Logical, AndOrXorWithBroadcastAndNot) {
  // a = [[T, F], [T, T]], b = [2]{T, F} broadcast over rows.
  const Tensor a = MakeTensor<bool>({2, 2}, {true, false, true, true});
  const Tensor b = MakeTensor<bool>({2}, {true, false});
  auto ws = RunOp(MakeOp("And", {"a", "b"}, {"c"}), {{"a", a}, {"b", b}});
  EXPECT_EQ(Values<bool>(ws->GetTensor("c")), (std::vector<bool>{true, false, true, false}));
  ws = RunOp(MakeOp("Or", {"a", "b"}, {"c"}), {{"a", a}, {"b", b}});
  EXPECT_EQ(Values<bool>(ws->GetTensor("c")), (std::vector<bool>{true, false, true, true}));
  ws = RunOp(MakeOp("Xor", {"a", "b"}, {"a"}), {{"a", a}, {"b", b}});  // in place over a
  EXPECT_EQ(Values<bool>(ws->GetTensor("a")), (std::vector<bool>{false, false, false, true}));
  ws = RunOp(MakeOp("Not", {"a"}, {"c"}), {{"a", a}});
  EXPECT_EQ(Values<bool>(ws->GetTensor("c")), (std::vector<bool>{false, true, false, false}));
}

TEST(Logical, NonBoolInputsAreErrors) {
  ExpectError([] {
    RunOp(MakeOp("And", {"a", "b"}, {"c"}), {{"a", A23()}, {"b", A23()}});
  }, ErrorKind::kShapeMismatch, {"And", "float [2, 3]", "bool"});
  ExpectError([] {
    RunOp(MakeOp("Not", {"a"}, {"c"}), {{"a", A23()}});
  }, ErrorKind::kShapeMismatch, {"Not", "float [2, 3]", "bool"});
}

// ---------------------------------------------------------------------------------------------
// Pow.

TEST(Pow, ExponentArgument) {
  // {1, 2, 3}^2 = {1, 4, 9}; {4, 9}^0.5 = {2, 3}; {2}^-1 = 0.5 (double).
  auto ws = RunOp(MakeOp("Pow", {"x"}, {"y"}, {{"exponent", 2.0f}}),
                  {{"x", MakeTensor<float>({3}, {1, 2, 3})}});
  ExpectTensorNear(ws->GetTensor("y"), {3}, {1, 4, 9});
  ws = RunOp(MakeOp("Pow", {"x"}, {"x"}, {{"exponent", 0.5f}}),
             {{"x", MakeTensor<float>({2}, {4, 9})}});
  ExpectTensorNear(ws->GetTensor("x"), {2}, {2, 3});
  ws = RunOp(MakeOp("Pow", {"x"}, {"y"}, {{"exponent", -1.0f}}),
             {{"x", MakeTensor<double>({1}, {2})}});
  ExpectTensorNear(ws->GetTensor("y"), {1}, {0.5});
}

TEST(Pow, ExponentInputBroadcasts) {
  // [2, 2]{1, 2, 3, 4} ^ [2]{3, 0.5}: {1, sqrt 2, 27, 2}.
  auto ws = RunOp(MakeOp("Pow", {"x", "e"}, {"y"}),
                  {{"x", MakeTensor<float>({2, 2}, {1, 2, 3, 4})},
                   {"e", MakeTensor<float>({2}, {3, 0.5f})}});
  ExpectTensorNear(ws->GetTensor("y"), {2, 2}, {1, 1.41421356, 27, 2});
}

TEST(Pow, Errors) {
  ExpectError([] {
    RunOp(MakeOp("Pow", {"x"}, {"y"}), {{"x", MakeTensor<float>({1}, {2})}});
  }, ErrorKind::kBadArgument, {"Pow", "exponent"});
  ExpectError([] {
    RunOp(MakeOp("Pow", {"x", "e"}, {"y"}, {{"exponent", 2.0f}}),
          {{"x", MakeTensor<float>({1}, {2})}, {"e", MakeTensor<float>({1}, {2})}});
  }, ErrorKind::kBadArgument, {"Pow", "exponent", "not both"});
  ExpectError([] {
    RunOp(MakeOp("Pow", {"x"}, {"y"}, {{"exponent", 2.0f}}), {{"x", MakeTensor<int32_t>({1}, {2})}});
  }, ErrorKind::kShapeMismatch, {"Pow", "int32 [1]", "float, double"});
}

}  // namespace
}  // namespace parity::testing
