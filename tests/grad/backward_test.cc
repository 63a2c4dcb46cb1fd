// The backward pass against op lists worked out by hand from Caffe2's IR rules
// (caffe2/python/core.py): versions, skipping, accumulation with autosplit + Sum, StopGradient,
// pass-through gradients, and the version checks.
#include "core/grad/backward.h"

#include <algorithm>
#include <cmath>

#include "core/grad/gradient.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

// "Type(in,in)->(out,out)", the compact form expected lists are written in.
std::string Show(const caffe2::OperatorDef& op) {
  std::string s = op.type() + "(";
  for (int i = 0; i < op.input_size(); ++i) s += (i ? "," : "") + op.input(i);
  s += ")->(";
  for (int i = 0; i < op.output_size(); ++i) s += (i ? "," : "") + op.output(i);
  return s + ")";
}

std::vector<std::string> Show(const Ops& ops) {
  std::vector<std::string> out;
  for (const auto& op : ops) out.push_back(Show(op));
  return out;
}

using Strings = std::vector<std::string>;
using GradMap = std::map<std::string, std::string>;

TEST(Backward, BlobUsedTwiceIsAccumulatedWithAutosplitAndSum) {
  Ops forward = {MakeOp("Relu", {"x"}, {"y"}), MakeOp("Sigmoid", {"x"}, {"z"}),
                 MakeOp("Sum", {"y", "z"}, {"s"})};
  BackwardPass pass = GetBackwardPass(forward, {{"s", ""}});
  // Walking back: Sum passes s's gradient to y and z; Sigmoid's gradient is the first generator of
  // x@0 and keeps x_grad; Relu's is renamed; at the first user (op 0) a Sum adds them.
  EXPECT_EQ(Show(pass.ops), (Strings{"ConstantFill(s)->(s_autogen_grad)",
                                     "SigmoidGradient(z,s_autogen_grad)->(x_grad)",
                                     "ReluGradient(y,s_autogen_grad)->(_x_grad_autosplit_0)",
                                     "Sum(x_grad,_x_grad_autosplit_0)->(x_grad)"}));
  EXPECT_EQ(pass.gradient_of, (GradMap{{"s", "s_autogen_grad"},
                                       {"x", "x_grad"},
                                       {"y", "s_autogen_grad"},
                                       {"z", "s_autogen_grad"}}));
  EXPECT_EQ(pass.ops[0].arg(0).name(), "value");
  EXPECT_EQ(pass.ops[0].arg(0).f(), 1.0f);
  EXPECT_TRUE(pass.ops[1].is_gradient_op());
  EXPECT_FALSE(pass.ops[0].is_gradient_op());
  ASSERT_EQ(pass.ops[3].device_option().extra_info_size(), 1);
  EXPECT_EQ(pass.ops[3].device_option().extra_info(0), "is_auto_gen_sum_ops:1");
}

TEST(Backward, ThreeUsersRenameInOrder) {
  Ops forward = {MakeOp("Tanh", {"x"}, {"a"}), MakeOp("Sigmoid", {"x"}, {"b"}),
                 MakeOp("Relu", {"x"}, {"c"}), MakeOp("Sum", {"a", "b", "c"}, {"s"})};
  BackwardPass pass = GetBackwardPass(forward, {{"s", "ds"}});
  EXPECT_EQ(Show(pass.ops),
            (Strings{"ReluGradient(c,ds)->(x_grad)", "SigmoidGradient(b,ds)->(_x_grad_autosplit_0)",
                     "TanhGradient(a,ds)->(_x_grad_autosplit_1)",
                     "Sum(x_grad,_x_grad_autosplit_0,_x_grad_autosplit_1)->(x_grad)"}));
}

TEST(Backward, SameBlobTwiceInOneOpSumsPassThroughGradients) {
  Ops forward = {MakeOp("Sum", {"x", "x"}, {"y"})};
  BackwardPass pass = GetBackwardPass(forward, {{"y", ""}});
  // Both contributions are pass-throughs of y's gradient: base name is x_grad.
  EXPECT_EQ(Show(pass.ops), (Strings{"ConstantFill(y)->(y_autogen_grad)",
                                     "Sum(y_autogen_grad,y_autogen_grad)->(x_grad)"}));
  EXPECT_EQ(pass.gradient_of.at("x"), "x_grad");
}

