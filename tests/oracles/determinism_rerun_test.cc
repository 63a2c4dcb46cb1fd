// The determinism oracle runs one net instance a second time on other values (every floating input
// reversed), and on smaller inputs, and compares with a fresh net on them: a predictor runs one net
// on batch after batch, and state an op instance keeps between runs shows only so. A kernel that
// keeps its first result (a cache keyed on the shape alone) is found; the real kernels, and nets
// with random fills (whose streams continue by design), are not.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "core/operator.h"
#include "core/workspace.h"
#include "oracles/backend.h"
#include "oracles/check.h"
#include "oracles/testing/op_checks.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

// Tanh whose op instance returns its first run's output again whenever the shape is the same.
class FirstResultTanh final : public Operator {
 public:
  using Operator::Operator;
  void Run() override {
    const Tensor& x = Input(0);
    Tensor* y = Output(0);
    y->Resize(x.dims());
    float* out = y->mutable_data<float>();
    if (cached_dims_ == x.dims()) {
      std::copy(cached_.begin(), cached_.end(), out);
      return;
    }
    for (int64_t i = 0; i < x.numel(); ++i) out[i] = std::tanh(x.data<float>()[i]);
    cached_dims_ = x.dims();
    cached_.assign(out, out + x.numel());
  }

 private:
  std::vector<int64_t> cached_dims_;
  std::vector<float> cached_;
};
PARITY_REGISTER_CPU_OPERATOR_WITH_ENGINE(Tanh, "FIRST_RESULT", FirstResultTanh);
PARITY_REGISTER_BACKEND(oracles::MakeProductionBackend(
    "first-result-tanh", "FIRST_RESULT", "Tanh that returns its first run's output for a shape"));

oracles::CheckRequest Determinism(const std::string& backend) {
  oracles::CheckRequest request;
  request.oracles = {"determinism"};
  request.backend = backend;
  return request;
}

TEST(DeterminismRerun, AnOpThatKeepsItsFirstResultIsFound) {
  const Case c = oracles::SingleOpCase(MakeOp("Tanh", {"x"}, {"y"}),
                                       {{"x", RandomTensor({3, 4}, 5, -2.0f, 2.0f)}});
  // Fresh nets, SimpleNet or DAG, run once each: the cache never shows.
  const OracleVerdict verdict = oracles::CheckCase(c, Determinism("first-result-tanh")).verdicts(0);
  ASSERT_EQ(verdict.status(), OracleVerdict::FINDING) << verdict.ShortDebugString();
  EXPECT_NE(verdict.finding().message().find("a fresh net vs the same net run again"),
            std::string::npos)
      << verdict.finding().message();
  EXPECT_EQ(verdict.finding().blamed_op_type(), "Tanh") << verdict.ShortDebugString();
  EXPECT_EQ(oracles::CheckCase(c, Determinism("production")).verdicts(0).status(),
            OracleVerdict::OK);
}

TEST(DeterminismRerun, RandomFillsAreNotComparedAcrossRuns) {
  // UniformFill continues its stream on a second run: a difference by design, not a finding.
  Case c = oracles::SingleOpCase(MakeOp("Add", {"x", "u"}, {"y"}),
                                 {{"x", RandomTensor({2, 3}, 6, -1.0f, 1.0f)}});
  caffe2::OperatorDef fill = MakeOp("UniformFill", {}, {"u"}, {{"shape", Ints{2, 3}}});
  *c.mutable_net()->mutable_op()->Add() = c.net().op(0);
  *c.mutable_net()->mutable_op(0) = fill;
  const OracleVerdict verdict = oracles::CheckCase(c, Determinism("production")).verdicts(0);
  EXPECT_EQ(verdict.status(), OracleVerdict::OK) << verdict.ShortDebugString();
}

// Tanh whose op instance sizes its output by the first run's shape, as a kernel that appends the
// dims it reads to a member and never clears it (Sum's dims_, once) or caches a check keyed on
// nothing: right on the first run of every instance, wrong on a later run with other shapes.
class FirstShapeTanh final : public Operator {
 public:
  using Operator::Operator;
  void Run() override {
    const Tensor& x = Input(0);
    if (first_dims_.empty()) first_dims_ = x.dims();
    Tensor* y = Output(0);
    y->Resize(first_dims_);
    float* out = y->mutable_data<float>();
    std::fill(out, out + y->numel(), 0.0f);
    const int64_t n = std::min(x.numel(), y->numel());
    for (int64_t i = 0; i < n; ++i) out[i] = std::tanh(x.data<float>()[i]);
  }

