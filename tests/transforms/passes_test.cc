// The graph transforms on the seed's own examples (rename with and without from_producer, dead
// ends, both SSA renaming schemes, CSE), the contract verifier, and the transform oracle finding a
// broken pass.
#include <gtest/gtest.h>

#include <cmath>

#include "core/tensor_proto.h"
#include "core/transforms/export.h"
#include "core/transforms/pass.h"
#include "core/transforms/rename.h"
#include "oracles/check.h"
#include "tests/mutants/mutants.h"
#include "tests/test_util.h"
#include "tests/transforms/transform_test_util.h"

namespace parity::testing {
namespace {

using transforms::TransformedNet;

// init: w; predict: h = Relu(x); y = Mul(h, w); z = Sigmoid(h).
TransformedNet SeedLikeNets() {
  TransformedNet t;
  *t.init.add_op() =
      transforms::ConstantFillOf(TensorToProto(MakeTensor<float>({2}, {1, -2}), "w"));
  t.init.add_external_output("w");
  *t.predict.add_op() = MakeOp("Relu", {"x"}, {"h"});
  *t.predict.add_op() = MakeOp("Mul", {"h", "w"}, {"y"});
  *t.predict.add_op() = MakeOp("Sigmoid", {"h"}, {"z"});
  t.predict.add_external_input("x");
  t.predict.add_external_input("w");
  t.predict.add_external_output("y");
  t.predict.add_external_output("z");
  return t;
}

TEST(Rename, AnInputFromTheInitNetIsRenamedThereToo) {
  TransformedNet t = SeedLikeNets();
  transforms::RenameOpInput(&t.predict, &t.init, 1, 1, "weight");
  EXPECT_EQ(t.predict.op(1).input(1), "weight");
  EXPECT_EQ(t.predict.external_input(1), "weight");
  EXPECT_EQ(t.init.op(0).output(0), "weight");
  EXPECT_EQ(t.init.external_output(0), "weight");
}

TEST(Rename, AnInputReadByOtherOpsIsRefusedWithTheSeedsText) {
  TransformedNet t = SeedLikeNets();
  const TransformedNet before = t;
  ExpectError([&] { transforms::RenameOpInput(&t.predict, &t.init, 1, 0, "h2"); },
              ErrorKind::kIllegalTransform,
              {"Input 'h' of operator(#1) are consumed by other ops, please use rename_op_output "
               "on the producer instead"});
  EXPECT_EQ(t.predict.SerializeAsString(), before.predict.SerializeAsString());
}

TEST(Rename, FromProducerRenamesTheProducersOutputAndEveryReader) {
  TransformedNet t = SeedLikeNets();
  transforms::RenameOpInput(&t.predict, &t.init, 1, 0, "hidden", /*from_producer=*/true);
  EXPECT_EQ(t.predict.op(0).output(0), "hidden");
  EXPECT_EQ(t.predict.op(1).input(0), "hidden");
  EXPECT_EQ(t.predict.op(2).input(0), "hidden");
  ExpectError([&] { transforms::RenameOpInput(&t.predict, &t.init, 1, 1, "v", true); },
              ErrorKind::kIllegalTransform,
              {"Can't find producer, the input w is probably from init_net"});
}

TEST(Rename, AnOutputRenamesTheExternalOutputAtItsLastVersion) {
  TransformedNet t = SeedLikeNets();
  transforms::RenameOpOutput(&t.predict, 2, 0, "gate");
  EXPECT_EQ(t.predict.op(2).output(0), "gate");
  EXPECT_EQ(t.predict.external_output(1), "gate");
}

TEST(Passes, RemoveDeadEndOpsKeepsWhatTheExternalOutputsNeed) {
  TransformedNet t = SeedLikeNets();
  *t.predict.add_op() = MakeOp("Tanh", {"h"}, {"unused"});  // read by nobody
  *t.predict.add_op() = MakeOp("Exp", {"x"}, {"y"});        // overwrites y: the Mul is dead
  const TransformedNet out = transforms::ApplyPasses(t, {"remove_dead_end_ops"});
  std::vector<std::string> types;
  for (const auto& op : out.predict.op()) types.push_back(op.type());
  EXPECT_EQ(types, (std::vector<std::string>{"Relu", "Sigmoid", "Exp"}));
}

TEST(Passes, SsaRewriteSuffixesEveryVersion) {
  TransformedNet t = SeedLikeNets();
  *t.predict.add_op() = MakeOp("Relu", {"y"}, {"y"});
  const TransformedNet out = transforms::ApplyPasses(t, {"ssa_rewrite"});
  EXPECT_EQ(out.init.op(0).output(0), "w_0");
  EXPECT_EQ(out.predict.op(1).input(0), "h_1");
  EXPECT_EQ(out.predict.op(1).input(1), "w_0");
  EXPECT_EQ(out.predict.op(3).input(0), "y_1");
  EXPECT_EQ(out.predict.op(3).output(0), "y_2");
  EXPECT_EQ(out.predict.external_output(0), "y_2");
  EXPECT_EQ(out.renamed_inputs.at("x"), "x_0");
  EXPECT_EQ(out.renamed_outputs.at("y"), "y_2");
}

TEST(Passes, SsaRewriteMinimalSuffixesOnlyBlobsWithSeveralVersions) {
  TransformedNet t = SeedLikeNets();
  *t.predict.add_op() = MakeOp("Relu", {"y"}, {"y"});
  const TransformedNet out = transforms::ApplyPasses(t, {"ssa_rewrite_minimal"});
  EXPECT_EQ(out.predict.op(0).output(0), "h");  // one version
  EXPECT_EQ(out.predict.op(1).output(0), "y_1");
  EXPECT_EQ(out.predict.op(3).output(0), "y_2");
  EXPECT_EQ(out.predict.external_input(0), "x");
  EXPECT_EQ(out.renamed_outputs.at("y"), "y_2");
  EXPECT_TRUE(out.renamed_inputs.empty());
}

// h = Relu(x); x = Sigmoid(h): the net overwrites its own input, which is also its output.
TransformedNet OverwritesItsInput() {
  TransformedNet t;
  *t.predict.add_op() = MakeOp("Relu", {"x"}, {"h"});
  *t.predict.add_op() = MakeOp("Sigmoid", {"h"}, {"x"});
  t.predict.add_external_input("x");
  t.predict.add_external_output("x");
  return t;
}

TEST(Passes, AnInputTheNetOverwritesIsRenamedApartFromItsLastVersion) {
  const TransformedNet t = OverwritesItsInput();
  const Tensor x = MakeTensor<float>({3}, {-1, 0.5, 2});
  const std::vector<double> expected = {0.5, 1 / (1 + std::exp(-0.5)), 1 / (1 + std::exp(-2.0))};
  // ssa_rewrite feeds x_0 and ends with x_1; the minimal scheme feeds x and ends with x_1.
  const TransformedNet full = transforms::ApplyPasses(t, {"ssa_rewrite"});
  EXPECT_EQ(full.renamed_inputs.at("x"), "x_0");
  EXPECT_EQ(full.renamed_outputs.at("x"), "x_1");
  const TransformedNet minimal = transforms::ApplyPasses(t, {"ssa_rewrite_minimal"});
  EXPECT_FALSE(minimal.renamed_inputs.count("x"));
  EXPECT_EQ(minimal.renamed_outputs.at("x"), "x_1");
  for (const TransformedNet* out : {&full, &minimal}) {
    const auto fed = out->renamed_inputs.count("x") ? out->renamed_inputs.at("x") : "x";
    const Tensor y = RunTransformed(*out, {{fed, x}}, out->renamed_outputs.at("x"));
    ASSERT_EQ(y.numel(), 3);
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(y.data<float>()[i], expected[i], 1e-6) << i;
  }
  // Both in one pipeline: the renamings compose, each map on its own.
  const TransformedNet both = transforms::ApplyPasses(t, {"ssa_rewrite_minimal", "ssa_rewrite"});
  EXPECT_EQ(both.renamed_inputs.at("x"), "x_0");
  EXPECT_EQ(both.renamed_outputs.at("x"), "x_1_1");  // a first write is version 1
}

TEST(Passes, SsaRewriteRefusesANameTakenByAnotherBlob) {
  TransformedNet t;
  *t.predict.add_op() = MakeOp("Relu", {"x"}, {"t"});
  *t.predict.add_op() = MakeOp("Relu", {"t"}, {"t"});
  *t.predict.add_op() = MakeOp("Sigmoid", {"x"}, {"t_1"});  // where t@1 would go
  t.predict.add_external_output("t");
  t.predict.add_external_output("t_1");
  ExpectError([&] { transforms::ApplyPasses(t, {"ssa_rewrite_minimal"}); },
              ErrorKind::kIllegalTransform,
              {"the name 't_1' for version 1 of 't' is taken by another blob"});
}

TEST(Passes, CseMergesOnlyTheSameComputation) {
  TransformedNet t;
  *t.predict.add_op() = MakeOp("Sigmoid", {"x"}, {"a"});
  *t.predict.add_op() = MakeOp("Sigmoid", {"x"}, {"b"});  // same as a
  caffe2::OperatorDef scale2 = MakeOp("Scale", {"x"}, {"c"});
  scale2.add_arg()->set_name("scale");
  scale2.mutable_arg(0)->set_f(2.0f);
  caffe2::OperatorDef scale3 = scale2;
  scale3.set_output(0, "d");
  scale3.mutable_arg(0)->set_f(3.0f);  // another argument: not the same
  *t.predict.add_op() = scale2;
  *t.predict.add_op() = scale3;
  *t.predict.add_op() = MakeOp("Add", {"b", "d"}, {"y"});
  t.predict.add_external_input("x");
  t.predict.add_external_output("y");
  t.predict.add_external_output("c");
  const TransformedNet out = transforms::ApplyPasses(t, {"cse"});
  ASSERT_EQ(out.predict.op_size(), 4);
  EXPECT_EQ(out.predict.op(3).type(), "Add");
  EXPECT_EQ(out.predict.op(3).input(0), "a");
  EXPECT_EQ(out.predict.op(3).input(1), "d");
}

TEST(Passes, CseNeverMergesRandomFills) {
  TransformedNet t;
  caffe2::OperatorDef fill = MakeOp("UniformFill", {}, {"u"});
  fill.add_arg()->set_name("shape");
  fill.mutable_arg(0)->add_ints(3);
  caffe2::OperatorDef again = fill;
  again.set_output(0, "v");
  *t.predict.add_op() = fill;
  *t.predict.add_op() = again;
  t.predict.add_external_output("u");
  t.predict.add_external_output("v");
  EXPECT_EQ(transforms::ApplyPasses(t, {"cse"}).predict.op_size(), 2);
}

TEST(Passes, AnUnknownPassIsBadArgumentAndAContractBreakIsInternal) {
  ExpectError([] { transforms::ApplyPasses(SeedLikeNets(), {"no_such_pass"}); },
              ErrorKind::kBadArgument, {"unknown pass 'no_such_pass'", "cse"});
  // dce that forgets the external outputs: the verifier names the pass.
  transforms::PassInfo broken = *transforms::PassRegistry::Find("dce");
  broken.run = [](TransformedNet* t) { t->predict.mutable_op()->RemoveLast(); };
  const transforms::PassInfo original = transforms::PassRegistry::Replace("dce", broken);
  ExpectError([] { transforms::ApplyPasses(SeedLikeNets(), {"dce"}); }, ErrorKind::kInternal,
              {"pass 'dce' broke its contract", "nothing writes the external output(s) 'z'"});
  transforms::PassRegistry::Replace("dce", original);
}

TEST(Passes, FuseReluMakesFusedOpsOnlyWhereTheReluAloneReadsTheProducer) {
  TransformedNet t;
  *t.predict.add_op() = MakeOp("FC", {"x", "w", "b"}, {"h"}, {{"axis", 1}});
  *t.predict.add_op() = MakeOp("Relu", {"h"}, {"y"});
  *t.predict.add_op() = MakeOp("Conv", {"img", "k"}, {"c"}, {{"kernel", 1}});
  *t.predict.add_op() = MakeOp("Relu", {"c"}, {"r"});
  *t.predict.add_op() = MakeOp("Sigmoid", {"c"}, {"s"});  // a second reader of c
  for (const char* out : {"y", "r", "s"}) t.predict.add_external_output(out);
  const TransformedNet after = transforms::ApplyPasses(t, {"fuse_relu"});
  ASSERT_EQ(after.predict.op_size(), 4);
  EXPECT_EQ(after.predict.op(0).type(), "FCRelu");
  EXPECT_EQ(after.predict.op(0).output(0), "y");
  EXPECT_EQ(after.predict.op(0).arg(0).name(), "axis");
  EXPECT_EQ(after.predict.op(1).type(), "Conv");

  // The fused net computes bit for bit what the pair did.
  const std::map<std::string, Tensor> feeds = {{"x", RandomTensor({3, 4}, 1)},
                                               {"w", RandomTensor({5, 4}, 2)},
                                               {"b", RandomTensor({5}, 3)},
                                               {"img", RandomTensor({1, 2, 3, 3}, 4)},
                                               {"k", RandomTensor({2, 2, 1, 1}, 5)}};
  const std::vector<float> unfused = Values<float>(RunTransformed(t, feeds, "y"));
  const std::vector<float> fused = Values<float>(RunTransformed(after, feeds, "y"));
  EXPECT_EQ(fused, unfused);
}

// A case for the transform oracle: two equal Sigmoids and two Scales that differ only in their
// argument, all read by the output.
Case CseCase() {
  Case c;
  caffe2::NetDef* net = c.mutable_net();
  *net->add_op() = MakeOp("Sigmoid", {"x"}, {"a"});
  *net->add_op() = MakeOp("Sigmoid", {"x"}, {"b"});
  caffe2::OperatorDef scale = MakeOp("Scale", {"a"}, {"c"});
  scale.add_arg()->set_name("scale");
  scale.mutable_arg(0)->set_f(2.0f);
  *net->add_op() = scale;
  scale.set_output(0, "d");
  scale.mutable_arg(0)->set_f(-3.0f);
  *net->add_op() = scale;
  *net->add_op() = MakeOp("Add", {"c", "d"}, {"y"});
  *net->add_op() = MakeOp("Add", {"y", "b"}, {"z"});
  net->add_external_input("x");
  net->add_external_output("z");
  *c.add_inputs() = TensorToProto(RandomTensor({3, 2}, 4), "x");
  c.set_seed(11);
  return c;
}

// Every pass is applied to a case whose net overwrites its input: the oracle feeds the input
// under its input name and fetches the output under its output name (they were one map, and the
// fed value went to the last version's name).
TEST(TransformOracle, ANetThatOverwritesItsInputIsFedAndFetchedByTheRightNames) {
  Case c;
  *c.mutable_net() = OverwritesItsInput().predict;
  *c.add_inputs() = TensorToProto(RandomTensor({3, 2}, 5), "x");
  c.set_seed(12);
  oracles::CheckRequest request;
  request.oracles = {"transform"};
  const OracleVerdict verdict = oracles::CheckCase(c, request).verdicts(0);
  EXPECT_EQ(verdict.status(), OracleVerdict::OK) << verdict.DebugString();
}

TEST(TransformOracle, PassesThatKeepTheOutputsAreOkAndABrokenOneIsFound) {
  oracles::CheckRequest request;
  request.oracles = {"transform"};
  const OracleVerdict right = oracles::CheckCase(CseCase(), request).verdicts(0);
  EXPECT_EQ(right.status(), OracleVerdict::OK) << right.DebugString();

  // A cse that ignores arguments merges the two Scales.
  OracleVerdict wrong;
  for (const mutants::Mutant& m : mutants::Catalogue()) {
    if (m.name != "CSE_IGNORES_ARGUMENTS") continue;
    mutants::MutantScope installed(m);
    wrong = oracles::CheckCase(CseCase(), request).verdicts(0);
  }
  ASSERT_EQ(wrong.status(), OracleVerdict::FINDING) << wrong.DebugString();
  EXPECT_EQ(wrong.finding().signature().blamed_op_type(), "pass cse");
  EXPECT_EQ(wrong.finding().signature().error_class(), "value mismatch");
  EXPECT_NE(wrong.finding().message().find("the net after: [Sigmoid Scale Add Add]"),
            std::string::npos)
      << wrong.finding().message();
}

}  // namespace
}  // namespace parity::testing