TEST(Backward, InPlaceChain) {
  Ops forward = {MakeOp("FC", {"x", "w", "b"}, {"h"}), MakeOp("Relu", {"h"}, {"h"})};
  BackwardPass pass = GetBackwardPass(forward, {{"h", ""}});
  EXPECT_EQ(Show(pass.ops), (Strings{"ConstantFill(h)->(h_autogen_grad)",
                                     "ReluGradient(h,h_autogen_grad)->(h_grad)",
                                     "FCGradient(x,w,h_grad)->(w_grad,b_grad,x_grad)"}));
  EXPECT_EQ(pass.gradient_of,
            (GradMap{{"b", "b_grad"}, {"h", "h_grad"}, {"w", "w_grad"}, {"x", "x_grad"}}));
}

TEST(Backward, OverwrittenOutputNeededByGradientIsAnErrorWithHistory) {
  // Sigmoid's gradient needs y at version 0, but the in-place Relu made it version 1.
  Ops forward = {MakeOp("Sigmoid", {"x"}, {"y"}), MakeOp("Relu", {"y"}, {"y"})};
  ExpectError(
      [&] {
        GetBackwardPass(forward, {{"y", ""}});
      },
      ErrorKind::kBadArgument,
      {"op Sigmoid", "needs output 'y' at version 0", "version 1", "version history of 'y'",
       "written at version 1 by op Relu"});
}

// A name written twice: the gradient held for it is of the last version, and the op that wrote
// the first (overwritten before anything read it) gets none of it. t = Sum(x); t = Scale(x, 3):
// d<dt, t>/dx = 3 dt, not 4 dt (Caffe2's pass-through Sum gradient counts dt again). Found by the
// campaign once its nets overwrote names.
TEST(Backward, AnOverwrittenVersionGetsNoGradient) {
  caffe2::NetDef net;
  *net.add_op() = MakeOp("Sum", {"x"}, {"t"});
  *net.add_op() = MakeOp("Scale", {"x"}, {"t"}, {{"scale", 3.0f}});
  BackwardPass pass = GetBackwardPass({net.op(0), net.op(1)}, {{"t", "dt"}});
  for (const auto& op : pass.ops) *net.add_op() = op;
  Workspace ws;
  ws.CreateTensor("x")->CopyFrom(MakeTensor<float>({2}, {2, -1}));
  ws.CreateTensor("dt")->CopyFrom(MakeTensor<float>({2}, {1, 0.5f}));
  ws.RunNetOnce(net);
  ExpectTensorNear(ws.GetTensor("t"), {2}, {6, -3});
  ExpectTensorNear(ws.GetTensor(pass.gradient_of.at("x")), {2}, {3, 1.5f});

  // Read between the writes, the first version has a gradient of its own: t = Sum(x);
  // y = Relu(t); t = Scale(x, 3), with y and t seeded: dx = relu'(x) dy + 3 dt.
  caffe2::NetDef read_between;
  *read_between.add_op() = MakeOp("Sum", {"x"}, {"t"});
  *read_between.add_op() = MakeOp("Relu", {"t"}, {"y"});
  *read_between.add_op() = MakeOp("Scale", {"x"}, {"t"}, {{"scale", 3.0f}});
  BackwardPass both = GetBackwardPass({read_between.op(0), read_between.op(1), read_between.op(2)},
                                      {{"y", "dy"}, {"t", "dt"}});
  for (const auto& op : both.ops) *read_between.add_op() = op;
  ws.CreateTensor("dy")->CopyFrom(MakeTensor<float>({2}, {1, 1}));
  ws.RunNetOnce(read_between);
  ExpectTensorNear(ws.GetTensor(both.gradient_of.at("x")), {2}, {1 + 3, 0 + 1.5f});
}