 private:
  std::vector<int64_t> first_dims_;
};
PARITY_REGISTER_CPU_OPERATOR_WITH_ENGINE(Tanh, "FIRST_SHAPE", FirstShapeTanh);
PARITY_REGISTER_BACKEND(oracles::MakeProductionBackend(
    "first-shape-tanh", "FIRST_SHAPE", "Tanh that keeps its first run's output shape"));

// Run again on the same shapes (the reversed values), it is right: only the second run on smaller
// inputs (every axis of one size cut by one) shows it.
TEST(DeterminismRerun, AnOpThatKeepsItsFirstShapeIsFoundOnSmallerInputs) {
  const Case c = oracles::SingleOpCase(MakeOp("Tanh", {"x"}, {"y"}),
                                       {{"x", RandomTensor({3, 4}, 5, -2.0f, 2.0f)}});
  const OracleVerdict verdict = oracles::CheckCase(c, Determinism("first-shape-tanh")).verdicts(0);
  ASSERT_EQ(verdict.status(), OracleVerdict::FINDING) << verdict.ShortDebugString();
  EXPECT_NE(verdict.finding().message().find("run again on smaller inputs"), std::string::npos)
      << verdict.finding().message();
  EXPECT_EQ(verdict.finding().blamed_op_type(), "Tanh") << verdict.ShortDebugString();
  EXPECT_EQ(oracles::CheckCase(c, Determinism("production")).verdicts(0).status(),
            OracleVerdict::OK);
}

// The kernels that keep dims between runs (Sum, Max, a broadcast Add) run again on smaller inputs
// as fresh ones do.
TEST(DeterminismRerun, RealKernelsRunAgainOnSmallerInputsAsFreshOnes) {
  Case c = oracles::SingleOpCase(MakeOp("Sum", {"a", "b"}, {"s"}),
                                 {{"a", RandomTensor({3, 4}, 1, -1.0f, 1.0f)},
                                  {"b", RandomTensor({3, 4}, 2, -1.0f, 1.0f)},
                                  {"c", RandomTensor({4}, 3, -1.0f, 1.0f)}});
  *c.mutable_net()->add_op() = MakeOp("Max", {"s", "a"}, {"m"});
  *c.mutable_net()->add_op() = MakeOp("Add", {"m", "c"}, {"y"});
  c.mutable_net()->add_external_output("y");
  for (uint64_t seed = 1; seed <= 4; ++seed) {  // the size cut is picked from the seed
    c.set_seed(seed);
    const OracleVerdict verdict = oracles::CheckCase(c, Determinism("production")).verdicts(0);
    EXPECT_EQ(verdict.status(), OracleVerdict::OK) << verdict.ShortDebugString();
  }
}

// Tanh whose result moves by an ulp when its input does not start on a 64-byte boundary: what a
// kernel that picks its vector path by address does.
class AddressRoundedTanh final : public Operator {
 public:
  using Operator::Operator;
  void Run() override {
    const Tensor& x = Input(0);
    Tensor* y = Output(0);
    y->Resize(x.dims());
    const bool aligned = reinterpret_cast<uintptr_t>(x.data<float>()) % 64 == 0;
    for (int64_t i = 0; i < x.numel(); ++i) {
      const float t = std::tanh(x.data<float>()[i]);
      y->mutable_data<float>()[i] = aligned ? t : std::nextafter(t, 2.0f);
    }
  }
};
PARITY_REGISTER_CPU_OPERATOR_WITH_ENGINE(Tanh, "ADDRESS_ROUNDED", AddressRoundedTanh);
PARITY_REGISTER_BACKEND(oracles::MakeProductionBackend(
    "address-rounded-tanh", "ADDRESS_ROUNDED", "Tanh whose rounding depends on X's address"));

