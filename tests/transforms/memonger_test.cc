// Memonger (core/transforms/memonger.h): live ranges and the names blobs share on small nets
// worked by hand, Caffe2's two checks catching a sharing that is one op too early, and the passes
// on real nets (a conv net, an LSTM's inference net, training nets with gradients through
// RecurrentNetworkGradient) computing bit-equal outputs in fewer blobs.
#include "core/transforms/memonger.h"

#include <gtest/gtest.h>

#include <set>

#include "core/grad/backward.h"
#include "core/rnn/rnn_cell.h"
#include "core/transforms/net_edits.h"
#include "core/transforms/pass.h"
#include "core/workspace.h"
#include "tests/test_util.h"
#include "tests/transforms/transform_test_util.h"

namespace parity::testing {
namespace {

using transforms::LiveRange;
using transforms::TransformedNet;

// x -> Relu a -> Sigmoid b -> Tanh c -> Softmax y (external): a lives over ops [0, 1], b over
// [1, 2], c over [2, 3]. Walking: a takes a name (op 0), b another (op 1), a's is free after op 1,
// so c (op 2) takes it.
TransformedNet Chain() {
  TransformedNet t;
  *t.predict.add_op() = MakeOp("Relu", {"x"}, {"a"});
  *t.predict.add_op() = MakeOp("Sigmoid", {"a"}, {"b"});
  *t.predict.add_op() = MakeOp("Tanh", {"b"}, {"c"});
  *t.predict.add_op() = MakeOp("Softmax", {"c"}, {"y"});
  t.predict.add_external_input("x");
  t.predict.add_external_output("y");
  return t;
}

std::set<std::string> BlobNames(const caffe2::NetDef& net) {
  std::set<std::string> names;
  for (const auto& op : net.op()) {
    names.insert(op.input().begin(), op.input().end());
    names.insert(op.output().begin(), op.output().end());
  }
  return names;
}

TEST(Memonger, LiveRangesRunFromFirstWriteToLastUse) {
  const auto ranges =
      transforms::ComputeLiveRanges(Chain().predict, [](const std::string&) { return true; });
  ASSERT_EQ(ranges.size(), 3u) << "x and y are external";
  EXPECT_EQ(ranges.at("a").defined, 0);
  EXPECT_EQ(ranges.at("a").last_used, 1);
  EXPECT_EQ(ranges.at("b").defined, 1);
  EXPECT_EQ(ranges.at("b").last_used, 2);
  EXPECT_EQ(ranges.at("c").defined, 2);
  EXPECT_EQ(ranges.at("c").last_used, 3);
}

TEST(Memonger, ABlobTakesTheNameOfOneWhoseLifeEnded) {
  const TransformedNet before = Chain();
  const TransformedNet after = transforms::ApplyPasses(before, {"optimize_inference_for_dag"});
  EXPECT_EQ(after.predict.op(0).output(0), "__m0_shared");
  EXPECT_EQ(after.predict.op(1).input(0), "__m0_shared");
  EXPECT_EQ(after.predict.op(1).output(0), "b");
  EXPECT_EQ(after.predict.op(2).input(0), "b");
  EXPECT_EQ(after.predict.op(2).output(0), "__m0_shared");
  EXPECT_EQ(after.predict.op(3).input(0), "__m0_shared");
  EXPECT_EQ(after.predict.op(3).output(0), "y");
  EXPECT_EQ(BlobNames(after.predict).size(), 4u) << "x, y, b and one shared name";

  const Tensor x = RandomTensor({3, 4}, 7);
  EXPECT_EQ(Values<float>(RunTransformed(after, {{"x", x}}, "y")),
            Values<float>(RunTransformed(before, {{"x", x}}, "y")));

  TransformedNet scoped = before;
  scoped.settings["namescope"] = "net/";
  EXPECT_EQ(transforms::ApplyPasses(scoped, {"optimize_inference_for_dag"}).predict.op(0).output(0),
            "net/__m0_shared");
}

// Caffe2's checks see a sharing one op too early (b taking a's name while Add still reads a)
// and an op made in place.
TEST(Memonger, CaffesChecksCatchASharingOneOpTooEarly) {
  TransformedNet t;
  *t.predict.add_op() = MakeOp("Relu", {"x"}, {"a"});
  *t.predict.add_op() = MakeOp("Sigmoid", {"x"}, {"b"});
  *t.predict.add_op() = MakeOp("Add", {"a", "b"}, {"y"});
  t.predict.add_external_input("x");
  t.predict.add_external_output("y");

  caffe2::NetDef early = t.predict;
  transforms::ApplyAssignments({{"a", "s"}, {"b", "s"}}, &early);
  EXPECT_EQ(transforms::GraphEqualityDifference(t.predict, early),
            "op #2 (Add) reads what ops [0, 1] wrote before, what ops [1, 1] wrote after");
  EXPECT_EQ(transforms::InplaceBlobsDifference(t.predict, early), "");

  caffe2::NetDef in_place = t.predict;
  transforms::ApplyAssignments({{"b", "y"}}, &in_place);
  EXPECT_EQ(transforms::InplaceBlobsDifference(t.predict, in_place),
            "op #2 (Add) writes in place other inputs than before");

  // The pass itself keeps a and b apart: both are read by op 2.
  const TransformedNet after = transforms::ApplyPasses(t, {"optimize_inference_for_dag"});
  EXPECT_EQ(after.predict.SerializeAsString(), t.predict.SerializeAsString());
}

TEST(Memonger, RefusesWhatCaffeAssertsAgainst) {
  TransformedNet undefined = Chain();
  undefined.predict.mutable_op(1)->set_input(0, "nowhere");
  ExpectError([&] { transforms::ApplyPasses(undefined, {"optimize_inference_for_dag"}); },
              ErrorKind::kIllegalTransform, {"nowhere not in external input"});

  TransformedNet training = Chain();
  training.predict.mutable_op(2)->set_is_gradient_op(true);
  ExpectError([&] { transforms::ApplyPasses(training, {"optimize_inference_for_dag"}); },
              ErrorKind::kIllegalTransform, {"inference-only nets", "Tanh"});
}

TEST(Memonger, PinsWhatSubNetsAndAliasesReachByName) {
  TransformedNet t;
  *t.predict.add_op() = MakeOp("Relu", {"x"}, {"a"});
  *t.predict.add_op() = MakeOp("Alias", {"a"}, {"a_view"});
  *t.predict.add_op() = MakeOp("Sigmoid", {"x"}, {"cond_value"});
  *t.predict.add_op() = MakeOp("Relu", {"x"}, {"read_inside"});
  caffe2::OperatorDef if_op = MakeOp("If", {"cond"}, {"y"});
  caffe2::NetDef then_net;
  *then_net.add_op() = MakeOp("Copy", {"read_inside"}, {"y"});
  caffe2::Argument* then_arg = if_op.add_arg();
  then_arg->set_name("then_net");
  *then_arg->mutable_n() = then_net;
  *t.predict.add_op() = if_op;
  t.predict.add_external_input("x");
  t.predict.add_external_input("cond");
  t.predict.add_external_output("y");
  const std::set<std::string> pinned = transforms::PinnedBlobs(t.predict);
  for (const char* blob : {"x", "cond", "y", "a", "a_view", "read_inside"}) {
    EXPECT_TRUE(pinned.count(blob)) << blob;
  }
  EXPECT_FALSE(pinned.count("cond_value"));
}

std::map<std::string, std::string> Assignments(const caffe2::NetDef& net,
                                               const std::function<bool(const std::string&)>& ok) {
  TransformedNet t;
  t.predict = net;
  return transforms::ComputeBlobRecycling(net, transforms::ComputeLiveRanges(net, ok), "",
                                          transforms::NamesIn(t));
}

// Two conv blocks (Conv, Relu, Conv, Relu, MaxPool) and an FC on 2 x 3 x 8 x 8 images.
TEST(Memonger, ConvNetKeepsItsOutputsInFewerBytes) {
  TransformedNet t;
  std::map<std::string, Tensor> feeds = {{"data", RandomTensor({2, 3, 8, 8}, 1)}};
  std::string x = "data";
  int64_t channels = 3;
  uint32_t seed = 2;
  for (int block = 0; block < 2; ++block) {
    for (int conv = 0; conv < 2; ++conv) {
      const std::string name = "conv" + std::to_string(block) + "_" + std::to_string(conv);
      feeds[name + "_w"] = RandomTensor({8, channels, 3, 3}, seed++, -0.3f, 0.3f);
      feeds[name + "_b"] = RandomTensor({8}, seed++);
      *t.predict.add_op() =
          MakeOp("Conv", {x, name + "_w", name + "_b"}, {name}, {{"kernel", 3}, {"pad", 1}});
      *t.predict.add_op() = MakeOp("Relu", {name}, {name + "_relu"});
      x = name + "_relu";
      channels = 8;
    }
    const std::string pool = "pool" + std::to_string(block);
    *t.predict.add_op() = MakeOp("MaxPool", {x}, {pool}, {{"kernel", 2}, {"stride", 2}});
    x = pool;
  }
  feeds["fc_w"] = RandomTensor({10, 8 * 2 * 2}, seed++);
  feeds["fc_b"] = RandomTensor({10}, seed++);
  *t.predict.add_op() = MakeOp("FC", {x, "fc_w", "fc_b"}, {"logits"});
  for (const auto& [name, value] : feeds) t.predict.add_external_input(name);
  t.predict.add_external_output("logits");

  const TransformedNet after = transforms::ApplyPasses(t, {"optimize_inference_for_dag"});
  EXPECT_EQ(Values<float>(RunTransformed(after, feeds, "logits")),
            Values<float>(RunTransformed(t, feeds, "logits")));
  EXPECT_EQ(BlobNames(t.predict).size() - BlobNames(after.predict).size(), 8u)
      << "10 activations in 2 shared names";

  Workspace ws;
  for (const auto& [name, value] : feeds) ws.CreateTensor(name)->CopyFrom(value);
  ws.RunNetOnce(t.predict);
  const transforms::SharingStatistics stats = transforms::ComputeSharingStatistics(
      Assignments(t.predict, [](const std::string&) { return true; }),
      [&ws](const std::string& blob) { return static_cast<int64_t>(ws.GetTensor(blob).nbytes()); });
  const int64_t before_bytes = stats.before_bytes, after_bytes = stats.after_bytes;
  // Activations: 4 convs and relus of 2x8x8x8 (4 KiB each, the second block 2x8x4x4: 1 KiB), 2
  // pools: all ten live one or two ops, so two names of the largest size hold them.
  EXPECT_EQ(before_bytes, (4 * 4096 + 4 * 1024 + 1024 + 256));
  EXPECT_EQ(after_bytes, 2 * 4096);
}

struct LstmNets {
  caffe2::NetDef net;
  LstmOutputs out;
  std::map<std::string, Tensor> feeds;
};

LstmNets LstmNet(bool training) {
  const int64_t steps = 4, n = 2, d = 3, h = 5;
  LstmNets lstm;
  LstmSpec spec;
  spec.dim_in = d;
  spec.dim_out = h;
  spec.forward_only = !training;
  lstm.net.set_name("lstm");
  // Something before and after the LSTM for the memonger to share. The sum over time is as
  // large as one row of hidden_all: were it written under hidden_last's name (a view of the last
  // row of the state hidden_all views too), it would overwrite what it sums while summing.
  *lstm.net.add_op() = MakeOp("Tanh", {"raw"}, {"input"});
  lstm.out = Lstm(&lstm.net, spec);
  *lstm.net.add_op() =
      MakeOp("ReduceSum", {lstm.out.hidden_all}, {"h_sum"}, {{"axes", Ints{0}}, {"keepdims", 0}});
  *lstm.net.add_op() = MakeOp("Sigmoid", {"h_sum"}, {"h_sig"});
  *lstm.net.add_op() = MakeOp("SumElements", {"h_sig"}, {"loss"});
  lstm.feeds["raw"] = RandomTensor({steps, n, d}, 3);
  lstm.feeds["seq_lengths"] = MakeTensor<int32_t>({n}, {4, 2});
  lstm.feeds["hidden_init"] = RandomTensor({1, n, h}, 4);
  lstm.feeds["cell_init"] = RandomTensor({1, n, h}, 5);
  uint32_t seed = 6;
  for (const RnnParameter& p : lstm.out.parameters) {
    lstm.feeds[p.name] = RandomTensor(p.dims, seed++, -0.5f, 0.5f);
  }
  for (const auto& [name, value] : lstm.feeds) lstm.net.add_external_input(name);
  return lstm;
}

TEST(Memonger, LstmInferenceNetSharesAroundTheRecurrentNetwork) {
  LstmNets lstm = LstmNet(false);
  lstm.net.add_external_output("loss");
  TransformedNet t;
  t.predict = lstm.net;
  const TransformedNet after = transforms::ApplyPasses(t, {"optimize_inference_for_dag"});
  // The sequence's projection i2h (the link external of input_t) takes the name of the Tanh's
  // output, which the projecting FC read last; RecurrentNetwork finds it through `.rename`.
  const caffe2::OperatorDef& rnn = after.predict.op(2);
  ASSERT_EQ(rnn.type(), "RecurrentNetwork");
  EXPECT_EQ(rnn.input(0), "__m1_shared");
  const caffe2::Argument* rename = nullptr;
  for (const auto& arg : rnn.arg()) {
    if (arg.name() == "lstm/i2h.rename") rename = &arg;
  }
  ASSERT_NE(rename, nullptr);
  EXPECT_EQ(rename->s(), "__m1_shared");
  // Its outputs are views of its states: never shared.
  EXPECT_EQ(rnn.output(0), lstm.out.hidden_all);
  EXPECT_EQ(rnn.output(1), lstm.out.hidden_last);
  EXPECT_LT(BlobNames(after.predict).size(), BlobNames(t.predict).size());
  EXPECT_EQ(Values<float>(RunTransformed(after, lstm.feeds, "loss")),
            Values<float>(RunTransformed(t, lstm.feeds, "loss")));
}

// The training net: gradients flow through RecurrentNetworkGradient, which finds its renamed
// blobs through `<blob>.rename`.
TEST(Memonger, ShareGradBlobsThroughRecurrentNetworkGradient) {
  LstmNets lstm = LstmNet(true);
  const auto grads = AddGradientOperators(&lstm.net, {{"loss", ""}});
  std::vector<std::string> fetched = {"loss", grads.at("raw")};
  for (const RnnParameter& p : lstm.out.parameters) fetched.push_back(grads.at(p.name));
  for (const auto& blob : fetched) lstm.net.add_external_output(blob);
  TransformedNet t;
  t.predict = lstm.net;
  const TransformedNet after = transforms::ApplyPasses(t, {"share_grad_blobs"});

  int renames = 0;
  for (const auto& op : after.predict.op()) {
    for (const auto& arg : op.arg()) {
      const bool is_rename =
          arg.name().size() > 7 && arg.name().compare(arg.name().size() - 7, 7, ".rename") == 0;
      if (is_rename) {
        EXPECT_EQ(op.type(), "RecurrentNetworkGradient") << arg.name();
        ++renames;
      }
    }
  }
  EXPECT_GE(renames, 1) << "the gradient of hidden_all comes in under a shared name";
  for (const auto& name : BlobNames(after.predict)) {
    if (name.find("__m") == 0) continue;
    EXPECT_TRUE(BlobNames(t.predict).count(name)) << name;
  }
  EXPECT_LT(BlobNames(after.predict).size(), BlobNames(t.predict).size());
  for (const auto& blob : fetched) {
    EXPECT_EQ(Values<float>(RunTransformed(after, lstm.feeds, blob)),
              Values<float>(RunTransformed(t, lstm.feeds, blob)))
        << blob;
  }
}

TEST(Memonger, ShareGradBlobsLeavesParamGradsAndOtherBlobsAlone) {
  TransformedNet t;
  *t.predict.add_op() = MakeOp("FC", {"x", "w1", "b1"}, {"h"});
  *t.predict.add_op() = MakeOp("Relu", {"h"}, {"r"});
  *t.predict.add_op() = MakeOp("FC", {"r", "w2", "b2"}, {"o"});
  *t.predict.add_op() = MakeOp("Sigmoid", {"o"}, {"s"});
  *t.predict.add_op() = MakeOp("SumElements", {"s"}, {"loss"});
  const auto grads = AddGradientOperators(&t.predict, {{"loss", ""}});
  const std::map<std::string, Tensor> feeds = {{"x", RandomTensor({4, 6}, 1)},
                                               {"w1", RandomTensor({5, 6}, 2)},
                                               {"b1", RandomTensor({5}, 3)},
                                               {"w2", RandomTensor({3, 5}, 4)},
                                               {"b2", RandomTensor({3}, 5)}};
  for (const auto& [name, value] : feeds) t.predict.add_external_input(name);
  t.predict.add_external_output(grads.at("w1"));
  t.settings["param_grads"] = grads.at("w2") + "," + grads.at("b2");

  const TransformedNet after = transforms::ApplyPasses(t, {"share_grad_blobs"});
  const std::set<std::string> names = BlobNames(after.predict);
  for (const char* kept : {"h", "r", "o", "s", "loss"}) EXPECT_TRUE(names.count(kept)) << kept;
  for (const char* param : {"w2", "b2"}) EXPECT_TRUE(names.count(grads.at(param))) << param;
  EXPECT_LT(names.size(), BlobNames(t.predict).size());
  for (const char* param : {"w1", "w2", "b2"}) {
    EXPECT_EQ(Values<float>(RunTransformed(after, feeds, grads.at(param))),
              Values<float>(RunTransformed(t, feeds, grads.at(param))))
        << param;
  }
}

}  // namespace
}  // namespace parity::testing
