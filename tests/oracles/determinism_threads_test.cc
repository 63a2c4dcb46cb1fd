// The determinism oracle with threads on: nets of the ops split across threads (core/parallel.h)
// on tensors above the threshold, run with compare_threads = 2 and 3 (1 thread vs N, SimpleNet
// and DAG), give no finding; a kernel that splits one sum by team size is caught.
#include <gtest/gtest.h>

#include <string>

#include "core/operator.h"
#include "core/parallel.h"
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

// Relu through ParallelFor whose chunks after the first leave their first element unwritten: right
// on one thread, wrong once the work splits (a chunk-boundary bug only threads show).
class ChunkHeadDroppedRelu final : public Operator {
 public:
  using Operator::Operator;
  void Run() override {
    const Tensor& x = Input(0);
    Tensor* y = Output(0);
    y->Resize(x.dims());
    const float* in = x.data<float>();
    float* out = y->mutable_data<float>();
    for (int64_t i = 0; i < x.numel(); ++i) out[i] = 0.0f;
    ParallelFor(0, x.numel(), GrainFor(1), [&](int64_t begin, int64_t end) {
      for (int64_t i = begin == 0 ? begin : begin + 1; i < end; ++i) {
        out[i] = in[i] > 0 ? in[i] : 0.0f;
      }
    });
  }
};
PARITY_REGISTER_CPU_OPERATOR_WITH_ENGINE(Relu, "CHUNK_HEAD_DROPPED", ChunkHeadDroppedRelu);
PARITY_REGISTER_BACKEND(oracles::MakeProductionBackend(
    "chunk-head-dropped-relu", "CHUNK_HEAD_DROPPED",
    "Relu whose ParallelFor chunks after the first skip their first element"));

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

// Case.compute_threads (what the campaign draws for half its cases) splits ParallelFor's work on
// fuzz-sized tensors: the chunk bug above is then found by the forward oracle against the
// reference and by the determinism oracle against one thread; without it, one thread runs the
// kernel and nothing is wrong. The same case on the real Relu passes both.
TEST(DeterminismThreadsTest, ACasesComputeThreadsSplitSmallTensorsAndShowChunkBugs) {
  ThreadsScope scope(1);  // a fuzz worker's setting
  Case c = oracles::SingleOpCase(MakeOp("Relu", {"x"}, {"y"}),
                                 {{"x", RandomTensor({7, 13}, 4, 0.5f, 1.0f)}});
  oracles::CheckRequest request;
  request.oracles = {"forward", "determinism"};
  request.backend = "chunk-head-dropped-relu";
  CaseReport report = oracles::CheckCase(c, request);
  for (const auto& verdict : report.verdicts()) {
    EXPECT_EQ(verdict.status(), OracleVerdict::OK) << verdict.ShortDebugString();
  }
  c.set_compute_threads(3);
  report = oracles::CheckCase(c, request);
  ASSERT_EQ(report.verdicts_size(), 2);
  EXPECT_EQ(report.verdicts(0).status(), OracleVerdict::FINDING)
      << report.verdicts(0).ShortDebugString();
  ASSERT_EQ(report.verdicts(1).status(), OracleVerdict::FINDING)
      << report.verdicts(1).ShortDebugString();
  EXPECT_NE(report.verdicts(1).finding().message().find(
                "SimpleNet on 1 thread vs its work split over 3 threads"),
            std::string::npos)
      << report.verdicts(1).finding().message();
  request.backend = "production";
  report = oracles::CheckCase(c, request);
  for (const auto& verdict : report.verdicts()) {
    EXPECT_EQ(verdict.status(), OracleVerdict::OK) << verdict.ShortDebugString();
  }
}

}  // namespace
}  // namespace parity::testing
