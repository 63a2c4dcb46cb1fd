// CompareWithTruth on values past f32's range: the f64 truth is rounded to what an f32 output can
// hold, so inf is right where the truth exceeds FLT_MAX, and wrong where it does not; and a NaN or
// inf that the f32 reference gives too (an intermediate overflowed) is f32's limit, not a fault.
#include "oracles/tolerance.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace parity::oracles {
namespace {

caffe2::TensorProto Doubles(const std::vector<double>& values) {
  caffe2::TensorProto t;
  t.set_data_type(caffe2::TensorProto::DOUBLE);
  t.add_dims(static_cast<int64_t>(values.size()));
  for (double v : values) t.add_double_data(v);
  return t;
}

caffe2::TensorProto Floats(const std::vector<float>& values) {
  caffe2::TensorProto t;
  t.set_data_type(caffe2::TensorProto::FLOAT);
  t.add_dims(static_cast<int64_t>(values.size()));
  for (float v : values) t.add_float_data(v);
  return t;
}

constexpr float kInf = std::numeric_limits<float>::infinity();

// The f32 reference is the truth rounded to f32 (no intermediate overflow of its own).
Comparison Compare(double truth, float actual) {
  return CompareWithTruth(Doubles({1.0, truth}), Floats({1.0f, static_cast<float>(truth)}),
                          Floats({1.0f, actual}), GetToleranceClass("default"));
}

TEST(CompareWithTruth, InfIsRightWhereTheTruthIsPastFloatRange) {
  EXPECT_TRUE(Compare(7.2e137, kInf).ok);
  EXPECT_TRUE(Compare(-1e300, -kInf).ok);
  EXPECT_TRUE(Compare(3.5e38, kInf).ok);  // above FLT_MAX + half an ulp
}

TEST(CompareWithTruth, InfIsWrongWhereFloatCanHoldTheTruth) {
  const Comparison within = Compare(1e38, kInf);
  EXPECT_FALSE(within.ok);
  EXPECT_EQ(within.error_class, "nan/inf mismatch");
  EXPECT_FALSE(Compare(7.2e137, -kInf).ok);  // wrong sign
  EXPECT_FALSE(Compare(7.2e137, std::nanf("")).ok);
  EXPECT_FALSE(Compare(7.2e137, 3e38f).ok);  // finite where f32 gives inf
}

TEST(CompareWithTruth, ANonFiniteTheF32ReferenceSharesIsTheDtypesLimit) {
  const caffe2::TensorProto truth = Doubles({0.5, 1.0});
  const float nan = std::nanf("");
  const caffe2::TensorProto got = Floats({0.5f, nan});
  const ToleranceClass& tol = GetToleranceClass("default");
  EXPECT_TRUE(CompareWithTruth(truth, Floats({0.5f, nan}), got, tol).ok);
  // The f32 reference stays finite: the NaN is the op's.
  EXPECT_FALSE(CompareWithTruth(truth, Floats({0.5f, 1.0f}), got, tol).ok);
  // The f32 reference overflows to inf, the output is NaN: not the same failure.
  EXPECT_FALSE(CompareWithTruth(truth, Floats({0.5f, kInf}), got, tol).ok);
}

}  // namespace
}  // namespace parity::oracles
