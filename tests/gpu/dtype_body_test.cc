// The binary kernels beyond float (gpu/kernels/dtype_body.h) on the host, with the geometry the
// CUDA ops build (BinaryDims, then BroadcastGeometryOf), against the CPU engine's ops: Add / Sub /
// Mul / Div over double and the six integer types, the comparisons over bool, int32, int64, float
// and double, And / Or / Xor / Not. Values include each type's edges (INT_MIN / -1, wrap-around,
// NaN, infinities, -0.0), and every output must equal the CPU's bit for bit.
#include "gpu/kernels/dtype_body.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "core/argument.h"
#include "core/ops/elementwise/binary.h"
#include "core/schema.h"
#include "gpu/kernel_geometry.h"
#include "gpu/kernels/host_device.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

using gpu::kernels::Binary;
using gpu::kernels::Compare;
using gpu::kernels::Logical;

struct Case {
  std::vector<int64_t> a, b;
  std::vector<TestArg> args;
};

const std::vector<Case>& Cases() {
  static const std::vector<Case> cases = {
      {{2, 3, 4}, {2, 3, 4}, {}},                                // same shape
      {{2, 3, 4}, {4}, {}},                                      // suffix
      {{2, 3, 4}, {3, 1}, {}},                                   // inner broadcast in B
      {{2, 1, 4}, {3, 1}, {}},                                   // both operands broadcast
      {{3, 1, 5, 1}, {1, 4, 1, 2}, {}},                          // alternating
      {{2, 3, 4}, {}, {}},                                       // scalar B
      {{4}, {2, 3, 4}, {}},                                      // A broadcast
      {{2, 3, 4, 5}, {3, 4}, {{"broadcast", 1}, {"axis", 1}}},   // legacy, middle axis
      {{2, 3, 4}, {2}, {{"broadcast", 1}, {"axis", 0}}},         // legacy, leading axis
      {{0, 3}, {3}, {}},                                         // empty output
      {{2, 3, 1, 4, 2, 1, 3, 2}, {1, 3, 1, 4, 1, 2, 3, 1}, {}},  // rank 8, the kernel's limit
  };
  return cases;
}

// Values that find mistakes: a type's edges, then a spread of ordinary ones.
template <typename T>
std::vector<T> EdgeValues() {
  if constexpr (std::is_same_v<T, bool>) {
    return {false, true};
  } else if constexpr (std::is_floating_point_v<T>) {
    const T inf = std::numeric_limits<T>::infinity();
    return {T(0),
            T(-0.0),
            T(1),
            T(-1),
            T(0.5),
            T(3),
            T(-7.25),
            inf,
            -inf,
            std::numeric_limits<T>::quiet_NaN(),
            std::numeric_limits<T>::max(),
            std::numeric_limits<T>::denorm_min(),
            T(1e-30)};
  } else {
    std::vector<T> v = {T(0),
                        T(1),
                        T(2),
                        T(3),
                        T(7),
                        std::numeric_limits<T>::max(),
                        std::numeric_limits<T>::lowest(),
                        T(std::numeric_limits<T>::max() - 1)};
    if constexpr (std::is_signed_v<T>) {
      for (T x : {T(-1), T(-2), T(-3), T(-7), T(std::numeric_limits<T>::lowest() + 1)}) {
        v.push_back(x);
      }
    }
    return v;
  }
}

// A tensor of T: edge values and random ones, reproducible from `seed`; `no_zero` replaces zeros
// by 1 (integer divisors: the CPU refuses a zero, the op checks before the kernel runs).
template <typename T>
Tensor TestTensor(const std::vector<int64_t>& dims, uint32_t seed, bool no_zero = false) {
  Tensor t(DataTypeOf<T>::value, dims);
  T* data = t.mutable_data<T>();
  const std::vector<T> edges = EdgeValues<T>();
  std::mt19937 rng(seed);
  for (int64_t i = 0; i < t.numel(); ++i) {
    T v;
    if (rng() % 2 == 0 || std::is_same_v<T, bool>) {
      v = edges[rng() % edges.size()];
    } else if constexpr (std::is_floating_point_v<T>) {
      v = static_cast<T>(std::uniform_real_distribution<double>(-100.0, 100.0)(rng));
    } else {
      v = static_cast<T>(rng());  // the low bits: any value of T
    }
    if (no_zero && v == T(0)) v = T(1);
    data[i] = v;
  }
  return t;
}