// A fed blob the ops overwrite before reading it: gradient_of keeps Caffe2's map (the gradient of
// the value written over it), input_gradient_of has no entry, since the fed value never reaches
// the output. Nor does a fed blob whose value only an op without a gradient reads.
TEST(Backward, AFedValueTheOpsNeverDifferentiateHasNoInputGradient) {
  Ops overwritten = {MakeOp("Relu", {"a"}, {"x"}), MakeOp("Sigmoid", {"x"}, {"y"})};
  BackwardPass pass = GetBackwardPass(overwritten, {{"y", "dy"}});
  EXPECT_EQ(pass.gradient_of.at("x"), "x_grad");
  EXPECT_EQ(pass.input_gradient_of, (GradMap{{"a", "a_grad"}}));  // y too is written first

  Ops read_by_shape = {MakeOp("Shape", {"x"}, {"s"}), MakeOp("Relu", {"a"}, {"x"}),
                       MakeOp("Sigmoid", {"x"}, {"y"})};
  pass = GetBackwardPass(read_by_shape, {{"y", "dy"}});
  EXPECT_EQ(pass.gradient_of.at("x"), "x_grad");
  EXPECT_FALSE(pass.input_gradient_of.count("x"));

  // Read and differentiated before the overwrite: the first version's gradient is the input's.
  Ops read_first = {MakeOp("Tanh", {"x"}, {"h"}), MakeOp("Relu", {"h"}, {"x"}),
                    MakeOp("Sigmoid", {"x"}, {"y"})};
  pass = GetBackwardPass(read_first, {{"y", "dy"}});
  EXPECT_EQ(pass.input_gradient_of.at("x"), pass.gradient_of.at("x"));
  EXPECT_EQ(Show(pass.ops).back(), "TanhGradient(h," + pass.gradient_of.at("h") + ")->(" +
                                       pass.input_gradient_of.at("x") + ")");
}

// t = Mean(a, p); p = Sum(t); y = Copy(p): Sum passes p's gradient "p_grad" through as t's, and
// MeanGradient would read it as t's gradient and write "p_grad" again as the fed p's: an in-place
// pair Mean's gradient does not allow. The write gets a name of its own.
TEST(Backward, AGradientOpNeverWritesOverItsInputWhereItCannotRunInPlace) {
  caffe2::NetDef net;
  *net.add_op() = MakeOp("Mean", {"a", "p"}, {"t"});
  *net.add_op() = MakeOp("Sum", {"t"}, {"p"});
  *net.add_op() = MakeOp("Copy", {"p"}, {"y"});  // CopyGradient writes "p_grad"
  BackwardPass pass = GetBackwardPass({net.op(0), net.op(1), net.op(2)}, {{"y", "dy"}});
  for (const auto& op : pass.ops) {
    for (const auto& out : op.output()) {
      EXPECT_EQ(std::count(op.input().begin(), op.input().end(), out), 0) << Show(op);
    }
    *net.add_op() = op;
  }
  Workspace ws;
  ws.CreateTensor("a")->CopyFrom(MakeTensor<float>({2}, {1, 2}));
  ws.CreateTensor("p")->CopyFrom(MakeTensor<float>({2}, {3, -4}));
  ws.CreateTensor("dy")->CopyFrom(MakeTensor<float>({2}, {1, 0.5f}));
  ws.RunNetOnce(net);
  ExpectTensorNear(ws.GetTensor("y"), {2}, {2, -1});  // (a + p) / 2
  ExpectTensorNear(ws.GetTensor(pass.gradient_of.at("a")), {2}, {0.5f, 0.25f});
  ExpectTensorNear(ws.GetTensor(pass.input_gradient_of.at("p")), {2}, {0.5f, 0.25f});
}

// t = FC(x, w, b); b = Sum(x); y = Copy(b): Sum hands b's gradient "b_grad" to x by name, and
// FCGradient writes the first b's gradient; were it "b_grad" too, x's Sum would add db (of
// another shape) instead of dy. A contribution passed through by name survives until its Sum.
TEST(Backward, AContributionPassedThroughByNameSurvivesUntilItsSum) {
  caffe2::NetDef net;
  *net.add_op() = MakeOp("FC", {"x", "w", "b"}, {"t"});
  *net.add_op() = MakeOp("Sum", {"x"}, {"b"});
  *net.add_op() = MakeOp("Copy", {"b"}, {"y"});
  BackwardPass pass =
      GetBackwardPass({net.op(0), net.op(1), net.op(2)}, {{"t", "dt"}, {"y", "dy"}});
  for (const auto& op : pass.ops) *net.add_op() = op;
  Workspace ws;
  ws.CreateTensor("x")->CopyFrom(MakeTensor<float>({1, 2}, {1, 2}));
  ws.CreateTensor("w")->CopyFrom(MakeTensor<float>({2, 2}, {1, 2, 3, 4}));
  ws.CreateTensor("b")->CopyFrom(MakeTensor<float>({2}, {3, -4}));
  ws.CreateTensor("dt")->CopyFrom(MakeTensor<float>({1, 2}, {1, 0.5f}));
  ws.CreateTensor("dy")->CopyFrom(MakeTensor<float>({1, 2}, {2, 1}));
  ws.RunNetOnce(net);
  // dx = dt·w + dy; the fed b's gradient is dt summed over the batch.
  ExpectTensorNear(ws.GetTensor(pass.gradient_of.at("x")), {1, 2},
                   {1 * 1 + 0.5f * 3 + 2, 1 * 2 + 0.5f * 4 + 1});
  ExpectTensorNear(ws.GetTensor(pass.input_gradient_of.at("b")), {2}, {1, 0.5f});
}

