#include "oracles/testing/op_checks.h"

#include <sstream>

#include "core/operator.h"
#include "core/tensor_proto.h"
#include "oracles/oracle.h"
#include "oracles/tolerance.h"

namespace parity::oracles {

Case SingleOpCase(const caffe2::OperatorDef& op, const NamedTensors& inputs, uint64_t seed) {
  Case c;
  caffe2::NetDef* net = c.mutable_net();
  net->set_name("opnet");
  *net->add_op() = op;
  for (const auto& out : op.output()) net->add_external_output(out);
  for (const auto& [name, tensor] : inputs) {
    *c.add_inputs() = TensorToProto(tensor, name);
    net->add_external_input(name);
  }
  c.set_seed(seed);
  return c;
}

std::string DescribeFinding(const Finding& f) {
  std::ostringstream out;
  out.precision(9);
  out << "[" << f.oracle() << "] " << f.signature().error_class() << ": " << f.message() << "\n";
  if (f.blamed_op_index() >= 0) {
    out << "  blamed op #" << f.blamed_op_index() << " (" << f.blamed_op_type() << ")\n";
  }
  for (const BlobComparison& c : f.comparisons()) {
    const Metrics& m = c.metrics();
    out << "  blob '" << c.blob() << "': " << m.mismatch_count() << "/" << m.element_count()
        << " out of tolerance, max abs error " << m.max_abs_error() << ", max rel error "
        << m.max_rel_error() << ", norm error " << m.norm_error() << " (allowed "
        << m.norm_tolerance() << ")\n";
    std::vector<double> expected = ProtoValues(c.expected());
    std::vector<double> actual = ProtoValues(c.actual());
    if (m.worst_index() >= 0 && m.worst_index() < static_cast<int64_t>(expected.size()) &&
        m.worst_index() < static_cast<int64_t>(actual.size())) {
      out << "    worst element " << m.worst_index() << ": expected "
          << expected[m.worst_index()] << ", got " << actual[m.worst_index()] << "\n";
    }
  }
  out << "  repro: " << f.repro_command() << "\n";
  return out.str();
}

namespace {

::testing::AssertionResult Verdict(const OracleResult& result) {
  if (result.finding) return ::testing::AssertionFailure() << DescribeFinding(*result.finding);
  if (!result.not_applicable.empty()) {
    return ::testing::AssertionFailure() << "the oracle does not apply: " << result.not_applicable;
  }
  return ::testing::AssertionSuccess();
}

OracleOptions Options(const CheckOptions& options) {
  OracleOptions out;
  out.tolerance = GetToleranceClass(options.tolerance);
  out.engine_override = options.engine;
  return out;
}

}  // namespace

::testing::AssertionResult ReferenceChecks(const caffe2::OperatorDef& op,
                                           const NamedTensors& inputs,
                                           const CheckOptions& options) {
  return Verdict(RunOracle("forward", SingleOpCase(op, inputs, options.seed), Options(options)));
}

::testing::AssertionResult GradientChecks(const caffe2::OperatorDef& op, const NamedTensors& inputs,
                                          int input_index, const CheckOptions& options) {
  Case c = SingleOpCase(op, inputs, options.seed);
  if (input_index < 0 || input_index >= op.input_size()) {
    return ::testing::AssertionFailure() << "input index " << input_index << " out of range";
  }
  c.add_grad_inputs(op.input(input_index));
  OracleOptions oracle_options = Options(options);
  oracle_options.full_jacobian = true;
  return Verdict(RunOracle("gradient", c, oracle_options));
}

::testing::AssertionResult DeviceChecks(const caffe2::OperatorDef& op, const NamedTensors& inputs,
                                        const CheckOptions& options) {
  if (FindOracle("device") == nullptr) {
    return ::testing::AssertionSuccess() << "no device oracle in this build (no CUDA): CPU only";
  }
  return Verdict(RunOracle("device", SingleOpCase(op, inputs, options.seed), Options(options)));
}

}  // namespace parity::oracles
