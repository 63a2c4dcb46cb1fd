// A net fed doubles computes them in double. Two oracles assumed f32: the forward oracle held an
// exact op's double results to the f32 reference's rounding of them (Relu of a double came out a
// finding), and the gradient oracle seeded every output's gradient as float, which a gradient op
// of a double output refuses (every backward net of a double net "failed"). Both now take the
// dtype of what production computes; a double kernel that computes through float is still found.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "core/operator.h"
#include "oracles/backend.h"
#include "oracles/check.h"
#include "oracles/describe.h"
#include "oracles/testing/op_checks.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

// Values uniform in [lo, hi) as doubles that no float holds exactly.
Tensor RandomDoubles(const std::vector<int64_t>& dims, uint32_t seed, double lo, double hi) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  std::vector<double> values(static_cast<size_t>(n));
  for (double& v : values) v = dist(rng);
  return MakeTensor<double>(dims, values);
}

// Relu of a double that rounds through float, as a double path forgetting its type would.
class ReluThroughFloat final : public Operator {
 public:
  using Operator::Operator;
  void Run() override {
    const Tensor& x = Input(0);
    Tensor* y = Output(0);
    y->Resize(x.dims());
    for (int64_t i = 0; i < x.numel(); ++i) {
      const float v = static_cast<float>(x.data<double>()[i]);
      y->mutable_data<double>()[i] = v > 0 ? v : 0.0;
    }
  }
};
PARITY_REGISTER_CPU_OPERATOR_WITH_ENGINE(Relu, "THROUGH_FLOAT", ReluThroughFloat);
PARITY_REGISTER_BACKEND(oracles::MakeProductionBackend("relu-through-float", "THROUGH_FLOAT",
                                                       "Relu of doubles rounded through float"));

oracles::CheckRequest Oracles(std::vector<std::string> names, const std::string& backend) {
  oracles::CheckRequest request;
  request.oracles = std::move(names);
  request.backend = backend;
  return request;
}

TEST(DoubleInputs, ExactOpsAreHeldToTheF64ReferenceAndGradientsAreSeededInDouble) {
  const Tensor x = RandomDoubles({3, 5}, 1, -2.0, 2.0);
  for (const char* type : {"Relu", "Abs", "Neg", "Copy", "Sigmoid", "Tanh", "Exp", "Softmax"}) {
    Case c = oracles::SingleOpCase(MakeOp(type, {"x"}, {"y"}), {{"x", x}});
    c.add_grad_inputs("x");
    const CaseReport report =
        oracles::CheckCase(c, Oracles({"forward", "gradient", "determinism"}, "production"));
    for (const OracleVerdict& verdict : report.verdicts()) {
      EXPECT_EQ(verdict.status(), OracleVerdict::OK)
          << type << ": " << verdict.oracle() << ": " << verdict.reason()
          << oracles::DescribeFinding(verdict.finding());
    }
  }
  // The exact class (the ops' own, as `parity check` takes it from their specs).
  for (const char* type : {"Relu", "Abs", "Neg", "Copy"}) {
    const Case c = oracles::SingleOpCase(MakeOp(type, {"x"}, {"y"}), {{"x", x}});
    oracles::CheckRequest request = Oracles({"forward"}, "production");
    request.tolerance = "exact";
    const OracleVerdict verdict = oracles::CheckCase(c, request).verdicts(0);
    EXPECT_EQ(verdict.status(), OracleVerdict::OK)
        << type << ": " << oracles::DescribeFinding(verdict.finding());
  }
}

// Under the exact class (Relu's). A tolerance class sized by the f32 reference's error still
// allows a double computed through float: that needs a yardstick of f64 rounding.
TEST(DoubleInputs, ADoubleKernelThatRoundsThroughFloatIsFound) {
  const Case c =
      oracles::SingleOpCase(MakeOp("Relu", {"x"}, {"y"}), {{"x", RandomDoubles({3, 5}, 2, -2, 2)}});
  oracles::CheckRequest request = Oracles({"forward"}, "relu-through-float");
  request.tolerance = "exact";
  const OracleVerdict verdict = oracles::CheckCase(c, request).verdicts(0);
  ASSERT_EQ(verdict.status(), OracleVerdict::FINDING) << verdict.ShortDebugString();
  EXPECT_EQ(verdict.finding().blamed_op_type(), "Relu");
}

}  // namespace
}  // namespace parity::testing
