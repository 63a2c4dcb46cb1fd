// Max, Min, Sum, Mean against hand-computed values.
#include <cmath>
#include <limits>

#include "core/schema.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

TEST(Max, ThreeInputsSameShape) {
  // max({1, 5, 3}, {4, 2, 3}, {0, 0, 9}) = {4, 5, 9}; min = {0, 0, 3}.
  const std::map<std::string, Tensor> inputs = {{"a", MakeTensor<float>({3}, {1, 5, 3})},
                                                {"b", MakeTensor<float>({3}, {4, 2, 3})},
                                                {"c", MakeTensor<float>({3}, {0, 0, 9})}};
  auto ws = RunOp(MakeOp("Max", {"a", "b", "c"}, {"y"}), inputs);
  ExpectTensorNear(ws->GetTensor("y"), {3}, {4, 5, 9});
  ws = RunOp(MakeOp("Min", {"a", "b", "c"}, {"y"}), inputs);
  ExpectTensorNear(ws->GetTensor("y"), {3}, {0, 0, 3});
}

TEST(Max, Integers) {
  // max({-3, 9}, {4, -9}) = {4, 9}; min = {-3, -9}; int64 extremes stay exact.
  const std::map<std::string, Tensor> ints = {{"a", MakeTensor<int32_t>({2}, {-3, 9})},
                                              {"b", MakeTensor<int32_t>({2}, {4, -9})}};
  auto ws = RunOp(MakeOp("Max", {"a", "b"}, {"y"}), ints);
  EXPECT_EQ(Values<int32_t>(ws->GetTensor("y")), (std::vector<int32_t>{4, 9}));
  ws = RunOp(MakeOp("Min", {"a", "b"}, {"y"}), ints);
  EXPECT_EQ(Values<int32_t>(ws->GetTensor("y")), (std::vector<int32_t>{-3, -9}));
  const int64_t big = std::numeric_limits<int64_t>::max();
  ws = RunOp(MakeOp("Max", {"a", "b"}, {"y"}),
             {{"a", MakeTensor<int64_t>({2}, {big, big - 1})},
              {"b", MakeTensor<int64_t>({2}, {big - 1, big})}});
  EXPECT_EQ(Values<int64_t>(ws->GetTensor("y")), (std::vector<int64_t>{big, big}));
}

TEST(Max, BroadcastsAllInputs) {
  // [2, 1]{1, 4} vs [3]{0, 2, 5} vs [1]{3} (double): out [2, 3],
  // max = [[3, 3, 5], [4, 4, 5]]; min = [[0, 1, 1], [0, 2, 3]].
  const std::map<std::string, Tensor> inputs = {{"a", MakeTensor<double>({2, 1}, {1, 4})},
                                                {"b", MakeTensor<double>({3}, {0, 2, 5})},
                                                {"c", MakeTensor<double>({1}, {3})}};
  auto ws = RunOp(MakeOp("Max", {"a", "b", "c"}, {"y"}), inputs);
  ExpectTensorNear(ws->GetTensor("y"), {2, 3}, {3, 3, 5, 4, 4, 5});
  ws = RunOp(MakeOp("Min", {"a", "b", "c"}, {"y"}), inputs);
  ExpectTensorNear(ws->GetTensor("y"), {2, 3}, {0, 1, 1, 0, 2, 3});
  // The third input can widen the shape the first two make: [2]{1, 2}, [1]{0}, [3, 1]{0, 5, 9}.
  ws = RunOp(MakeOp("Max", {"a", "b", "c"}, {"y"}),
             {{"a", MakeTensor<float>({2}, {1, 2})}, {"b", MakeTensor<float>({1}, {0})},
              {"c", MakeTensor<float>({3, 1}, {0, 5, 9})}});
  ExpectTensorNear(ws->GetTensor("y"), {3, 2}, {1, 2, 5, 5, 9, 9});
}

TEST(Max, NaNPropagates) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto ws = RunOp(MakeOp("Max", {"a", "b"}, {"y"}),
                  {{"a", MakeTensor<float>({2}, {nan, 1})}, {"b", MakeTensor<float>({2}, {0, nan})}});
  for (float v : Values<float>(ws->GetTensor("y"))) EXPECT_TRUE(std::isnan(v));
  ws = RunOp(MakeOp("Min", {"a", "b"}, {"y"}),
             {{"a", MakeTensor<float>({2}, {nan, 1})}, {"b", MakeTensor<float>({2}, {0, nan})}});
  for (float v : Values<float>(ws->GetTensor("y"))) EXPECT_TRUE(std::isnan(v));
}

