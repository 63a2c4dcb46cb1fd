// The bodies of Range, Trilu, GatherElements (+ gradient) and Mod (gpu/kernels/misc_body.h), and
// ModGradient's terms of grad2_body.h's BinaryGradBody, with the geometries the CUDA ops build
// (gpu/ops/misc.cc, mod.cc), on the host against the CPU engine, bit for bit: every one of these
// kernels computes each element as the CPU does (the same roundings, the same order of addition),
// except ModGradient's sums over broadcast copies, tested on exact values where any order gives the
// same bits.
#include "gpu/kernels/misc_body.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "core/ops/elementwise/binary.h"
#include "gpu/kernel_geometry.h"
#include "gpu/kernels/grad2_body.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

namespace k = gpu::kernels;

// The same bytes (NaN payloads included: every kernel here moves or computes them as the CPU).
void ExpectSameBytes(const void* got, const Tensor& want, size_t bytes, const std::string& what) {
  ASSERT_EQ(want.nbytes(), bytes) << what;
  EXPECT_EQ(std::memcmp(got, want.raw_data(), bytes), 0) << what;
}

// ---- Range

template <typename T>
void CheckRange(DataType dtype, std::vector<T> values, const std::string& what) {
  std::map<std::string, Tensor> inputs;
  std::vector<std::string> names;
  for (size_t i = 0; i < values.size(); ++i) {
    names.push_back("in" + std::to_string(i));
    inputs[names.back()] = MakeTensor<T>({}, {values[i]});
  }
  auto ws = RunOp(MakeOp("Range", names, {"y"}), inputs);
  const Tensor& want = ws->GetTensor("y");
  ASSERT_EQ(want.dtype(), dtype) << what;
  const T start = values.size() == 1 ? T(0) : values[0];
  const T step = values.size() == 3 ? values[2] : T(1);
  std::vector<T> y(want.numel());
  k::RunBodyOnHost(want.numel(), [&](int64_t i) { k::RangeBody(start, step, y.data(), i); });
  ExpectSameBytes(y.data(), want, y.size() * sizeof(T), what);
}

TEST(MiscBodyTest, RangeMatchesTheCpuBitForBit) {
  CheckRange<float>(DataType::kFloat, {0.1f, 2.3f, 0.1f}, "float 0.1 steps");
  CheckRange<float>(DataType::kFloat, {7.5f}, "float stop only");
  CheckRange<float>(DataType::kFloat, {3.0f, -4.2f, -0.7f}, "float descending");
  CheckRange<float>(DataType::kFloat, {1e7f, 1e7f + 64.0f, 3.0f}, "float large start");
  CheckRange<double>(DataType::kDouble, {-1.0, 1.0, 0.13}, "double");
  CheckRange<int32_t>(DataType::kInt32, {10, 6, -3}, "int32 descending");
  CheckRange<int32_t>(DataType::kInt32, {-5, 17, 4}, "int32");
  CheckRange<int64_t>(DataType::kInt64, {12}, "int64 stop only");
  CheckRange<int64_t>(
      DataType::kInt64,
      {std::numeric_limits<int64_t>::max() - 10, std::numeric_limits<int64_t>::max(), 3},
      "int64 near the top");
}

// ---- Trilu

template <typename T, typename Word>
void CheckTrilu(const Tensor& x, bool upper, int64_t kk, bool in_place, const std::string& what) {
  auto ws = RunOp(MakeOp("Trilu", {"x"}, {"y"}, {{"upper", upper ? 1 : 0}, {"k", kk}}), {{"x", x}});
  std::vector<Word> y(x.numel());
  const Word* in = static_cast<const Word*>(x.raw_data());
  if (in_place) std::memcpy(y.data(), in, x.nbytes());
  const int64_t rows = x.dim(-2), cols = x.dim(-1);
  k::RunBodyOnHost(x.numel(), [&](int64_t at) {
    k::TriluBody(in_place ? y.data() : in, y.data(), rows, cols, upper, kk, at);
  });
  ExpectSameBytes(y.data(), ws->GetTensor("y"), x.nbytes(),
                  what + (upper ? " upper" : " lower") + " k " + std::to_string(kk));
}

