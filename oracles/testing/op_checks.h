// The C++ counterpart of Caffe2's assertReferenceChecks / assertGradientChecks /
// assertDeviceChecks, for op authors' gtest files:
//
//   EXPECT_REFERENCE_CHECKS(MakeOp("Relu", {"x"}, {"y"}), {{"x", x}});
//   EXPECT_GRADIENT_CHECKS(MakeOp("FC", {"x", "w", "b"}, {"y"}), {{"x", x}, {"w", w}, {"b", b}}, 0);
//
// The reference is parity's independent f64 interpreter (not a hand-written numpy function), the
// tolerance comes from the computation (f32 reference vs f64), and gradients are compared with
// central finite differences of the f64 reference. On failure the message shows the worst
// elements, the tolerance and the blamed op.
#ifndef PARITY_ORACLES_TESTING_OP_CHECKS_H_
#define PARITY_ORACLES_TESTING_OP_CHECKS_H_

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "core/proto/caffe2.pb.h"
#include "core/proto/parity.pb.h"
#include "core/tensor.h"
#include "gpu/device.h"

namespace parity::oracles {

using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

struct CheckOptions {
  std::string tolerance = "default";  // a class of oracles/tolerance.h
  std::string backend = "production"; // the backend under test (oracles/backend.h)
  uint64_t seed = 1;
};

// Success when every verdict of the report is OK; otherwise the findings described, or why an
// oracle did not apply.
::testing::AssertionResult AllVerdictsOk(const CaseReport& report);

// A one-op Case: the op, its inputs, every output compared.
Case SingleOpCase(const caffe2::OperatorDef& op, const NamedTensors& inputs, uint64_t seed = 1);

::testing::AssertionResult ReferenceChecks(const caffe2::OperatorDef& op,
                                           const NamedTensors& inputs,
                                           const CheckOptions& options = {});
// Checks the gradient with respect to input `input_index` (every element, like Caffe2's).
::testing::AssertionResult GradientChecks(const caffe2::OperatorDef& op, const NamedTensors& inputs,
                                          int input_index, const CheckOptions& options = {});
// CPU vs the CUDA device (the device oracle). EXPECT_DEVICE_CHECKS skips the rest of the test
// ("no CUDA device: skipped") where no device is present, so put it last or in its own TEST.
::testing::AssertionResult DeviceChecks(const caffe2::OperatorDef& op, const NamedTensors& inputs,
                                        const CheckOptions& options = {});

}  // namespace parity::oracles

#define EXPECT_REFERENCE_CHECKS(op, ...) \
  EXPECT_TRUE(::parity::oracles::ReferenceChecks((op), __VA_ARGS__))
#define EXPECT_GRADIENT_CHECKS(op, inputs, ...) \
  EXPECT_TRUE(::parity::oracles::GradientChecks((op), inputs, __VA_ARGS__))
#define EXPECT_DEVICE_CHECKS(op, ...)                                      \
  if (::parity::gpu::DeviceCount() == 0) {                                 \
    GTEST_SKIP() << "no CUDA device: skipped";                             \
  } else                                                                   \
    EXPECT_TRUE(::parity::oracles::DeviceChecks((op), __VA_ARGS__))

#endif  // PARITY_ORACLES_TESTING_OP_CHECKS_H_
