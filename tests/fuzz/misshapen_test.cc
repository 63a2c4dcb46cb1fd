// The cases made wrong on purpose (fuzz/misshapen.h): each of the four edits on a hand-made
// single-op case, what it leaves alone, and what it refuses.
#include "fuzz/misshapen.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/test_util.h"

namespace parity::fuzz {
namespace {

caffe2::TensorProto Floats(const std::string& name, const std::vector<int64_t>& dims,
                           const std::vector<float>& values) {
  return ::parity::testing::FloatsProto(name, dims, values);
}

// Add(a [2, 2], b [2]) -> c, both inputs differentiable.
Case AddCase() {
  Case c;
  c.set_description("single op Add");
  caffe2::OperatorDef* op = c.mutable_net()->add_op();
  op->set_type("Add");
  op->add_input("a");
  op->add_input("b");
  op->add_output("c");
  c.mutable_net()->add_external_input("a");
  c.mutable_net()->add_external_input("b");
  c.mutable_net()->add_external_output("c");
  *c.add_inputs() = Floats("a", {2, 2}, {1, 2, 3, 4});
  *c.add_inputs() = Floats("b", {2}, {5, 6});
  c.add_grad_inputs("a");
  c.add_grad_inputs("b");
  return c;
}

std::vector<float> FloatsOf(const caffe2::TensorProto& t) {
  return {t.float_data().begin(), t.float_data().end()};
}

TEST(Misshapen, AnAxisGrowsByItsFirstSlice) {
  // pick 0: kind 0 (an axis), axis entry 0 of [(a, 0), (a, 1), (b, 0)].
  std::optional<Case> wrong = MisshapenVariant(AddCase(), 0);
  ASSERT_TRUE(wrong.has_value());
  EXPECT_EQ(std::vector<int64_t>(wrong->inputs(0).dims().begin(), wrong->inputs(0).dims().end()),
            (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(FloatsOf(wrong->inputs(0)), (std::vector<float>{1, 2, 3, 4, 1, 2}));
  EXPECT_EQ(FloatsOf(wrong->inputs(1)), (std::vector<float>{5, 6}));
  // Entry 1 is a's inner axis: each row gains its first element again.
  wrong = MisshapenVariant(AddCase(), 4);
  ASSERT_TRUE(wrong.has_value());
  EXPECT_EQ(FloatsOf(wrong->inputs(0)), (std::vector<float>{1, 2, 1, 3, 4, 3}));
  EXPECT_NE(wrong->description().find("made wrong: input 'a' axis 1 one longer"), std::string::npos)
      << wrong->description();
}

TEST(Misshapen, AFloatInputIsFedAsInt32AndLosesItsGradient) {
  std::optional<Case> wrong = MisshapenVariant(AddCase(), 1 + 4);  // kind 1, floating input 1
  ASSERT_TRUE(wrong.has_value());
  const caffe2::TensorProto& b = wrong->inputs(1);
  EXPECT_EQ(b.data_type(), caffe2::TensorProto::INT32);
  EXPECT_EQ(std::vector<int32_t>(b.int32_data().begin(), b.int32_data().end()),
            (std::vector<int32_t>{5, 6}));
  EXPECT_EQ(b.float_data_size(), 0);
  ASSERT_EQ(wrong->grad_inputs_size(), 1);
  EXPECT_EQ(wrong->grad_inputs(0), "a");
}

TEST(Misshapen, AnExtraInputCopiesInputZero) {
  std::optional<Case> wrong = MisshapenVariant(AddCase(), 2);
  ASSERT_TRUE(wrong.has_value());
  const caffe2::OperatorDef& op = wrong->net().op(0);
  ASSERT_EQ(op.input_size(), 3);
  EXPECT_EQ(op.input(2), "extra_input");
  ASSERT_EQ(wrong->inputs_size(), 3);
  EXPECT_EQ(wrong->inputs(2).name(), "extra_input");
  EXPECT_EQ(FloatsOf(wrong->inputs(2)), FloatsOf(wrong->inputs(0)));
  EXPECT_EQ(wrong->net().external_input(2), "extra_input");
}

TEST(Misshapen, TheLastInputIsDroppedWithItsFeed) {
  std::optional<Case> wrong = MisshapenVariant(AddCase(), 3);
  ASSERT_TRUE(wrong.has_value());
  ASSERT_EQ(wrong->net().op(0).input_size(), 1);
  ASSERT_EQ(wrong->inputs_size(), 1);
  EXPECT_EQ(wrong->inputs(0).name(), "a");
  ASSERT_EQ(wrong->net().external_input_size(), 1);
  ASSERT_EQ(wrong->grad_inputs_size(), 1);
  EXPECT_EQ(wrong->grad_inputs(0), "a");
}

TEST(Misshapen, EditsThatCannotApplyGiveNothing) {
  Case one_input = AddCase();
  one_input.mutable_net()->mutable_op(0)->mutable_input()->RemoveLast();
  EXPECT_FALSE(MisshapenVariant(one_input, 3).has_value());  // nothing left to drop
  Case with_net = AddCase();
  caffe2::Argument* arg = with_net.mutable_net()->mutable_op(0)->add_arg();
  arg->set_name("net");
  arg->mutable_n()->set_name("body");
  for (uint64_t pick = 0; pick < 4; ++pick) {
    EXPECT_FALSE(MisshapenVariant(with_net, pick).has_value()) << pick;  // ops that run nets
  }
}

}  // namespace
}  // namespace parity::fuzz