TEST(Max, OneInputInPlaceAndEmpty) {
  auto ws = RunOp(MakeOp("Max", {"a"}, {"y"}), {{"a", MakeTensor<float>({2}, {-1, 2})}});
  ExpectTensorNear(ws->GetTensor("y"), {2}, {-1, 2});
  // In place over input 0 with a broadcast second input: {1, 7} vs 3 -> {3, 7}.
  ws = RunOp(MakeOp("Max", {"a", "b"}, {"a"}),
             {{"a", MakeTensor<float>({2}, {1, 7})}, {"b", MakeTensor<float>({1}, {3})}});
  ExpectTensorNear(ws->GetTensor("a"), {2}, {3, 7});
  ws = RunOp(MakeOp("Min", {"a", "b"}, {"y"}),
             {{"a", MakeTensor<float>({0, 2}, {})}, {"b", MakeTensor<float>({2}, {1, 2})}});
  EXPECT_EQ(ws->GetTensor("y").dims(), (std::vector<int64_t>{0, 2}));
}

TEST(Max, Errors) {
  ExpectError([] {
    RunOp(MakeOp("Max", {"a", "b"}, {"y"}),
          {{"a", MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6})}, {"b", MakeTensor<float>({2}, {1, 2})}});
  }, ErrorKind::kShapeMismatch, {"Max", "[2, 3]", "[2]"});
  ExpectError([] {
    RunOp(MakeOp("Min", {"a", "b"}, {"y"}),
          {{"a", MakeTensor<float>({1}, {1})}, {"b", MakeTensor<double>({1}, {1})}});
  }, ErrorKind::kShapeMismatch, {"Min", "input 1", "double [1]", "float [1]"});
  ExpectError([] {
    RunOp(MakeOp("Max", {"a"}, {"y"}), {{"a", MakeTensor<bool>({1}, {true})}});
  }, ErrorKind::kShapeMismatch,
              {"Max", "bool [1]", "float, double, int8, int16, int32, int64, uint8, uint16"});
  // In place over input 0 when broadcasting would grow it.
  ExpectError([] {
    RunOp(MakeOp("Max", {"a", "b"}, {"a"}),
          {{"a", MakeTensor<float>({1}, {1})}, {"b", MakeTensor<float>({2}, {1, 2})}});
  }, ErrorKind::kShapeMismatch, {"Max", "in place", "[2]", "[1]"});
  // Only input 0 may be overwritten.
  ExpectError([] {
    RunOp(MakeOp("Max", {"a", "b"}, {"b"}),
          {{"a", MakeTensor<float>({1}, {1})}, {"b", MakeTensor<float>({1}, {2})}});
  }, ErrorKind::kBadArgument, {"Max", "in place"});
}

TEST(Sum, ManyInputsAndDtypes) {
  // {1, 2} + {10, 20} + {100, 200} = {111, 222}.
  auto ws = RunOp(MakeOp("Sum", {"a", "b", "c"}, {"y"}),
                  {{"a", MakeTensor<float>({2}, {1, 2})}, {"b", MakeTensor<float>({2}, {10, 20})},
                   {"c", MakeTensor<float>({2}, {100, 200})}});
  ExpectTensorNear(ws->GetTensor("y"), {2}, {111, 222});
  // int32 wraps: INT32_MAX + 1 = INT32_MIN; int64 and double work too.
  const int32_t kMax = std::numeric_limits<int32_t>::max();
  ws = RunOp(MakeOp("Sum", {"a", "b"}, {"y"}),
             {{"a", MakeTensor<int32_t>({1}, {kMax})}, {"b", MakeTensor<int32_t>({1}, {1})}});
  EXPECT_EQ(Values<int32_t>(ws->GetTensor("y")),
            (std::vector<int32_t>{std::numeric_limits<int32_t>::min()}));
  ws = RunOp(MakeOp("Sum", {"a", "b"}, {"y"}),
             {{"a", MakeTensor<int64_t>({1}, {5})}, {"b", MakeTensor<int64_t>({1}, {-7})}});
  EXPECT_EQ(Values<int64_t>(ws->GetTensor("y")), (std::vector<int64_t>{-2}));
  ws = RunOp(MakeOp("Sum", {"a"}, {"y"}), {{"a", MakeTensor<double>({1}, {0.5})}});
  ExpectTensorNear(ws->GetTensor("y"), {1}, {0.5});
}

