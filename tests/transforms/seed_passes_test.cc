// The device and export passes on the seed's own patterns: copy round trips with several readers
// (fuse_copy_pairs), device inference with and without a conflict (infer_device_type,
// assign_device_option), and the Reshape-before-FC sub-graph (remove_reshape_for_fc).
#include <gtest/gtest.h>

#include "core/tensor_proto.h"
#include "core/transforms/device_inference.h"
#include "core/transforms/export.h"
#include "core/transforms/pass.h"
#include "core/transforms/reshape_for_fc.h"
#include "core/transforms/ssa.h"
#include "core/transforms/verify.h"
#include "tests/test_util.h"
#include "tests/transforms/transform_test_util.h"

namespace parity::testing {
namespace {

using transforms::TransformedNet;

std::vector<std::string> Types(const caffe2::NetDef& net) {
  std::vector<std::string> types;
  for (const auto& op : net.op()) types.push_back(op.type());
  return types;
}

// x on the cpu goes to the gpu (g), two copies come back (a, b), read by three ops.
TransformedNet RoundTrips() {
  TransformedNet t;
  *t.predict.add_op() = MakeOp("CopyCPUToGPU", {"x"}, {"g"});
  *t.predict.add_op() = MakeOp("CopyGPUToCPU", {"g"}, {"a"});
  *t.predict.add_op() = MakeOp("CopyGPUToCPU", {"g"}, {"b"});
  *t.predict.add_op() = MakeOp("Relu", {"a"}, {"r"});
  *t.predict.add_op() = MakeOp("Sigmoid", {"a"}, {"s"});
  *t.predict.add_op() = MakeOp("Add", {"b", "r"}, {"y"});
  t.predict.add_external_input("x");
  t.predict.add_external_output("s");
  t.predict.add_external_output("y");
  return t;
}

TEST(FuseCopyPairs, EveryReaderOfEveryCopyBackReadsTheOriginal) {
  const TransformedNet after = transforms::ApplyPasses(RoundTrips(), {"fuse_copy_pairs"});
  EXPECT_EQ(Types(after.predict), (std::vector<std::string>{"Relu", "Sigmoid", "Add"}));
  EXPECT_EQ(after.predict.op(0).input(0), "x");
  EXPECT_EQ(after.predict.op(1).input(0), "x");  // the seed rewires only the first reader of a
  EXPECT_EQ(after.predict.op(2).input(0), "x");
  EXPECT_EQ(after.predict.op(2).input(1), "r");
}

TEST(FuseCopyPairs, LeavesPairsThatAreNotRoundTrips) {
  // The gpu copy is read by a gpu op too.
  TransformedNet used = RoundTrips();
  *used.predict.add_op() = MakeOp("Tanh", {"g"}, {"t"});
  used.predict.add_external_output("t");
  EXPECT_EQ(transforms::ApplyPasses(used, {"fuse_copy_pairs"}).predict.op_size(), 7);
  // A copy back is an external output.
  TransformedNet exported = RoundTrips();
  exported.predict.add_external_output("b");
  EXPECT_EQ(transforms::ApplyPasses(exported, {"fuse_copy_pairs"}).predict.op_size(), 6);
  // x is overwritten before a reader of the copy back: it would read the new x.
  TransformedNet overwritten;
  *overwritten.predict.add_op() = MakeOp("CopyCPUToGPU", {"x"}, {"g"});
  *overwritten.predict.add_op() = MakeOp("CopyGPUToCPU", {"g"}, {"a"});
  *overwritten.predict.add_op() = MakeOp("Neg", {"x"}, {"x"});
  *overwritten.predict.add_op() = MakeOp("Relu", {"a"}, {"r"});
  overwritten.predict.add_external_input("x");
  overwritten.predict.add_external_output("r");
  EXPECT_EQ(transforms::ApplyPasses(overwritten, {"fuse_copy_pairs"}).predict.op_size(), 4);
}

// The campaign's finding (transform oracle, reduced to these 6 ops): the memonger names s and g2
// alike (__m0_shared), so rewiring the reader of the copy back, CopyCPUToGPU(a) -> g2, to read s
// made a copy that reads and writes one blob, which the op may not do. The pair stays.
TEST(FuseCopyPairs, LeavesPairsWhoseReaderWouldRunInPlaceAfterTheMemonger) {
  TransformedNet t;
  *t.predict.add_op() = MakeOp("Relu", {"x"}, {"s"});
  *t.predict.add_op() = MakeOp("CopyCPUToGPU", {"s"}, {"g"});
  *t.predict.add_op() = MakeOp("CopyGPUToCPU", {"g"}, {"a"});
  *t.predict.add_op() = MakeOp("Sigmoid", {"s"}, {"u"});
  *t.predict.add_op() = MakeOp("CopyCPUToGPU", {"a"}, {"g2"});
  *t.predict.add_op() = MakeOp("Add", {"g2", "u"}, {"y"});
  t.predict.add_external_input("x");
  t.predict.add_external_output("y");
  const TransformedNet shared = transforms::ApplyPasses(t, {"optimize_inference_for_dag"});
  ASSERT_EQ(shared.predict.op(0).output(0), shared.predict.op(4).output(0));  // s and g2
  TransformedNet fused;
  ASSERT_NO_THROW(fused = transforms::ApplyPasses(shared, {"fuse_copy_pairs"}));
  EXPECT_NO_THROW(transforms::VerifyTransform("fuse_copy_pairs", shared, fused));
  EXPECT_EQ(Types(fused.predict), Types(t.predict));
  ASSERT_NO_THROW(transforms::ApplyPasses(t, {"optimize_inference_for_dag", "fuse_copy_pairs"}));

  const std::map<std::string, Tensor> feeds = {{"x", RandomTensor({2, 3}, 1)}};
  EXPECT_EQ(Values<float>(RunTransformed(fused, feeds, "y")),
            Values<float>(RunTransformed(t, feeds, "y")));
}

// The seed's device inference: x is on the cpu, the copy moves it to the gpu, the gpu ops follow;
// backward, the copy's input is known to be on the cpu.
TEST(InferDeviceType, FollowsTheCopiesForwardAndBackward) {
  caffe2::NetDef net;
  *net.add_op() = MakeOp("Relu", {"x"}, {"h"});
  *net.add_op() = MakeOp("CopyCPUToGPU", {"h"}, {"hg"});
  *net.add_op() = MakeOp("Mul", {"hg", "w"}, {"y"});
  net.add_external_input("x");
  net.add_external_input("w");
  net.add_external_output("y");
  const transforms::BlobStatus devices = transforms::InferDeviceType(net, {{{"x", 0}, "cpu"}});
  EXPECT_EQ(devices.at({"h", 1}), "cpu");
  EXPECT_EQ(devices.at({"hg", 1}), "gpu");
  EXPECT_EQ(devices.at({"w", 0}), "gpu");
  EXPECT_EQ(devices.at({"y", 1}), "gpu");
  EXPECT_EQ(transforms::InferDeviceType(net, {{{"x", 0}, "cpu"}}, true).at({"y", 1}), "cuda");

  // The same net when w is known to be on the cpu: Mul would mix devices.
  ExpectError(
      [&] {
        transforms::InferDeviceType(net, {{{"x", 0}, "cpu"}, {{"w", 0}, "cpu"}});
      },
      ErrorKind::kIllegalTransform,
      {"Failed to apply updater for op ", "type: \"Mul\"",
       "given input_types ['gpu', 'cpu'] and output_types [None]"});
  // A copy to the gpu from a blob known to be there.
  ExpectError(
      [&] {
        transforms::InferDeviceType(net, {{{"h", 1}, "gpu"}});
      },
      ErrorKind::kIllegalTransform,
      {"given input_types ['gpu'] and output_types [None]", "CopyCPUToGPU"});
  // The generic identifier: an updater contradicting a known status (the device updater fails
  // first on its own).
  const transforms::StatusUpdater always_gpu = [](const caffe2::OperatorDef& op,
                                                  const transforms::Statuses& inputs,
                                                  const transforms::Statuses& outputs) {
    return std::make_pair(inputs, transforms::Statuses(outputs.size(), std::string("gpu")));
  };
  ExpectError(
      [&] {
        transforms::IdentifyStatus(net, always_gpu, {{{"y", 1}, "cpu"}});
      },
      ErrorKind::kIllegalTransform,
      {"Confilict status for ('y', 1), existing status cpu, new status gpu"});
  // A blob no pass reaches.
  caffe2::NetDef island = net;
  *island.add_op() = MakeOp("ConstantFill", {}, {"c"});
  ExpectError(
      [&] {
        transforms::InferDeviceType(island, {{{"x", 0}, "cpu"}});
      },
      ErrorKind::kIllegalTransform,
      {"Can not infer the status for ('c', 1). Currently only support the case where a "
       "single forward and backward pass can identify status for all blobs."});
}

TEST(AssignDeviceOption, PutsCopiesAndGpuOpsOnTheGpuWithTheInitNetFollowing) {
  TransformedNet t;
  *t.init.add_op() = transforms::ConstantFillOf(TensorToProto(MakeTensor<float>({1}, {2}), "w"));
  t.init.add_external_output("w");
  *t.predict.add_op() = MakeOp("Relu", {"x"}, {"h"});
  *t.predict.add_op() = MakeOp("CopyCPUToGPU", {"h"}, {"hg"});
  *t.predict.add_op() = MakeOp("Mul", {"hg", "w"}, {"y"});
  *t.predict.add_op() = MakeOp("CopyGPUToCPU", {"y"}, {"z"});
  t.predict.add_external_input("x");
  t.predict.add_external_input("w");
  t.predict.add_external_output("z");
  t.settings["input_devices"] = "x:cpu";
  const TransformedNet after = transforms::ApplyPasses(t, {"assign_device_option"});
  std::vector<int> device_types;
  for (const auto& op : after.predict.op())
    device_types.push_back(op.device_option().device_type());
  EXPECT_EQ(device_types, (std::vector<int>{0, 1, 1, 1}));
  EXPECT_EQ(after.init.op(0).device_option().device_type(), 1);  // w is read on the gpu

  t.settings["input_devices"] = "x:gpu";  // the copy to the gpu would read a gpu blob
  ExpectError([&] { transforms::ApplyPasses(t, {"assign_device_option"}); },
              ErrorKind::kIllegalTransform, {"Failed to apply updater for op "});
}

// The seed's pattern: X is flattened by a Reshape whose shape is [X.dims[0], -1], computed by
// Shape, Slice and Concat with a constant -1, and read by an FC.
TransformedNet ReshapeBeforeFc() {
  TransformedNet t;
  *t.init.add_op() =
      transforms::ConstantFillOf(TensorToProto(MakeTensor<int64_t>({1}, {-1}), "minus_one"));
  *t.init.add_op() = transforms::ConstantFillOf(TensorToProto(RandomTensor({4, 12}, 7), "w"));
  *t.init.add_op() = transforms::ConstantFillOf(TensorToProto(RandomTensor({4}, 8), "b"));
  *t.predict.add_op() = MakeOp("Relu", {"in"}, {"x"});
  *t.predict.add_op() = MakeOp("Shape", {"x"}, {"shape"});
  *t.predict.add_op() =
      MakeOp("Slice", {"shape"}, {"batch"}, {{"starts", Ints{0}}, {"ends", Ints{1}}});
  *t.predict.add_op() =
      MakeOp("Concat", {"batch", "minus_one"}, {"new_shape", "split"}, {{"axis", 0}});
  *t.predict.add_op() = MakeOp("Reshape", {"x", "new_shape"}, {"flat", "old_shape"});
  *t.predict.add_op() = MakeOp("FC", {"flat", "w", "b"}, {"y"});
  for (const char* in : {"in", "minus_one", "w", "b"}) t.predict.add_external_input(in);
  t.predict.add_external_output("y");
  return t;
}

TEST(RemoveReshapeForFc, RemovesTheShapeSubGraphAndItsParameter) {
  const TransformedNet before = ReshapeBeforeFc();
  EXPECT_EQ(transforms::IdentifyReshapeSubGraph(before.predict),
            (std::vector<std::vector<int>>{{1, 2, 3, 4}}));
  const TransformedNet after = transforms::ApplyPasses(before, {"remove_reshape_for_fc"});
  EXPECT_EQ(Types(after.predict), (std::vector<std::string>{"Relu", "FC"}));
  EXPECT_EQ(after.predict.op(1).input(0), "x");
  EXPECT_EQ(Types(after.init), (std::vector<std::string>{"GivenTensorFill", "GivenTensorFill"}));
  EXPECT_EQ(std::vector<std::string>(after.predict.external_input().begin(),
                                     after.predict.external_input().end()),
            (std::vector<std::string>{"in", "w", "b"}));
  // FC flattens the 4-D x at axis 1 as the Reshape did.
  const Tensor in = RandomTensor({2, 3, 2, 2}, 9);
  const Tensor expected = RunTransformed(before, {{"in", in}}, "y");
  const Tensor actual = RunTransformed(after, {{"in", in}}, "y");
  EXPECT_EQ(Values<float>(actual), Values<float>(expected));
}

TEST(RemoveReshapeForFc, KeepsAReshapeReadByAnythingButFc) {
  TransformedNet t = ReshapeBeforeFc();
  *t.predict.add_op() = MakeOp("Relu", {"flat"}, {"r"});
  t.predict.add_external_output("r");
  EXPECT_EQ(transforms::ApplyPasses(t, {"remove_reshape_for_fc"}).predict.op_size(), 7);
}

}  // namespace
}  // namespace parity::testing
