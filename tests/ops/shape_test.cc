// Shape ops against hand-computed values: Reshape, Transpose, Concat, Split, Flatten,
// FlattenToVec, ExpandDims, Squeeze, Slice, Shape, Gather, Tile.
#include <cmath>
#include <numeric>

#include "core/grad/backward.h"
#include "core/schema.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

// 0, 1, ..., n-1 as floats.
std::vector<float> Iota(int n) {
  std::vector<float> v(n);
  std::iota(v.begin(), v.end(), 0.0f);
  return v;
}

std::vector<TensorType> Infer(const caffe2::OperatorDef& def, const std::vector<TensorType>& in) {
  return OpSchemaRegistry::Get(def.type()).InferShapes(def, in);
}

TensorType Float(std::vector<int64_t> dims) { return {DataType::kFloat, std::move(dims), true}; }

// ---------------------------------------------------------------------------------------------
// Reshape

TEST(Reshape, ZeroCopiesDimAndMinusOneInfers) {
  // [2, 3, 4] with shape {0, -1}: 0 keeps 2, -1 = 24 / 2 = 12.
  auto ws = RunOp(MakeOp("Reshape", {"x"}, {"y", "old"}, {{"shape", Ints{0, -1}}}),
                  {{"x", MakeTensor<float>({2, 3, 4}, Iota(24))}});
  const Tensor& y = ws->GetTensor("y");
  EXPECT_EQ(y.dims(), (Ints{2, 12}));
  EXPECT_EQ(Values<float>(y), Iota(24));
  EXPECT_EQ(ws->GetTensor("old").dtype(), DataType::kInt64);
  EXPECT_EQ(Values<int64_t>(ws->GetTensor("old")), (std::vector<int64_t>{2, 3, 4}));
}

TEST(Reshape, ShapeFromInt32Input) {
  // [2, 3, 4] to {4, -1}: -1 = 24 / 4 = 6.
  auto ws = RunOp(MakeOp("Reshape", {"x", "s"}, {"y"}),
                  {{"x", MakeTensor<float>({2, 3, 4}, Iota(24))},
                   {"s", MakeTensor<int32_t>({2}, {4, -1})}});
  EXPECT_EQ(ws->GetTensor("y").dims(), (Ints{4, 6}));
}