TEST(Backward, StopGradientStopsFlow) {
  Ops forward = {MakeOp("FC", {"x", "w", "b"}, {"h"}), MakeOp("StopGradient", {"h"}, {"h"}),
                 MakeOp("Relu", {"h"}, {"y"})};
  BackwardPass pass = GetBackwardPass(forward, {{"y", ""}});
  EXPECT_EQ(Show(pass.ops), (Strings{"ConstantFill(y)->(y_autogen_grad)",
                                     "ReluGradient(y,y_autogen_grad)->(h_grad)"}));
  EXPECT_EQ(pass.gradient_of, (GradMap{{"y", "y_autogen_grad"}}));
}

TEST(Backward, OrphanStopGradientIsRejected) {
  Ops forward = {MakeOp("Relu", {"x"}, {"h"}), MakeOp("StopGradient", {"h"}, {"h_stopped"}),
                 MakeOp("Tanh", {"h"}, {"y"})};
  ExpectError(
      [&] {
        GetBackwardPass(forward, {{"y", ""}});
      },
      ErrorKind::kBadArgument, {"StopGradient's output 'h_stopped' is never read"});
}

TEST(Backward, DeadBranchIsSkipped) {
  Ops forward = {MakeOp("Relu", {"x"}, {"a"}), MakeOp("Sigmoid", {"x"}, {"dead"}),
                 MakeOp("Tanh", {"a"}, {"y"})};
  BackwardPass pass = GetBackwardPass(forward, {{"y", ""}});
  // x has two users but only one generator: no Sum.
  EXPECT_EQ(Show(pass.ops), (Strings{"ConstantFill(y)->(y_autogen_grad)",
                                     "TanhGradient(y,y_autogen_grad)->(a_grad)",
                                     "ReluGradient(a,a_grad)->(x_grad)"}));
}

TEST(Backward, OpsWithoutGradientInTheMiddle) {
  caffe2::OperatorDef cast = MakeOp("Cast", {"m"}, {"mf"}, {{"to", 1}, {"from_type", 5}});
  Ops forward = {MakeOp("Relu", {"x"}, {"y"}), MakeOp("LT", {"y", "t"}, {"m"}), cast,
                 MakeOp("AveragedLoss", {"mf"}, {"loss"})};
  BackwardPass pass = GetBackwardPass(forward, {{"loss", ""}});
  EXPECT_EQ(Show(pass.ops), (Strings{"ConstantFill(loss)->(loss_autogen_grad)",
                                     "AveragedLossGradient(mf,loss_autogen_grad)->(mf_grad)",
                                     "Cast(mf_grad)->(m_grad)"}));
  // Cast's gradient casts back: to = the forward from_type, and it does not copy forward args.
  ASSERT_EQ(pass.ops[2].arg_size(), 2);
  EXPECT_EQ(pass.ops[2].arg(0).name(), "to");
  EXPECT_EQ(pass.ops[2].arg(0).i(), 5);
  EXPECT_EQ(pass.gradient_of,
            (GradMap{{"loss", "loss_autogen_grad"}, {"m", "m_grad"}, {"mf", "mf_grad"}}));
}

TEST(Backward, GradientOpsCopyDeviceEngineAndArguments) {
  caffe2::OperatorDef op = MakeOp("LeakyRelu", {"x"}, {"y"}, {{"alpha", 0.2f}}, "FAST");
  op.mutable_device_option()->set_device_type(1);
  BackwardPass pass = GetBackwardPass({op}, {{"y", "dy"}});
  ASSERT_EQ(pass.ops.size(), 1u);
  const caffe2::OperatorDef& grad = pass.ops[0];
  EXPECT_EQ(Show(grad), "LeakyReluGradient(y,dy)->(x_grad)");
  EXPECT_EQ(grad.engine(), "FAST");
  EXPECT_EQ(grad.device_option().device_type(), 1);
  ASSERT_EQ(grad.arg_size(), 1);
  EXPECT_EQ(grad.arg(0).name(), "alpha");
  EXPECT_TRUE(grad.is_gradient_op());
}

