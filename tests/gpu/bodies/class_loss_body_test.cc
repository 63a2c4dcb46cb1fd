// Class-loss bodies (gpu/kernels/class_loss_body.h) on the host against the CPU engine's
// NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss and their gradients: bit for bit (the same
// order of float and double operations, and the host's exp and log on both sides), NaN by
// position.
#include "gpu/kernels/class_loss_body.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tests/test_util.h"

namespace parity::gpu::kernels {
namespace {

using testing::MakeOp;
using testing::MakeTensor;
using testing::RandomTensor;
using testing::RunOp;
using testing::TestArg;
using testing::Values;

// One case: X [N, C, d...] and its targets, optional weights, the op's arguments.
struct ClassCase {
  Tensor x;
  Tensor target;
  std::optional<Tensor> weights;
  const char* reduction;
  std::optional<int64_t> ignore;
};

ClassDims DimsOf(const Tensor& x) {
  ClassDims s;
  s.n = x.dim(0);
  s.c = x.dim(1);
  for (int i = 2; i < x.ndim(); ++i) s.d *= x.dim(i);
  return s;
}

ClassReduction ReductionOf(const std::string& r) {
  return r == "none"  ? ClassReduction::kNone
         : r == "sum" ? ClassReduction::kSum
                      : ClassReduction::kMean;
}

// What the CUDA op hands its kernels: one class per position, -1 where ignored (in range: the op
// checked them first).
std::vector<int64_t> ClassesOf(const ClassCase& c) {
  std::vector<int64_t> out(c.target.numel());
  for (int64_t p = 0; p < c.target.numel(); ++p) {
    const int64_t v = c.target.dtype() == DataType::kInt64
                          ? c.target.data<int64_t>()[p]
                          : static_cast<int64_t>(c.target.data<int32_t>()[p]);
    out[p] = c.ignore && v == *c.ignore ? -1 : v;
  }
  return out;
}

std::vector<TestArg> ArgsOf(const ClassCase& c) {
  std::vector<TestArg> args = {{"reduction", c.reduction}};
  if (c.ignore) args.push_back({"ignore_index", *c.ignore});
  return args;
}

// The forward op's inputs ("x", "t", ["w"]) plus `extra`.
std::map<std::string, Tensor> InputsOf(const ClassCase& c, std::vector<std::string>* names) {
  std::map<std::string, Tensor> in = {{"x", c.x}, {"t", c.target}};
  *names = {"x", "t"};
  if (c.weights) {
    in["w"] = *c.weights;
    names->push_back("w");
  }
  return in;
}

void ExpectSameBits(const std::vector<float>& got, const std::vector<float>& want,
                    const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << what << " element " << i << " is " << got[i];
    } else {
      EXPECT_EQ(std::memcmp(&got[i], &want[i], sizeof(float)), 0)
          << what << " element " << i << ": " << got[i] << " vs the CPU's " << want[i];
    }
  }
}

// The loss from log-probabilities, as ClassLossFloat runs it.
std::vector<float> LossOnHost(const float* logp, const ClassCase& c) {
  const ClassDims s = DimsOf(c.x);
  const std::vector<int64_t> classes = ClassesOf(c);
  const ClassReduction r = ReductionOf(c.reduction);
  const int64_t positions = s.n * s.d;
  std::vector<float> y(r == ClassReduction::kNone ? positions : 1, -7.0f);
  std::vector<double> term(positions), weight(positions);
  const float* w = c.weights ? c.weights->data<float>() : nullptr;
  RunBodyOnHost(positions, [&](int64_t p) {
    ClassLossTerm(p, logp, classes.data(), w, s, r, y.data(), term.data(), weight.data());
  });
  if (r != ClassReduction::kNone) {
    ClassLossTotal(positions, term.data(), weight.data(), classes.data(), r, y.data());
  }
  return y;
}

void CheckNll(const ClassCase& c, const std::string& what) {
  std::vector<std::string> names;
  auto inputs = InputsOf(c, &names);
  auto ws = RunOp(MakeOp("NegativeLogLikelihoodLoss", names, {"y"}, ArgsOf(c)), inputs);
  ExpectSameBits(LossOnHost(c.x.data<float>(), c), Values<float>(ws->GetTensor("y")),
                 "NLL " + what);
}

