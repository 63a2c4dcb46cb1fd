// The CUDA ops beyond float (gpu/ops/dtype_binary.cc, dtype_select.cc): registered in CUDA builds
// only; production-cuda holds every dtype (the gate is per kernel); and, where a device is
// present, CPU vs GPU through the device oracle in each dtype the CPU ops take, with the CPU's
// errors (integer division by zero) raised alike. The device tests skip with one line where no
// device is present.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "core/operator.h"
#include "core/tensor_proto.h"
#include "gpu/device.h"
#include "oracles/backend.h"
#include "oracles/check.h"
#include "oracles/testing/op_checks.h"
#include "oracles/tolerance.h"
#include "tests/gpu/device_test_util.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

const char* const kOps[] = {"Add", "Sub", "Mul",   "Div",  "EQ",    "NE",
                            "LT",  "LE",  "GT",    "GE",   "And",   "Or",
                            "Xor", "Not", "Where", "Cast", "Shape", "WhereGradient"};

TEST(CudaRegistry, DtypeKernelsRegisteredExactlyInCudaBuilds) {
  for (const char* type : kOps) {
    EXPECT_EQ(OperatorRegistry::HasKernel(type, kCudaDeviceType), gpu::CudaBuild()) << type;
    EXPECT_TRUE(OperatorRegistry::HasKernel(type, kCpuDeviceType)) << type;
  }
}

// The backend no longer turns a case away by dtype: each CUDA kernel says what it takes.
TEST(CudaBackend, HoldsEveryDtypeTheEngineHolds) {
  const oracles::Backend& cuda = oracles::GetBackend(oracles::kProductionCuda);
  for (int dtype :
       {caffe2::TensorProto::FLOAT, caffe2::TensorProto::DOUBLE, caffe2::TensorProto::INT32,
        caffe2::TensorProto::INT64, caffe2::TensorProto::BOOL, caffe2::TensorProto::UINT8,
        caffe2::TensorProto::INT8, caffe2::TensorProto::INT16, caffe2::TensorProto::UINT16}) {
    EXPECT_TRUE(cuda.SupportsDtype(dtype)) << dtype;
  }
  EXPECT_FALSE(cuda.SupportsDtype(caffe2::TensorProto::STRING));
}

// n values of T cycling through ordinary ones and the type's edges; `no_zero` for divisors.
template <typename T>
Tensor Ramp(const std::vector<int64_t>& dims, int offset, bool no_zero = false) {
  Tensor t(DataTypeOf<T>::value, dims);
  T* data = t.mutable_data<T>();
  for (int64_t i = 0; i < t.numel(); ++i) {
    const int64_t k = (i * 7 + offset) % 23;
    T v;
    if constexpr (std::is_same_v<T, bool>) {
      v = k % 3 == 0;
    } else if constexpr (std::is_floating_point_v<T>) {
      v = k == 0   ? std::numeric_limits<T>::infinity()
          : k == 1 ? -std::numeric_limits<T>::infinity()
          : k == 2 ? std::numeric_limits<T>::quiet_NaN()
          : k == 3 ? T(-0.0)
                   : static_cast<T>(k - 11) * T(0.75);
    } else {
      v = k == 0   ? std::numeric_limits<T>::max()
          : k == 1 ? std::numeric_limits<T>::lowest()
                   : static_cast<T>(k - 11);
    }
    if (no_zero && v == T(0)) v = T(3);
    data[i] = v;
  }
  return t;
}

// A op B in each broadcast form: same shapes, numpy, legacy.
template <typename T>
void CheckBinary(const char* type, bool divisor = false) {
  struct Form {
    std::vector<int64_t> a, b;
    std::vector<TestArg> args;
  };
  const Form forms[] = {{{2, 3, 4}, {2, 3, 4}, {}},
                        {{2, 3, 4}, {3, 1}, {}},
                        {{4}, {2, 3, 4}, {}},
                        {{2, 3, 4}, {3}, {{"broadcast", 1}, {"axis", 1}}}};
  for (const Form& f : forms) {
    EXPECT_TRUE(oracles::DeviceChecks(
        MakeOp(type, {"a", "b"}, {"c"}, f.args),
        {{"a", Ramp<T>(f.a, 0)}, {"b", Ramp<T>(f.b, 5, divisor && std::is_integral_v<T>)}}))
        << type << " " << DataTypeName(DataTypeOf<T>::value) << " A " << ShapeString(f.a) << " B "
        << ShapeString(f.b);
  }
}

