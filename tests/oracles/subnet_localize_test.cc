// Localization inside ops that run nets: a wrong kernel inside an If branch, a Do body, a While
// loop (its body a Do) or a RecurrentNetwork's step net is named by its path inside, not only by
// the control op that ran it (oracles/subnet_localize.h). The wrong kernel is a Relu that adds 1 to
// its first element, under a test engine that the production backend sets on every op, sub-nets'
// too.
#include "oracles/subnet_localize.h"

#include <gtest/gtest.h>

#include <memory>

#include "core/operator.h"
#include "core/rnn/recurrent_net.h"
#include "core/tensor_proto.h"
#include "oracles/backend.h"
#include "oracles/check.h"
#include "tests/rnn/rnn_test_util.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

class ReluPlusOne final : public Operator {
 public:
  using Operator::Operator;
  void Run() override {
    RunDefaultKernel(def(), workspace());
    Tensor* y = Output(0);
    if (y->numel() > 0) y->mutable_data<float>()[0] += 1.0f;
  }
};
PARITY_REGISTER_CPU_OPERATOR_WITH_ENGINE(Relu, "RELU_PLUS_ONE_TEST", ReluPlusOne);
PARITY_REGISTER_BACKEND(oracles::MakeProductionBackend("relu-plus-one", "RELU_PLUS_ONE_TEST",
                                                       "Relu adding 1 to its first element"));

caffe2::NetDef Net(const std::string& name, const std::vector<caffe2::OperatorDef>& ops) {
  caffe2::NetDef net;
  net.set_name(name);
  for (const auto& op : ops) *net.add_op() = op;
  return net;
}

caffe2::OperatorDef WithNet(caffe2::OperatorDef op, const std::string& name,
                            const caffe2::NetDef& net) {
  caffe2::Argument* arg = op.add_arg();
  arg->set_name(name);
  *arg->mutable_n() = net;
  return op;
}

Finding ForwardFinding(const Case& c) {
  oracles::CheckRequest request;
  request.oracles = {"forward"};
  EXPECT_EQ(oracles::CheckCase(c, request).verdicts(0).status(), OracleVerdict::OK);
  request.backend = "relu-plus-one";
  const OracleVerdict verdict = oracles::CheckCase(c, request).verdicts(0);
  EXPECT_EQ(verdict.status(), OracleVerdict::FINDING) << verdict.DebugString();
  return verdict.finding();
}

Case WithInputs(caffe2::NetDef net, const std::vector<std::pair<std::string, Tensor>>& inputs,
                const std::vector<std::string>& outputs) {
  Case c;
  c.set_seed(3);
  for (const auto& [name, tensor] : inputs) {
    *c.add_inputs() = TensorToProto(tensor, name);
    net.add_external_input(name);
  }
  for (const auto& y : outputs) net.add_external_output(y);
  *c.mutable_net() = net;
  return c;
}

// Positive values, so Relu passes them through and the kernel's +1 is the only difference.
Tensor Positive(const std::vector<int64_t>& dims, uint32_t seed) {
  return RandomTensor(dims, seed, 0.5f, 1.5f);
}

TEST(SubnetLocalize, NamesTheOpInsideTheBranchAnIfTook) {
  for (const bool cond : {true, false}) {
    const caffe2::NetDef then_net =
        Net("then", {MakeOp("Mul", {"x", "w"}, {"h"}), MakeOp("Relu", {"h"}, {"y"})});
    const caffe2::NetDef else_net =
        Net("else", {MakeOp("Add", {"x", "w"}, {"h"}), MakeOp("Sqr", {"h"}, {"s"}),
                     MakeOp("Relu", {"s"}, {"y"})});
    caffe2::OperatorDef op = MakeOp("If", {"cond", "x", "w"}, {"y", "h"});
    op = WithNet(WithNet(op, "then_net", then_net), "else_net", else_net);
    const Case c = WithInputs(Net("main", {MakeOp("Sigmoid", {"a"}, {"x"}), op}),
                              {{"a", Positive({2, 3}, 1)},
                               {"w", Positive({2, 3}, 2)},
                               {"cond", MakeTensor<bool>({1}, {cond})}},
                              {"y"});
    const Finding f = ForwardFinding(c);
    EXPECT_EQ(f.blamed_op_path(),
              cond ? "op #1 (If) / then op #1 (Relu)" : "op #1 (If) / else op #2 (Relu)")
        << f.message();
    EXPECT_EQ(f.blamed_op_type(), "Relu");
    EXPECT_EQ(f.blamed_op_index(), 1);
  }
}

