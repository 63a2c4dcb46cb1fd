// The determinism oracle with threads on: nets of the ops split across threads (core/parallel.h)
// on tensors above the threshold, run with compare_threads = 2 and 3 (1 thread vs N, SimpleNet
// and DAG), give no finding; a kernel that splits one sum by team size is caught.
#include <gtest/gtest.h>

#include <string>

#include "core/operator.h"
#include "core/threads.h"
#include "oracles/backend.h"
#include "oracles/check.h"
#include "oracles/testing/op_checks.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

// ReduceSum over all of a 1-D input that sums one half per thread and adds the halves: its bits
// change with the thread count (what the intra-op split must never do).
class TeamSplitSum final : public Operator {
 public:
  using Operator::Operator;
  void Run() override {
    const Tensor& x = Input(0);
    const float* data = x.data<float>();
    const int parts = ComputeThreads() > 1 ? 2 : 1;
    float total = 0;
    for (int p = 0; p < parts; ++p) {
      float part = 0;
      for (int64_t i = x.numel() * p / parts; i < x.numel() * (p + 1) / parts; ++i) part += data[i];
      total += part;
    }
    Tensor* y = Output(0);
    y->Resize({1});
    y->mutable_data<float>()[0] = total;
  }
};
PARITY_REGISTER_CPU_OPERATOR_WITH_ENGINE(ReduceSum, "TEAM_SPLIT", TeamSplitSum);
PARITY_REGISTER_BACKEND(oracles::MakeProductionBackend(
    "team-split-sum", "TEAM_SPLIT", "ReduceSum whose sum is split by the compute threads"));

// Sets the calling thread's compute threads for a scope.
class ThreadsScope {
 public:
  explicit ThreadsScope(int threads) : previous_(ComputeThreads()) { SetComputeThreads(threads); }
  ~ThreadsScope() { SetComputeThreads(previous_); }

 private:
  int previous_;
};

// x [300, 1001] through every family split across threads, with two branches for the DAG:
// Tanh, a row broadcast Add, Softmax, LayerNorm, ReduceSum and ReduceMean, Gather, Sigmoid, Mul.
Case LargeNet() {
  Case c = oracles::SingleOpCase(MakeOp("Tanh", {"x"}, {"t"}),
                                 {{"x", RandomTensor({300, 1001}, 1, -3.0f, 3.0f)},
                                  {"row", RandomTensor({1001}, 2)},
                                  {"idx", MakeTensor<int64_t>({4}, {5, 299, -1, 0})}});
  caffe2::NetDef* net = c.mutable_net();
  *net->add_op() = MakeOp("Add", {"t", "row"}, {"a"});
  *net->add_op() = MakeOp("Softmax", {"a"}, {"s"});
  *net->add_op() = MakeOp("LayerNorm", {"x"}, {"n", "mean", "std"});
  *net->add_op() = MakeOp("ReduceSum", {"n"}, {"r"}, {{"axes", Ints{1}}});
  *net->add_op() = MakeOp("ReduceMean", {"s"}, {"m"}, {{"axes", Ints{0}}});
  *net->add_op() = MakeOp("Gather", {"n", "idx"}, {"g"});
  *net->add_op() = MakeOp("Sigmoid", {"s"}, {"sig"});
  *net->add_op() = MakeOp("Mul", {"sig", "n"}, {"p"});
  net->clear_external_output();
  for (const char* out : {"r", "m", "g", "p", "mean", "std"}) net->add_external_output(out);
  return c;
}

TEST(DeterminismThreadsTest, LargeNetsOfSplitOpsAreBitIdenticalOnOneAndManyThreads) {
  ThreadsScope scope(2);  // the oracle's own runs (twice, then DAG) with threads on as well
  const Case c = LargeNet();
  for (int threads : {2, 3}) {
    oracles::CheckRequest request;
    request.oracles = {"determinism"};
    request.compare_threads = threads;
    const CaseReport report = oracles::CheckCase(c, request);
    ASSERT_EQ(report.verdicts_size(), 1);
    EXPECT_EQ(report.verdicts(0).status(), OracleVerdict::OK)
        << threads << " threads: " << report.verdicts(0).ShortDebugString();
  }
}

TEST(DeterminismThreadsTest, AKernelThatSplitsOneSumByTeamSizeIsFound) {
  const Case c = oracles::SingleOpCase(MakeOp("ReduceSum", {"x"}, {"y"}),
                                       {{"x", RandomTensor({100003}, 3, -1.0f, 1.0f)}});
  oracles::CheckRequest request;
  request.oracles = {"determinism"};
  request.backend = "team-split-sum";
  {
    ThreadsScope scope(1);  // without compare_threads, one thread throughout: nothing to see
    const CaseReport report = oracles::CheckCase(c, request);
    EXPECT_EQ(report.verdicts(0).status(), OracleVerdict::OK)
        << report.verdicts(0).ShortDebugString();
  }
  request.compare_threads = 2;
  const CaseReport report = oracles::CheckCase(c, request);
  ASSERT_EQ(report.verdicts(0).status(), OracleVerdict::FINDING)
      << report.verdicts(0).ShortDebugString();
  EXPECT_NE(report.verdicts(0).finding().message().find("1 compute thread vs on 2"),
            std::string::npos)
      << report.verdicts(0).finding().message();
}

}  // namespace
}  // namespace parity::testing