TEST(Backward, MatMulTransposes) {
  Ops forward = {MakeOp("MatMul", {"a", "b"}, {"c"}, {{"trans_b", 1}})};
  BackwardPass pass = GetBackwardPass(forward, {{"c", "dc"}});
  // C = A Bᵀ: dA = dC B, dB = dCᵀ A (on the 2-D views, then back to the inputs' dims).
  EXPECT_EQ(Show(pass.ops),
            (Strings{"MatMul(dc,b)->(_a_grad_2d)", "MatMul(dc,a)->(_b_grad_2d)",
                     "ResizeLike(_a_grad_2d,a)->(a_grad)", "ResizeLike(_b_grad_2d,b)->(b_grad)"}));
  EXPECT_EQ(pass.ops[1].arg(0).name(), "trans_a");
  EXPECT_EQ(pass.ops[1].arg(0).i(), 1);
}

// The fused FCRelu / ConvRelu differentiate as the unfused pair: ReluGradient on Y into a
// temporary, then FC's / Conv's gradient op on it. Only the latter gets the forward arguments.
TEST(Backward, FusedReluOpsEmitTheUnfusedPairsGradientOps) {
  BackwardPass fc = GetBackwardPass(
      {MakeOp("FCRelu", {"x", "w", "b"}, {"y"}, {{"axis", 1}, {"axis_w", 1}})}, {{"y", "dy"}});
  EXPECT_EQ(Show(fc.ops), (Strings{"ReluGradient(y,dy)->(y_grad_relu_tmp)",
                                   "FCGradient(x,w,y_grad_relu_tmp)->(w_grad,b_grad,x_grad)"}));
  EXPECT_EQ(fc.ops[0].arg_size(), 0);
  ASSERT_EQ(fc.ops[1].arg_size(), 2);
  EXPECT_EQ(fc.ops[1].arg(0).name(), "axis");
  EXPECT_EQ(fc.ops[1].arg(1).name(), "axis_w");
  EXPECT_TRUE(fc.ops[0].is_gradient_op() && fc.ops[1].is_gradient_op());
  EXPECT_EQ(fc.gradient_of.at("x"), "x_grad");

  BackwardPass conv = GetBackwardPass(
      {MakeOp("ConvRelu", {"x", "w", "b"}, {"y"}, {{"kernel", 3}, {"pad", 1}})}, {{"y", "dy"}});
  EXPECT_EQ(Show(conv.ops), (Strings{"ReluGradient(y,dy)->(y_grad_relu_tmp)",
                                     "ConvGradient(x,w,y_grad_relu_tmp)->(w_grad,b_grad,x_grad)"}));
  EXPECT_EQ(conv.ops[0].arg_size(), 0);
  EXPECT_EQ(conv.ops[1].arg_size(), 2);

  BackwardPass no_bias =
      GetBackwardPass({MakeOp("ConvRelu", {"x", "w"}, {"y"}, {{"kernel", 3}})}, {{"y", "dy"}});
  EXPECT_EQ(Show(no_bias.ops), (Strings{"ReluGradient(y,dy)->(y_grad_relu_tmp)",
                                        "ConvGradient(x,w,y_grad_relu_tmp)->(w_grad,x_grad)"}));
  ASSERT_EQ(no_bias.ops[1].arg_size(), 2);
  EXPECT_EQ(no_bias.ops[1].arg(0).name(), "no_bias");
  EXPECT_EQ(no_bias.ops[1].arg(0).i(), 1);
  EXPECT_EQ(no_bias.ops[1].arg(1).name(), "kernel");
}

