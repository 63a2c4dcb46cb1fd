// Fills and plumbing against hand-computed values.
#include "tests/test_util.h"

namespace parity::testing {
namespace {

TEST(ConstantFill, ShapeArgumentAndValue) {
  auto ws = RunOp(MakeOp("ConstantFill", {}, {"y"}, {{"shape", Ints{2, 3}}, {"value", 1.5f}}), {});
  ExpectTensorNear(ws->GetTensor("y"), {2, 3}, {1.5, 1.5, 1.5, 1.5, 1.5, 1.5});
  EXPECT_EQ(ws->GetTensor("y").dtype(), DataType::kFloat);
}

TEST(ConstantFill, IntValueWithoutDtypeGivesInt64) {
  auto ws = RunOp(MakeOp("ConstantFill", {}, {"y"}, {{"shape", Ints{2}}, {"value", 7}}), {});
  EXPECT_EQ(ws->GetTensor("y").dtype(), DataType::kInt64);
  EXPECT_EQ(Values<int64_t>(ws->GetTensor("y")), (std::vector<int64_t>{7, 7}));
}

TEST(ConstantFill, InputDimsPlusExtraShape) {
  auto ws = RunOp(MakeOp("ConstantFill", {"x"}, {"y"}, {{"extra_shape", Ints{2}}}),
                  {{"x", MakeTensor<float>({3}, {1, 2, 3})}});
  ExpectTensorNear(ws->GetTensor("y"), {3, 2}, {0, 0, 0, 0, 0, 0});
}

TEST(ConstantFill, InputAsShape) {
  auto ws = RunOp(
      MakeOp("ConstantFill", {"s"}, {"y"}, {{"input_as_shape", 1}, {"value", 2.0f}, {"dtype", 13}}),
      {{"s", MakeTensor<int64_t>({2}, {1, 2})}});
  EXPECT_EQ(ws->GetTensor("y").dtype(), DataType::kDouble);
  ExpectTensorNear(ws->GetTensor("y"), {1, 2}, {2, 2});
}

TEST(ConstantFill, ShapeAndInputTogetherIsAnError) {
  ExpectError([] {
    RunOp(MakeOp("ConstantFill", {"x"}, {"y"}, {{"shape", Ints{1}}}),
          {{"x", MakeTensor<float>({1}, {0})}});
  }, ErrorKind::kBadArgument, {"ConstantFill", "shape"});
}

TEST(GivenTensorFill, ValuesInRowMajorOrder) {
  auto ws = RunOp(MakeOp("GivenTensorFill", {}, {"y"},
                         {{"shape", Ints{2, 2}}, {"values", Floats{1, 2, 3, 4}}}),
                  {});
  ExpectTensorNear(ws->GetTensor("y"), {2, 2}, {1, 2, 3, 4});
}

TEST(GivenTensorFill, TypedVariants) {
  auto ws = RunOp(MakeOp("GivenTensorInt64Fill", {}, {"y"}, {{"shape", Ints{3}}, {"values", Ints{-1, 0, 5}}}), {});
  EXPECT_EQ(Values<int64_t>(ws->GetTensor("y")), (std::vector<int64_t>{-1, 0, 5}));
  ws = RunOp(MakeOp("GivenTensorBoolFill", {}, {"y"}, {{"shape", Ints{2}}, {"values", Ints{1, 0}}}), {});
  EXPECT_EQ(Values<bool>(ws->GetTensor("y")), (std::vector<bool>{true, false}));
  ws = RunOp(MakeOp("GivenTensorIntFill", {}, {"y"}, {{"shape", Ints{1}}, {"values", Ints{42}}}), {});
  EXPECT_EQ(Values<int32_t>(ws->GetTensor("y")), (std::vector<int32_t>{42}));
}

TEST(GivenTensorFill, CountMismatchNamesOpAndShape) {
  ExpectError([] {
    RunOp(MakeOp("GivenTensorFill", {}, {"y"}, {{"shape", Ints{2, 2}}, {"values", Floats{1, 2, 3}}}), {});
  }, ErrorKind::kShapeMismatch, {"GivenTensorFill", "[2, 2]", "3 values"});
}

TEST(RandomFill, ReproducibleAndInRange) {
  auto def = MakeOp("UniformFill", {}, {"y"}, {{"shape", Ints{100}}, {"min", -2.0f}, {"max", 3.0f}});
  def.mutable_device_option()->set_random_seed(11);
  auto a = RunOp(def, {});
  auto b = RunOp(def, {});
  EXPECT_EQ(Values<float>(a->GetTensor("y")), Values<float>(b->GetTensor("y")));
  for (float v : Values<float>(a->GetTensor("y"))) {
    EXPECT_GE(v, -2.0f);
    EXPECT_LE(v, 3.0f);
  }
  // Xavier on [4, 3]: fan_in 3, bound sqrt(3/3) = 1.
  auto x = RunOp(MakeOp("XavierFill", {}, {"w"}, {{"shape", Ints{4, 3}}}), {});
  for (float v : Values<float>(x->GetTensor("w"))) EXPECT_LE(std::abs(v), 1.0f);
  // Gaussian with std 0 is exactly the mean.
  auto g = RunOp(MakeOp("GaussianFill", {}, {"g"}, {{"shape", Ints{3}}, {"mean", 4.0f}, {"std", 0.0f}}), {});
  ExpectTensorNear(g->GetTensor("g"), {3}, {4, 4, 4});
}

TEST(Copy, DeepCopyAndAliasShares) {
  Workspace ws;
  *ws.CreateTensor("x") = MakeTensor<float>({2}, {1, 2});
  caffe2::NetDef net;
  *net.add_op() = MakeOp("Copy", {"x"}, {"c"});
  *net.add_op() = MakeOp("Alias", {"x"}, {"a"});
  ws.RunNetOnce(net);
  ws.GetBlob("x")->GetMutableTensor()->mutable_data<float>()[0] = 9;
  EXPECT_EQ(Values<float>(ws.GetTensor("c")), (std::vector<float>{1, 2}));
  EXPECT_EQ(Values<float>(ws.GetTensor("a")), (std::vector<float>{9, 2}));
  EXPECT_TRUE(ws.GetTensor("a").SharesStorageWith(ws.GetTensor("x")));
}

}  // namespace
}  // namespace parity::testing

