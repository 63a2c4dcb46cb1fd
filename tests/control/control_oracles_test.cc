// The oracles through control flow: a While whose body is a Do (x <- x * w, 3 passes), checked by
// every default oracle against the reference (forward values; gradients of the generated gradient
// While / gradient Do against finite differences of the reference's forward run); and the While
// spec's loop bodies that nest an If (While > Do > If), through every oracle.
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/tensor_proto.h"
#include "fuzz/generators.h"
#include "fuzz/spec.h"
#include "oracles/backend.h"
#include "oracles/check.h"
#include "oracles/tolerance.h"
#include "tests/control/control_util.h"

namespace parity::oracles {
namespace {

Case LoadCase(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  Case c;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text.str(), &c)) << path;
  return c;
}

// copy_external_blobs (Caffe2's add_while_op sets it on loop bodies): after its run the forward
// Do's workspace keeps copies of its bound blobs, and the gradient Do that pops it reads those,
// not what the outer blobs hold by then. Here the outer x is scaled by 10 between the two Dos; the
// gradient Do copies what its inner `a` names into `seen`. Both engines, both settings.
TEST(ControlOracles, CopyExternalBlobsKeepsTheForwardValuesForTheGradientDo) {
  using ::parity::testing::MakeDo;
  using ::parity::testing::MakeOp;
  using ::parity::testing::MakeTensor;
  using ::parity::testing::Net;
  for (const bool copy : {false, true}) {
    caffe2::OperatorDef forward = MakeDo({"x"}, {"y"}, {"a"}, {"out"}, "ws",
                                         Net("square", {MakeOp("Mul", {"a", "a"}, {"out"})}));
    caffe2::Argument* arg = forward.add_arg();
    arg->set_name("copy_external_blobs");
    arg->set_i(copy ? 1 : 0);
    caffe2::OperatorDef gradient =
        MakeDo({"x"}, {"seen"}, {"a"}, {"s"}, "ws", Net("look", {MakeOp("Copy", {"a"}, {"s"})}));
    gradient.set_is_gradient_op(true);
    Case c;
    *c.mutable_net() = Net("n", {MakeOp("CreateScope", {}, {"ws"}), forward,
                                 MakeOp("Scale", {"x"}, {"x"}, {{"scale", 10.0f}}), gradient});
    c.mutable_net()->add_external_output("y");
    c.mutable_net()->add_external_output("seen");
    *c.add_inputs() = TensorToProto(MakeTensor<float>({3}, {1, -2, 3}), "x");
    for (const char* engine : {kProduction, kReference}) {
      const BackendRun run = GetBackend(engine).Run(c);
      ASSERT_FALSE(run.error) << engine << ": " << run.error->what();
      EXPECT_EQ(ProtoValues(run.blobs.at("y")), (std::vector<double>{1, 4, 9})) << engine;
      EXPECT_EQ(ProtoValues(run.blobs.at("seen")),
                copy ? (std::vector<double>{1, -2, 3}) : (std::vector<double>{10, -20, 30}))
          << engine << (copy ? " with" : " without") << " copy_external_blobs";
    }
  }
}

TEST(ControlOracles, EveryDefaultOracleChecksAWhileOfDos) {
  const Case c = LoadCase("tests/control/data/power_while_case.pbtxt");
  const CaseReport report = CheckCase(c);
  for (const auto& verdict : report.verdicts()) {
    // The graph transforms keep ops with sub-nets (and what they may read) as they are: no pass
    // has anything to rewrite in this net.
    if (verdict.oracle() == "transform") {
      EXPECT_EQ(verdict.status(), OracleVerdict::NOT_APPLICABLE) << verdict.DebugString();
      EXPECT_EQ(verdict.reason(), "no pass changes this net");
      continue;
    }
    // No cell builder made this net: the builder oracle has nothing to hold it to.
    if (verdict.oracle() == "builder") {
      EXPECT_EQ(verdict.status(), OracleVerdict::NOT_APPLICABLE) << verdict.DebugString();
      continue;
    }
    // Where a GPU is present the device oracle joins: the While, its Do body and the int32
    // counter's Add and LE run on the device, judged like everything else.
    EXPECT_EQ(verdict.status(), OracleVerdict::OK)
        << verdict.oracle() << ": " << verdict.reason() << verdict.finding().message();
  }
  EXPECT_EQ(report.verdicts_size(), static_cast<int>(DefaultOracles().size()));
}

const caffe2::OperatorDef* FindWhile(const Case& c) {
  for (const auto& op : c.net().op()) {
    if (op.type() == "While") return &op;
  }
  return nullptr;
}

// The If inside a While's body Do, if the While spec drew one.
const caffe2::OperatorDef* NestedIf(const Case& c) {
  for (const auto& op : c.net().op()) {
    if (op.type() != "While") continue;
    for (const auto& arg : op.arg()) {
      if (arg.name() != "loop_net") continue;
      for (const auto& body_arg : arg.n().op(0).arg()) {
        if (body_arg.name() != "net") continue;
        for (const auto& inner : body_arg.n().op()) {
          if (inner.type() == "If") return &inner;
        }
      }
    }
  }
  return nullptr;
}

TEST(ControlOracles, NestedIfInsideAWhileBodyPassesEveryOracle) {
  const fuzz::OpSpec& spec = *fuzz::SpecRegistry::Find("While");
  int nested = 0, gradient_checked = 0, both_branches[2] = {0, 0};
  for (uint64_t seed = 1; seed <= 90 && nested < 24; ++seed) {
    const Case c = fuzz::SampleCase(fuzz::OpCaseGen(spec), seed);
    const caffe2::OperatorDef* branch = NestedIf(c);
    if (branch == nullptr) continue;
    ++nested;
    // Its condition is a bool input of the case (bound into the Do), drawn either way.
    for (const auto& input : c.inputs()) {
      if (input.data_type() == caffe2::TensorProto::BOOL && input.int32_data_size() == 1 &&
          input.name() != FindWhile(c)->input(0)) {
        both_branches[input.int32_data(0) != 0]++;
      }
    }
    EXPECT_TRUE(branch->input_size() >= 2 && branch->output(0) == "res")
        << branch->ShortDebugString();
    const CaseReport report = CheckCase(c);
    for (const auto& verdict : report.verdicts()) {
      EXPECT_NE(verdict.status(), OracleVerdict::FINDING)
          << "seed " << seed << ": " << verdict.finding().message() << "\n"
          << c.net().ShortDebugString();
      if (verdict.oracle() == "gradient" && verdict.status() == OracleVerdict::OK) {
        ++gradient_checked;
      }
    }
  }
  EXPECT_GE(nested, 15);
  EXPECT_GE(gradient_checked, nested / 2);
  EXPECT_GT(both_branches[0], 0);
  EXPECT_GT(both_branches[1], 0);
}

}  // namespace
}  // namespace parity::oracles
