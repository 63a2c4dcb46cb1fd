// The per-thread record of running ops (core/running_op.h) that crash reports read: a kernel sees
// itself and the op whose sub-net runs it; after an exception escapes, the ops it left are
// remembered, outermost first, until the next exception starts a new record.
#include "core/running_op.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/operator.h"
#include "core/workspace.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

std::vector<std::string> g_seen;  // what the probing kernel saw, innermost first

// A Relu that records the running-op chain, then throws when asked (its first element is < 0).
class ProbingRelu final : public Operator {
 public:
  using Operator::Operator;
  void Run() override {
    g_seen.clear();
    for (const RunningOp* op = CurrentRunningOp(); op != nullptr; op = op->outer) {
      g_seen.push_back("#" + std::to_string(op->index) + " " + op->def->type());
    }
    if (Input(0).data<float>()[0] < 0) {
      PARITY_ENFORCE(false, ErrorKind::kBadArgument, "probe asked to fail");
    }
    RunDefaultKernel(def(), workspace());
  }
};
PARITY_REGISTER_CPU_OPERATOR_WITH_ENGINE(Relu, "RUNNING_OP_PROBE", ProbingRelu);

caffe2::OperatorDef Op(const std::string& type, const std::string& in, const std::string& out) {
  caffe2::OperatorDef op;
  op.set_type(type);
  op.add_input(in);
  op.add_output(out);
  return op;
}

// X -> Copy -> Y, CreateScope, Do { Y -> Relu(probe) -> Z } -> Z
caffe2::NetDef DoNet() {
  caffe2::NetDef body;
  caffe2::OperatorDef relu = Op("Relu", "Y", "Z");
  relu.set_engine("RUNNING_OP_PROBE");
  *body.add_op() = relu;
  body.add_external_input("Y");
  body.add_external_output("Z");
  caffe2::NetDef net;
  *net.add_op() = Op("Copy", "X", "Y");
  caffe2::OperatorDef* scope = net.add_op();
  scope->set_type("CreateScope");
  scope->add_output("scope");
  caffe2::OperatorDef* run = net.add_op();
  run->set_type("Do");
  run->add_input("Y");
  run->add_input("scope");
  run->add_output("Z");
  run->add_output("scope");
  caffe2::Argument* arg = run->add_arg();
  arg->set_name("net");
  *arg->mutable_n() = body;
  arg = run->add_arg();
  arg->set_name("inner_blobs");
  arg->add_strings("Y");
  arg->add_strings("Z");
  arg = run->add_arg();
  arg->set_name("outer_blobs_idx");
  arg->add_ints(0);
  arg->add_ints(1);
  return net;
}

void Feed(Workspace* ws, float first) {
  Tensor* x = ws->CreateBlob("X")->GetMutableTensor();
  x->Resize({2});
  x->mutable_data<float>()[0] = first;
  x->mutable_data<float>()[1] = 1;
}

TEST(RunningOp, AKernelSeesItselfAndTheOpWhoseSubNetRunsIt) {
  Workspace ws;
  Feed(&ws, 1);
  ws.RunNetOnce(DoNet());
  EXPECT_EQ(g_seen, (std::vector<std::string>{"#0 Relu", "#2 Do"}));
  EXPECT_EQ(CurrentRunningOp(), nullptr) << "nothing runs once the net is done";
}

TEST(RunningOp, AnEscapingExceptionLeavesTheOpsItUnwoundOutermostFirst) {
  ClearUnwoundOps();
  Workspace ws;
  Feed(&ws, -1);
  EXPECT_THROW(ws.RunNetOnce(DoNet()), Error);
  const UnwoundOps& ops = LastUnwoundOps();
  ASSERT_EQ(ops.depth, 2);
  EXPECT_EQ(ops.index[0], 2);
  EXPECT_STREQ(ops.type[0], "Do");
  EXPECT_EQ(ops.index[1], 0);
  EXPECT_STREQ(ops.type[1], "Relu");
  EXPECT_EQ(CurrentRunningOp(), nullptr);

  // The next exception starts a record of its own: the failing op is now at the top level.
  caffe2::NetDef flat;
  caffe2::OperatorDef relu = Op("Relu", "X", "W");
  relu.set_engine("RUNNING_OP_PROBE");
  *flat.add_op() = Op("Copy", "X", "V");
  *flat.add_op() = relu;
  EXPECT_THROW(ws.RunNetOnce(flat), Error);
  ASSERT_EQ(LastUnwoundOps().depth, 1);
  EXPECT_EQ(LastUnwoundOps().index[0], 1);
  EXPECT_STREQ(LastUnwoundOps().type[0], "Relu");
}

}  // namespace
}  // namespace parity::testing
