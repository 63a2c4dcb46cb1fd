// Where, WhereGradient and Cast's kernel bodies (gpu/kernels/dtype_body.h) on the host, with the
// geometry the CUDA ops build (gpu/ops/dtype_select.cc), against the CPU engine's ops: Where in
// every dtype (numpy broadcasting of all three operands and Caffe2's broadcast_on_rows), its
// gradient in float and double (sums over broadcast copies in the CPU's order, -0.0 included),
// and every Cast pair with each type's edges (NaN, infinities, values beyond the target's range).
// Every output must equal the CPU's bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "gpu/kernel_geometry.h"
#include "gpu/kernels/dtype_body.h"
#include "gpu/kernels/host_device.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

// Values of T, edges among them (for Cast: beyond every target's range, NaN, -0.0).
template <typename T>
Tensor TestTensor(const std::vector<int64_t>& dims, uint32_t seed) {
  Tensor t(DataTypeOf<T>::value, dims);
  T* data = t.mutable_data<T>();
  std::mt19937 rng(seed);
  for (int64_t i = 0; i < t.numel(); ++i) {
    if constexpr (std::is_same_v<T, bool>) {
      data[i] = rng() % 2 == 0;
    } else if constexpr (std::is_floating_point_v<T>) {
      const T inf = std::numeric_limits<T>::infinity();
      const T edges[] = {T(0),
                         T(-0.0),
                         T(0.5),
                         T(-0.5),
                         T(1.5),
                         T(-2.5),
                         T(127.9),
                         T(128),
                         T(-128.5),
                         T(255.5),
                         T(256),
                         T(32768),
                         T(65536),
                         T(-1e10),
                         T(3e9),
                         T(2147483648.0),
                         T(-2147483648.0),
                         T(9.3e18),
                         T(-9.3e18),
                         inf,
                         -inf,
                         std::numeric_limits<T>::quiet_NaN(),
                         std::numeric_limits<T>::max(),
                         std::numeric_limits<T>::lowest(),
                         std::numeric_limits<T>::denorm_min()};
      data[i] = rng() % 2 == 0
                    ? edges[rng() % (sizeof(edges) / sizeof(edges[0]))]
                    : static_cast<T>(std::uniform_real_distribution<double>(-300.0, 300.0)(rng));
    } else {
      const T edges[] = {T(0), T(1), std::numeric_limits<T>::max(),
                         std::numeric_limits<T>::lowest(), static_cast<T>(-1)};
      data[i] = rng() % 2 == 0 ? edges[rng() % 5] : static_cast<T>(rng());
    }
  }
  return t;
}

template <typename T>
void ExpectBitsEqual(const Tensor& expected, const void* actual, const std::string& what) {
  ASSERT_EQ(expected.dtype(), DataTypeOf<T>::value) << what;
  const T* want = expected.data<T>();
  const T* got = static_cast<const T*>(actual);
  for (int64_t i = 0; i < expected.numel(); ++i) {
    ASSERT_EQ(std::memcmp(&got[i], &want[i], sizeof(T)), 0)
        << what << " element " << i << ": body " << +got[i] << ", CPU " << +want[i];
  }
}

// The unsigned word of T's size, as the Where kernel moves it.
template <typename T>
using Word =
    std::conditional_t<sizeof(T) == 1, uint8_t,
                       std::conditional_t<sizeof(T) == 2, uint16_t,
                                          std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>>;

// C's dims as WhereCudaOp gives them to the geometry.
std::vector<int64_t> ConditionDims(const std::vector<int64_t>& c, size_t rank, bool on_rows) {
  if (!on_rows) return c;
  std::vector<int64_t> dims(rank, 1);
  dims[0] = c[0];
  return dims;
}

struct WhereCase {
  std::vector<int64_t> c, x, y;
  bool on_rows = false;
};

const std::vector<WhereCase>& WhereCases() {
  static const std::vector<WhereCase> cases = {
      {{2, 3, 4}, {2, 3, 4}, {2, 3, 4}},
      {{3, 1}, {2, 1, 4}, {4}},  // all three broadcast
      {{4}, {2, 3, 4}, {}},      // scalar Y
      {{2, 1, 1}, {1, 3, 1}, {1, 1, 4}},
      {{}, {2, 3}, {2, 3}},  // scalar C
      {{0, 3}, {3}, {1}},    // empty output
      {{3}, {3, 2, 2}, {3, 2, 2}, true},
      {{2}, {2, 5}, {2, 5}, true},
  };
  return cases;
}