TEST(Sum, InPlaceOnInputZeroOnly) {
  auto ws = RunOp(MakeOp("Sum", {"a", "b", "c"}, {"a"}),
                  {{"a", MakeTensor<float>({2}, {1, 2})}, {"b", MakeTensor<float>({2}, {3, 4})},
                   {"c", MakeTensor<float>({2}, {5, 6})}});
  ExpectTensorNear(ws->GetTensor("a"), {2}, {9, 12});
  EXPECT_TRUE(OpSchemaRegistry::Get("Sum").IsInplaceAllowed(0, 0));
  EXPECT_FALSE(OpSchemaRegistry::Get("Sum").IsInplaceAllowed(1, 0));
  ExpectError([] {
    RunOp(MakeOp("Sum", {"a", "b"}, {"b"}),
          {{"a", MakeTensor<float>({1}, {1})}, {"b", MakeTensor<float>({1}, {2})}});
  }, ErrorKind::kBadArgument, {"Sum", "in place"});
}

TEST(Sum, EmptyAndErrors) {
  auto ws = RunOp(MakeOp("Sum", {"a", "b"}, {"y"}),
                  {{"a", MakeTensor<float>({0, 3}, {})}, {"b", MakeTensor<float>({0, 3}, {})}});
  EXPECT_EQ(ws->GetTensor("y").dims(), (std::vector<int64_t>{0, 3}));
  // Sum does not broadcast (Caffe2).
  ExpectError([] {
    RunOp(MakeOp("Sum", {"a", "b"}, {"y"}),
          {{"a", MakeTensor<float>({2}, {1, 2})}, {"b", MakeTensor<float>({1}, {1})}});
  }, ErrorKind::kShapeMismatch, {"Sum", "input 1", "float [1]", "float [2]"});
  ExpectError([] {
    RunOp(MakeOp("Sum", {"a"}, {"y"}), {{"a", MakeTensor<bool>({1}, {true})}});
  }, ErrorKind::kShapeMismatch, {"Sum", "bool [1]", "float, double, int32, int64"});
  ExpectError([] {
    OpSchemaRegistry::Get("Sum").InferShapes(MakeOp("Sum", {"a", "b"}, {"y"}),
                                            {{DataType::kFloat, {2}}, {DataType::kFloat, {3}}});
  }, ErrorKind::kShapeMismatch, {"Sum", "float [3]", "float [2]"});
}

TEST(Mean, AveragesAndRejectsIntegers) {
  // ({1, 2} + {3, 4} + {5, 6}) / 3 = {3, 4}.
  auto ws = RunOp(MakeOp("Mean", {"a", "b", "c"}, {"y"}),
                  {{"a", MakeTensor<float>({2}, {1, 2})}, {"b", MakeTensor<float>({2}, {3, 4})},
                   {"c", MakeTensor<float>({2}, {5, 6})}});
  ExpectTensorNear(ws->GetTensor("y"), {2}, {3, 4});
  ws = RunOp(MakeOp("Mean", {"a", "b"}, {"a"}),
             {{"a", MakeTensor<double>({1}, {1})}, {"b", MakeTensor<double>({1}, {2})}});
  ExpectTensorNear(ws->GetTensor("a"), {1}, {1.5});
  ExpectError([] {
    RunOp(MakeOp("Mean", {"a"}, {"y"}), {{"a", MakeTensor<int32_t>({1}, {1})}});
  }, ErrorKind::kShapeMismatch, {"Mean", "int32 [1]", "float, double"});
}

TEST(Variadic, ShapeInference) {
  auto out = OpSchemaRegistry::Get("Max").InferShapes(
      MakeOp("Max", {"a", "b"}, {"y"}), {{DataType::kFloat, {2, 1}}, {DataType::kFloat, {3}}});
  EXPECT_EQ(out[0].dims, (std::vector<int64_t>{2, 3}));
  out = OpSchemaRegistry::Get("Mean").InferShapes(
      MakeOp("Mean", {"a", "b"}, {"y"}), {{DataType::kDouble, {4}}, {DataType::kDouble, {4}}});
  EXPECT_EQ(out[0].dims, (std::vector<int64_t>{4}));
  EXPECT_EQ(out[0].dtype, DataType::kDouble);
}

}  // namespace
}  // namespace parity::testing
