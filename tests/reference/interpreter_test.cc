// The interpreter itself: trace, errors, value semantics, Alias, precision, coverage.
#include <algorithm>
#include <cmath>
#include <set>

#include "tests/reference/test_util.h"

namespace parity::reference::testing {
namespace {

TEST(Interpreter, TraceRecordsEveryOutputAfterEveryOp) {
  RunOptions options;
  options.trace = true;
  // y = a + b; y = y * y (in place); z = Relu(y)
  const auto net = MakeNet(
      {Op("Add", {"a", "b"}, {"y"}), Op("Mul", {"y", "y"}, {"y"}), Op("Neg", {"y"}, {"z"})});
  RunResult r = RunNet(net, {{"a", F({2}, {1, 2})}, {"b", F({2}, {2, 3})}}, options);
  ASSERT_EQ(r.trace.size(), 3u);
  EXPECT_EQ(r.trace[0].op_index, 0);
  EXPECT_EQ(r.trace[0].op_type, "Add");
  EXPECT_VALUES_NEAR(r.trace[0].outputs.at("y"), (std::vector<double>{3, 5}), 0);
  EXPECT_VALUES_NEAR(r.trace[1].outputs.at("y"), (std::vector<double>{9, 25}), 0);
  EXPECT_EQ(r.trace[2].op_index, 2);
  EXPECT_VALUES_NEAR(r.trace[2].outputs.at("z"), (std::vector<double>{-9, -25}), 0);
  EXPECT_EQ(r.trace[2].outputs.count("y"), 0u);
  // Results: f64 runs report DOUBLE.
  EXPECT_EQ(r.blobs.at("z").data_type(), caffe2::TensorProto::DOUBLE);
  EXPECT_EQ(r.blobs.at("z").name(), "z");
  // Without trace, nothing is recorded.
  EXPECT_TRUE(RunNet(net, {{"a", F({2}, {1, 2})}, {"b", F({2}, {2, 3})}}).trace.empty());
}

TEST(Interpreter, RunNetsSharesTheWorkspace) {
  const auto init = MakeNet({Op("ConstantFill", {}, {"w"}).Ints("shape", {2}).F("value", 3)});
  const auto net = MakeNet({Op("Mul", {"x", "w"}, {"y"})});
  RunOptions options;
  options.trace = true;
  RunResult r = RunNets(init, net, {{"x", F({2}, {1, 2})}}, options);
  EXPECT_VALUES_NEAR(r.blobs.at("y"), (std::vector<double>{3, 6}), 0);
  ASSERT_EQ(r.trace.size(), 2u);
  EXPECT_EQ(r.trace[1].op_index, 1);
}

// A predict net's op is named by its position in that net, as production names it, not by its
// position counted from the init net's first op (densenet121's op #666 was reported as #1514).
TEST(Interpreter, RunNetsNamesTheFailingOpWithinItsOwnNet) {
  const auto init = MakeNet({Op("ConstantFill", {}, {"w"}).Ints("shape", {2}).F("value", 3),
                             Op("ConstantFill", {}, {"v"}).Ints("shape", {2}).F("value", 1),
                             Op("ConstantFill", {}, {"u"}).Ints("shape", {2}).F("value", 2)},
                            "init");
  const auto net =
      MakeNet({Op("Mul", {"x", "w"}, {"y"}), Op("Add", {"y", "nope"}, {"z"})}, "predict");
  std::string msg = ExpectError(
      [&] {
        RunNets(init, net, {{"x", F({2}, {1, 2})}});
      },
      ErrorKind::kMissingBlob);
  EXPECT_NE(msg.find("net 'predict': op #1 (Add)"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("op #4"), std::string::npos) << msg;
  // An init net's failing op is named within the init net, under its own name.
  const auto bad_init = MakeNet(
      {Op("ConstantFill", {}, {"w"}).Ints("shape", {2}), Op("Relu", {"nope"}, {"r"})}, "init");
  msg = ExpectError(
      [&] {
        RunNets(bad_init, net, {{"x", F({2}, {1, 2})}});
      },
      ErrorKind::kMissingBlob);
  EXPECT_NE(msg.find("net 'init': op #1 (Relu)"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("predict"), std::string::npos) << msg;
  // The trace still numbers top-level ops on across both nets (the backends subtract the init
  // net's count).
  RunOptions options;
  options.trace = true;
  const auto good = MakeNet({Op("Mul", {"x", "w"}, {"y"}), Op("Add", {"y", "v"}, {"z"})});
  RunResult r = RunNets(init, good, {{"x", F({2}, {1, 2})}}, options);
  ASSERT_EQ(r.trace.size(), 5u);
  EXPECT_EQ(r.trace[4].op_index, 4);
  EXPECT_EQ(r.trace[4].op_type, "Add");
}

TEST(Interpreter, FloatInputsRunInTheChosenPrecision) {
  // 1 + 2^-30 is exact in double and rounds to 1 in float.
  const double tiny = std::ldexp(1.0, -30);
  const Tensors in = {{"a", F({1}, {1})}, {"b", F({1}, {tiny})}};
  auto f64 = RunOps({Op("Add", {"a", "b"}, {"y"})}, in, Precision::kF64);
  auto f32 = RunOps({Op("Add", {"a", "b"}, {"y"})}, in, Precision::kF32);
  EXPECT_EQ(f32.blobs.at("y").data_type(), caffe2::TensorProto::FLOAT);
  EXPECT_EQ(Values(f64.blobs.at("y"))[0], 1 + tiny);
  EXPECT_EQ(Values(f32.blobs.at("y"))[0], 1.0);
  // Integers stay exact in f32 mode too.
  auto i = RunOps({Op("Add", {"a", "b"}, {"y"})},
                  {{"a", I64({1}, {int64_t{1} << 40})}, {"b", I64({1}, {1})}}, Precision::kF32);
  EXPECT_EQ(IntValues(i.blobs.at("y")), (std::vector<int64_t>{(int64_t{1} << 40) + 1}));
}

double MaxAbsDiff(const caffe2::TensorProto& a, const caffe2::TensorProto& b) {
  const auto x = Values(a), y = Values(b);
  double d = 0;
  for (size_t k = 0; k < x.size(); ++k) d = std::max(d, std::abs(x[k] - y[k]));
  return d;
}

TEST(Interpreter, F32DistanceGrowsWithIllConditioning) {
  // Well conditioned: y = Sigmoid(x*w + b) on moderate values. The f32 run may differ from f64 by
  // a few float ulps of the result (~1e-7 relative), no more.
  const auto good = MakeNet(
      {Op("Mul", {"x", "w"}, {"t"}), Op("Add", {"t", "b"}, {"u"}), Op("Sigmoid", {"u"}, {"y"})});
  const Tensors in = {{"x", F({4}, {0.1, -0.7, 1.3, 0.25})},
                      {"w", F({4}, {0.9, 1.1, -0.3, 2.0})},
                      {"b", F({4}, {0.05, 0.2, -0.1, 0.3})}};
  RunOptions o32;
  o32.precision = Precision::kF32;
  const double d_good =
      MaxAbsDiff(RunNet(good, in).blobs.at("y"), RunNet(good, in, o32).blobs.at("y"));
  EXPECT_LE(d_good, 4 * 6e-8);  // a few ulps of values below 1
  // Ill conditioned: (a + b) - a with a = 1e8 loses b's low digits in float (ulp(1e8) = 8).
  const auto bad = MakeNet({Op("Add", {"a", "b"}, {"s"}), Op("Sub", {"s", "a"}, {"y"})});
  const Tensors in2 = {{"a", F({1}, {1e8})}, {"b", F({1}, {3.141592653589793})}};
  const auto exact = RunNet(bad, in2).blobs.at("y");
  EXPECT_NEAR(Values(exact)[0], 3.141592653589793, 1e-7);
  const double d_bad = MaxAbsDiff(exact, RunNet(bad, in2, o32).blobs.at("y"));
  // In float ulp(1e8) = 8: 1e8 + 3.14 rounds to 1e8, so f32 returns 0, 3.14 away.
  EXPECT_GT(d_bad, 0.1);
  EXPECT_GT(d_bad, 1000 * d_good);
}

TEST(Interpreter, AliasSharesStorageUntilReallocated) {
  // y aliases x; an in-place Relu of y with the same size writes through to x.
  const auto net = MakeNet({Op("Alias", {"x"}, {"y"}), Op("Relu", {"y"}, {"y"})});
  RunResult r = RunNet(net, {{"x", F({3}, {-1, 2, -3})}});
  EXPECT_VALUES_NEAR(r.blobs.at("x"), (std::vector<double>{0, 2, 0}), 0);
  // Copy does not share.
  RunResult c = RunNet(MakeNet({Op("Copy", {"x"}, {"y"}), Op("Relu", {"y"}, {"y"})}),
                       {{"x", F({3}, {-1, 2, -3})}});
  EXPECT_VALUES_NEAR(c.blobs.at("x"), (std::vector<double>{-1, 2, -3}), 0);
  // A write of a different size gives y fresh storage; x keeps its values.
  RunResult d = RunNet(
      MakeNet({Op("Alias", {"x"}, {"y"}), Op("Concat", {"y", "y"}, {"z", "info"}).I("axis", 0),
               Op("Copy", {"z"}, {"y"})}),
      {{"x", F({3}, {-1, 2, -3})}});
  EXPECT_VALUES_NEAR(d.blobs.at("x"), (std::vector<double>{-1, 2, -3}), 0);
  EXPECT_EQ(Dims(d.blobs.at("y")), (std::vector<int64_t>{6}));
}

TEST(Interpreter, ErrorsNameTheOpAndHaveTheRightKind) {
  std::string msg = ExpectError(
      [] {
        RunNet(MakeNet({Op("Relu", {"x"}, {"y"}), Op("Add", {"y", "nope"}, {"z"})}, "main"),
               {{"x", F({1}, {1})}});
      },
      ErrorKind::kMissingBlob);
  EXPECT_NE(msg.find("op #1 (Add)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("nope"), std::string::npos) << msg;
  EXPECT_NE(msg.find("net 'main'"), std::string::npos) << msg;
  msg = ExpectError(
      [] {
        RunOps({Op("Relu", {"x", "x"}, {"y"})}, {{"x", F({1}, {1})}});
      },
      ErrorKind::kBadArgument);
  EXPECT_NE(msg.find("2 inputs"), std::string::npos) << msg;
  ExpectError(
      [] {
        RunOps({Op("NoSuchOp", {"x"}, {"y"})}, {{"x", F({1}, {1})}});
      },
      ErrorKind::kUnknownOp);
  ExpectError(
      [] {
        RunOps({Op("RecurrentNetworkGradient", {"x"}, {"y"})}, {{"x", F({1}, {1})}});
      },
      ErrorKind::kUnknownOp);
  msg = ExpectError(
      [] {
        RunOps({Op("Add", {"a", "b"}, {"y"})},
               {{"a", F({2, 3}, {1, 2, 3, 4, 5, 6})}, {"b", F({2}, {1, 2})}});
      },
      ErrorKind::kShapeMismatch);
  EXPECT_NE(msg.find("[2, 3]"), std::string::npos) << msg;
  // Duplicated argument names, wrong argument field.
  ExpectError(
      [] {
        RunOps({Op("Scale", {"x"}, {"y"}).F("scale", 1).F("scale", 2)}, {{"x", F({1}, {1})}});
      },
      ErrorKind::kBadArgument);
  ExpectError(
      [] {
        RunOps({Op("Flatten", {"x"}, {"y"}).F("axis", 1)}, {{"x", F({1, 1}, {1})}});
      },
      ErrorKind::kBadArgument);
  // Malformed input tensors.
  ExpectError(
      [] {
        RunOps({Op("Relu", {"x"}, {"y"})}, {{"x", F({3}, {1})}});
      },
      ErrorKind::kInvalidNet);
}

TEST(Interpreter, ResourceLimits) {
  RunOptions o;
  o.max_alloc_bytes = 1000;
  ExpectError(
      [&] { RunNet(MakeNet({Op("ConstantFill", {}, {"y"}).Ints("shape", {1000})}), {}, o); },
      ErrorKind::kResourceLimit);
  // Broadcasting and Tile are checked before any per-element table is built.
  std::vector<double> col(200, 1.0);
  ExpectError(
      [&] {
        RunNet(MakeNet({Op("Add", {"a", "b"}, {"y"})}),
               {{"a", F({200, 1}, col)}, {"b", F({1, 200}, col)}}, o);
      },
      ErrorKind::kResourceLimit);
  ExpectError(
      [&] {
        RunNet(MakeNet({Op("Tile", {"a"}, {"y"}).I("tiles", int64_t{1} << 62)}),
               {{"a", F({200, 1}, col)}}, o);
      },
      ErrorKind::kResourceLimit);
  // Dims whose product overflows int64.
  ExpectError(
      [] {
        RunOps({Op("ConstantFill", {}, {"y"}).Ints("shape", {int64_t{1} << 40, int64_t{1} << 40})},
               {});
      },
      ErrorKind::kResourceLimit);
  ExpectError([] { RunOps({Op("ConstantFill", {}, {"y"}).Ints("shape", {-2})}, {}); },
              ErrorKind::kBadArgument);
}

TEST(Interpreter, RawDataInputs) {
  caffe2::TensorProto p;
  p.add_dims(2);
  p.set_data_type(caffe2::TensorProto::FLOAT);
  const float v[2] = {1.5f, -2.0f};
  p.set_raw_data(std::string(reinterpret_cast<const char*>(v), sizeof(v)));
  EXPECT_VALUES_NEAR(RunOp(Op("Neg", {"x"}, {"y"}), {{"x", p}}, "y"),
                     (std::vector<double>{-1.5, 2}), 0);
}

// The production op set of issue 3 (forward ops): the reference must implement every one.
TEST(Coverage, EveryProductionOpIsImplemented) {
  const std::vector<std::string> production = {
      "Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Sum", "Mean", "LT", "LE", "GT", "GE", "EQ",
      "NE", "And", "Or", "Xor", "Not", "Relu", "LeakyRelu", "Elu", "Sigmoid", "Tanh", "Softsign",
      "Exp", "Log", "Sqrt", "Sqr", "Abs", "Neg", "Reciprocal", "Sin", "Cos", "Clip", "Scale",
      "Cast", "StopGradient", "FC", "FCTransposed", "MatMul", "BatchMatMul", "Reshape", "Transpose",
      "Concat", "Split", "Flatten", "FlattenToVec", "ExpandDims", "Squeeze", "Slice", "Shape",
      "Gather", "Tile", "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "SumElements",
      "Softmax", "SpatialBN", "LayerNorm", "SquaredL2Distance", "AveragedLoss", "LabelCrossEntropy",
      "SoftmaxWithLoss", "SigmoidCrossEntropyWithLogits", "Conv", "MaxPool", "AveragePool",
      "ConstantFill", "GivenTensorFill", "GivenTensorDoubleFill", "GivenTensorIntFill",
      "GivenTensorInt64Fill", "GivenTensorBoolFill", "UniformFill", "GaussianFill", "XavierFill",
      "Copy", "Alias", "LSTMUnit", "GRUUnit",
      // Control flow and RNN (later production issue).
      "CreateScope", "HasScope", "Do", "If", "While", "RecurrentNetwork"};
  const auto supported = SupportedOps();
  const std::set<std::string> have(supported.begin(), supported.end());
  const auto fd = FiniteDifferenceOnlyOps();
  for (const auto& op : production) {
    EXPECT_TRUE(have.count(op) || fd.count(op)) << op << " is missing from the reference";
  }
  EXPECT_TRUE(fd.count("RecurrentNetworkGradient"));
  for (const auto& [op, reason] : fd) EXPECT_FALSE(reason.empty()) << op;
  // Every op has an argument table entry, and defaults parse.
  const auto table = ArgumentTable();
  EXPECT_EQ(table.size(), supported.size());
  EXPECT_EQ(table.at("FC"), (std::vector<std::pair<std::string, std::string>>{
                                {"axis", "1"}, {"axis_w", "1"}}));
  EXPECT_EQ(Arity("Concat"), (std::vector<int>{1, -1, 1, 2}));
  ExpectError([] { Arity("Nope"); }, ErrorKind::kUnknownOp);
}

}  // namespace
}  // namespace parity::reference::testing