TEST(DeviceChecks, ArithmeticInEveryDtype) {
  SKIP_WITHOUT_DEVICE();
  for (const char* type : {"Add", "Sub", "Mul", "Div"}) {
    const bool div = std::string(type) == "Div";
    CheckBinary<float>(type, div);
    CheckBinary<double>(type, div);
    CheckBinary<int32_t>(type, div);
    CheckBinary<int64_t>(type, div);
    CheckBinary<int8_t>(type, div);
    CheckBinary<int16_t>(type, div);
    CheckBinary<uint8_t>(type, div);
    CheckBinary<uint16_t>(type, div);
  }
}

TEST(DeviceChecks, ArithmeticInPlace) {
  SKIP_WITHOUT_DEVICE();
  EXPECT_TRUE(
      oracles::DeviceChecks(MakeOp("Add", {"a", "b"}, {"a"}),
                            {{"a", Ramp<int32_t>({2, 3}, 0)}, {"b", Ramp<int32_t>({3}, 4)}}));
  EXPECT_TRUE(oracles::DeviceChecks(MakeOp("Mul", {"a", "b"}, {"b"}),
                                    {{"a", Ramp<double>({3}, 0)}, {"b", Ramp<double>({2, 3}, 4)}}));
}

// Integer division by zero: both devices refuse, with the CPU's message (the GPU's kernel flags
// the zero; the op names the first one from a host copy).
TEST(DeviceChecks, IntegerDivisionByZeroFailsAlike) {
  SKIP_WITHOUT_DEVICE();
  Case c = oracles::SingleOpCase(
      MakeOp("Div", {"a", "b"}, {"c"}),
      {{"a", Ramp<int64_t>({2, 4}, 0)}, {"b", MakeTensor<int64_t>({4}, {3, -1, 0, 0})}});
  const oracles::BackendRun cpu = oracles::GetBackend(oracles::kProduction).Run(c);
  const oracles::BackendRun gpu = oracles::GetBackend(oracles::kProductionCuda).Run(c);
  ASSERT_TRUE(cpu.error.has_value());
  ASSERT_TRUE(gpu.error.has_value());
  EXPECT_EQ(gpu.error->kind(), ErrorKind::kBadArgument);
  EXPECT_EQ(std::string(gpu.error->what()), std::string(cpu.error->what()));
  EXPECT_NE(std::string(gpu.error->what()).find("element 2 of B is 0"), std::string::npos);
  // An empty output checks nothing, on both.
  EXPECT_TRUE(oracles::DeviceChecks(
      MakeOp("Div", {"a", "b"}, {"c"}),
      {{"a", Ramp<int32_t>({0, 2}, 0)}, {"b", MakeTensor<int32_t>({2}, {0, 0})}}));
}

TEST(DeviceChecks, ComparisonsInEveryDtype) {
  SKIP_WITHOUT_DEVICE();
  for (const char* type : {"EQ", "NE", "LT", "LE", "GT", "GE"}) {
    CheckBinary<bool>(type);
    CheckBinary<int32_t>(type);
    CheckBinary<int64_t>(type);
    CheckBinary<float>(type);
    CheckBinary<double>(type);
  }
}

TEST(DeviceChecks, LogicalOps) {
  SKIP_WITHOUT_DEVICE();
  for (const char* type : {"And", "Or", "Xor"}) CheckBinary<bool>(type);
  EXPECT_TRUE(oracles::DeviceChecks(MakeOp("Not", {"x"}, {"y"}), {{"x", Ramp<bool>({3, 7}, 1)}}));
}

// Dtypes the CPU refuses are refused on the device too (the CPU's shape functions).
TEST(DeviceChecks, RefusedDtypesFailOnBoth) {
  SKIP_WITHOUT_DEVICE();
  EXPECT_TRUE(oracles::DeviceChecks(MakeOp("Add", {"a", "b"}, {"c"}),
                                    {{"a", Ramp<int32_t>({3}, 0)}, {"b", Ramp<int64_t>({3}, 0)}}));
  EXPECT_TRUE(oracles::DeviceChecks(MakeOp("LT", {"a", "b"}, {"c"}),
                                    {{"a", Ramp<int8_t>({3}, 0)}, {"b", Ramp<int8_t>({3}, 0)}}));
  EXPECT_TRUE(oracles::DeviceChecks(MakeOp("Not", {"x"}, {"y"}), {{"x", Ramp<float>({3}, 0)}}));
}