// Every case's floating inputs are also fed as views off alignment: a kernel whose bits depend on
// where its input lies is found; the production kernels that did (Eigen's sums and its vector
// sin and exp start their packets at the first aligned address) are not.
TEST(DeterminismRerun, AKernelWhoseBitsDependOnItsInputsAddressIsFound) {
  const Case tanh = oracles::SingleOpCase(MakeOp("Tanh", {"x"}, {"y"}),
                                          {{"x", RandomTensor({5, 13}, 8, -2.0f, 2.0f)}});
  const OracleVerdict verdict =
      oracles::CheckCase(tanh, Determinism("address-rounded-tanh")).verdicts(0);
  ASSERT_EQ(verdict.status(), OracleVerdict::FINDING) << verdict.ShortDebugString();
  EXPECT_NE(verdict.finding().message().find("fed as views"), std::string::npos)
      << verdict.finding().message();
  EXPECT_EQ(verdict.finding().blamed_op_type(), "Tanh");
  for (const char* type : {"Sin", "Cos", "Tanh", "Exp", "Log", "SumElements", "AveragedLoss",
                           "ReduceSum", "ReduceProd", "Softmax", "LayerNorm"}) {
    for (uint64_t seed : {1, 2, 3, 4, 5, 6, 7}) {
      Case c = oracles::SingleOpCase(MakeOp(type, {"x"}, {"y"}),
                                     {{"x", RandomTensor({3, 37}, seed, 0.5f, 3.0f)}});
      if (std::string(type) == "LayerNorm") {
        *c.mutable_net()->mutable_op(0) = MakeOp(type, {"x"}, {"y", "mean", "std"});
      }
      c.set_seed(seed);  // the offset, 1 to 7 elements
      const OracleVerdict ok = oracles::CheckCase(c, Determinism("production")).verdicts(0);
      EXPECT_EQ(ok.status(), OracleVerdict::OK)
          << type << " seed " << seed << ": " << ok.finding().message();
    }
  }
  // In place on the view, the output lies off alignment too (as an op writing over a name that
  // holds a view): Eigen's element-wise vector code started where the output's address allowed.
  for (const char* type : {"Sin", "Cos", "Tanh", "Exp", "Log"}) {
    for (uint64_t seed : {1, 2, 3, 4, 5, 6, 7}) {
      Case c = oracles::SingleOpCase(MakeOp(type, {"x"}, {"x"}),
                                     {{"x", RandomTensor({4, 1000}, seed, 0.5f, 40.0f)}});
      c.set_seed(seed);
      const OracleVerdict ok = oracles::CheckCase(c, Determinism("production")).verdicts(0);
      EXPECT_EQ(ok.status(), OracleVerdict::OK)
          << type << " in place, seed " << seed << ": " << ok.finding().message();
    }
  }
}

// TanhGradient whose result moves by an ulp when dY does not start on a 64-byte boundary.
class AddressRoundedTanhGradient final : public Operator {
 public:
  using Operator::Operator;
  void Run() override {
    const Tensor& y = Input(0);
    const Tensor& dy = Input(1);
    Tensor* dx = Output(0);
    dx->Resize(y.dims());
    const bool aligned = reinterpret_cast<uintptr_t>(dy.data<float>()) % 64 == 0;
    for (int64_t i = 0; i < y.numel(); ++i) {
      const float yi = y.data<float>()[i];
      const float g = dy.data<float>()[i] * (1.0f - yi * yi);
      dx->mutable_data<float>()[i] = aligned ? g : std::nextafter(g, 2.0f * std::abs(g) + 1.0f);
    }
  }
};
PARITY_REGISTER_CPU_OPERATOR_WITH_ENGINE(TanhGradient, "ADDRESS_ROUNDED_GRADIENT",
                                         AddressRoundedTanhGradient);
PARITY_REGISTER_BACKEND(oracles::MakeProductionBackend(
    "address-rounded-tanh-gradient", "ADDRESS_ROUNDED_GRADIENT",
    "TanhGradient whose rounding depends on dY's address"));

