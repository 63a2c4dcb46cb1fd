// The roundtrip oracle sends a case's inputs through every tensor file format parity reads (.npy,
// binary and text TensorProtos) and back through the loader, so the campaign reaches the code
// `parity run --input` uses. Every dtype comes back bit for bit; a NaN's payload, which text does
// not keep, is not a finding.
#include <cmath>
#include <cstring>
#include <limits>

#include "core/tensor_proto.h"
#include "oracles/check.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

// A net that copies each input to an output, so the oracle's backend run has something to do.
Case CopyCase(const std::vector<Tensor>& inputs) {
  Case c;
  c.set_seed(1);
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string name = "x" + std::to_string(i);
    *c.add_inputs() = TensorToProto(inputs[i], name);
    caffe2::OperatorDef* op = c.mutable_net()->add_op();
    op->set_type("Copy");
    op->add_input(name);
    op->add_output("y" + std::to_string(i));
    c.mutable_net()->add_external_input(name);
    c.mutable_net()->add_external_output("y" + std::to_string(i));
  }
  return c;
}

OracleVerdict RoundTrip(const Case& c) {
  oracles::CheckRequest request;
  request.oracles = {"roundtrip"};
  const CaseReport report = oracles::CheckCase(c, request);
  EXPECT_EQ(report.verdicts_size(), 1);
  return report.verdicts(0);
}

TEST(RoundTripInputs, EveryDtypeComesBackFromEveryFormat) {
  const float nan_with_payload = [] {
    uint32_t bits = 0x7fc00123;
    float value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
  }();
  const Case c = CopyCase({
      MakeTensor<float>({2, 3}, {-0.0f, 1.5f, std::numeric_limits<float>::infinity(),
                                 nan_with_payload, 1e-45f, -3.25f}),
      MakeTensor<double>({2}, {0.1, -1e300}),
      MakeTensor<int32_t>({3}, {-7, 0, 2147483647}),
      MakeTensor<int64_t>({1, 2}, {int64_t{1} << 40, -1}),
      MakeTensor<bool>({3}, {true, false, true}),
      MakeTensor<float>({0, 4}, {}),
  });
  const OracleVerdict verdict = RoundTrip(c);
  EXPECT_EQ(verdict.status(), OracleVerdict::OK)
      << verdict.reason() << verdict.finding().message();
}

TEST(RoundTripInputs, AnInputTheLoaderCannotHoldIsLeftToTheBackends) {
  // dims [3] with two values: not a tensor; the backends reject the case, the oracle does not
  // call the loader wrong.
  Case c = CopyCase({MakeTensor<float>({2}, {1, 2})});
  c.mutable_inputs(0)->set_dims(0, 3);
  const OracleVerdict verdict = RoundTrip(c);
  EXPECT_NE(verdict.status(), OracleVerdict::FINDING) << verdict.finding().message();
}

}  // namespace
}  // namespace parity::testing