// Beyond the kernels' rank the CUDA op says kUnknownOp: not applicable, with its message.
TEST(DeviceChecks, BeyondTheKernelRankIsNotApplicable) {
  SKIP_WITHOUT_DEVICE();
  const std::vector<int64_t> dims(9, 1);
  oracles::CheckRequest request;
  request.oracles = {"device"};
  const CaseReport report = oracles::CheckCase(
      oracles::SingleOpCase(MakeOp("Add", {"a", "b"}, {"c"}),
                            {{"a", Ramp<int32_t>(dims, 0)}, {"b", Ramp<int32_t>(dims, 1)}}),
      request);
  ASSERT_EQ(report.verdicts_size(), 1);
  EXPECT_EQ(report.verdicts(0).status(), OracleVerdict::NOT_APPLICABLE);
  EXPECT_NE(report.verdicts(0).reason().find("up to rank 8"), std::string::npos)
      << report.verdicts(0).reason();
}

template <typename T>
void CheckWhere() {
  const std::string what = DataTypeName(DataTypeOf<T>::value);
  EXPECT_TRUE(oracles::DeviceChecks(MakeOp("Where", {"c", "x", "y"}, {"z"}),
                                    {{"c", Ramp<bool>({2, 3, 4}, 0)},
                                     {"x", Ramp<T>({2, 3, 4}, 1)},
                                     {"y", Ramp<T>({2, 3, 4}, 2)}}))
      << what;
  EXPECT_TRUE(oracles::DeviceChecks(
      MakeOp("Where", {"c", "x", "y"}, {"z"}),
      {{"c", Ramp<bool>({3, 1}, 0)}, {"x", Ramp<T>({2, 1, 4}, 1)}, {"y", Ramp<T>({4}, 2)}}))
      << what << " broadcast";
  EXPECT_TRUE(oracles::DeviceChecks(
      MakeOp("Where", {"c", "x", "y"}, {"z"}, {{"broadcast_on_rows", 1}}),
      {{"c", Ramp<bool>({3}, 0)}, {"x", Ramp<T>({3, 4}, 1)}, {"y", Ramp<T>({3, 4}, 2)}}))
      << what << " on rows";
}

TEST(DeviceChecks, WhereInEveryDtype) {
  SKIP_WITHOUT_DEVICE();
  CheckWhere<float>();
  CheckWhere<double>();
  CheckWhere<int32_t>();
  CheckWhere<int64_t>();
  CheckWhere<bool>();
  CheckWhere<uint8_t>();
  CheckWhere<int8_t>();
  CheckWhere<int16_t>();
  CheckWhere<uint16_t>();
}

template <typename T>
void CheckWhereGradient(const std::vector<int64_t>& c, const std::vector<int64_t>& x,
                        const std::vector<int64_t>& y, const std::vector<int64_t>& z,
                        const std::vector<TestArg>& args, const std::string& dz_name) {
  EXPECT_TRUE(
      oracles::DeviceChecks(MakeOp("WhereGradient", {"c", "x", "y", "dz"}, {dz_name, "dy"}, args),
                            {{"c", Ramp<bool>(c, 0)},
                             {"x", Ramp<T>(x, 1)},
                             {"y", Ramp<T>(y, 2)},
                             {"dz", Values(z, -1.0f, 0.125f)}}))
      << ShapeString(c) << " " << ShapeString(x) << " " << ShapeString(y);
}

TEST(DeviceChecks, WhereGradient) {
  SKIP_WITHOUT_DEVICE();
  CheckWhereGradient<float>({2, 3, 4}, {2, 3, 4}, {2, 3, 4}, {2, 3, 4}, {}, "dx");
  CheckWhereGradient<float>({3, 1}, {2, 1, 4}, {4}, {2, 3, 4}, {}, "dx");
  CheckWhereGradient<int32_t>({3, 1}, {2, 1, 4}, {}, {2, 3, 4}, {}, "dx");  // X, Y: dims only
  CheckWhereGradient<float>({3}, {3, 4}, {3, 4}, {3, 4}, {{"broadcast_on_rows", 1}}, "dx");
  // dX written over dZ while dY still reads it.
  CheckWhereGradient<float>({3, 1}, {2, 1, 4}, {4}, {2, 3, 4}, {}, "dz");
  // A double gradient.
  Tensor dz(DataType::kDouble, {2, 3});
  for (int64_t i = 0; i < 6; ++i) dz.mutable_data<double>()[i] = 0.25 * static_cast<double>(i - 2);
  EXPECT_TRUE(oracles::DeviceChecks(MakeOp("WhereGradient", {"c", "x", "y", "dz"}, {"dx", "dy"}),
                                    {{"c", Ramp<bool>({3}, 0)},
                                     {"x", Ramp<double>({2, 3}, 1)},
                                     {"y", Ramp<double>({1}, 2)},
                                     {"dz", dz}}));
}