TEST(MiscBodyTest, TriluMatchesTheCpuBitForBit) {
  Tensor x = RandomTensor({2, 3, 5}, 3);
  x.mutable_data<float>()[1] = NAN;
  x.mutable_data<float>()[7] = -0.0f;
  x.mutable_data<float>()[20] = -INFINITY;
  Tensor wide = RandomTensor({4, 2}, 4);
  Tensor d(DataType::kDouble, {3, 3});
  Tensor i64(DataType::kInt64, {2, 2, 3});
  Tensor i32(DataType::kInt32, {1, 4, 4});
  for (int64_t i = 0; i < d.numel(); ++i) d.mutable_data<double>()[i] = 0.25 * i - 1;
  for (int64_t i = 0; i < i64.numel(); ++i) i64.mutable_data<int64_t>()[i] = (i * 7919) - 40000;
  for (int64_t i = 0; i < i32.numel(); ++i) i32.mutable_data<int32_t>()[i] = -3 * i + 1;
  for (bool upper : {true, false}) {
    for (int64_t kk : {-6, -2, -1, 0, 1, 3, 7}) {
      CheckTrilu<float, uint32_t>(x, upper, kk, false, "float");
      CheckTrilu<float, uint32_t>(x, upper, kk, true, "float in place");
      CheckTrilu<float, uint32_t>(wide, upper, kk, false, "tall");
      CheckTrilu<double, uint64_t>(d, upper, kk, false, "double");
      CheckTrilu<int64_t, uint64_t>(i64, upper, kk, false, "int64");
      CheckTrilu<int32_t, uint32_t>(i32, upper, kk, false, "int32");
    }
  }
}

// ---- GatherElements

template <typename Word>
void CheckGatherElements(const Tensor& data, const Tensor& idx, int64_t axis,
                         const std::string& what) {
  auto ws = RunOp(MakeOp("GatherElements", {"d", "i"}, {"y"}, {{"axis", axis}}),
                  {{"d", data}, {"i", idx}});
  const int rank = data.ndim();
  const int a = static_cast<int>(axis < 0 ? axis + rank : axis);
  const k::GatherElementsGeometry g =
      k::GatherElementsGeometryOf(rank, data.dims().data(), idx.dims().data(), a);
  std::vector<Word> y(idx.numel());
  const Word* src = static_cast<const Word*>(data.raw_data());
  k::RunBodyOnHost(idx.numel(), [&](int64_t i) {
    if (idx.dtype() == DataType::kInt64) {
      k::GatherElementsBody(src, idx.data<int64_t>(), y.data(), g, i);
    } else {
      k::GatherElementsBody(src, idx.data<int32_t>(), y.data(), g, i);
    }
  });
  ExpectSameBytes(y.data(), ws->GetTensor("y"), y.size() * sizeof(Word), what);
}

// Indices in [-bound, bound) from a simple hash, of `dtype`.
Tensor Indices(DataType dtype, const std::vector<int64_t>& dims, int64_t bound, int seed) {
  Tensor t(dtype, dims);
  for (int64_t i = 0; i < t.numel(); ++i) {
    const int64_t v = (i * 37 + seed * 11) % (2 * bound) - bound;
    if (dtype == DataType::kInt64) {
      t.mutable_data<int64_t>()[i] = v;
    } else {
      t.mutable_data<int32_t>()[i] = static_cast<int32_t>(v);
    }
  }
  return t;
}