TEST(Reshape, InPlaceKeepsStorage) {
  Workspace ws;
  *ws.CreateTensor("x") = MakeTensor<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6});
  const void* before = ws.GetTensor("x").raw_data();
  caffe2::NetDef net;
  *net.add_op() = MakeOp("Reshape", {"x"}, {"x", "old"}, {{"shape", Ints{3, 2}}});
  ws.RunNetOnce(net);
  EXPECT_EQ(ws.GetTensor("x").dims(), (Ints{3, 2}));
  EXPECT_EQ(ws.GetTensor("x").raw_data(), before);
  EXPECT_EQ(Values<int32_t>(ws.GetTensor("x")), (std::vector<int32_t>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(Values<int64_t>(ws.GetTensor("old")), (std::vector<int64_t>{2, 3}));
}

TEST(Reshape, EmptyTensorInfersZero) {
  // [0, 3] to {-1, 3}: no elements, -1 becomes 0.
  auto ws = RunOp(MakeOp("Reshape", {"x"}, {"y"}, {{"shape", Ints{-1, 3}}}),
                  {{"x", MakeTensor<float>({0, 3}, {})}});
  EXPECT_EQ(ws->GetTensor("y").dims(), (Ints{0, 3}));
}

TEST(Reshape, AllowZeroTakesZeroAsADim) {
  // allowzero=1: [2, 0, 3] (empty) to {3, 0, 2} keeps the 0 as a dim; without it the 0 would copy
  // the input's dim 1, also 0, so take a shape whose 0 sits where the input has a 3.
  auto empty = MakeTensor<float>({2, 0, 3}, {});
  auto ws = RunOp(MakeOp("Reshape", {"x"}, {"y"}, {{"shape", Ints{3, 2, 0}}, {"allowzero", 1}}),
                  {{"x", empty}});
  EXPECT_EQ(ws->GetTensor("y").dims(), (Ints{3, 2, 0}));
  ExpectError([&] { RunOp(MakeOp("Reshape", {"x"}, {"y"}, {{"shape", Ints{3, 2, 0}}}), {{"x", empty}}); },
              ErrorKind::kShapeMismatch, {"Reshape", "[2, 0, 3]", "[3, 2, 0]"});
  // Without a 0 in the shape allowzero changes nothing.
  ws = RunOp(MakeOp("Reshape", {"x"}, {"y"}, {{"shape", Ints{3, 2}}, {"allowzero", 1}}),
             {{"x", MakeTensor<float>({2, 3}, Iota(6))}});
  EXPECT_EQ(ws->GetTensor("y").dims(), (Ints{3, 2}));
  EXPECT_EQ(Values<float>(ws->GetTensor("y")), Iota(6));
  // A 0 that is a dim leaves 6 elements nowhere to go; with a -1 beside it, the -1 is anything.
  auto x = MakeTensor<float>({2, 3}, Iota(6));
  ExpectError([&] {
    RunOp(MakeOp("Reshape", {"x"}, {"y"}, {{"shape", Ints{0, 6}}, {"allowzero", 1}}), {{"x", x}});
  }, ErrorKind::kShapeMismatch, {"Reshape", "[2, 3]", "[0, 6]"});
  ExpectError([&] {
    RunOp(MakeOp("Reshape", {"x"}, {"y"}, {{"shape", Ints{0, -1}}, {"allowzero", 1}}), {{"x", x}});
  }, ErrorKind::kBadArgument, {"Reshape", "both a 0 and a -1"});
}

TEST(Reshape, GradientOfAnEmptyInputHasItsShape) {
  // [1, 0] flattened to [0]: the gradient reshapes dY [0] by old_shape [1, 0], whose 0 is a dim.
  // With Caffe2's copying 0 it asked dY (rank 1) for a dim 1 it lacks (found by the campaign's
  // empty tensors).
  std::vector<caffe2::OperatorDef> forward = {
      MakeOp("Reshape", {"x"}, {"y", "old"}, {{"shape", Ints{-1}}})};
  BackwardPass pass = GetBackwardPass(forward, {{"y", ""}});
  Workspace ws;
  *ws.CreateTensor("x") = MakeTensor<float>({1, 0}, {});
  caffe2::NetDef net;
  for (const auto& op : forward) *net.add_op() = op;
  for (const auto& op : pass.ops) *net.add_op() = op;
  ws.RunNetOnce(net);
  EXPECT_EQ(ws.GetTensor("y").dims(), (Ints{0}));
  EXPECT_EQ(ws.GetTensor(pass.gradient_of.at("x")).dims(), (Ints{1, 0}));
}

TEST(Reshape, Errors) {
  auto x = MakeTensor<float>({2, 3}, Iota(6));
  ExpectError([&] { RunOp(MakeOp("Reshape", {"x"}, {"y"}, {{"shape", Ints{4, 2}}}), {{"x", x}}); },
              ErrorKind::kShapeMismatch, {"Reshape", "[2, 3]", "[4, 2]", "6 elements"});
  ExpectError([&] { RunOp(MakeOp("Reshape", {"x"}, {"y"}, {{"shape", Ints{-1, -1}}}), {{"x", x}}); },
              ErrorKind::kBadArgument, {"Reshape", "more than one -1"});
  ExpectError([&] { RunOp(MakeOp("Reshape", {"x"}, {"y"}, {{"shape", Ints{5, -1}}}), {{"x", x}}); },
              ErrorKind::kShapeMismatch, {"Reshape", "not a multiple"});
  ExpectError([&] { RunOp(MakeOp("Reshape", {"x"}, {"y"}, {{"shape", Ints{1, 0, 0}}}), {{"x", x}}); },
              ErrorKind::kBadArgument, {"Reshape", "position 2"});
  ExpectError([&] {
    RunOp(MakeOp("Reshape", {"x", "s"}, {"y"}, {{"shape", Ints{6}}}),
          {{"x", x}, {"s", MakeTensor<int64_t>({1}, {6})}});
  }, ErrorKind::kBadArgument, {"Reshape", "not both"});
  ExpectError([&] { RunOp(MakeOp("Reshape", {"x"}, {"y"}), {{"x", x}}); },
              ErrorKind::kBadArgument, {"Reshape", "shape"});
}

TEST(Reshape, ShapeInference) {
  auto out = Infer(MakeOp("Reshape", {"x"}, {"y", "old"}, {{"shape", Ints{0, -1}}}),
                   {Float({2, 3, 4})});
  EXPECT_EQ(out[0].dims, (Ints{2, 12}));
  EXPECT_EQ(out[1].dtype, DataType::kInt64);
  EXPECT_EQ(out[1].dims, (Ints{3}));
  auto by_input = Infer(MakeOp("Reshape", {"x", "s"}, {"y"}),
                        {Float({2, 3}), {DataType::kInt64, {2}, true}});
  EXPECT_FALSE(by_input[0].known);
  ExpectError([] { Infer(MakeOp("Reshape", {"x"}, {"y"}, {{"shape", Ints{4, 2}}}), {Float({2, 3})}); },
              ErrorKind::kShapeMismatch, {"Reshape", "[2, 3]"});
}

// ---------------------------------------------------------------------------------------------
// Transpose

TEST(Transpose, DefaultReversesAxes) {
  // [[0, 1, 2], [3, 4, 5]] transposed: [[0, 3], [1, 4], [2, 5]].
  auto ws = RunOp(MakeOp("Transpose", {"x"}, {"y"}), {{"x", MakeTensor<float>({2, 3}, Iota(6))}});
  ExpectTensorNear(ws->GetTensor("y"), {3, 2}, {0, 3, 1, 4, 2, 5});
}

TEST(Transpose, PermutationWithIntDtype) {
  // x [2, 3, 2], x[b, c, a] = 6b + 2c + a; axes {2, 0, 1}: y[a, b, c] = x[b, c, a].
  // a = 0: b = 0 -> 0 2 4, b = 1 -> 6 8 10; a = 1: 1 3 5, 7 9 11.
  std::vector<int32_t> x(12);
  std::iota(x.begin(), x.end(), 0);
  auto ws = RunOp(MakeOp("Transpose", {"x"}, {"y"}, {{"axes", Ints{2, 0, 1}}}),
                  {{"x", MakeTensor<int32_t>({2, 3, 2}, x)}});
  EXPECT_EQ(ws->GetTensor("y").dims(), (Ints{2, 2, 3}));
  EXPECT_EQ(Values<int32_t>(ws->GetTensor("y")),
            (std::vector<int32_t>{0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9, 11}));
}

TEST(Transpose, NegativeAxesAreRefusedAsCaffe2Does) {
  // Caffe2's Transpose takes axes in [0, rank); the reference agrees, so production does too.
  auto x = MakeTensor<int32_t>({2, 3, 2}, std::vector<int32_t>(12, 1));
  ExpectError(
      [&] { RunOp(MakeOp("Transpose", {"x"}, {"y"}, {{"axes", Ints{-1, 0, 1}}}), {{"x", x}}); },
      ErrorKind::kBadArgument, {"negative entry -1", "[0, 3)"});
}

TEST(Transpose, Errors) {
  auto x = MakeTensor<float>({2, 3}, Iota(6));
  ExpectError([&] { RunOp(MakeOp("Transpose", {"x"}, {"y"}, {{"axes", Ints{0, 0}}}), {{"x", x}}); },
              ErrorKind::kBadArgument, {"Transpose", "not a permutation"});
  ExpectError([&] { RunOp(MakeOp("Transpose", {"x"}, {"y"}, {{"axes", Ints{0}}}), {{"x", x}}); },
              ErrorKind::kBadArgument, {"Transpose", "[2, 3]"});
  ExpectError([&] { RunOp(MakeOp("Transpose", {"x"}, {"y"}, {{"axes", Ints{0, 2}}}), {{"x", x}}); },
              ErrorKind::kBadArgument, {"Transpose", "out of range"});
  auto out = Infer(MakeOp("Transpose", {"x"}, {"y"}, {{"axes", Ints{1, 2, 0}}}), {Float({2, 3, 4})});
  EXPECT_EQ(out[0].dims, (Ints{3, 4, 2}));
}

// ---------------------------------------------------------------------------------------------
// Concat

TEST(Concat, AlongAxisWithSplitInfo) {
  // a [[1], [2]] and b [[3, 4], [5, 6]] on axis 1: [[1, 3, 4], [2, 5, 6]].
  auto ws = RunOp(MakeOp("Concat", {"a", "b"}, {"y", "info"}, {{"axis", 1}}),
                  {{"a", MakeTensor<float>({2, 1}, {1, 2})},
                   {"b", MakeTensor<float>({2, 2}, {3, 4, 5, 6})}});
  ExpectTensorNear(ws->GetTensor("y"), {2, 3}, {1, 3, 4, 2, 5, 6});
  EXPECT_EQ(Values<int32_t>(ws->GetTensor("info")), (std::vector<int32_t>{1, 2}));
}

TEST(Concat, DefaultAxisOneNegativeAxisAndOrder) {
  auto a = MakeTensor<float>({1, 1, 1, 1}, {1});
  auto b = MakeTensor<float>({1, 1, 1, 2}, {2, 3});
  // NHWC means axis 3; axis -1 is the same axis here.
  for (const auto& arg : {TestArg("order", "NHWC"), TestArg("axis", -1)}) {
    auto ws = RunOp(MakeOp("Concat", {"a", "b"}, {"y"}, {arg}), {{"a", a}, {"b", b}});
    ExpectTensorNear(ws->GetTensor("y"), {1, 1, 1, 3}, {1, 2, 3});
  }
  // No axis and no order: axis 1.
  auto ws = RunOp(MakeOp("Concat", {"a", "b"}, {"y"}),
                  {{"a", MakeTensor<float>({1, 1}, {7})}, {"b", MakeTensor<float>({1, 2}, {8, 9})}});
  ExpectTensorNear(ws->GetTensor("y"), {1, 3}, {7, 8, 9});
}

TEST(Concat, AddAxisStacks) {
  // [1, 2] and [3, 4] stacked on a new axis 0: [[1, 2], [3, 4]]; on axis 1: [[1, 3], [2, 4]].
  std::map<std::string, Tensor> in{{"a", MakeTensor<int64_t>({2}, {1, 2})},
                                   {"b", MakeTensor<int64_t>({2}, {3, 4})}};
  auto ws = RunOp(MakeOp("Concat", {"a", "b"}, {"y", "info"}, {{"axis", 0}, {"add_axis", 1}}), in);
  EXPECT_EQ(ws->GetTensor("y").dims(), (Ints{2, 2}));
  EXPECT_EQ(Values<int64_t>(ws->GetTensor("y")), (std::vector<int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(Values<int32_t>(ws->GetTensor("info")), (std::vector<int32_t>{1, 1}));
  ws = RunOp(MakeOp("Concat", {"a", "b"}, {"y"}, {{"axis", 1}, {"add_axis", 1}}), in);
  EXPECT_EQ(Values<int64_t>(ws->GetTensor("y")), (std::vector<int64_t>{1, 3, 2, 4}));
}

TEST(Concat, EmptyInput) {
  // A [2, 0] input contributes nothing.
  auto ws = RunOp(MakeOp("Concat", {"a", "b"}, {"y"}, {{"axis", 1}}),
                  {{"a", MakeTensor<float>({2, 0}, {})}, {"b", MakeTensor<float>({2, 1}, {1, 2})}});
  ExpectTensorNear(ws->GetTensor("y"), {2, 1}, {1, 2});
}

TEST(Concat, Errors) {
  auto a = MakeTensor<float>({2, 1}, {1, 2});
  auto b = MakeTensor<float>({3, 1}, {3, 4, 5});
  ExpectError([&] { RunOp(MakeOp("Concat", {"a", "b"}, {"y"}, {{"axis", 1}}), {{"a", a}, {"b", b}}); },
              ErrorKind::kShapeMismatch, {"Concat", "[3, 1]", "[2, 1]"});
  ExpectError([&] {
    RunOp(MakeOp("Concat", {"a", "b"}, {"y"}, {{"axis", 1}}),
          {{"a", a}, {"b", MakeTensor<int32_t>({2, 1}, {1, 2})}});
  }, ErrorKind::kShapeMismatch, {"Concat", "int32"});
  ExpectError([&] {
    RunOp(MakeOp("Concat", {"a", "a"}, {"y"}, {{"axis", 1}, {"order", "NCHW"}}), {{"a", a}});
  }, ErrorKind::kBadArgument, {"Concat", "not both"});
  ExpectError([&] { RunOp(MakeOp("Concat", {"a", "a"}, {"y"}, {{"axis", 2}}), {{"a", a}}); },
              ErrorKind::kBadArgument, {"Concat", "axis 2", "[2, 1]"});
  ExpectError([] {
    Infer(MakeOp("Concat", {"a", "b"}, {"y"}, {{"axis", 1}}), {Float({2, 1}), Float({3, 1})});
  }, ErrorKind::kShapeMismatch, {"Concat", "[3, 1]"});
  auto out = Infer(MakeOp("Concat", {"a", "b"}, {"y", "i"}, {{"axis", 0}}),
                   {Float({2, 3}), Float({1, 3})});
  EXPECT_EQ(out[0].dims, (Ints{3, 3}));
  EXPECT_EQ(out[1].dtype, DataType::kInt32);
}

// ---------------------------------------------------------------------------------------------
// Split

TEST(Split, SizesFromArgument) {
  // [[0, 1, 2], [3, 4, 5]] split {1, 2} on axis 1: [[0], [3]] and [[1, 2], [4, 5]].
  auto ws = RunOp(MakeOp("Split", {"x"}, {"a", "b"}, {{"axis", 1}, {"split", Ints{1, 2}}}),
                  {{"x", MakeTensor<float>({2, 3}, Iota(6))}});
  ExpectTensorNear(ws->GetTensor("a"), {2, 1}, {0, 3});
  ExpectTensorNear(ws->GetTensor("b"), {2, 2}, {1, 2, 4, 5});
}

TEST(Split, EqualPartsAndSizesFromInput) {
  auto ws = RunOp(MakeOp("Split", {"x"}, {"a", "b"}, {{"axis", 0}}),
                  {{"x", MakeTensor<float>({4}, {0, 1, 2, 3})}});
  ExpectTensorNear(ws->GetTensor("a"), {2}, {0, 1});
  ExpectTensorNear(ws->GetTensor("b"), {2}, {2, 3});
  ws = RunOp(MakeOp("Split", {"x", "s"}, {"a", "b"}, {{"axis", -1}}),
             {{"x", MakeTensor<float>({3}, {7, 8, 9})}, {"s", MakeTensor<int32_t>({2}, {2, 1})}});
  ExpectTensorNear(ws->GetTensor("a"), {2}, {7, 8});
  ExpectTensorNear(ws->GetTensor("b"), {1}, {9});
}

TEST(Split, Errors) {
  auto x = MakeTensor<float>({2, 3}, Iota(6));
  ExpectError([&] {
    RunOp(MakeOp("Split", {"x"}, {"a", "b"}, {{"axis", 1}, {"split", Ints{1, 1}}}), {{"x", x}});
  }, ErrorKind::kShapeMismatch, {"Split", "add up to 2", "[2, 3]"});
  ExpectError([&] { RunOp(MakeOp("Split", {"x"}, {"a", "b"}, {{"axis", 1}}), {{"x", x}}); },
              ErrorKind::kShapeMismatch, {"Split", "2 equal parts"});
  ExpectError([&] {
    RunOp(MakeOp("Split", {"x"}, {"a", "b"}, {{"axis", 1}, {"split", Ints{3}}}), {{"x", x}});
  }, ErrorKind::kBadArgument, {"Split", "2 outputs"});
  auto out = Infer(MakeOp("Split", {"x"}, {"a", "b"}, {{"axis", 0}}), {Float({4, 5})});
  EXPECT_EQ(out[1].dims, (Ints{2, 5}));
}

// ---------------------------------------------------------------------------------------------
// Flatten, FlattenToVec, ExpandDims, Squeeze

TEST(Flatten, Axes) {
  auto x = MakeTensor<float>({2, 3, 4}, Iota(24));
  struct Case { TestArg arg; Ints dims; };
  for (const auto& c : {Case{{"axis", 2}, {6, 4}}, Case{{"axis", 1}, {2, 12}},
                        Case{{"axis", 0}, {1, 24}}, Case{{"axis", -1}, {6, 4}},
                        Case{{"axis", 3}, {24, 1}}}) {
    auto ws = RunOp(MakeOp("Flatten", {"x"}, {"y"}, {c.arg}), {{"x", x}});
    EXPECT_EQ(ws->GetTensor("y").dims(), c.dims);
    EXPECT_EQ(Values<float>(ws->GetTensor("y")), Iota(24));
  }
  auto ws = RunOp(MakeOp("Flatten", {"x"}, {"y"}), {{"x", x}});
  EXPECT_EQ(ws->GetTensor("y").dims(), (Ints{2, 12}));
  ExpectError([&] { RunOp(MakeOp("Flatten", {"x"}, {"y"}, {{"axis", 4}}), {{"x", x}}); },
              ErrorKind::kBadArgument, {"Flatten", "axis 4", "[2, 3, 4]"});
}

TEST(FlattenToVec, VectorAndScalarError) {
  auto ws = RunOp(MakeOp("FlattenToVec", {"x"}, {"y"}), {{"x", MakeTensor<float>({2, 2}, Iota(4))}});
  ExpectTensorNear(ws->GetTensor("y"), {4}, {0, 1, 2, 3});
  ExpectError([] { RunOp(MakeOp("FlattenToVec", {"x"}, {"y"}), {{"x", MakeTensor<float>({}, {1})}}); },
              ErrorKind::kShapeMismatch, {"FlattenToVec", "rank"});
}

TEST(ExpandDimsSqueeze, RoundTripAndInPlace) {
  // [2, 3] with dims {3, 0} (sorted to {0, 3}): [1, 2, 3, 1].
  auto ws = RunOp(MakeOp("ExpandDims", {"x"}, {"y"}, {{"dims", Ints{3, 0}}}),
                  {{"x", MakeTensor<float>({2, 3}, Iota(6))}});
  EXPECT_EQ(ws->GetTensor("y").dims(), (Ints{1, 2, 3, 1}));
  Workspace inplace;
  *inplace.CreateTensor("x") = MakeTensor<float>({1, 2, 1, 3}, Iota(6));
  caffe2::NetDef net;
  *net.add_op() = MakeOp("Squeeze", {"x"}, {"x"}, {{"dims", Ints{0, 2}}});
  inplace.RunNetOnce(net);
  ExpectTensorNear(inplace.GetTensor("x"), {2, 3}, {0, 1, 2, 3, 4, 5});
}

TEST(ExpandDimsSqueeze, Errors) {
  auto x = MakeTensor<float>({1, 2}, {1, 2});
  ExpectError([&] { RunOp(MakeOp("Squeeze", {"x"}, {"y"}, {{"dims", Ints{1}}}), {{"x", x}}); },
              ErrorKind::kShapeMismatch, {"Squeeze", "dim 1", "[1, 2]", "size is 2"});
  ExpectError([&] { RunOp(MakeOp("Squeeze", {"x"}, {"y"}, {{"dims", Ints{2}}}), {{"x", x}}); },
              ErrorKind::kBadArgument, {"Squeeze", "out of range", "[1, 2]"});
  ExpectError([&] { RunOp(MakeOp("ExpandDims", {"x"}, {"y"}, {{"dims", Ints{4}}}), {{"x", x}}); },
              ErrorKind::kBadArgument, {"ExpandDims", "rank 3"});
  ExpectError([&] { RunOp(MakeOp("ExpandDims", {"x"}, {"y"}, {{"dims", Ints{-1}}}), {{"x", x}}); },
              ErrorKind::kBadArgument, {"ExpandDims", "non-negative"});
  ExpectError([&] { RunOp(MakeOp("ExpandDims", {"x"}, {"y"}), {{"x", x}}); },
              ErrorKind::kBadArgument, {"ExpandDims", "dims"});
  auto out = Infer(MakeOp("Squeeze", {"x"}, {"y"}, {{"dims", Ints{0}}}), {Float({1, 4})});
  EXPECT_EQ(out[0].dims, (Ints{4}));
}

// ---------------------------------------------------------------------------------------------
// Slice

TEST(Slice, ArgsWithNegativeEnds) {
  // x [3, 4] = 0..11. starts {1, 0}, ends {3, -1}: rows 1..2, every column (-1 = to the end).
  auto x = MakeTensor<float>({3, 4}, Iota(12));
  auto ws = RunOp(MakeOp("Slice", {"x"}, {"y"}, {{"starts", Ints{1, 0}}, {"ends", Ints{3, -1}}}),
                  {{"x", x}});
  ExpectTensorNear(ws->GetTensor("y"), {2, 4}, {4, 5, 6, 7, 8, 9, 10, 11});
  // ends -2 on a dim of 4 is 4 + 1 - 2 = 3: columns [1, 3) of every row.
  ws = RunOp(MakeOp("Slice", {"x"}, {"y"}, {{"starts", Ints{0, 1}}, {"ends", Ints{-1, -2}}}),
             {{"x", x}});
  ExpectTensorNear(ws->GetTensor("y"), {3, 2}, {1, 2, 5, 6, 9, 10});
  // Two axes at once and a shorter starts list (trailing axes kept whole).
  ws = RunOp(MakeOp("Slice", {"x"}, {"y"}, {{"starts", Ints{1, 1}}, {"ends", Ints{2, 3}}}),
             {{"x", x}});
  ExpectTensorNear(ws->GetTensor("y"), {1, 2}, {5, 6});
  ws = RunOp(MakeOp("Slice", {"x"}, {"y"}, {{"starts", Ints{2}}, {"ends", Ints{10}}}), {{"x", x}});
  ExpectTensorNear(ws->GetTensor("y"), {1, 4}, {8, 9, 10, 11});
}

TEST(Slice, IndicesFromInputsAndEmpty) {
  auto ws = RunOp(MakeOp("Slice", {"x", "s", "e"}, {"y"}),
                  {{"x", MakeTensor<int32_t>({5}, {10, 11, 12, 13, 14})},
                   {"s", MakeTensor<int64_t>({1}, {-3})},   // 5 + 1 - 3 = 3
                   {"e", MakeTensor<int64_t>({1}, {-1})}});  // the end
  EXPECT_EQ(Values<int32_t>(ws->GetTensor("y")), (std::vector<int32_t>{13, 14}));
  ws = RunOp(MakeOp("Slice", {"x"}, {"y"}, {{"starts", Ints{0, 1}}, {"ends", Ints{-1, 2}}}),
             {{"x", MakeTensor<float>({0, 3}, {})}});
  EXPECT_EQ(ws->GetTensor("y").dims(), (Ints{0, 1}));
}

TEST(Slice, Errors) {
  auto x = MakeTensor<float>({3, 4}, Iota(12));
  ExpectError([&] {
    RunOp(MakeOp("Slice", {"x"}, {"y"}, {{"starts", Ints{2}}, {"ends", Ints{1}}}), {{"x", x}});
  }, ErrorKind::kBadArgument, {"Slice", "axis 0", "[3, 4]"});
  ExpectError([&] {
    RunOp(MakeOp("Slice", {"x"}, {"y"}, {{"starts", Ints{0, 0}}, {"ends", Ints{1}}}), {{"x", x}});
  }, ErrorKind::kBadArgument, {"Slice", "differ in length"});
  ExpectError([&] {
    RunOp(MakeOp("Slice", {"x"}, {"y"}, {{"starts", Ints{0, 0, 0}}, {"ends", Ints{1, 1, 1}}}),
          {{"x", x}});
  }, ErrorKind::kBadArgument, {"Slice", "[3, 4]"});
  ExpectError([&] {
    RunOp(MakeOp("Slice", {"x"}, {"y"}, {{"starts", Ints{-5}}, {"ends", Ints{1}}}), {{"x", x}});
  }, ErrorKind::kBadArgument, {"Slice", "start -5"});
  auto out = Infer(MakeOp("Slice", {"x"}, {"y"}, {{"starts", Ints{1}}, {"ends", Ints{-1}}}),
                   {Float({3, 4})});
  EXPECT_EQ(out[0].dims, (Ints{2, 4}));
}

// ---------------------------------------------------------------------------------------------
// Shape, Gather, Tile

TEST(Shape, DimsAsInt64) {
  auto x = MakeTensor<bool>({2, 3, 4}, std::vector<bool>(24, true));
  auto ws = RunOp(MakeOp("Shape", {"x"}, {"s"}), {{"x", x}});
  EXPECT_EQ(Values<int64_t>(ws->GetTensor("s")), (std::vector<int64_t>{2, 3, 4}));
  ws = RunOp(MakeOp("Shape", {"x"}, {"s"}, {{"axes", Ints{-1, 0}}}), {{"x", x}});
  EXPECT_EQ(Values<int64_t>(ws->GetTensor("s")), (std::vector<int64_t>{4, 2}));
  EXPECT_FALSE(OpSchemaRegistry::Get("Shape").IsDifferentiable(0));
}

TEST(Gather, RowsByInt32AndInt64Indices) {
  // data [[0, 1], [2, 3], [4, 5]], indices [[2, 0], [1, 2]] -> [[[4, 5], [0, 1]], [[2, 3], [4, 5]]].
  auto data = MakeTensor<float>({3, 2}, Iota(6));
  auto ws = RunOp(MakeOp("Gather", {"d", "i"}, {"y"}),
                  {{"d", data}, {"i", MakeTensor<int32_t>({2, 2}, {2, 0, 1, 2})}});
  ExpectTensorNear(ws->GetTensor("y"), {2, 2, 2}, {4, 5, 0, 1, 2, 3, 4, 5});
  // int64 indices; -1 wraps to row 2 on axis 0 (Caffe2's default there).
  ws = RunOp(MakeOp("Gather", {"d", "i"}, {"y"}),
             {{"d", data}, {"i", MakeTensor<int64_t>({2}, {-1, 1})}});
  ExpectTensorNear(ws->GetTensor("y"), {2, 2}, {4, 5, 2, 3});
  // No indices: [0] + [2].
  ws = RunOp(MakeOp("Gather", {"d", "i"}, {"y"}), {{"d", data}, {"i", MakeTensor<int32_t>({0}, {})}});
  EXPECT_EQ(ws->GetTensor("y").dims(), (Ints{0, 2}));
}

TEST(Gather, OtherAxis) {
  // data [[0, 1, 2], [3, 4, 5]], axis 1, indices [2, 0] -> [[2, 0], [5, 3]].
  auto data = MakeTensor<float>({2, 3}, Iota(6));
  auto ws = RunOp(MakeOp("Gather", {"d", "i"}, {"y"}, {{"axis", 1}}),
                  {{"d", data}, {"i", MakeTensor<int32_t>({2}, {2, 0})}});
  ExpectTensorNear(ws->GetTensor("y"), {2, 2}, {2, 0, 5, 3});
  // No wrapping off axis 0 unless asked.
  ExpectError([&] {
    RunOp(MakeOp("Gather", {"d", "i"}, {"y"}, {{"axis", 1}}),
          {{"d", data}, {"i", MakeTensor<int32_t>({1}, {-1})}});
  }, ErrorKind::kBadArgument, {"Gather", "index -1"});
  ws = RunOp(MakeOp("Gather", {"d", "i"}, {"y"}, {{"axis", 1}, {"wrap_indices", 1}}),
             {{"d", data}, {"i", MakeTensor<int32_t>({1}, {-1})}});
  ExpectTensorNear(ws->GetTensor("y"), {2, 1}, {2, 5});
}

TEST(Gather, Errors) {
  auto data = MakeTensor<float>({3, 2}, Iota(6));
  ExpectError([&] {
    RunOp(MakeOp("Gather", {"d", "i"}, {"y"}), {{"d", data}, {"i", MakeTensor<int32_t>({2}, {0, 3})}});
  }, ErrorKind::kBadArgument, {"Gather", "index 3", "position 1", ", 3)", "[3, 2]"});
  ExpectError([&] {
    RunOp(MakeOp("Gather", {"d", "i"}, {"y"}), {{"d", data}, {"i", MakeTensor<int64_t>({1}, {-4})}});
  }, ErrorKind::kBadArgument, {"Gather", "index -4"});
  ExpectError([&] {
    RunOp(MakeOp("Gather", {"d", "i"}, {"y"}), {{"d", data}, {"i", MakeTensor<float>({1}, {0})}});
  }, ErrorKind::kShapeMismatch, {"Gather", "int32 or int64"});
  auto out = Infer(MakeOp("Gather", {"d", "i"}, {"y"}),
                   {Float({5, 3}), {DataType::kInt64, {2, 4}, true}});
  EXPECT_EQ(out[0].dims, (Ints{2, 4, 3}));
}

TEST(Tile, ArgsAndInputs) {
  // [[1, 2], [3, 4]] tiled twice on axis 1: [[1, 2, 1, 2], [3, 4, 3, 4]]; on axis 0: stacked.
  auto x = MakeTensor<float>({2, 2}, {1, 2, 3, 4});
  auto ws = RunOp(MakeOp("Tile", {"x"}, {"y"}, {{"tiles", 2}, {"axis", 1}}), {{"x", x}});
  ExpectTensorNear(ws->GetTensor("y"), {2, 4}, {1, 2, 1, 2, 3, 4, 3, 4});
  ws = RunOp(MakeOp("Tile", {"x"}, {"y"}, {{"tiles", 2}, {"axis", -2}}), {{"x", x}});
  ExpectTensorNear(ws->GetTensor("y"), {4, 2}, {1, 2, 3, 4, 1, 2, 3, 4});
  ws = RunOp(MakeOp("Tile", {"x", "t", "a"}, {"y"}),
             {{"x", MakeTensor<bool>({2}, {true, false})},
              {"t", MakeTensor<int32_t>({1}, {3})},
              {"a", MakeTensor<int64_t>({1}, {0})}});
  EXPECT_EQ(Values<bool>(ws->GetTensor("y")),
            (std::vector<bool>{true, false, true, false, true, false}));
  ExpectError([&] { RunOp(MakeOp("Tile", {"x"}, {"y"}, {{"tiles", 2}}), {{"x", x}}); },
              ErrorKind::kBadArgument, {"Tile", "axis"});
  ExpectError([&] { RunOp(MakeOp("Tile", {"x"}, {"y"}, {{"tiles", -1}, {"axis", 0}}), {{"x", x}}); },
              ErrorKind::kBadArgument, {"Tile", "tiles -1"});
}

}  // namespace
}  // namespace parity::testing
