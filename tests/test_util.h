// Helpers for tests of the production engine: build ops and tensors tersely, run one op, compare.
#ifndef PARITY_TESTS_TEST_UTIL_H_
#define PARITY_TESTS_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <random>

#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include "core/net.h"
#include "core/operator.h"
#include "core/proto/caffe2.pb.h"
#include "core/proto/error.h"
#include "core/tensor.h"
#include "core/workspace.h"

namespace parity::testing {

// Arguments for MakeOp: {"axis", 1}, {"scale", 0.5f}, {"shape", Ints{2, 3}}, {"order", "NCHW"}.
using Ints = std::vector<int64_t>;
using Floats = std::vector<float>;
struct TestArg {
  caffe2::Argument arg;
  TestArg(const char* name, int value) { arg.set_name(name); arg.set_i(value); }
  TestArg(const char* name, int64_t value) { arg.set_name(name); arg.set_i(value); }
  TestArg(const char* name, float value) { arg.set_name(name); arg.set_f(value); }
  TestArg(const char* name, double value) { arg.set_name(name); arg.set_f(static_cast<float>(value)); }
  TestArg(const char* name, const char* value) { arg.set_name(name); arg.set_s(value); }
  TestArg(const char* name, const Ints& values) {
    arg.set_name(name);
    for (int64_t v : values) arg.add_ints(v);
  }
  TestArg(const char* name, const Floats& values) {
    arg.set_name(name);
    for (float v : values) arg.add_floats(v);
  }
};

inline caffe2::OperatorDef MakeOp(const std::string& type, const std::vector<std::string>& inputs,
                                  const std::vector<std::string>& outputs,
                                  const std::vector<TestArg>& args = {},
                                  const std::string& engine = "") {
  caffe2::OperatorDef def;
  def.set_type(type);
  for (const auto& in : inputs) def.add_input(in);
  for (const auto& out : outputs) def.add_output(out);
  for (const auto& a : args) *def.add_arg() = a.arg;
  if (!engine.empty()) def.set_engine(engine);
  return def;
}

template <typename T>
Tensor MakeTensor(const std::vector<int64_t>& dims, const std::vector<T>& values) {
  Tensor t;
  t.Resize(dims);
  EXPECT_EQ(static_cast<int64_t>(values.size()), t.numel()) << "test tensor values vs dims";
  T* data = t.mutable_data<T>();
  for (size_t i = 0; i < values.size(); ++i) data[i] = values[i];
  return t;
}

template <typename T>
std::vector<T> Values(const Tensor& t) {
  const T* data = t.data<T>();
  return std::vector<T>(data, data + t.numel());
}

// Feeds `inputs` into a fresh workspace, runs `def` once (creating it as a one-op net, so errors
// carry op context), and returns the workspace for reading outputs.
inline std::unique_ptr<Workspace> RunOp(const caffe2::OperatorDef& def,
                                        const std::map<std::string, Tensor>& inputs) {
  auto ws = std::make_unique<Workspace>();
  for (const auto& [name, tensor] : inputs) ws->CreateTensor(name)->CopyFrom(tensor);
  caffe2::NetDef net;
  net.set_name("test");
  *net.add_op() = def;
  ws->RunNetOnce(net);
  return ws;
}

// Runs `def` with the default CPU kernel of its type (engine ""), in `ws`: test engines that plant
// a bug run the real kernel this way and then perturb its outputs.
inline void RunDefaultKernel(caffe2::OperatorDef def, Workspace* ws) {
  def.clear_engine();
  const OperatorFactory* factory = OperatorRegistry::Find(def.type(), kCpuDeviceType, "");
  PARITY_ENFORCE(factory != nullptr, ErrorKind::kInternal, def.type(), ": no default kernel");
  (*factory)(def, ws)->Run();
}

// Expects `fn` to throw a parity::Error of `kind` whose message contains every one of `needles`.
template <typename Fn>
void ExpectError(Fn&& fn, ErrorKind kind, std::initializer_list<std::string> needles) {
  try {
    fn();
    ADD_FAILURE() << "expected a parity::Error of kind " << ErrorKindName(kind);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << "message: " << e.what();
    for (const auto& needle : needles) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos)
          << "message lacks '" << needle << "': " << e.what();
    }
  }
}

// A float TensorProto: an input of a hand-made Case.
inline caffe2::TensorProto FloatsProto(const std::string& name, const std::vector<int64_t>& dims,
                                       const std::vector<float>& values) {
  caffe2::TensorProto t;
  t.set_name(name);
  t.set_data_type(caffe2::TensorProto::FLOAT);
  for (int64_t d : dims) t.add_dims(d);
  for (float v : values) t.add_float_data(v);
  return t;
}

// A float tensor of multiples of 1/8 in [-4, 4], reproducible from `seed`: sums and products of a
// few of them are exact in f32, so two summation orders give the same bits.
inline Tensor EighthsTensor(const std::vector<int64_t>& dims, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(-32, 32);
  Tensor t(DataType::kFloat, dims);
  for (int64_t i = 0; i < t.numel(); ++i) t.mutable_data<float>()[i] = dist(rng) / 8.0f;
  return t;
}

// Elementwise |a - b| <= atol + rtol * |b| with matching dims.
// A float tensor with values uniform in [lo, hi), reproducible from `seed`.
inline Tensor RandomTensor(const std::vector<int64_t>& dims, uint32_t seed, float lo = -1.0f,
                           float hi = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  std::vector<float> values(static_cast<size_t>(n));
  for (float& v : values) v = dist(rng);
  return MakeTensor<float>(dims, values);
}

inline void ExpectTensorNear(const Tensor& actual, const std::vector<int64_t>& dims,
                             const std::vector<double>& expected, double atol = 1e-6,
                             double rtol = 1e-6) {
  ASSERT_EQ(actual.dims(), dims) << actual.DebugString();
  ASSERT_EQ(actual.numel(), static_cast<int64_t>(expected.size()));
  for (int64_t i = 0; i < actual.numel(); ++i) {
    double value = 0;
    DispatchNumeric(actual.dtype(), "ExpectTensorNear", [&](auto zero) {
      using T = decltype(zero);
      value = static_cast<double>(actual.data<T>()[i]);
    });
    EXPECT_NEAR(value, expected[i], atol + rtol * std::abs(expected[i])) << "element " << i;
  }
}

}  // namespace parity::testing

#endif  // PARITY_TESTS_TEST_UTIL_H_