TEST(MiscBodyTest, GatherElementsMatchesTheCpuBitForBit) {
  const Tensor data = RandomTensor({3, 4, 5}, 7);
  for (DataType index : {DataType::kInt32, DataType::kInt64}) {
    for (int64_t axis : {0, 1, 2, -1, -3}) {
      const int a = static_cast<int>(axis < 0 ? axis + 3 : axis);
      std::vector<int64_t> same = {3, 4, 5};
      // Smaller off the axis, larger along it (only a prefix of DATA is read).
      std::vector<int64_t> other = {2, 3, 4};
      other[a] = 7;
      const std::string what = std::string(DataTypeName(index)) + " axis " + std::to_string(axis);
      CheckGatherElements<uint32_t>(data, Indices(index, same, same[a], 1), axis, what);
      CheckGatherElements<uint32_t>(data, Indices(index, other, same[a], 2), axis,
                                    what + " other dims");
    }
  }
  Tensor bytes(DataType::kInt8, {4, 6});
  Tensor halves(DataType::kInt16, {4, 6});
  Tensor doubles(DataType::kDouble, {4, 6});
  for (int64_t i = 0; i < 24; ++i) {
    bytes.mutable_data<int8_t>()[i] = static_cast<int8_t>(i * 11 - 100);
    halves.mutable_data<int16_t>()[i] = static_cast<int16_t>(i * 1111 - 9000);
    doubles.mutable_data<double>()[i] = i * 0.1 - 1;
  }
  const Tensor idx = Indices(DataType::kInt64, {3, 6}, 4, 3);
  CheckGatherElements<uint8_t>(bytes, idx, 0, "int8");
  CheckGatherElements<uint16_t>(halves, idx, 0, "int16");
  CheckGatherElements<uint64_t>(doubles, idx, 0, "double");
  CheckGatherElements<uint32_t>(RandomTensor({6}, 8), Indices(DataType::kInt32, {9}, 6, 4), 0,
                                "rank 1");
}

template <typename T>
void CheckGatherElementsGradient(const std::vector<int64_t>& data_dims, const Tensor& idx,
                                 const Tensor& dy, int64_t axis, const std::string& what) {
  const Tensor data(DataType::kFloat, data_dims);
  auto ws = RunOp(MakeOp("GatherElementsGradient", {"d", "i", "dy"}, {"dd"}, {{"axis", axis}}),
                  {{"d", data}, {"i", idx}, {"dy", dy}});
  const int rank = static_cast<int>(data_dims.size());
  const int a = static_cast<int>(axis < 0 ? axis + rank : axis);
  const k::GatherElementsGeometry g =
      k::GatherElementsGeometryOf(rank, data_dims.data(), idx.dims().data(), a);
  std::vector<T> dd(data.numel(), T(-7));
  k::RunBodyOnHost(data.numel(), [&](int64_t to) {
    if (idx.dtype() == DataType::kInt64) {
      k::GatherElementsGradientBody(dy.data<T>(), idx.data<int64_t>(), dd.data(), g, to);
    } else {
      k::GatherElementsGradientBody(dy.data<T>(), idx.data<int32_t>(), dd.data(), g, to);
    }
  });
  ExpectSameBytes(dd.data(), ws->GetTensor("dd"), dd.size() * sizeof(T), what);
}