template <typename T>
void CheckWhere(uint32_t seed) {
  for (const WhereCase& wc : WhereCases()) {
    std::vector<TestArg> args;
    if (wc.on_rows) args.push_back({"broadcast_on_rows", 1});
    const Tensor c = TestTensor<bool>(wc.c, seed += 3);
    const Tensor x = TestTensor<T>(wc.x, seed + 1);
    const Tensor y = TestTensor<T>(wc.y, seed + 2);
    auto ws = RunOp(MakeOp("Where", {"c", "x", "y"}, {"z"}, args), {{"c", c}, {"x", x}, {"y", y}});
    const Tensor& expected = ws->GetBlob("z")->GetTensor();
    const std::vector<int64_t>& out = expected.dims();
    const std::vector<int64_t> c_dims = ConditionDims(wc.c, out.size(), wc.on_rows);
    const gpu::kernels::WhereGeometry g =
        gpu::kernels::WhereGeometryFrom(gpu::BroadcastGeometryOf("Where", out, c_dims, wc.x),
                                        gpu::BroadcastGeometryOf("Where", out, c_dims, wc.y));
    using W = Word<T>;
    std::vector<W> z(static_cast<size_t>(expected.numel()));
    gpu::kernels::RunBodyOnHost(expected.numel(), [&](int64_t i) {
      gpu::kernels::WhereBody<W>(c.data<bool>(), static_cast<const W*>(x.raw_data()),
                                 static_cast<const W*>(y.raw_data()), z.data(), g, i);
    });
    ExpectBitsEqual<T>(expected, z.data(),
                       "Where " + std::string(DataTypeName(DataTypeOf<T>::value)) + " C " +
                           ShapeString(wc.c) + " X " + ShapeString(wc.x) + " Y " +
                           ShapeString(wc.y));
  }
}

TEST(DtypeSelectBody, WhereMatchesTheCpuInEveryDtype) {
  CheckWhere<float>(1);
  CheckWhere<double>(100);
  CheckWhere<int32_t>(200);
  CheckWhere<int64_t>(300);
  CheckWhere<bool>(400);
  CheckWhere<uint8_t>(500);
  CheckWhere<int8_t>(600);
  CheckWhere<int16_t>(700);
  CheckWhere<uint16_t>(800);
}

template <typename T>
void CheckWhereGradient(uint32_t seed) {
  for (const WhereCase& wc : WhereCases()) {
    std::vector<TestArg> args;
    if (wc.on_rows) args.push_back({"broadcast_on_rows", 1});
    const Tensor c = TestTensor<bool>(wc.c, seed += 3);
    const Tensor x = TestTensor<T>(wc.x, seed + 1);
    const Tensor y = TestTensor<T>(wc.y, seed + 2);
    // The forward output's dims from the CPU, then dZ of them: sums of ordinary values and
    // -0.0 (a lone -0.0 added into 0 is +0.0 on the CPU).
    auto fwd = RunOp(MakeOp("Where", {"c", "x", "y"}, {"z"}, args), {{"c", c}, {"x", x}, {"y", y}});
    const std::vector<int64_t> out = fwd->GetBlob("z")->GetTensor().dims();
    Tensor dz(DataTypeOf<T>::value, out);
    std::mt19937 rng(seed);
    for (int64_t i = 0; i < dz.numel(); ++i) {
      dz.mutable_data<T>()[i] =
          rng() % 4 == 0 ? T(-0.0)
                         : static_cast<T>(std::uniform_real_distribution<double>(-2.0, 2.0)(rng));
    }
    auto ws = RunOp(MakeOp("WhereGradient", {"c", "x", "y", "dz"}, {"dx", "dy"}, args),
                    {{"c", c}, {"x", x}, {"y", y}, {"dz", dz}});
    const std::vector<int64_t> c_dims = ConditionDims(wc.c, out.size(), wc.on_rows);
    const gpu::kernels::BroadcastGeometry c_of =
        gpu::BroadcastGeometryOf("WhereGradient", out, c_dims, c_dims);
    for (int k = 0; k < 2; ++k) {
      const std::vector<int64_t>& dims = k == 0 ? wc.x : wc.y;
      int64_t count = 1;
      const gpu::kernels::ReduceGeometry r =
          gpu::BroadcastReduceGeometryOf("WhereGradient", out, dims, &count);
      const Tensor& expected = ws->GetBlob(k == 0 ? "dx" : "dy")->GetTensor();
      ASSERT_EQ(expected.dims(), dims);
      std::vector<T> d(static_cast<size_t>(expected.numel()), T(-12345));
      gpu::kernels::RunBodyOnHost(expected.numel(), [&](int64_t i) {
        gpu::kernels::WhereGradBody<T>(k == 0, c.data<bool>(), dz.data<T>(), d.data(), count, r,
                                       c_of, i);
      });
      ExpectBitsEqual<T>(expected, d.data(),
                         std::string(k == 0 ? "dX" : "dY") + " C " + ShapeString(wc.c) + " X " +
                             ShapeString(wc.x) + " Y " + ShapeString(wc.y));
    }
  }
}