// The geometry as the CUDA op builds it.
gpu::kernels::BroadcastGeometry GeometryOf(const caffe2::OperatorDef& def, const Case& c,
                                           std::vector<int64_t>* out) {
  const BroadcastArgs bargs =
      ReadBroadcastArgs(def, ArgumentHelper(def, OpSchemaRegistry::Find(def.type())));
  std::vector<int64_t> b_plan;
  BinaryDims(bargs, c.a, c.b, def.type(), out, &b_plan);
  return gpu::BroadcastGeometryOf(def.type(), *out, c.a, b_plan);
}

// Runs `body(a, b, y, g, i)` over the CPU's output and compares the bytes.
template <typename T, typename Out, typename Body>
void ExpectMatchesCpu(const char* type, const Case& c, const Tensor& a, const Tensor& b,
                      Body&& body) {
  const caffe2::OperatorDef def = MakeOp(type, {"a", "b"}, {"y"}, c.args);
  auto ws = RunOp(def, {{"a", a}, {"b", b}});
  const Tensor& expected = ws->GetBlob("y")->GetTensor();
  ASSERT_EQ(expected.dtype(), DataTypeOf<Out>::value) << type;
  std::vector<int64_t> out;
  const gpu::kernels::BroadcastGeometry g = GeometryOf(def, c, &out);
  ASSERT_EQ(out, expected.dims()) << type;
  Tensor result(expected.dtype(), out);  // not std::vector: vector<bool> has no data()
  Out* y = result.mutable_data<Out>();
  gpu::kernels::RunBodyOnHost(expected.numel(),
                              [&](int64_t i) { body(a.data<T>(), b.data<T>(), y, g, i); });
  const Out* want = expected.data<Out>();
  for (int64_t i = 0; i < expected.numel(); ++i) {
    ASSERT_EQ(std::memcmp(&y[i], &want[i], sizeof(Out)), 0)
        << type << " " << DataTypeName(DataTypeOf<T>::value) << " A " << ShapeString(c.a) << " B "
        << ShapeString(c.b) << " element " << i << ": body " << +y[i] << ", CPU " << +want[i];
  }
}

template <typename T>
void CheckArithmetic(uint32_t seed) {
  const std::pair<const char*, Binary> ops[] = {
      {"Add", Binary::kAdd}, {"Sub", Binary::kSub}, {"Mul", Binary::kMul}, {"Div", Binary::kDiv}};
  for (const auto& [type, fn] : ops) {
    for (const Case& c : Cases()) {
      const bool divides = fn == Binary::kDiv && std::is_integral_v<T>;
      const Tensor a = TestTensor<T>(c.a, seed += 2);
      const Tensor b = TestTensor<T>(c.b, seed + 1, divides);
      ExpectMatchesCpu<T, T>(
          type, c, a, b, [&, fn = fn](const T* pa, const T* pb, T* y, const auto& g, int64_t i) {
            gpu::kernels::ArithmeticBody<T>(fn, pa, pb, y, g, i);
          });
    }
  }
}

TEST(DtypeBody, ArithmeticMatchesTheCpuInEveryDtype) {
  CheckArithmetic<double>(1);
  CheckArithmetic<int32_t>(100);
  CheckArithmetic<int64_t>(200);
  CheckArithmetic<int8_t>(300);
  CheckArithmetic<int16_t>(400);
  CheckArithmetic<uint8_t>(500);
  CheckArithmetic<uint16_t>(600);
  // float has BinaryBody's kernel; the template computes the same.
  CheckArithmetic<float>(700);
}