// FCRelu's backward pass computes what FC then Relu's does: dX, dW and db worked by hand.
// X [1, 2] = [1, 2], W [[1, 1], [1, -1]], b [0, 0]: FC = [3, -1], Y = [3, 0]; dY = [1, 1]:
// the Relu passes dY[0] only, so dX = 1 * W[0] = [1, 1], dW = [[1, 2], [0, 0]], db = [1, 0].
TEST(Backward, FCReluGradientValues) {
  caffe2::NetDef net;
  *net.add_op() = MakeOp("FCRelu", {"x", "w", "b"}, {"y"});
  BackwardPass pass = GetBackwardPass({net.op(0)}, {{"y", "dy"}});
  for (const auto& op : pass.ops) *net.add_op() = op;
  Workspace ws;
  ws.CreateTensor("x")->CopyFrom(MakeTensor<float>({1, 2}, {1, 2}));
  ws.CreateTensor("w")->CopyFrom(MakeTensor<float>({2, 2}, {1, 1, 1, -1}));
  ws.CreateTensor("b")->CopyFrom(MakeTensor<float>({2}, {0, 0}));
  ws.CreateTensor("dy")->CopyFrom(MakeTensor<float>({1, 2}, {1, 1}));
  ws.RunNetOnce(net);
  ExpectTensorNear(ws.GetTensor("y"), {1, 2}, {3, 0});
  ExpectTensorNear(ws.GetTensor(pass.gradient_of.at("x")), {1, 2}, {1, 1});
  ExpectTensorNear(ws.GetTensor(pass.gradient_of.at("w")), {2, 2}, {1, 2, 0, 0});
  ExpectTensorNear(ws.GetTensor(pass.gradient_of.at("b")), {2}, {1, 0});
}

// ConvTranspose differentiates through Conv, its adjoint: ConvGradient (dY, W, X) for dW, Conv
// (dY, W) for dX, ReduceSum for db, with adj dropped from the Conv ops. X [1, 2] = [1, 2] (as
// [1, 1, 1, 2]), W = [3], stride 2, adj 1: Y = [[3, 0, 6, 0], [0, 0, 0, 0]]; dY = 1..8: dX = 3 *
// dY at the stamps = [3, 9], dW = 1 * 1 + 2 * 3 = 7, db = 36.
TEST(Backward, ConvTransposeThroughConv) {
  caffe2::NetDef net;
  *net.add_op() =
      MakeOp("ConvTranspose", {"x", "w", "b"}, {"y"}, {{"kernel", 1}, {"stride", 2}, {"adj", 1}});
  BackwardPass pass = GetBackwardPass({net.op(0)}, {{"y", "dy"}});
  EXPECT_EQ(Show(pass.ops), (Strings{"ConvGradient(dy,w,x)->(w_grad)", "Conv(dy,w)->(x_grad)",
                                     "ReduceSum(dy)->(b_grad)"}));
  for (int i = 0; i < 2; ++i) {
    for (const auto& arg : pass.ops[i].arg()) EXPECT_NE(arg.name(), "adj");
  }
  for (const auto& op : pass.ops) *net.add_op() = op;
  Workspace ws;
  ws.CreateTensor("x")->CopyFrom(MakeTensor<float>({1, 1, 1, 2}, {1, 2}));
  ws.CreateTensor("w")->CopyFrom(MakeTensor<float>({1, 1, 1, 1}, {3}));
  ws.CreateTensor("b")->CopyFrom(MakeTensor<float>({1}, {0}));
  ws.CreateTensor("dy")->CopyFrom(MakeTensor<float>({1, 1, 2, 4}, {1, 2, 3, 4, 5, 6, 7, 8}));
  ws.RunNetOnce(net);
  ExpectTensorNear(ws.GetTensor("y"), {1, 1, 2, 4}, {3, 0, 6, 0, 0, 0, 0, 0});
  ExpectTensorNear(ws.GetTensor(pass.gradient_of.at("x")), {1, 1, 1, 2}, {3, 9});
  ExpectTensorNear(ws.GetTensor(pass.gradient_of.at("w")), {1, 1, 1, 1}, {7});
  ExpectTensorNear(ws.GetTensor(pass.gradient_of.at("b")), {1}, {36});
}

TEST(Backward, ConcatSplitAndMissingOutputGradients) {
  Ops forward = {MakeOp("Split", {"x"}, {"p", "q"}, {{"axis", 0}}), MakeOp("Relu", {"q"}, {"y"})};
  BackwardPass pass = GetBackwardPass(forward, {{"y", ""}});
  EXPECT_EQ(Show(pass.ops),
            (Strings{"ConstantFill(y)->(y_autogen_grad)",
                     "ReluGradient(y,y_autogen_grad)->(q_grad)", "ConstantFill(p)->(_p_zero_grad)",
                     "Concat(_p_zero_grad,q_grad)->(x_grad,_x_grad_dims)"}));
}