void CheckSce(const ClassCase& c, const std::string& what) {
  std::vector<std::string> names;
  auto inputs = InputsOf(c, &names);
  auto ws = RunOp(MakeOp("SoftmaxCrossEntropyLoss", names, {"y", "lp"}, ArgsOf(c)), inputs);
  const ClassDims s = DimsOf(c.x);
  std::vector<float> log_prob(c.x.numel(), -7.0f);
  RunBodyOnHost(s.n * s.d,
                [&](int64_t p) { LogSoftmaxPosition(p, c.x.data<float>(), s, log_prob.data()); });
  ExpectSameBits(log_prob, Values<float>(ws->GetTensor("lp")), "SCE log_prob " + what);
  ExpectSameBits(LossOnHost(log_prob.data(), c), Values<float>(ws->GetTensor("y")),
                 "SCE loss " + what);
}

// Both gradients, with dLoss of the loss's dims.
void CheckGradients(const ClassCase& c, const std::string& what) {
  const ClassDims s = DimsOf(c.x);
  const ClassReduction r = ReductionOf(c.reduction);
  const int64_t positions = s.n * s.d;
  const Tensor dloss = r == ClassReduction::kNone ? RandomTensor(c.target.dims(), 77, -2, 2)
                                                  : MakeTensor<float>({}, {-1.25f});
  std::vector<std::string> names;
  auto inputs = InputsOf(c, &names);
  inputs["dl"] = dloss;
  names.push_back("dl");
  const std::vector<int64_t> classes = ClassesOf(c);
  const float* w = c.weights ? c.weights->data<float>() : nullptr;
  double total = -1.0;
  ClassWeightTotal(positions, classes.data(), w, &total);

  auto nll = RunOp(MakeOp("NegativeLogLikelihoodLossGradient", names, {"dx"}, ArgsOf(c)), inputs);
  std::vector<float> dx(c.x.numel(), -7.0f);
  RunBodyOnHost(c.x.numel(), [&](int64_t k) {
    NllGradientElement(k, classes.data(), w, dloss.data<float>(), s, r, &total, dx.data());
  });
  ExpectSameBits(dx, Values<float>(nll->GetTensor("dx")), "NLL gradient " + what);

  auto sce = RunOp(MakeOp("SoftmaxCrossEntropyLossGradient", names, {"dx"}, ArgsOf(c)), inputs);
  std::vector<float> stats(2 * positions);
  std::vector<double> scale(positions);
  RunBodyOnHost(positions, [&](int64_t p) {
    SceGradientPosition(p, c.x.data<float>(), classes.data(), w, dloss.data<float>(), s, r, &total,
                        stats.data(), scale.data());
  });
  std::fill(dx.begin(), dx.end(), -7.0f);
  RunBodyOnHost(c.x.numel(), [&](int64_t k) {
    SceGradientElement(k, c.x.data<float>(), classes.data(), s, stats.data(), scale.data(),
                       dx.data());
  });
  ExpectSameBits(dx, Values<float>(sce->GetTensor("dx")), "SCE gradient " + what);
}

// Log-probabilities of [3, 4] rows, targets int64.
ClassCase Simple(const char* reduction) {
  ClassCase c{RandomTensor({3, 4}, 5, -4, 0), MakeTensor<int64_t>({3}, {2, 0, 3}), std::nullopt,
              reduction, std::nullopt};
  return c;
}

// [2, 3, 2, 2]: D = 4 positions per image, int32 targets with ignored positions (-100) and
// per-class weights.
ClassCase Spatial(const char* reduction) {
  ClassCase c{RandomTensor({2, 3, 2, 2}, 9, -3, 3),
              MakeTensor<int32_t>({2, 2, 2}, {0, 2, -100, 1, 1, 1, 2, -100}),
              MakeTensor<float>({3}, {0.5f, 2.0f, 1.25f}), reduction, int64_t{-100}};
  return c;
}

TEST(ClassLossBodyTest, NllMatchesTheCpuBitForBitInEveryReduction) {
  for (const char* r : {"none", "sum", "mean"}) {
    CheckNll(Simple(r), std::string("simple ") + r);
    CheckNll(Spatial(r), std::string("spatial ") + r);
    ClassCase weighted = Simple(r);
    weighted.weights = MakeTensor<float>({4}, {1.0f, 0.25f, 3.0f, 0.0f});  // class 3 weighs 0
    CheckNll(weighted, std::string("weighted ") + r);
  }
}