// The integer edges by hand: wrap-around, truncation toward zero, INT_MIN / -1.
TEST(DtypeBody, IntegerEdgesByHand) {
  using gpu::kernels::ApplyArithmetic;
  constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
  constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
  EXPECT_EQ(ApplyArithmetic<int32_t>(Binary::kDiv, kMin, -1), kMin);
  EXPECT_EQ(ApplyArithmetic<int64_t>(Binary::kDiv, std::numeric_limits<int64_t>::min(), -1),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(ApplyArithmetic<int8_t>(Binary::kDiv, -128, -1), -128);
  EXPECT_EQ(ApplyArithmetic<int32_t>(Binary::kDiv, -7, 2), -3);
  EXPECT_EQ(ApplyArithmetic<int32_t>(Binary::kDiv, 7, -2), -3);
  EXPECT_EQ(ApplyArithmetic<int32_t>(Binary::kAdd, kMax, 1), kMin);
  EXPECT_EQ(ApplyArithmetic<int32_t>(Binary::kMul, kMax, 2), -2);
  EXPECT_EQ(ApplyArithmetic<uint8_t>(Binary::kAdd, 200, 100), 44);
  EXPECT_EQ(ApplyArithmetic<uint16_t>(Binary::kMul, 65535, 65535), 1);
  EXPECT_EQ(ApplyArithmetic<uint8_t>(Binary::kSub, 0, 1), 255);
  EXPECT_EQ(ApplyArithmetic<uint16_t>(Binary::kDiv, 65535, 2), 32767);
}

// The CPU refuses integer division by zero; the device's flag sees every zero and nothing else.
TEST(DtypeBody, ZeroDivisorFlag) {
  for (const std::vector<int32_t>& b :
       {std::vector<int32_t>{3, -1, 7}, std::vector<int32_t>{3, 0, 7},
        std::vector<int32_t>{0, 0, 0}, std::vector<int32_t>{5, 6, 0}}) {
    int32_t flag = 0;
    gpu::kernels::RunBodyOnHost(
        3, [&](int64_t i) { gpu::kernels::ZeroFlagBody<int32_t>(b.data(), &flag, i); });
    const bool has_zero = b[0] == 0 || b[1] == 0 || b[2] == 0;
    EXPECT_EQ(flag, has_zero ? 1 : 0);
    if (has_zero) {
      ExpectError(
          [&] {
            RunOp(MakeOp("Div", {"a", "b"}, {"y"}),
                  {{"a", MakeTensor<int32_t>({3}, {1, 2, 3})}, {"b", MakeTensor<int32_t>({3}, b)}});
          },
          ErrorKind::kBadArgument, {"integer division by zero"});
    }
  }
  const std::vector<double> d = {0.0, 1.0};
  int32_t flag = 0;
  gpu::kernels::ZeroFlagBody<double>(d.data(), &flag, 1);
  EXPECT_EQ(flag, 0);
}

template <typename T>
void CheckComparisons(uint32_t seed) {
  const std::pair<const char*, Compare> ops[] = {{"EQ", Compare::kEQ}, {"NE", Compare::kNE},
                                                 {"LT", Compare::kLT}, {"LE", Compare::kLE},
                                                 {"GT", Compare::kGT}, {"GE", Compare::kGE}};
  for (const auto& [type, fn] : ops) {
    for (const Case& c : Cases()) {
      // Edge values half the time: equal pairs, NaN against everything, -0.0 == 0.0.
      const Tensor a = TestTensor<T>(c.a, seed += 2);
      const Tensor b = TestTensor<T>(c.b, seed + 1);
      ExpectMatchesCpu<T, bool>(
          type, c, a, b, [&, fn = fn](const T* pa, const T* pb, bool* y, const auto& g, int64_t i) {
            gpu::kernels::CompareBody<T>(fn, pa, pb, y, g, i);
          });
    }
  }
}

TEST(DtypeBody, ComparisonsMatchTheCpuInEveryDtype) {
  CheckComparisons<bool>(1);
  CheckComparisons<int32_t>(100);
  CheckComparisons<int64_t>(200);
  CheckComparisons<float>(300);
  CheckComparisons<double>(400);
}

TEST(DtypeBody, NanComparesUnequal) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (Compare fn : {Compare::kEQ, Compare::kLT, Compare::kLE, Compare::kGT, Compare::kGE}) {
    EXPECT_FALSE(gpu::kernels::ApplyCompare<float>(fn, nan, nan));
    EXPECT_FALSE(gpu::kernels::ApplyCompare<float>(fn, nan, 1.0f));
  }
  EXPECT_TRUE(gpu::kernels::ApplyCompare<float>(Compare::kNE, nan, nan));
  EXPECT_TRUE(gpu::kernels::ApplyCompare<double>(Compare::kEQ, -0.0, 0.0));
}