// The net followed by its backward pass is checked the same way, the gradient seeds fed as views
// too: a gradient kernel whose bits depend on where dY lies is found, named as the gradient op;
// the production gradient kernels are not (Add's and Sub's gradient of a broadcast operand was
// Eigen's sum() of a block of dY, whose packets start at the first aligned address; a sum of
// an expression, such as a softmax row's dot product, starts them at index 0).
TEST(DeterminismRerun, AGradientKernelWhoseBitsDependOnItsInputsAddressIsFound) {
  const Case tanh = oracles::SingleOpCase(MakeOp("Tanh", {"x"}, {"y"}),
                                          {{"x", RandomTensor({5, 13}, 8, -2.0f, 2.0f)}});
  const OracleVerdict verdict =
      oracles::CheckCase(tanh, Determinism("address-rounded-tanh-gradient")).verdicts(0);
  ASSERT_EQ(verdict.status(), OracleVerdict::FINDING) << verdict.ShortDebugString();
  EXPECT_NE(verdict.finding().message().find("backward pass"), std::string::npos)
      << verdict.finding().message();
  EXPECT_EQ(verdict.finding().blamed_op_type(), "TanhGradient");

  // B of [3] along axis 0 of A [3, 37]: B's gradient sums each row of a block of dC.
  const Tensor rows = RandomTensor({3, 37}, 11, 0.5f, 3.0f);
  const Tensor column = RandomTensor({3}, 12, 0.5f, 3.0f);
  std::vector<Case> cases;
  for (const char* type : {"Add", "Sub", "Mul", "Div"}) {
    cases.push_back(oracles::SingleOpCase(
        MakeOp(type, {"a", "b"}, {"c"}, {{"broadcast", 1}, {"axis", 0}}),
        {{"a", rows}, {"b", column}}));
  }
  cases.push_back(oracles::SingleOpCase(MakeOp("Softmax", {"x"}, {"y"}), {{"x", rows}}));
  cases.push_back(
      oracles::SingleOpCase(MakeOp("LayerNorm", {"x"}, {"y", "mean", "std"}), {{"x", rows}}));
  cases.push_back(oracles::SingleOpCase(
      MakeOp("SpatialBN", {"x", "scale", "bias", "mean", "var"},
             {"y", "mean", "var", "saved_mean", "saved_inv_std"}, {{"is_test", 0}}),
      {{"x", RandomTensor({2, 3, 5, 7}, 13, -1.0f, 2.0f)},
       {"scale", RandomTensor({3}, 14, 0.5f, 1.5f)},
       {"bias", RandomTensor({3}, 15, -1.0f, 1.0f)},
       {"mean", RandomTensor({3}, 16, -1.0f, 1.0f)},
       {"var", RandomTensor({3}, 17, 0.5f, 1.5f)}}));
  // Each case fed doubles too: SpatialBNGradient's channel sums of a double dY were Eigen's sum()
  // of the map itself (its cast to double is no cast), which starts at the first aligned address.
  const size_t float_cases = cases.size();
  for (size_t k = 0; k < float_cases; ++k) {
    Case doubles = cases[k];
    for (caffe2::TensorProto& t : *doubles.mutable_inputs()) {
      const std::vector<double> values(t.float_data().begin(), t.float_data().end());
      t.clear_float_data();
      t.set_data_type(caffe2::TensorProto::DOUBLE);
      for (double v : values) t.add_double_data(v);
    }
    cases.push_back(doubles);
  }
  for (Case& c : cases) {
    for (uint64_t seed : {1, 2, 3, 4, 5, 6, 7}) {
      c.set_seed(seed);  // the offset, 1 to 7 elements, and the gradient seeds' values
      const OracleVerdict ok = oracles::CheckCase(c, Determinism("production")).verdicts(0);
      EXPECT_EQ(ok.status(), OracleVerdict::OK)
          << c.net().op(0).type() << " seed " << seed << ": " << ok.finding().message();
    }
  }
}

// The rerun met a LayerNorm reading a blob that was, by then, a RecurrentNetwork alias: a view
// at an offset into another blob's storage. Its mean came out an ulp apart from a fresh tensor's,
// since Eigen's sum() starts its packets at the first aligned address. The same values must give
// the same bits wherever they lie.
TEST(DeterminismRerun, LayerNormGivesTheSameBitsOverAViewAtAnyOffset) {
  const int64_t rows = 3, n = 37;
  const Tensor values = RandomTensor({rows, n}, 7, -3.0f, 5.0f);
  auto run = [&](const Tensor& x) {
    Workspace ws;
    ws.CreateTensor("x")->ShareData(x);
    caffe2::NetDef net;
    *net.add_op() = MakeOp("LayerNorm", {"x"}, {"y", "mean", "std"});
    ws.RunNetOnce(net);
    std::vector<float> out;
    for (const char* blob : {"y", "mean", "std"}) {
      const std::vector<float> v = Values<float>(ws.GetTensor(blob));
      out.insert(out.end(), v.begin(), v.end());
    }
    return out;
  };
  const std::vector<float> fresh = run(values);
  for (int64_t offset = 1; offset < 8; ++offset) {
    Tensor storage(DataType::kFloat, {offset + rows * n});
    float* data = storage.mutable_data<float>();
    std::copy(values.data<float>(), values.data<float>() + rows * n, data + offset);
    const std::vector<float> viewed = run(storage.View(offset, {rows, n}));
    ASSERT_EQ(viewed.size(), fresh.size());
    EXPECT_EQ(std::memcmp(viewed.data(), fresh.data(), fresh.size() * sizeof(float)), 0)
        << "offset " << offset;
  }
}

}  // namespace
}  // namespace parity::testing