TEST(MiscBodyTest, GatherElementsGradientGathersInTheCpusOrder) {
  // Random floats with many repeated picks (7 along an axis of 4): the sums' order shows.
  for (DataType index : {DataType::kInt32, DataType::kInt64}) {
    for (int64_t axis : {0, 1, 2, -2}) {
      const int a = static_cast<int>(axis < 0 ? axis + 3 : axis);
      std::vector<int64_t> data_dims = {3, 4, 5};
      std::vector<int64_t> idx_dims = {2, 3, 4};
      idx_dims[a] = 7;
      const Tensor idx = Indices(index, idx_dims, data_dims[a], 5);
      const Tensor dy = RandomTensor(idx_dims, 9, -3, 3);
      CheckGatherElementsGradient<float>(data_dims, idx, dy, axis,
                                         "float axis " + std::to_string(axis));
      Tensor dyd(DataType::kDouble, idx_dims);
      for (int64_t i = 0; i < dyd.numel(); ++i) {
        dyd.mutable_data<double>()[i] = static_cast<double>(dy.data<float>()[i]) / 3.0;
      }
      CheckGatherElementsGradient<double>(data_dims, idx, dyd, axis,
                                          "double axis " + std::to_string(axis));
    }
  }
  // -0.0 and NaN in dY: a single pick of -0.0 sums to +0 (0 + -0), as the CPU's zeros plus dY.
  Tensor dy = MakeTensor<float>({4}, {-0.0f, NAN, 1.5f, -2.0f});
  CheckGatherElementsGradient<float>({3}, MakeTensor<int64_t>({4}, {0, 1, -1, 2}), dy, 0,
                                     "signed zero and NaN");
}

// ---- Mod

template <typename T>
void CheckMod(const Tensor& a, const Tensor& b, bool python, const std::string& what) {
  auto ws = RunOp(MakeOp("Mod", {"a", "b"}, {"c"}, {{"sign_follow_divisor", python ? 1 : 0}}),
                  {{"a", a}, {"b", b}});
  std::vector<int64_t> out, b_plan;
  BinaryDims(BroadcastArgs{}, a.dims(), b.dims(), "Mod", &out, &b_plan);
  const k::BroadcastGeometry g = gpu::BroadcastGeometryOf("Mod", out, a.dims(), b_plan);
  const Tensor& want = ws->GetTensor("c");
  std::vector<T> c(want.numel());
  k::RunBodyOnHost(want.numel(), [&](int64_t i) {
    k::ModBody(a.data<T>(), b.data<T>(), c.data(), python, g, i);
  });
  ExpectSameBytes(c.data(), want, c.size() * sizeof(T), what + (python ? " python" : " c"));
}

// Values of T from v(i) over dims.
template <typename T, typename F>
Tensor Filled(const std::vector<int64_t>& dims, F v) {
  Tensor t(DataTypeOf<T>::value, dims);
  for (int64_t i = 0; i < t.numel(); ++i) t.mutable_data<T>()[i] = static_cast<T>(v(i));
  return t;
}

template <typename T>
void CheckModIntegers(const std::string& what) {
  // Dividends of both signs, divisors of both signs and never 0 (for unsigned: the low bits).
  const Tensor a = Filled<T>({2, 3, 4}, [](int64_t i) { return (i * 37) % 101 - 50; });
  const Tensor b = Filled<T>({3, 1}, [](int64_t i) { return i % 2 == 0 ? i + 3 : -(i + 2); });
  const Tensor same = Filled<T>({2, 3, 4}, [](int64_t i) { return (i % 5) - 7 + (i % 5 == 2); });
  for (bool python : {false, true}) {
    CheckMod<T>(a, b, python, what + " broadcast");
    CheckMod<T>(a, same, python, what + " same dims");
  }
}

