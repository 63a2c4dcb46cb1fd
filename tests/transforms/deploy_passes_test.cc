// Passes on deployed nets (parameters as init-net constants): Export in the seed's form, and
// fuse_conv_bn folding an inference SpatialBN into its Conv, checked on hand-computed constants and
// on the values the production engine computes before and after.
#include <gtest/gtest.h>

#include "core/tensor_proto.h"
#include "core/transforms/export.h"
#include "core/transforms/pass.h"
#include "core/workspace.h"
#include "oracles/check.h"
#include "tests/test_util.h"
#include "tests/transforms/transform_test_util.h"

namespace parity::testing {
namespace {

using transforms::TransformedNet;

// y = SpatialBN(Conv(x, w, b), scale, bias, mean, var) with epsilon 1: one input channel, two
// output channels, 1x1 kernels. Per channel s = scale / sqrt(var + 1) = {1/2, 4/4}, so the folded
// weights are {2 * 1/2, 3 * 1} = {1, 3} and the bias (b - mean) * s + bias = {0 + 0.5, -1 + 0}.
TransformedNet ConvBnNets() {
  TransformedNet t;
  *t.init.add_op() = FloatFill("w", {2, 1, 1, 1}, {2, 3});
  *t.init.add_op() = FloatFill("b", {2}, {1, -1});
  *t.init.add_op() = FloatFill("scale", {2}, {1, 4});
  *t.init.add_op() = FloatFill("bias", {2}, {0.5f, 0});
  *t.init.add_op() = FloatFill("mean", {2}, {1, 0});
  *t.init.add_op() = FloatFill("var", {2}, {3, 15});
  *t.predict.add_op() = MakeOp("Conv", {"x", "w", "b"}, {"c"}, {{"kernel", 1}, {"order", "NCHW"}});
  *t.predict.add_op() = MakeOp("SpatialBN", {"c", "scale", "bias", "mean", "var"}, {"y"},
                               {{"is_test", 1}, {"epsilon", 1.0f}, {"order", "NCHW"}});
  t.predict.add_external_input("x");
  t.predict.add_external_output("y");
  return t;
}

TEST(FuseConvBn, FoldsTheNormalizationIntoTheConvsConstants) {
  const TransformedNet before = ConvBnNets();
  const TransformedNet after = transforms::ApplyPasses(before, {"fuse_conv_bn"});
  ASSERT_EQ(after.predict.op_size(), 1);
  const caffe2::OperatorDef& conv = after.predict.op(0);
  EXPECT_EQ(conv.type(), "Conv");
  EXPECT_EQ(conv.output(0), "y");
  ASSERT_EQ(after.init.op_size(), 8);
  EXPECT_EQ(after.init.op(6).output(0), conv.input(1));
  EXPECT_EQ(after.init.op(7).output(0), conv.input(2));
  EXPECT_EQ(FillValues(after.init.op(6)), (std::vector<float>{1, 3}));
  EXPECT_EQ(FillValues(after.init.op(7)), (std::vector<float>{0.5f, -1}));

  // x = [[1, -2], [0.5, 4]] in one channel: y[m] = W'[m] x + b'[m].
  const Tensor x = MakeTensor<float>({1, 1, 2, 2}, {1, -2, 0.5f, 4});
  ExpectTensorNear(RunTransformed(after, {{"x", x}}, "y"), {1, 2, 2, 2},
                   {1.5, -1.5, 1, 4.5, 2, -7, 0.5, 11});
  ExpectTensorNear(RunTransformed(before, {{"x", x}}, "y"), {1, 2, 2, 2},
                   {1.5, -1.5, 1, 4.5, 2, -7, 0.5, 11});
}

TEST(FuseConvBn, LeavesPairsItCannotFold) {
  // Parameters fed at run time, not constants.
  TransformedNet fed = ConvBnNets();
  fed.init.mutable_op()->DeleteSubrange(2, 1);  // scale
  EXPECT_EQ(transforms::ApplyPasses(fed, {"fuse_conv_bn"}).predict.op_size(), 2);
  // Another reader of the Conv's output.
  TransformedNet shared = ConvBnNets();
  *shared.predict.add_op() = MakeOp("Relu", {"c"}, {"r"});
  shared.predict.add_external_output("r");
  EXPECT_EQ(transforms::ApplyPasses(shared, {"fuse_conv_bn"}).predict.op_size(), 3);
  // Training mode, and orders that disagree.
  TransformedNet training = ConvBnNets();
  training.predict.mutable_op(1)->mutable_arg(0)->set_i(0);
  EXPECT_EQ(transforms::ApplyPasses(training, {"fuse_conv_bn"}).predict.op_size(), 2);
  TransformedNet orders = ConvBnNets();
  orders.predict.mutable_op(1)->mutable_arg(2)->set_s("NHWC");
  EXPECT_EQ(transforms::ApplyPasses(orders, {"fuse_conv_bn"}).predict.op_size(), 2);
}

// The seed's Export: parameters from the workspace, [1, 1] zero fills for the other inputs,
// external inputs and outputs as a predictor expects them.
TEST(Export, WritesParametersAndZeroFilledInputsAsTheSeedDoes) {
  Workspace ws;
  ws.CreateTensor("w")->CopyFrom(MakeTensor<float>({2}, {0.5f, -1}));
  ws.CreateTensor("steps")->CopyFrom(MakeTensor<int64_t>({1}, {7}));
  caffe2::NetDef net;
  *net.add_op() = MakeOp("Mul", {"x", "w"}, {"h"});
  *net.add_op() = MakeOp("Relu", {"h"}, {"y"});
  *net.add_op() = MakeOp("Add", {"h", "z"}, {"h"});
  // With external inputs declared, get_ssa versions only those: z would get no zero fill.
  caffe2::NetDef declared = net;
  declared.add_external_input("x");
  EXPECT_EQ(transforms::Export(ws, declared, {"w"}).init.op_size(), 2);
  const TransformedNet out = transforms::Export(ws, net, {"w", "steps"});
  ASSERT_EQ(out.init.op_size(), 4);
  EXPECT_EQ(out.init.op(0).type(), "GivenTensorFill");
  EXPECT_EQ(FillValues(out.init.op(0)), (std::vector<float>{0.5f, -1}));
  EXPECT_EQ(out.init.op(1).type(), "GivenTensorInt64Fill");
  EXPECT_EQ(out.init.op(1).arg(1).ints(0), 7);
  // x and z are read before any write: [1, 1] zeros.
  EXPECT_EQ(out.init.op(2).output(0), "x");
  EXPECT_EQ(out.init.op(3).output(0), "z");
  EXPECT_EQ(out.init.op(3).arg(0).ints_size(), 2);
  EXPECT_EQ(FillValues(out.init.op(3)), (std::vector<float>{0}));
  EXPECT_EQ(std::vector<std::string>(out.predict.external_input().begin(),
                                     out.predict.external_input().end()),
            (std::vector<std::string>{"x", "z"}));
  // h is read by later ops; y never is.
  EXPECT_EQ(std::vector<std::string>(out.predict.external_output().begin(),
                                     out.predict.external_output().end()),
            (std::vector<std::string>{"y"}));
  ExpectError([&] { transforms::Export(ws, net, {"missing"}); }, ErrorKind::kMissingBlob,
              {"Export: parameter 'missing'"});
}

}  // namespace
}  // namespace parity::testing