TEST(Backward, RegistryErrors) {
  ExpectError([] { GetGradientForOp(MakeOp("Frobnicate", {"x"}, {"y"}), {"dy"}); },
              ErrorKind::kUnknownOp, {"Frobnicate", "no gradient"});
  ExpectError(
      [] {
        GetBackwardPass({MakeOp("Frobnicate", {"x"}, {"y"})}, {{"y", ""}});
      },
      ErrorKind::kUnknownOp, {"backward pass: forward op #0"});
}

// A gradient that needs an output's gradient nobody provides gets zeros of that output's shape
// (PyTorch's rule; Caffe2 raised "gradient of output ... is not provided"). LSTMUnit's gradient
// reads both output gradients; only the hidden state's is given, as for the last step of a
// hand-unrolled LSTM whose loss reads h only.
TEST(Backward, AMissingOutputGradientIsZeroFilled) {
  const GradientOpsMeta meta = GetGradientForOp(
      MakeOp("LSTMUnit", {"h0", "c0", "g", "len", "t"}, {"h", "c"}), {"h_grad", ""});
  ASSERT_EQ(meta.ops.size(), 2u);
  EXPECT_EQ(Show(meta.ops[0]), "ConstantFill(c)->(c_zero_grad)");
  EXPECT_EQ(meta.ops[0].arg_size(), 1);  // value 0 only: the forward op's arguments stay off it
  EXPECT_EQ(meta.ops[1].type(), "LSTMUnitGradient");
  EXPECT_NE(std::find(meta.ops[1].input().begin(), meta.ops[1].input().end(), "c_zero_grad"),
            meta.ops[1].input().end());
  // And the net runs: the cell gradient through c is zero, so dC_prev = dH path only.
  caffe2::NetDef net;
  *net.add_op() = MakeOp("LSTMUnit", {"h0", "c0", "g", "len", "t"}, {"h", "c"});
  const GradMap map = AddGradientOperators(&net, {{"h", ""}});
  Workspace ws;
  ws.CreateTensor("h0")->CopyFrom(MakeTensor<float>({1, 1, 1}, {0.5f}));
  ws.CreateTensor("c0")->CopyFrom(MakeTensor<float>({1, 1, 1}, {0.25f}));
  ws.CreateTensor("g")->CopyFrom(MakeTensor<float>({1, 1, 4}, {0.1f, 0.2f, 0.3f, 0.4f}));
  ws.CreateTensor("len")->CopyFrom(MakeTensor<int32_t>({1}, {1}));
  ws.CreateTensor("t")->CopyFrom(MakeTensor<int32_t>({1}, {0}));
  ws.RunNetOnce(net);
  // dL/dc0 = dh * o * (1 - tanh(c)^2) * f, with c = f c0 + i g~ (gates i, f, o, g~ = 0.1..0.4).
  const double i = 1 / (1 + std::exp(-0.1)), f = 1 / (1 + std::exp(-0.2)),
               o = 1 / (1 + std::exp(-0.3)), g = std::tanh(0.4);
  const double c = f * 0.25 + i * g;
  EXPECT_NEAR(ws.GetTensor(map.at("c0")).data<float>()[0],
              o * (1 - std::tanh(c) * std::tanh(c)) * f, 1e-6);
}

TEST(Backward, AddGradientOperatorsAppendsAfterSkip) {
  caffe2::NetDef net;
  *net.add_op() = MakeOp("ConstantFill", {}, {"x"}, {{"shape", Ints{2}}});
  *net.add_op() = MakeOp("Sigmoid", {"x"}, {"y"});
  GradMap map = AddGradientOperators(&net, {{"y", ""}}, /*skip=*/1);
  ASSERT_EQ(net.op_size(), 4);
  EXPECT_EQ(Show(net.op(2)), "ConstantFill(y)->(y_autogen_grad)");
  EXPECT_EQ(Show(net.op(3)), "SigmoidGradient(y,y_autogen_grad)->(x_grad)");
  EXPECT_EQ(map.at("x"), "x_grad");
}

}  // namespace
}  // namespace parity::testing

