// constant_fold (core/transforms/constant_fold.cc): ops on constants become fills of their results,
// checked on values worked by hand; what must not fold (fed blobs, random fills, external outputs,
// blobs used before, what follows an op with sub-nets, f64 results) stays.
#include <gtest/gtest.h>

#include "core/tensor_proto.h"
#include "core/transforms/export.h"
#include "core/transforms/pass.h"
#include "tests/test_util.h"
#include "tests/transforms/transform_test_util.h"

namespace parity::testing {
namespace {

using transforms::TransformedNet;

// The fill of `blob` in `init`, or nullptr.
const caffe2::OperatorDef* FillOf(const caffe2::NetDef& init, const std::string& blob) {
  for (const auto& op : init.op()) {
    if (op.output(0) == blob) return &op;
  }
  return nullptr;
}

// w = [[1, 2, 3], [4, 5, 6]]; t = Transpose(w) = [[1, 4], [2, 5], [3, 6]]; s = Scale(t, 2) =
// [[2, 8], [4, 10], [6, 12]]; y = MatMul(x, s) stays (x is fed).
TransformedNet ScaledTranspose() {
  TransformedNet t;
  *t.init.add_op() = FloatFill("w", {2, 3}, {1, 2, 3, 4, 5, 6});
  *t.predict.add_op() = MakeOp("Transpose", {"w"}, {"t"});
  *t.predict.add_op() = MakeOp("Scale", {"t"}, {"s"}, {{"scale", 2.0f}});
  *t.predict.add_op() = MakeOp("MatMul", {"x", "s"}, {"y"});
  t.predict.add_external_input("x");
  t.predict.add_external_input("w");
  t.predict.add_external_output("y");
  return t;
}

TEST(ConstantFold, OpsOnConstantsBecomeFillsOfTheirResults) {
  const TransformedNet before = ScaledTranspose();
  const TransformedNet after = transforms::ApplyPasses(before, {"constant_fold"});
  ASSERT_EQ(after.predict.op_size(), 1);
  EXPECT_EQ(after.predict.op(0).type(), "MatMul");
  const caffe2::OperatorDef* t = FillOf(after.init, "t");
  const caffe2::OperatorDef* s = FillOf(after.init, "s");
  ASSERT_NE(t, nullptr);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->type(), "GivenTensorFill");
  EXPECT_EQ(FillValues(*t), (std::vector<float>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(FillValues(*s), (std::vector<float>{2, 8, 4, 10, 6, 12}));
  // Declared where the nets declare their inputs.
  const auto& inputs = after.predict.external_input();
  EXPECT_NE(std::find(inputs.begin(), inputs.end(), "s"), inputs.end());

  const Tensor x = MakeTensor<float>({1, 3}, {1, -1, 2});
  // y = [2 - 4 + 12, 8 - 10 + 24]
  EXPECT_EQ(Values<float>(RunTransformed(after, {{"x", x}}, "y")), (std::vector<float>{10, 22}));
  EXPECT_EQ(Values<float>(RunTransformed(before, {{"x", x}}, "y")), (std::vector<float>{10, 22}));
}

TEST(ConstantFold, IntegerAndBoolResultsKeepTheirTypes) {
  TransformedNet t;
  *t.init.add_op() = FloatFill("w", {2, 3}, {1, 2, 3, 4, 5, 6});
  *t.predict.add_op() = MakeOp("Shape", {"w"}, {"shape"});
  *t.predict.add_op() = MakeOp("GT", {"w", "w"}, {"never"});
  *t.predict.add_op() = MakeOp("Reshape", {"x", "shape"}, {"y", "old_shape"});
  *t.predict.add_op() = MakeOp("Not", {"never"}, {"always"});
  t.predict.add_external_input("x");
  t.predict.add_external_output("y");
  t.predict.add_external_output("always");
  const TransformedNet after = transforms::ApplyPasses(t, {"constant_fold"});
  ASSERT_NE(FillOf(after.init, "shape"), nullptr);
  EXPECT_EQ(FillOf(after.init, "shape")->type(), "GivenTensorInt64Fill");
  ASSERT_NE(FillOf(after.init, "never"), nullptr);
  EXPECT_EQ(FillOf(after.init, "never")->type(), "GivenTensorBoolFill");
  // Not writes an external output: it stays, reading the folded constant.
  ASSERT_EQ(after.predict.op_size(), 2);
  EXPECT_EQ(after.predict.op(0).type(), "Reshape");
  EXPECT_EQ(after.predict.op(1).type(), "Not");
  const Tensor x = RandomTensor({3, 2}, 5);
  EXPECT_EQ(RunTransformed(after, {{"x", x}}, "y").dims(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(Values<bool>(RunTransformed(after, {{"x", x}}, "always")), std::vector<bool>(6, true));
}

TEST(ConstantFold, LeavesWhatIsNotConstantOrNotItsToMove) {
  TransformedNet t;
  *t.init.add_op() = FloatFill("w", {2}, {1, 2});
  *t.init.add_op() = FloatFill("fed", {1, 1}, {0});  // Export's fake data: a feed overwrites it
  *t.init.add_op() = MakeOp("GaussianFill", {}, {"noise"}, {{"shape", Ints{2}}});
  *t.init.add_op() = FloatFill("dw", {1}, {3});
  caffe2::NetDef then_net;
  *then_net.add_op() = MakeOp("Copy", {"w"}, {"late"});
  caffe2::OperatorDef if_op = MakeOp("If", {"cond"}, {});
  caffe2::Argument* then_arg = if_op.add_arg();
  then_arg->set_name("then_net");
  *then_arg->mutable_n() = then_net;
  *t.predict.add_op() = MakeOp("Relu", {"fed"}, {"a"});               // fed: not a constant
  *t.predict.add_op() = MakeOp("Relu", {"noise"}, {"b"});             // a random fill's draw
  *t.predict.add_op() = MakeOp("Sigmoid", {"w"}, {"out"});            // an external output
  *t.predict.add_op() = MakeOp("Relu", {"x"}, {"used"});              // writes 'used' first...
  *t.predict.add_op() = MakeOp("Tanh", {"w"}, {"used"});              // ...so this write stays here
  *t.predict.add_op() = MakeOp("Cast", {"dw"}, {"d"}, {{"to", 13}});  // f64: not exact in a fill
  *t.predict.add_op() = if_op;
  *t.predict.add_op() = MakeOp("Sqr", {"w"}, {"after_if"});  // the If may write w
  for (const char* in : {"fed", "x", "cond"}) t.predict.add_external_input(in);
  t.settings["inputs"] = "x,fed,cond";
  t.predict.add_external_output("out");
  const TransformedNet after = transforms::ApplyPasses(t, {"constant_fold"});
  EXPECT_EQ(after.predict.SerializeAsString(), t.predict.SerializeAsString());
  EXPECT_EQ(after.init.op_size(), t.init.op_size());
}

// Export's fake data for x ([1, 1] zeros in the init net) is fed at run time: Relu(x) stays.
TEST(ConstantFold, LeavesExportsFakeDataAlone) {
  caffe2::NetDef net;
  *net.add_op() = MakeOp("Relu", {"x"}, {"a"});
  *net.add_op() = MakeOp("Transpose", {"w"}, {"t"});
  *net.add_op() = MakeOp("MatMul", {"a", "t"}, {"y"});
  Workspace ws;
  ws.CreateTensor("w")->CopyFrom(MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6}));
  const TransformedNet exported = transforms::Export(ws, net, {"w"});
  EXPECT_EQ(exported.settings.at("inputs"), "x");
  const TransformedNet after = transforms::ApplyPasses(exported, {"constant_fold"});
  ASSERT_EQ(after.predict.op_size(), 2);
  EXPECT_EQ(after.predict.op(0).type(), "Relu");
  EXPECT_EQ(after.predict.op(1).type(), "MatMul");
  ASSERT_NE(FillOf(after.init, "t"), nullptr);
  const Tensor x = MakeTensor<float>({1, 3}, {1, -1, 2});
  // a = [1, 0, 2]; y = a . t = [1 + 6, 4 + 12]
  EXPECT_EQ(Values<float>(RunTransformed(after, {{"x", x}}, "y")), (std::vector<float>{7, 16}));
}

TEST(ConstantFold, RefusesAnInitNetThatDoesNotRun) {
  TransformedNet t = ScaledTranspose();
  *t.init.add_op() = MakeOp("Relu", {"nowhere"}, {"z"});
  ExpectError([&] { transforms::ApplyPasses(t, {"constant_fold"}); }, ErrorKind::kIllegalTransform,
              {"constant_fold: the init net does not run", "nowhere"});
}

}  // namespace
}  // namespace parity::testing
