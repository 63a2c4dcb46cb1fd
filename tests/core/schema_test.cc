// Schema verification, argument typing, and operator/net construction errors.
#include "core/schema.h"

#include "core/argument.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

TEST(Schema, UnknownOpNamesTypeAndPosition) {
  caffe2::NetDef net;
  net.set_name("main");
  *net.add_op() = MakeOp("ConstantFill", {}, {"x"}, {{"shape", Ints{1}}});
  *net.add_op() = MakeOp("FrobnicateOp", {"x"}, {"y"});
  Workspace ws;
  ExpectError([&] { ws.RunNetOnce(net); }, ErrorKind::kUnknownOp,
              {"net 'main'", "op #1", "FrobnicateOp"});
}

TEST(Schema, WrongArity) {
  ExpectError([] { RunOp(MakeOp("Copy", {"a", "b"}, {"y"}), {{"a", Tensor()}, {"b", Tensor()}}); },
              ErrorKind::kBadArgument, {"op Copy", "takes 1 inputs, got 2"});
  ExpectError([] { RunOp(MakeOp("ConstantFill", {}, {}), {}); }, ErrorKind::kBadArgument,
              {"produces 1 outputs, got 0"});
}

TEST(Schema, WrongArgumentType) {
  caffe2::OperatorDef def = MakeOp("ConstantFill", {}, {"y"}, {{"shape", 2.5f}});
  ExpectError([&] { RunOp(def, {}); }, ErrorKind::kBadArgument,
              {"ConstantFill", "'shape'", "ints"});
  // An int where a float is declared is fine (Python's MakeArgument stores 1 as an int).
  auto ws = RunOp(MakeOp("UniformFill", {}, {"y"}, {{"shape", Ints{1}}, {"min", 1}, {"max", 1}}), {});
  ExpectTensorNear(ws->GetTensor("y"), {1}, {1});
}

TEST(Schema, MissingInputBlob) {
  ExpectError([] { RunOp(MakeOp("Copy", {"nowhere"}, {"y"}), {}); }, ErrorKind::kMissingBlob,
              {"op #0 (Copy)", "'nowhere'"});
}

TEST(Schema, InplaceRules) {
  // Copy allows X -> X; Alias does not.
  Workspace ws;
  *ws.CreateTensor("x") = MakeTensor<float>({1}, {2});
  caffe2::NetDef net;
  *net.add_op() = MakeOp("Copy", {"x"}, {"x"});
  ws.RunNetOnce(net);
  net.mutable_op(0)->set_type("Alias");
  ExpectError([&] { ws.RunNetOnce(net); }, ErrorKind::kBadArgument,
              {"op Alias", "cannot run in place"});
}

TEST(Schema, DefaultsComeFromTheSchema) {
  caffe2::OperatorDef def = MakeOp("UniformFill", {}, {"y"});
  ArgumentHelper args(def, OpSchemaRegistry::Find("UniformFill"));
  EXPECT_EQ(args.Get<float>("min"), 0.0f);
  EXPECT_EQ(args.Get<float>("max"), 1.0f);
  EXPECT_EQ(args.Get<float>("max", 7.0f), 7.0f);
  EXPECT_TRUE(args.GetVector<int64_t>("shape").empty());
  ExpectError([&] { args.Get<int>("nonexistent"); }, ErrorKind::kBadArgument, {"'nonexistent'"});
}

TEST(Schema, ShapeInference) {
  const OpSchema& fill = OpSchemaRegistry::Get("ConstantFill");
  auto out = fill.InferShapes(MakeOp("ConstantFill", {}, {"y"}, {{"shape", Ints{2, 3}}, {"dtype", 10}}), {});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].dims, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(out[0].dtype, DataType::kInt64);
  TensorType x{DataType::kFloat, {4}, true};
  out = fill.InferShapes(MakeOp("ConstantFill", {"x"}, {"y"}, {{"extra_shape", Ints{5}}}), {x});
  EXPECT_EQ(out[0].dims, (std::vector<int64_t>{4, 5}));
  out = fill.InferShapes(MakeOp("ConstantFill", {"x"}, {"y"}, {{"input_as_shape", 1}}), {x});
  EXPECT_FALSE(out[0].known);
}

TEST(Net, NetDeviceOptionCopiedIntoOpsWithoutOne) {
  caffe2::NetDef net;
  net.mutable_device_option()->set_random_seed(5);
  *net.add_op() = MakeOp("Copy", {"x"}, {"y"});
  *net.add_op() = MakeOp("Copy", {"x"}, {"z"});
  net.mutable_op(1)->mutable_device_option()->set_random_seed(9);
  caffe2::NetDef copied = WithNetDeviceOption(net);
  EXPECT_EQ(copied.op(0).device_option().random_seed(), 5u);
  EXPECT_EQ(copied.op(1).device_option().random_seed(), 9u);
}

TEST(Net, UnknownNetType) {
  caffe2::NetDef net;
  net.set_type("warp_drive");
  Workspace ws;
  ExpectError([&] { ws.RunNetOnce(net); }, ErrorKind::kInvalidNet, {"unknown net type 'warp_drive'"});
}

TEST(Net, RuntimeErrorCarriesOpContext) {
  caffe2::NetDef net;
  net.set_name("n");
  *net.add_op() = MakeOp("GivenTensorFill", {}, {"y"}, {{"shape", Ints{3}}, {"values", Floats{1}}});
  net.mutable_op(0)->set_name("given");
  Workspace ws;
  ExpectError([&] { ws.RunNetOnce(net); }, ErrorKind::kShapeMismatch,
              {"net 'n': op #0 (GivenTensorFill 'given')", "1 values", "[3]"});
}

}  // namespace
}  // namespace parity::testing