namespace parity::testing {
namespace {

TEST(Backward, GradientOpsDoNotClobberAnotherBlobsGradient) {
  // In-place Mean then in-place Sum on t: Sum passes t's gradient to p unchanged (pass-through),
  // and MeanGradient would then write t's gradient name in place — changing p's gradient too.
  // The clobbering output is renamed instead.
  // The seed is named t_grad, as the gradient op of a later consumer of t would name it.
  Ops forward = {MakeOp("Mean", {"t", "a"}, {"t"}), MakeOp("Sum", {"t", "p"}, {"t"})};
  BackwardPass pass = GetBackwardPass(forward, {{"t", "t_grad"}});
  EXPECT_EQ(Show(pass.ops), (Strings{"MeanGradient(t_grad)->(_t_grad_ssa_0,a_grad)"}));
  EXPECT_EQ(pass.gradient_of.at("p"), "t_grad");
  EXPECT_EQ(pass.gradient_of.at("t"), "_t_grad_ssa_0");
  EXPECT_EQ(pass.gradient_of.at("a"), "a_grad");
}

}  // namespace
}  // namespace parity::testing

#include <cmath>

#include "core/workspace.h"

namespace parity::testing {
namespace {

// Several losses, one feeding the other: y = Tanh(x) and z = Mul(y, y) are both seeded. y's seed
// and the gradient flowing back from z add up (dy_total = dy + 2·y·dz), as Caffe2 sums several
// losses' gradients; the seed must not be overwritten by z's contribution. Values worked by hand.
TEST(Backward, SeedOfAnOutputThatFeedsAnotherSeededOutputIsSummed) {
  Ops forward = {MakeOp("Tanh", {"x"}, {"y"}), MakeOp("Mul", {"y", "y"}, {"z"})};
  BackwardPass pass = GetBackwardPass(forward, {{"y", "dy"}, {"z", "dz"}});
  caffe2::NetDef net;
  for (const auto& op : forward) *net.add_op() = op;
  for (const auto& op : pass.ops) *net.add_op() = op;
  const std::vector<float> x = {0.3f, -0.8f, 1.1f}, dy = {0.5f, -1.0f, 2.0f},
                           dz = {1.5f, 0.25f, -0.75f};
  Workspace ws;
  ws.CreateTensor("x")->CopyFrom(MakeTensor<float>({3}, x));
  ws.CreateTensor("dy")->CopyFrom(MakeTensor<float>({3}, dy));
  ws.CreateTensor("dz")->CopyFrom(MakeTensor<float>({3}, dz));
  ws.RunNetOnce(net);
  std::vector<double> expected;
  for (int i = 0; i < 3; ++i) {
    const double y = std::tanh(static_cast<double>(x[i]));
    expected.push_back((dy[i] + 2 * y * dz[i]) * (1 - y * y));
  }
  ExpectTensorNear(ws.GetTensor(pass.gradient_of.at("x")), {3}, expected, 1e-5);
}

}  // namespace
}  // namespace parity::testing

namespace parity::testing {
namespace {

// A net placed on CUDA by its NetDef's DeviceOption: the Sums accumulating x's gradient (after a
// seed's fill and gradient ops that carry no option of their own) run on the net's device, keeping
// their tag, instead of becoming explicit CPU ops over device tensors (found by the LSTM benchmark
// on an H200: "op #254 (Sum): input ... is in the memory of device type 1 ... runs on the CPU").
TEST(Backward, AnAccumulatingSumRunsOnTheNetsDevice) {
  caffe2::NetDef net;
  net.mutable_device_option()->set_device_type(kCudaDeviceType);
  net.mutable_device_option()->set_device_id(0);
  *net.add_op() = MakeOp("Relu", {"x"}, {"y"});
  *net.add_op() = MakeOp("Sigmoid", {"x"}, {"z"});
  *net.add_op() = MakeOp("Add", {"y", "z"}, {"s"});
  AddGradientOperators(&net, {{"s", ""}});
  int sums = 0;
  for (const auto& op : net.op()) {
    if (op.type() != "Sum") continue;
    ++sums;
    EXPECT_EQ(op.device_option().device_type(), kCudaDeviceType) << op.DebugString();
    EXPECT_EQ(op.device_option().device_id(), 0) << op.DebugString();
    ASSERT_EQ(op.device_option().extra_info_size(), 1);
    EXPECT_EQ(op.device_option().extra_info(0), "is_auto_gen_sum_ops:1");
  }
  EXPECT_EQ(sums, 1) << net.DebugString();
  // The other gradient ops keep no option of their own: they inherit the net's.
  for (const auto& op : net.op()) {
    if (op.type() != "Sum") EXPECT_FALSE(op.has_device_option()) << op.DebugString();
  }
}

}  // namespace
}  // namespace parity::testing
