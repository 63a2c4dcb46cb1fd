// Inputs and checks shared by the gradient-kernel tests.
#ifndef PARITY_TESTS_GRAD_KERNELS_GRAD_TEST_UTIL_H_
#define PARITY_TESTS_GRAD_KERNELS_GRAD_TEST_UTIL_H_

#include <numeric>
#include <string>
#include <vector>

#include "core/schema.h"
#include "oracles/check.h"
#include "oracles/describe.h"
#include "oracles/testing/op_checks.h"
#include "tests/test_util.h"

namespace parity::testing {

// Uniform float values in [lo, hi), reproducible from `seed`.
inline Tensor Random(const Ints& dims, uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
  return RandomTensor(dims, seed, lo, hi);
}

// The schema's inferred output types for `in` (what the executor and generators rely on).
inline std::vector<TensorType> Infer(const caffe2::OperatorDef& def,
                                     const std::vector<TensorType>& in) {
  return OpSchemaRegistry::Get(def.type()).InferShapes(def, in);
}

inline TensorType Type(const Ints& dims, DataType dtype = DataType::kFloat) {
  TensorType t;
  t.dtype = dtype;
  t.dims = dims;
  return t;
}

// Pairwise-distinct values in (-1, 1): a permutation of a uniform grid, so no ties and no zeros.
inline Tensor Distinct(const std::vector<int64_t>& dims, int64_t seed = 1) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  int64_t step = 7;
  while (std::gcd(step, n) != 1) ++step;
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) {
    v[i] = static_cast<float>(-1.0 + 2.0 * ((i * step + seed) % n + 0.5) / n);
  }
  return MakeTensor<float>(dims, v);
}

// Values in [0.1, 0.9] (probabilities away from 0 and 1).
inline Tensor Probabilities(const std::vector<int64_t>& dims, int64_t seed = 1) {
  Tensor t = Distinct(dims, seed);
  float* p = t.mutable_data<float>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = 0.5f + 0.4f * p[i];
  return t;
}

// Values in [0.75, 1.75] (variances, denominators).
inline Tensor Positive(const std::vector<int64_t>& dims, int64_t seed = 1) {
  Tensor t = Distinct(dims, seed);
  float* p = t.mutable_data<float>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = 1.25f + 0.5f * p[i];
  return t;
}

// Like EXPECT_GRADIENT_CHECKS with only `outputs` compared (Caffe2's outputs_with_grads), every
// input element checked separately.
inline ::testing::AssertionResult GradientChecksOn(const caffe2::OperatorDef& op,
                                                   const oracles::NamedTensors& inputs,
                                                   int input_index,
                                                   const std::vector<std::string>& outputs) {
  Case c = oracles::SingleOpCase(op, inputs);
  c.mutable_net()->clear_external_output();
  for (const auto& out : outputs) c.mutable_net()->add_external_output(out);
  c.add_grad_inputs(op.input(input_index));
  oracles::CheckRequest request;
  request.oracles = {"gradient"};
  request.tolerance = "default";
  request.full_jacobian = true;
  return oracles::AllVerdictsOk(oracles::CheckCase(c, request));
}

}  // namespace parity::testing

#endif  // PARITY_TESTS_GRAD_KERNELS_GRAD_TEST_UTIL_H_
