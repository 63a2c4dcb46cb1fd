// The SSA view (core/transforms/ssa.h) on nets whose Caffe2 get_ssa results are worked out by hand
// from core.py's rules, and `parity ssa --json` printing exactly Caffe2's result.
#include "core/transforms/ssa.h"

#include <gtest/gtest.h>

#include "core/io.h"
#include "tests/cli/cli_util.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

using transforms::VersionedBlob;

// y = FC(x, w, b); Relu in place; z = Add(y, x).
caffe2::NetDef FcReluAdd(bool declare_inputs) {
  caffe2::NetDef net;
  *net.add_op() = MakeOp("FC", {"x", "w", "b"}, {"y"});
  *net.add_op() = MakeOp("Relu", {"y"}, {"y"});
  *net.add_op() = MakeOp("Add", {"y", "x"}, {"z"});
  if (declare_inputs) {
    net.add_external_input("x");
    net.add_external_input("w");
  }
  net.add_external_output("z");
  return net;
}

TEST(Ssa, VersionsFollowCaffe2) {
  const transforms::Ssa ssa = transforms::GetSsa(FcReluAdd(true));
  ASSERT_EQ(ssa.ops.size(), 3u);
  EXPECT_EQ(ssa.ops[0].inputs, (std::vector<VersionedBlob>{{"x", 0}, {"w", 0}, {"b", 0}}));
  EXPECT_EQ(ssa.ops[0].outputs, (std::vector<VersionedBlob>{{"y", 1}}));
  // In place: reads version 1, writes version 2.
  EXPECT_EQ(ssa.ops[1].inputs, (std::vector<VersionedBlob>{{"y", 1}}));
  EXPECT_EQ(ssa.ops[1].outputs, (std::vector<VersionedBlob>{{"y", 2}}));
  EXPECT_EQ(ssa.ops[2].inputs, (std::vector<VersionedBlob>{{"y", 2}, {"x", 0}}));
  // With external inputs declared, the undeclared b is read at 0 but never enters the dict.
  EXPECT_EQ(ssa.versions.order(), (std::vector<std::string>{"x", "w", "y", "z"}));
  EXPECT_FALSE(ssa.versions.Contains("b"));
  EXPECT_EQ(transforms::GetUndefinedBlobs(ssa), (std::set<std::string>{"b", "w", "x"}));
}

TEST(Ssa, WithoutExternalInputsEveryReadBlobEntersTheDictInOrder) {
  const transforms::Ssa ssa = transforms::GetSsa(FcReluAdd(false));
  EXPECT_EQ(ssa.versions.order(), (std::vector<std::string>{"x", "w", "b", "y", "z"}));
  EXPECT_EQ(ssa.versions.Get("y"), 2);
}

TEST(Ssa, StartingVersionsAndABlobWrittenTwiceByOneOp) {
  caffe2::NetDef net;
  *net.add_op() = MakeOp("Split", {"x"}, {"a", "a"});
  transforms::BlobVersions init;
  init.Set("x", 1);  // an init net wrote it once
  const transforms::Ssa ssa = transforms::GetSsa(net, init);
  EXPECT_EQ(ssa.ops[0].inputs, (std::vector<VersionedBlob>{{"x", 1}}));
  // Both outputs are bumped before either is recorded: both show the final version.
  EXPECT_EQ(ssa.ops[0].outputs, (std::vector<VersionedBlob>{{"a", 2}, {"a", 2}}));
}

TEST(Ssa, ProducersConsumersAndPaths) {
  const transforms::Ssa ssa = transforms::GetSsa(FcReluAdd(true));
  const auto producers = transforms::GetProducerMap(ssa);
  EXPECT_EQ(producers.at({"y", 2}), (transforms::OpSlot{1, 0}));
  EXPECT_EQ(producers.count({"x", 0}), 0u);
  const auto consumers = transforms::GetConsumerMap(ssa);
  EXPECT_EQ(consumers.at({"x", 0}), (std::vector<transforms::OpSlot>{{0, 0}, {2, 1}}));
  // z from y (at its last version): only the Add; from nothing: all three.
  EXPECT_EQ(transforms::GetOpIdsInPath(ssa, {"y"}, {"z"}), (std::vector<int>{2}));
  EXPECT_EQ(transforms::GetOpIdsInPath(ssa, {}, {"z"}), (std::vector<int>{0, 1, 2}));
}

TEST(Ssa, SubGraphBoundary) {
  const caffe2::NetDef net = FcReluAdd(true);
  const auto boundary = transforms::GetSubGraphExternalInputOutput(net, {0, 1});
  EXPECT_EQ(boundary.inputs, (std::vector<VersionedBlob>{{"x", 0}, {"w", 0}, {"b", 0}}));
  // y@1 is read only inside; y@2 by the Add outside.
  EXPECT_EQ(boundary.outputs, (std::vector<VersionedBlob>{{"y", 2}}));
}

TEST(Ssa, CommandPrintsCaffe2sJson) {
  caffe2::NetDef net = FcReluAdd(true);
  const std::string path = TestTmp() + "/fc_relu_add.pbtxt";
  SaveNetDef(path, net);
  const CliResult json = RunCli("tools/parity", "ssa --json " + path);
  ASSERT_EQ(json.exit_code, 0) << json.output;
  EXPECT_EQ(json.output, R"({"ssa":[[[["x",0],["w",0],["b",0]],[["y",1]]],[[["y",1]],[["y",2]]],)"
                         R"([[["y",2],["x",0]],[["z",1]]]],"versions":{"x":0,"w":0,"y":2,"z":1}})"
                         "\n");
  const CliResult text = RunCli("tools/parity", "ssa " + path);
  EXPECT_TRUE(Contains(text.output, "#1 Relu (y@1) -> (y@2)")) << text.output;
  EXPECT_TRUE(Contains(text.output, "undefined (read at version 0): b w x")) << text.output;
}

}  // namespace
}  // namespace parity::testing