TEST(DtypeBody, LogicalOpsMatchTheCpu) {
  const std::pair<const char*, Logical> ops[] = {
      {"And", Logical::kAnd}, {"Or", Logical::kOr}, {"Xor", Logical::kXor}};
  uint32_t seed = 1;
  for (const auto& [type, fn] : ops) {
    for (const Case& c : Cases()) {
      const Tensor a = TestTensor<bool>(c.a, seed += 2);
      const Tensor b = TestTensor<bool>(c.b, seed + 1);
      ExpectMatchesCpu<bool, bool>(
          type, c, a, b,
          [&, fn = fn](const bool* pa, const bool* pb, bool* y, const auto& g, int64_t i) {
            gpu::kernels::LogicalBody(fn, pa, pb, y, g, i);
          });
    }
  }
}

TEST(DtypeBody, NotMatchesTheCpu) {
  const Tensor x = TestTensor<bool>({3, 5}, 7);
  auto ws = RunOp(MakeOp("Not", {"x"}, {"y"}), {{"x", x}});
  const Tensor& expected = ws->GetBlob("y")->GetTensor();
  bool out[15];
  gpu::kernels::RunBodyOnHost(15,
                              [&](int64_t i) { gpu::kernels::NotBody(x.data<bool>(), out, i); });
  for (int i = 0; i < 15; ++i) EXPECT_EQ(out[i], expected.data<bool>()[i]) << i;
}

// What the CUDA ops leave to the CPU's checks (InferOutputs): mixed dtypes, bool arithmetic,
// int8 comparisons, float logic. The shape functions refuse them as the kernels do.
TEST(DtypeBody, TheSchemasRefuseWhatTheKernelsDoNotTake) {
  auto infer = [](const char* type, DataType a, DataType b) {
    const caffe2::OperatorDef def = MakeOp(type, {"a", "b"}, {"y"});
    return OpSchemaRegistry::Find(type)->InferShapes(
        def, {TensorType{a, {2}, true}, TensorType{b, {2}, true}});
  };
  ExpectError([&] { infer("Add", DataType::kInt32, DataType::kInt64); }, ErrorKind::kShapeMismatch,
              {"must have the same dtype"});
  ExpectError([&] { infer("Add", DataType::kBool, DataType::kBool); }, ErrorKind::kShapeMismatch,
              {"unsupported dtype"});
  ExpectError([&] { infer("LT", DataType::kInt8, DataType::kInt8); }, ErrorKind::kShapeMismatch,
              {"unsupported dtype"});
  ExpectError([&] { infer("And", DataType::kFloat, DataType::kFloat); }, ErrorKind::kShapeMismatch,
              {"unsupported dtype"});
  EXPECT_EQ(infer("EQ", DataType::kDouble, DataType::kDouble)[0].dtype, DataType::kBool);
  EXPECT_EQ(infer("Div", DataType::kUint16, DataType::kUint16)[0].dtype, DataType::kUint16);
}

}  // namespace
}  // namespace parity::testing