TEST(ClassLossBodyTest, NllKeepsNanAndInfWhereTheCpuDoes) {
  for (const char* r : {"none", "sum", "mean"}) {
    ClassCase c = Simple(r);
    c.x.mutable_data<float>()[2] = NAN;        // picked by row 0
    c.x.mutable_data<float>()[4] = -INFINITY;  // picked by row 1
    CheckNll(c, std::string("nan ") + r);
  }
}

TEST(ClassLossBodyTest, EveryPositionIgnoredGivesTheCpusValues) {
  // mean: 0 / 0 = NaN; sum: 0; none: zeros.
  for (const char* r : {"none", "sum", "mean"}) {
    ClassCase c = Simple(r);
    c.target = MakeTensor<int64_t>({3}, {5, 5, 5});
    c.ignore = 5;
    CheckNll(c, std::string("all ignored ") + r);
    CheckSce(c, std::string("all ignored ") + r);
  }
}

TEST(ClassLossBodyTest, SoftmaxCrossEntropyMatchesTheCpuBitForBit) {
  for (const char* r : {"none", "sum", "mean"}) {
    CheckSce(Simple(r), std::string("simple ") + r);
    CheckSce(Spatial(r), std::string("spatial ") + r);
    ClassCase large = Simple(r);
    large.x = RandomTensor({3, 4}, 13, 900, 1000);  // logits near 1e3: the shifted form
    CheckSce(large, std::string("large ") + r);
  }
}

TEST(ClassLossBodyTest, SoftmaxCrossEntropyNanAndInfFollowTheCpu) {
  // A NaN score never becomes the max (std::max's order) but makes its row's sum NaN; +inf makes
  // the max inf and its row NaN (inf - inf); -inf is a probability 0.
  ClassCase c = Simple("none");
  c.x.mutable_data<float>()[1] = NAN;
  c.x.mutable_data<float>()[0] = NAN;  // first in its row: the max starts from -inf
  c.x.mutable_data<float>()[5] = INFINITY;
  c.x.mutable_data<float>()[8] = -INFINITY;
  CheckSce(c, "nan and inf");
}

TEST(ClassLossBodyTest, GradientsMatchTheCpuBitForBit) {
  for (const char* r : {"none", "sum", "mean"}) {
    CheckGradients(Simple(r), std::string("simple ") + r);
    CheckGradients(Spatial(r), std::string("spatial ") + r);
    ClassCase weighted = Simple(r);
    weighted.weights = MakeTensor<float>({4}, {1.0f, 0.25f, 3.0f, 0.5f});
    CheckGradients(weighted, std::string("weighted ") + r);
  }
}

TEST(ClassLossBodyTest, GradientsWithNanScoresFollowTheCpu) {
  for (const char* r : {"none", "mean"}) {
    ClassCase c = Spatial(r);
    c.x.mutable_data<float>()[0] = NAN;
    c.x.mutable_data<float>()[7] = INFINITY;
    CheckGradients(c, std::string("nan ") + r);
  }
}

TEST(ClassLossBodyTest, ByHand) {
  // Two equal scores: log_prob = -log 2 each; NLL of class 1 = log 2; the gradient of the sum
  // (dLoss 1) is [0.5, -0.5].
  const std::vector<float> x = {3.0f, 3.0f};
  const std::vector<int64_t> classes = {1};
  const ClassDims s{1, 2, 1};
  std::vector<float> lp(2);
  LogSoftmaxPosition(0, x.data(), s, lp.data());
  EXPECT_EQ(lp[0], -static_cast<float>(std::log(2.0)));
  EXPECT_EQ(lp[1], lp[0]);
  float y = 0;
  double term = 0, weight = 0;
  ClassLossTerm(0, lp.data(), classes.data(), nullptr, s, ClassReduction::kSum, &y, &term, &weight);
  ClassLossTotal(1, &term, &weight, classes.data(), ClassReduction::kSum, &y);
  EXPECT_EQ(y, static_cast<float>(std::log(2.0)));
  const float dloss = 1.0f;
  const double total = 1.0;
  float stats[2];
  double scale = 0;
  SceGradientPosition(0, x.data(), classes.data(), nullptr, &dloss, s, ClassReduction::kSum, &total,
                      stats, &scale);
  std::vector<float> dx(2);
  for (int k = 0; k < 2; ++k) {
    SceGradientElement(k, x.data(), classes.data(), s, stats, &scale, dx.data());
  }
  EXPECT_EQ(dx, (std::vector<float>{0.5f, -0.5f}));
}

}  // namespace
}  // namespace parity::gpu::kernels
