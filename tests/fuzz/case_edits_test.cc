// The reducer's edits (fuzz/case_edits.h) on small hand-made cases: a removed producer's consumers
// read what it produced as new inputs; removals that one value per blob name cannot express are
// refused; dims shrink keeping the leading elements; values and arguments simplify.
#include "fuzz/case_edits.h"

#include <gtest/gtest.h>

#include "core/tensor_proto.h"
#include "tests/test_util.h"

namespace parity::fuzz {
namespace {

caffe2::TensorProto Floats(const std::string& name, const std::vector<int64_t>& dims,
                           const std::vector<float>& values) {
  return ::parity::testing::FloatsProto(name, dims, values);
}

void AddOp(Case* c, const std::string& type, std::vector<std::string> in,
           std::vector<std::string> out) {
  caffe2::OperatorDef* op = c->mutable_net()->add_op();
  op->set_type(type);
  for (const auto& b : in) op->add_input(b);
  for (const auto& b : out) op->add_output(b);
}

// A = Relu(X); B = Sigmoid(A); C = Add(B, X)
Case Chain() {
  Case c;
  *c.add_inputs() = Floats("X", {2}, {-1, 2});
  AddOp(&c, "Relu", {"X"}, {"A"});
  AddOp(&c, "Sigmoid", {"A"}, {"B"});
  AddOp(&c, "Add", {"B", "X"}, {"C"});
  c.mutable_net()->add_external_output("C");
  return c;
}

OpOutputs ChainOutputs() {
  return {{{"A", Floats("A", {2}, {0, 2})}},
          {{"B", Floats("B", {2}, {0.5f, 0.88f})}},
          {{"C", Floats("C", {2}, {-0.5f, 2.88f})}}};
}

TEST(RemoveOps, ConsumersOfARemovedOpReadWhatItProduced) {
  const std::optional<Case> edited = RemoveOps(Chain(), {0}, ChainOutputs());
  ASSERT_TRUE(edited.has_value());
  ASSERT_EQ(edited->net().op_size(), 2);
  EXPECT_EQ(edited->net().op(0).type(), "Sigmoid");
  ASSERT_EQ(edited->inputs_size(), 2);
  EXPECT_EQ(edited->inputs(0).name(), "X");  // still read by the Add
  EXPECT_EQ(edited->inputs(1).name(), "A");
  EXPECT_EQ(edited->inputs(1).float_data(1), 2);
  EXPECT_EQ(edited->net().external_output(0), "C");
}

TEST(RemoveOps, InputsNothingReadsAndOutputsNothingWritesGo) {
  const std::optional<Case> edited = RemoveOps(Chain(), {2}, ChainOutputs());
  ASSERT_TRUE(edited.has_value());
  EXPECT_EQ(edited->net().op_size(), 2);
  EXPECT_EQ(edited->net().external_output_size(), 0);
  const std::optional<Case> only_add = RemoveOps(Chain(), {0, 1}, ChainOutputs());
  ASSERT_TRUE(only_add.has_value());
  ASSERT_EQ(only_add->inputs_size(), 2);
  EXPECT_EQ(only_add->inputs(0).name(), "X");
  EXPECT_EQ(only_add->inputs(1).name(), "B");
}

TEST(RemoveOps, RefusesWhatOneValuePerBlobCannotSay) {
  // A = Relu(X); A = Sigmoid(A) in place; B = Tanh(A). Without the Sigmoid, the Relu would
  // overwrite the A the Tanh must read.
  Case c;
  *c.add_inputs() = Floats("X", {1}, {1});
  AddOp(&c, "Relu", {"X"}, {"A"});
  AddOp(&c, "Sigmoid", {"A"}, {"A"});
  AddOp(&c, "Tanh", {"A"}, {"B"});
  const OpOutputs outputs = {{{"A", Floats("A", {1}, {1})}},
                             {{"A", Floats("A", {1}, {0.73f})}},
                             {{"B", Floats("B", {1}, {0.62f})}}};
  EXPECT_FALSE(RemoveOps(c, {1}, outputs).has_value());
  // Without the Relu, the Sigmoid reads the Relu's A: fine.
  EXPECT_TRUE(RemoveOps(c, {0}, outputs).has_value());
  // X read as the case's input by one op and fed a removed op's value for another: refused.
  Case d;
  *d.add_inputs() = Floats("X", {1}, {1});
  AddOp(&d, "Relu", {"X"}, {"Y"});
  AddOp(&d, "Sigmoid", {"X"}, {"X"});
  AddOp(&d, "Add", {"X", "Y"}, {"Z"});
  const OpOutputs d_outputs = {{{"Y", Floats("Y", {1}, {1})}},
                               {{"X", Floats("X", {1}, {0.73f})}},
                               {{"Z", Floats("Z", {1}, {1.73f})}}};
  EXPECT_FALSE(RemoveOps(d, {1}, d_outputs).has_value());
  // An output the traced run never produced, or removing every op: nothing.
  EXPECT_FALSE(RemoveOps(Chain(), {0}, {}).has_value());
  EXPECT_FALSE(RemoveOps(Chain(), {0, 1, 2}, ChainOutputs()).has_value());
}

TEST(ShrinkDims, KeepTheLeadingElementsOfEveryAxisOfThatSize) {
  Case c;
  *c.add_inputs() = Floats("X", {2, 3}, {0, 1, 2, 3, 4, 5});
  *c.add_inputs() = Floats("W", {3}, {6, 7, 8});
  std::optional<Case> edited = ShrinkDimEverywhere(c, 3, 2);
  ASSERT_TRUE(edited.has_value());
  EXPECT_EQ(edited->inputs(0).dims(1), 2);
  EXPECT_EQ(std::vector<float>(edited->inputs(0).float_data().begin(),
                               edited->inputs(0).float_data().end()),
            (std::vector<float>{0, 1, 3, 4}));
  EXPECT_EQ(edited->inputs(1).float_data_size(), 2);
  edited = ShrinkDim(c, 0, 0, 1);
  ASSERT_TRUE(edited.has_value());
  EXPECT_EQ(std::vector<float>(edited->inputs(0).float_data().begin(),
                               edited->inputs(0).float_data().end()),
            (std::vector<float>{0, 1, 2}));
  EXPECT_EQ(InputDimSizes(c), (std::vector<int64_t>{3, 2}));
  EXPECT_FALSE(ShrinkDim(c, 1, 0, 3).has_value());  // not smaller
}

TEST(EditValues, ZerosIntegersAndOneDecimal) {
  Case c;
  *c.add_inputs() = Floats("X", {2}, {1.26f, -0.74f});
  EXPECT_EQ(EditValues(c, 0, ValueEdit::kZeros)->inputs(0).float_data(0), 0);
  EXPECT_EQ(EditValues(c, 0, ValueEdit::kIntegers)->inputs(0).float_data(1), -1);
  EXPECT_FLOAT_EQ(EditValues(c, 0, ValueEdit::kOneDecimal)->inputs(0).float_data(0), 1.3f);
  Case zeros;
  *zeros.add_inputs() = Floats("X", {1}, {0});
  EXPECT_FALSE(EditValues(zeros, 0, ValueEdit::kZeros).has_value()) << "nothing changes";
}

TEST(RemoveArg, DropsOneArgumentButNotANet) {
  Case c = Chain();
  caffe2::Argument* alpha = c.mutable_net()->mutable_op(0)->add_arg();
  alpha->set_name("alpha");
  alpha->set_f(0.5f);
  caffe2::Argument* net = c.mutable_net()->mutable_op(0)->add_arg();
  net->set_name("net");
  net->mutable_n()->set_name("inner");
  const std::optional<Case> edited = RemoveArg(c, 0, 0);
  ASSERT_TRUE(edited.has_value());
  ASSERT_EQ(edited->net().op(0).arg_size(), 1);
  EXPECT_EQ(edited->net().op(0).arg(0).name(), "net");
  EXPECT_FALSE(RemoveArg(c, 0, 1).has_value());
}

}  // namespace
}  // namespace parity::fuzz
