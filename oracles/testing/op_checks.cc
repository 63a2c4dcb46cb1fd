#include "oracles/testing/op_checks.h"

#include <sstream>

#include "core/operator.h"
#include "core/tensor_proto.h"
#include "oracles/describe.h"
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
