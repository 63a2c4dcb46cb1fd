// The RecurrentNetwork spec reaches each family it describes (fuzz/specs/recurrent.cc) — random
// chains as step nets, L > 1 initial steps, windows over the latest states, forward-only ops —
// and every default oracle passes on them; the gradient oracle says why a forward-only op has no
// gradient instead of reporting one.
#include <gtest/gtest.h>

#include <set>

#include "fuzz/generators.h"
#include "oracles/check.h"

namespace parity::fuzz {
namespace {

const caffe2::Argument* FindArg(const caffe2::OperatorDef& op, const std::string& name) {
  for (const auto& arg : op.arg()) {
    if (arg.name() == name) return &arg;
  }
  return nullptr;
}

// The ops of the step net that are not Caffe2's test cells (Sum, Mul, Add, Tanh) or the windowed
// family's fixed ops (ReduceSum, Sum).
std::set<std::string> DrawnStepOps(const caffe2::OperatorDef& rnn) {
  std::set<std::string> drawn;
  for (const auto& op : FindArg(rnn, "step_net")->n().op()) drawn.insert(op.type());
  for (const char* fixed : {"Sum", "Mul", "Add", "Tanh", "ReduceSum"}) drawn.erase(fixed);
  return drawn;
}

TEST(RecurrentSpec, ReachesEveryFamilyAndPassesEveryOracle) {
  const OpSpec& spec = *SpecRegistry::Find("RecurrentNetwork");
  int forward_only = 0, windows = 0, initial_steps = 0, recomputed = 0;
  std::set<std::string> drawn_ops;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    const Case c = SampleCase(OpCaseGen(spec), seed);
    const caffe2::OperatorDef& rnn = c.net().op(0);
    for (const std::string& type : DrawnStepOps(rnn)) drawn_ops.insert(type);
    const bool is_forward_only = FindArg(rnn, "backward_step_net") == nullptr;
    forward_only += is_forward_only;
    if (const caffe2::Argument* window = FindArg(rnn, "link_window")) {
      windows += window->ints(0) > 1;
    }
    initial_steps += c.inputs(1).dims_size() == 3 && c.inputs(1).dims(0) > 1;
    if (const caffe2::Argument* r = FindArg(rnn, "recompute_blobs_on_backward")) {
      recomputed += r->strings_size() > 0;
    }

    const CaseReport report = oracles::CheckCase(c, {});
    for (const auto& verdict : report.verdicts()) {
      EXPECT_TRUE(verdict.status() != OracleVerdict::FINDING &&
                  verdict.status() != OracleVerdict::REJECTED)
          << "seed " << seed << ": " << verdict.finding().message() << verdict.reason() << "\n"
          << c.DebugString();
      if (verdict.oracle() == "gradient" && is_forward_only) {
        EXPECT_EQ(verdict.status(), OracleVerdict::NOT_APPLICABLE);
        EXPECT_NE(verdict.reason().find("forward-only"), std::string::npos) << verdict.reason();
      }
      if (verdict.oracle() == "gradient" && !is_forward_only) {
        EXPECT_NE(verdict.status(), OracleVerdict::NOT_APPLICABLE)
            << "seed " << seed << ": " << verdict.reason();
      }
    }
  }
  EXPECT_GT(forward_only, 0);
  EXPECT_GT(windows, 0);
  EXPECT_GT(initial_steps, 0);
  EXPECT_GT(recomputed, 0);
  EXPECT_GE(drawn_ops.size(), 3u) << "random step nets draw ops from the other specs";
}

// In generated nets: RecurrentNetwork takes intermediates, its outputs feed later ops, no op writes
// them in place (they are views of one state tensor), and every oracle passes.
TEST(RecurrentSpec, JoinsGeneratedNetsWithoutInPlaceWritesToItsViews) {
  NetGenOptions options;
  options.ops = {"RecurrentNetwork", "Relu", "Tanh", "If", "While", "Transpose", "ExpandDims"};
  int placed = 0, consumed = 0;
  for (uint64_t seed = 1; seed <= 150; ++seed) {
    std::optional<Case> c = TrySampleCase(NetCaseGen(options), seed);
    if (!c) continue;
    std::set<std::string> views;
    bool has_rnn = false;
    for (const auto& op : c->net().op()) {
      for (const std::string& in : op.input()) consumed += views.count(in) > 0;
      for (const std::string& out : op.output()) {
        EXPECT_EQ(views.count(out), 0u)
            << "seed " << seed << ": " << op.type() << " writes view '" << out << "' in place\n"
            << c->net().DebugString();
      }
      if (op.type() != "RecurrentNetwork") continue;
      has_rnn = true;
      for (int j = 0; j + 1 < op.output_size(); ++j) views.insert(op.output(j));
    }
    placed += has_rnn && c->net().op(0).type() != "RecurrentNetwork";
    if (!has_rnn) continue;
    const CaseReport report = oracles::CheckCase(*c, {});
    for (const auto& verdict : report.verdicts()) {
      EXPECT_TRUE(verdict.status() != OracleVerdict::FINDING &&
                  verdict.status() != OracleVerdict::REJECTED)
          << "seed " << seed << " " << verdict.oracle() << ": " << verdict.finding().message()
          << verdict.reason() << "\n"
          << c->DebugString();
    }
  }
  EXPECT_GT(placed, 0) << "no RecurrentNetwork took an intermediate";
  EXPECT_GT(consumed, 0) << "no op read a RecurrentNetwork output";
}

}  // namespace
}  // namespace parity::fuzz
