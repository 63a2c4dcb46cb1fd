#include "core/workspace.h"

#include "tests/test_util.h"

namespace parity::testing {
namespace {

TEST(Workspace, ChildReadsThroughParentAndCreatesLocally) {
  Workspace parent;
  *parent.CreateTensor("w") = MakeTensor<float>({1}, {3});
  Workspace child(&parent);
  EXPECT_EQ(child.GetBlob("w"), parent.GetBlob("w"));
  child.CreateTensor("local");
  EXPECT_FALSE(parent.HasBlob("local"));
  EXPECT_EQ(child.Blobs(), (std::vector<std::string>{"local"}));
  EXPECT_EQ(child.Blobs(true), (std::vector<std::string>{"local", "w"}));
  // Creating a visible name returns the parent's blob: writes land there (Caffe2's rule).
  EXPECT_EQ(child.CreateBlob("w"), parent.GetBlob("w"));
  // Shadowing is explicit.
  EXPECT_NE(child.CreateLocalBlob("w"), parent.GetBlob("w"));
}

TEST(Workspace, ForwardedBlobsOnly) {
  Workspace parent;
  parent.CreateTensor("outer_x");
  parent.CreateTensor("hidden");
  Workspace child(&parent, {{"x", "outer_x"}});
  EXPECT_EQ(child.GetBlob("x"), parent.GetBlob("outer_x"));
  EXPECT_EQ(child.GetBlob("hidden"), nullptr);
  ExpectError([&] { Workspace bad(&parent, {{"y", "absent"}}); }, ErrorKind::kMissingBlob,
              {"'absent'", "'y'"});
}

TEST(Workspace, MissingBlobNamesIt) {
  Workspace ws;
  ExpectError([&] { ws.GetBlobOrThrow("ghost"); }, ErrorKind::kMissingBlob, {"'ghost'"});
}

TEST(Workspace, NetsByNameRunRepeatedly) {
  Workspace ws;
  caffe2::NetDef net;
  net.set_name("n");
  *net.add_op() = MakeOp("ConstantFill", {}, {"x"}, {{"shape", Ints{2}}, {"value", 1.0f}});
  *net.add_op() = MakeOp("Copy", {"x"}, {"y"});
  ws.CreateNet(net);
  ws.RunNet("n");
  const float* first = ws.GetTensor("y").data<float>();
  ws.RunNet("n");
  // Buffers are reused across runs of the same shapes.
  EXPECT_EQ(ws.GetTensor("y").data<float>(), first);
  ExpectError([&] { ws.RunNet("other"); }, ErrorKind::kInvalidNet, {"'other'"});
}

TEST(Blob, ObjectsAndTensors) {
  Blob blob("b");
  EXPECT_TRUE(blob.IsEmpty());
  blob.ResetObject(std::make_shared<int>(5));
  EXPECT_EQ(*blob.GetObject<int>(), 5);
  ExpectError([&] { blob.GetTensor(); }, ErrorKind::kShapeMismatch, {"'b'", "not a tensor"});
  blob.GetMutableTensor()->Resize({1});
  EXPECT_TRUE(blob.IsTensor());
}

}  // namespace
}  // namespace parity::testing
