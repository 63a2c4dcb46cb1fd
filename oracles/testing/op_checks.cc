#include "oracles/testing/op_checks.h"

#include <sstream>

#include "core/operator.h"
#include "core/tensor_proto.h"
#include "oracles/describe.h"
#include "oracles/check.h"
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

::testing::AssertionResult AllVerdictsOk(const CaseReport& report) {
  for (const OracleVerdict& verdict : report.verdicts()) {
    if (verdict.status() == OracleVerdict::FINDING) {
      return ::testing::AssertionFailure() << DescribeFinding(verdict.finding());
    }
    if (verdict.status() == OracleVerdict::NOT_APPLICABLE) {
      return ::testing::AssertionFailure()
             << "the " << verdict.oracle() << " oracle does not apply: " << verdict.reason();
    }
  }
  return ::testing::AssertionSuccess();
}

namespace {

CheckRequest Request(const std::string& oracle, const CheckOptions& options) {
  CheckRequest request;
  request.oracles = {oracle};
  request.tolerance = options.tolerance;
  request.backend = options.backend;
  return request;
}

}  // namespace

::testing::AssertionResult ReferenceChecks(const caffe2::OperatorDef& op,
                                           const NamedTensors& inputs,
                                           const CheckOptions& options) {
  return AllVerdictsOk(CheckCase(SingleOpCase(op, inputs, options.seed), Request("forward", options)));
}

::testing::AssertionResult GradientChecks(const caffe2::OperatorDef& op, const NamedTensors& inputs,
                                          int input_index, const CheckOptions& options) {
  Case c = SingleOpCase(op, inputs, options.seed);
  if (input_index < 0 || input_index >= op.input_size()) {
    return ::testing::AssertionFailure() << "input index " << input_index << " out of range";
  }
  c.add_grad_inputs(op.input(input_index));
  CheckRequest request = Request("gradient", options);
  request.full_jacobian = true;
  return AllVerdictsOk(CheckCase(c, request));
}

::testing::AssertionResult DeviceChecks(const caffe2::OperatorDef& op, const NamedTensors& inputs,
                                        const CheckOptions& options) {
  return AllVerdictsOk(CheckCase(SingleOpCase(op, inputs, options.seed), Request("device", options)));
}

}  // namespace parity::oracles