namespace parity::testing {
namespace {

TEST(ResizeLike, TakesDimsOfSecondInput) {
  auto ws = RunOp(MakeOp("ResizeLike", {"x", "s"}, {"y"}),
                  {{"x", MakeTensor<float>({6}, {1, 2, 3, 4, 5, 6})},
                   {"s", MakeTensor<int32_t>({2, 3}, {0, 0, 0, 0, 0, 0})}});
  ExpectTensorNear(ws->GetTensor("y"), {2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(ws->GetTensor("y").dtype(), DataType::kFloat);
  ExpectError([] {
    RunOp(MakeOp("ResizeLike", {"x", "s"}, {"y"}),
          {{"x", MakeTensor<float>({2}, {1, 2})}, {"s", MakeTensor<float>({3}, {0, 0, 0})}});
  }, ErrorKind::kShapeMismatch, {"ResizeLike", "float [2]", "float [3]"});
}

}  // namespace
}  // namespace parity::testing

namespace parity::testing {
namespace {

TEST(GivenTensorFill, DtypeArgumentReadsIntsForIntegerTypes) {
  caffe2::OperatorDef def = MakeOp("GivenTensorFill", {}, {"y"},
                                   {{"shape", Ints{3}}, {"values", Ints{4, -2, 9}}, {"dtype", 10}});
  auto ws = RunOp(def, {});
  EXPECT_EQ(ws->GetTensor("y").dtype(), DataType::kInt64);
  EXPECT_EQ(Values<int64_t>(ws->GetTensor("y")), (std::vector<int64_t>{4, -2, 9}));
  def = MakeOp("GivenTensorFill", {}, {"y"},
               {{"shape", Ints{2}}, {"values", Floats{0.5f, 1.5f}}, {"dtype", 13}});
  ws = RunOp(def, {});
  EXPECT_EQ(ws->GetTensor("y").dtype(), DataType::kDouble);
  ExpectTensorNear(ws->GetTensor("y"), {2}, {0.5, 1.5});
  ExpectError([] {
    RunOp(MakeOp("GivenTensorFill", {}, {"y"}, {{"shape", Ints{1}}, {"values", Floats{1}}, {"dtype", 4}}), {});
  }, ErrorKind::kBadArgument, {"'dtype' = 4"});
}

}  // namespace
}  // namespace parity::testing