// The reference refuses what C++ leaves undefined (NaN or a value beyond the target's range cast
// to an integer), so the oracle judges Cast on finite, non-negative values within every range;
// the CPU's saturation is compared bit for bit between the two engines below.
TEST(DeviceChecks, CastEveryPair) {
  SKIP_WITHOUT_DEVICE();
  Tensor f(DataType::kFloat, {5, 5}), d(DataType::kDouble, {5, 5});
  for (int64_t i = 0; i < 25; ++i) {
    f.mutable_data<float>()[i] = 0.375f * static_cast<float>(i % 17);
    d.mutable_data<double>()[i] = 0.625 * static_cast<double>(i % 13);
  }
  const std::vector<Tensor> inputs = {f,
                                      d,
                                      Ramp<int32_t>({5, 5}, 2),
                                      Ramp<int64_t>({5, 5}, 3),
                                      Ramp<bool>({5, 5}, 4),
                                      Ramp<uint8_t>({5, 5}, 5),
                                      Ramp<int8_t>({5, 5}, 6),
                                      Ramp<int16_t>({5, 5}, 7),
                                      Ramp<uint16_t>({5, 5}, 8)};
  const int64_t targets[] = {1, 2, 5, 6, 7, 8, 9, 10, 13};  // TensorProto.DataType values
  for (const Tensor& x : inputs) {
    for (int64_t to : targets) {
      EXPECT_TRUE(oracles::DeviceChecks(MakeOp("Cast", {"x"}, {"y"}, {{"to", to}}), {{"x", x}}))
          << x.DebugString() << " to " << to;
    }
  }
  // A value Cast cannot produce: refused on both.
  EXPECT_TRUE(
      oracles::DeviceChecks(MakeOp("Cast", {"x"}, {"y"}, {{"to", int64_t{4}}}), {{"x", f}}));
}

// Floating point to an integer saturates and maps NaN to 0 on the CPU; the GPU must give the same
// bits (no reference to judge by: C++ leaves these undefined).
TEST(DeviceChecks, CastSaturatesAsTheCpuDoes) {
  SKIP_WITHOUT_DEVICE();
  const std::vector<float> edges = {std::numeric_limits<float>::quiet_NaN(),
                                    std::numeric_limits<float>::infinity(),
                                    -std::numeric_limits<float>::infinity(),
                                    3e9f,
                                    -3e9f,
                                    1e20f,
                                    -1e20f,
                                    300.5f,
                                    -300.5f,
                                    65536.0f,
                                    -0.0f,
                                    -1.5f,
                                    127.9f,
                                    -128.9f,
                                    2147483648.0f,
                                    0.75f};
  const Tensor f = MakeTensor<float>({16}, edges);
  Tensor d(DataType::kDouble, {16});
  for (int i = 0; i < 16; ++i) d.mutable_data<double>()[i] = static_cast<double>(edges[i]) * 1e3;
  for (const Tensor& x : {f, d}) {
    for (int64_t to : {2, 5, 6, 7, 8, 9, 10}) {
      const Case c = oracles::SingleOpCase(MakeOp("Cast", {"x"}, {"y"}, {{"to", to}}), {{"x", x}});
      const oracles::BackendRun cpu = oracles::GetBackend(oracles::kProduction).Run(c);
      const oracles::BackendRun gpu = oracles::GetBackend(oracles::kProductionCuda).Run(c);
      ASSERT_FALSE(cpu.error) << cpu.error->what();
      ASSERT_FALSE(gpu.error) << gpu.error->what();
      EXPECT_TRUE(oracles::BitwiseEqual(cpu.blobs.at("y"), gpu.blobs.at("y")))
          << x.DebugString() << " to " << to << ": CPU " << cpu.blobs.at("y").ShortDebugString()
          << ", GPU " << gpu.blobs.at("y").ShortDebugString();
    }
  }
}

TEST(DeviceChecks, Shape) {
  SKIP_WITHOUT_DEVICE();
  EXPECT_TRUE(
      oracles::DeviceChecks(MakeOp("Shape", {"x"}, {"s"}), {{"x", Ramp<float>({2, 3, 4}, 0)}}));
  EXPECT_TRUE(oracles::DeviceChecks(MakeOp("Shape", {"x"}, {"s"}, {{"axes", Ints{-1, 0}}}),
                                    {{"x", Ramp<int32_t>({2, 3, 4}, 0)}}));
  EXPECT_TRUE(oracles::DeviceChecks(MakeOp("Shape", {"x"}, {"s"}), {{"x", Ramp<bool>({}, 0)}}));
  // An axis out of range: refused on both.
  EXPECT_TRUE(oracles::DeviceChecks(MakeOp("Shape", {"x"}, {"s"}, {{"axes", Ints{3}}}),
                                    {{"x", Ramp<float>({2, 3}, 0)}}));
}

}  // namespace
}  // namespace parity::testing