TEST(SubnetLocalize, NamesTheOpInsideADoInsideAWhile) {
  // x <- Relu(x * w) twice: While(cond) { Do(x, w) { xin = Copy(x); m = Mul(xin, w);
  // x = Relu(m) } }.
  const caffe2::NetDef body =
      Net("body", {MakeOp("Copy", {"a0"}, {"xin"}), MakeOp("Mul", {"xin", "a2"}, {"m"}),
                   MakeOp("Relu", {"m"}, {"a0"})});
  caffe2::OperatorDef do_op = MakeOp("Do", {"x", "w", "ws"}, {"x", "ws"});
  do_op = WithNet(do_op, "net", body);
  caffe2::Argument* inner = do_op.add_arg();
  inner->set_name("inner_blobs");
  inner->add_strings("a0");
  inner->add_strings("a2");
  caffe2::Argument* index = do_op.add_arg();
  index->set_name("outer_blobs_idx");
  index->add_ints(0);
  index->add_ints(1);
  caffe2::OperatorDef loop =
      MakeOp("While", {"cond", "x", "w", "ws", "i", "k", "one"}, {"x", "ws", "i", "cond"});
  loop = WithNet(loop, "loop_net", Net("loop", {do_op}));
  loop = WithNet(
      loop, "cond_net",
      Net("cond", {MakeOp("Add", {"i", "one"}, {"i"}), MakeOp("LE", {"i", "k"}, {"cond"})}));
  const Case c = WithInputs(Net("main", {MakeOp("CreateScope", {}, {"ws"}), loop}),
                            {{"x", Positive({3}, 3)},
                             {"w", Positive({3}, 4)},
                             {"cond", MakeTensor<bool>({1}, {true})},
                             {"i", MakeTensor<int32_t>({1}, {0})},
                             {"k", MakeTensor<int32_t>({1}, {2})},
                             {"one", MakeTensor<int32_t>({1}, {1})}},
                            {"x"});
  const Finding f = ForwardFinding(c);
  EXPECT_EQ(f.blamed_op_path(), "op #1 (While) / loop op #0 (Do) / body op #2 (Relu)")
      << f.message();
  EXPECT_EQ(f.blamed_op_type(), "Relu");
}

TEST(SubnetLocalize, NamesTheStepOpOfARecurrentNetwork) {
  // o_t = Relu(x_t * o_{t-1}) + x_t.
  caffe2::NetDef net;
  net.set_name("main");
  const RecurrentNetOutputs out =
      AddCellRnn(&net, {MakeOp("Mul", {"input_t", "o_prev"}, {"p"}), MakeOp("Relu", {"p"}, {"r"}),
                        MakeOp("Add", {"r", "input_t"}, {"o"})});
  const Case c = WithInputs(net, {{"x", Positive({3, 2, 2}, 5)}, {"o_init", Positive({2}, 6)}},
                            {out.outputs[0]});
  const Finding f = ForwardFinding(c);
  EXPECT_EQ(f.blamed_op_path(), "op #0 (RecurrentNetwork) / step op #1 (Relu)") << f.message();
  EXPECT_EQ(f.blamed_op_type(), "Relu");
}

// A divergence that is the op's own (its body's ops are all right at their inputs) stays on it.
TEST(SubnetLocalize, BodyCaseOfAnIfFeedsWhatTheBranchReads) {
  const caffe2::NetDef then_net = Net("then", {MakeOp("Mul", {"x", "w"}, {"y"})});
  const caffe2::OperatorDef op =
      WithNet(MakeOp("If", {"cond", "x", "w"}, {"y"}), "then_net", then_net);
  oracles::Blobs before = {{"cond", TensorToProto(MakeTensor<bool>({1}, {true}), "cond")},
                           {"x", TensorToProto(RandomTensor({2}, 1), "x")},
                           {"w", TensorToProto(RandomTensor({2}, 2), "w")}};
  std::string label;
  const std::optional<Case> body = oracles::BodyCase(op, before, 1, &label);
  ASSERT_TRUE(body.has_value());
  EXPECT_EQ(label, "then");
  ASSERT_EQ(body->inputs_size(), 2);
  EXPECT_EQ(body->inputs(0).name(), "x");
  EXPECT_EQ(body->inputs(1).name(), "w");
  // Not taken: an If without else has no body to look into.
  before["cond"] = TensorToProto(MakeTensor<bool>({1}, {false}), "cond");
  EXPECT_FALSE(oracles::BodyCase(op, before, 1, &label).has_value());
}

}  // namespace
}  // namespace parity::testing