TEST(DtypeSelectBody, WhereGradientMatchesTheCpu) {
  CheckWhereGradient<float>(1);
  CheckWhereGradient<double>(100);
}

template <typename From, typename To>
void CheckCast(uint32_t seed) {
  const Tensor x = TestTensor<From>({200}, seed);
  const int64_t to = static_cast<int64_t>(DataTypeOf<To>::value);
  auto ws = RunOp(MakeOp("Cast", {"x"}, {"y"}, {{"to", to}}), {{"x", x}});
  Tensor y(DataTypeOf<To>::value, {200});  // not std::vector: vector<bool> has no data()
  To* out = y.mutable_data<To>();
  gpu::kernels::RunBodyOnHost(
      200, [&](int64_t i) { gpu::kernels::CastBody<To, From>(x.data<From>(), out, i); });
  ExpectBitsEqual<To>(ws->GetBlob("y")->GetTensor(), out,
                      std::string("Cast ") + DataTypeName(DataTypeOf<From>::value) + " -> " +
                          DataTypeName(DataTypeOf<To>::value));
}

template <typename From>
void CheckCastsFrom(uint32_t seed) {
  CheckCast<From, float>(seed);
  CheckCast<From, double>(seed + 1);
  CheckCast<From, int32_t>(seed + 2);
  CheckCast<From, int64_t>(seed + 3);
  CheckCast<From, bool>(seed + 4);
  CheckCast<From, uint8_t>(seed + 5);
  CheckCast<From, int8_t>(seed + 6);
  CheckCast<From, int16_t>(seed + 7);
  CheckCast<From, uint16_t>(seed + 8);
}

TEST(DtypeSelectBody, CastMatchesTheCpuForEveryPair) {
  CheckCastsFrom<float>(1);
  CheckCastsFrom<double>(100);
  CheckCastsFrom<int32_t>(200);
  CheckCastsFrom<int64_t>(300);
  CheckCastsFrom<bool>(400);
  CheckCastsFrom<uint8_t>(500);
  CheckCastsFrom<int8_t>(600);
  CheckCastsFrom<int16_t>(700);
  CheckCastsFrom<uint16_t>(800);
}

// The saturation by hand, and the limits the body computes without std::numeric_limits.
TEST(DtypeSelectBody, CastSaturatesAndMapsNanToZero) {
  using gpu::kernels::CastValue;
  using gpu::kernels::IntegerLimits;
  EXPECT_EQ(IntegerLimits<int8_t>::kLowest, -128);
  EXPECT_EQ(IntegerLimits<int8_t>::kMax, 127);
  EXPECT_EQ(IntegerLimits<int16_t>::kLowest, std::numeric_limits<int16_t>::lowest());
  EXPECT_EQ(IntegerLimits<int16_t>::kMax, std::numeric_limits<int16_t>::max());
  EXPECT_EQ(IntegerLimits<int32_t>::kLowest, std::numeric_limits<int32_t>::lowest());
  EXPECT_EQ(IntegerLimits<int32_t>::kMax, std::numeric_limits<int32_t>::max());
  EXPECT_EQ(IntegerLimits<int64_t>::kLowest, std::numeric_limits<int64_t>::lowest());
  EXPECT_EQ(IntegerLimits<int64_t>::kMax, std::numeric_limits<int64_t>::max());
  EXPECT_EQ(IntegerLimits<uint8_t>::kLowest, 0);
  EXPECT_EQ(IntegerLimits<uint8_t>::kMax, 255);
  EXPECT_EQ(IntegerLimits<uint16_t>::kMax, 65535);
  EXPECT_EQ((CastValue<int32_t, float>(std::nanf(""))), 0);
  EXPECT_EQ((CastValue<int32_t, float>(3e9f)), std::numeric_limits<int32_t>::max());
  EXPECT_EQ((CastValue<int64_t, double>(-1e300)), std::numeric_limits<int64_t>::lowest());
  EXPECT_EQ((CastValue<uint8_t, float>(-1.5f)), 0);
  EXPECT_EQ((CastValue<int8_t, double>(-2.9)), -2);
  EXPECT_TRUE((CastValue<bool, float>(std::nanf(""))));
  EXPECT_FALSE((CastValue<bool, double>(-0.0)));
}

}  // namespace
}  // namespace parity::testing