TEST(MiscBodyTest, ModMatchesTheCpuBitForBitInEveryDtype) {
  CheckModIntegers<int8_t>("int8");
  CheckModIntegers<int16_t>("int16");
  CheckModIntegers<int32_t>("int32");
  CheckModIntegers<int64_t>("int64");
  CheckModIntegers<uint8_t>("uint8");
  CheckModIntegers<uint16_t>("uint16");
  // INT_MIN % -1 is 0 (C++ leaves it undefined).
  for (bool python : {false, true}) {
    CheckMod<int32_t>(MakeTensor<int32_t>({2}, {std::numeric_limits<int32_t>::min(), -7}),
                      MakeTensor<int32_t>({2}, {-1, -1}), python, "INT_MIN % -1");
    CheckMod<int64_t>(MakeTensor<int64_t>({1}, {std::numeric_limits<int64_t>::min()}),
                      MakeTensor<int64_t>({}, {-1}), python, "INT64_MIN % -1");
  }
  // Floats: fmod is exact; a zero divisor, NaN and infinities give the CPU's NaN or dividend;
  // a zero remainder keeps A's sign (-0.0).
  const Tensor fa =
      MakeTensor<float>({10}, {5.5f, -5.5f, 5.5f, -5.5f, 3.0f, -3.0f, NAN, INFINITY, 2.5f, 1e30f});
  const Tensor fb =
      MakeTensor<float>({10}, {2.0f, 2.0f, -2.0f, -2.0f, 0.0f, 1.5f, 1.0f, 1.0f, INFINITY, 0.3f});
  for (bool python : {false, true}) {
    CheckMod<float>(fa, fb, python, "float specials");
    CheckMod<float>(RandomTensor({2, 3, 4}, 21, -9, 9), RandomTensor({4}, 22, 0.5f, 3), python,
                    "float broadcast");
    const Tensor da = Filled<double>({3, 4}, [](int64_t i) { return (i - 6) * 1.37; });
    const Tensor db = Filled<double>({3, 1}, [](int64_t i) { return i == 1 ? -0.9 : 0.45 + i; });
    CheckMod<double>(da, db, python, "double broadcast");
  }
}

// ---- ModGradient: dA = dC summed, dB = -(dC * round((A - C) / B)) summed, over exact values
// (dC multiples of 1/8, B signed powers of two): every term and partial sum exact, so any order
// gives the CPU's bits and a wrong stride or formula shows.

TEST(MiscBodyTest, ModGradientMatchesTheCpuBitForBit) {
  struct Case {
    std::vector<int64_t> a, b;
  };
  for (const Case& cs : {Case{{2, 3, 4}, {2, 3, 4}}, Case{{2, 3, 4}, {3, 1}},
                         Case{{3, 1}, {2, 1, 4}}, Case{{4}, {2, 3, 4}}}) {
    const Tensor a = EighthsTensor(cs.a, 31);
    const Tensor b = Filled<float>(cs.b, [](int64_t i) {
      static const float kValues[] = {0.5f, -1.0f, 2.0f, -0.5f, 1.0f};
      return kValues[i % 5];
    });
    auto fwd = RunOp(MakeOp("Mod", {"a", "b"}, {"c"}), {{"a", a}, {"b", b}});
    const Tensor c = fwd->GetTensor("c");
    const Tensor dc = EighthsTensor(c.dims(), 32);
    auto ws = RunOp(MakeOp("ModGradient", {"dc", "a", "b", "c"}, {"da", "db"}),
                    {{"dc", dc}, {"a", a}, {"b", b}, {"c", c}});
    std::vector<int64_t> out, b_plan;
    BinaryDims(BroadcastArgs{}, cs.a, cs.b, "ModGradient", &out, &b_plan);
    const k::BroadcastGeometry g = gpu::BroadcastGeometryOf("ModGradient", out, cs.a, b_plan);
    for (bool db : {false, true}) {
      int64_t count = 0;
      const k::ReduceGeometry r =
          gpu::BroadcastReduceGeometryOf("ModGradient", out, db ? b_plan : cs.a, &count);
      const Tensor& want = ws->GetTensor(db ? "db" : "da");
      std::vector<float> y(want.numel(), -7.0f);
      k::RunBodyOnHost(want.numel(), [&](int64_t i) {
        k::BinaryGradBody(db ? k::BinaryGrad::kModDB : k::BinaryGrad::kModDA, dc.data<float>(),
                          a.data<float>(), b.data<float>(), c.data<float>(), y.data(), count, r, g,
                          i);
      });
      ExpectSameBytes(
          y.data(), want, y.size() * sizeof(float),
          std::string(db ? "dB " : "dA ") + ShapeString(cs.a) + " vs " + ShapeString(cs.b));
    }
  }
}

}  // namespace
}  // namespace parity::testing
