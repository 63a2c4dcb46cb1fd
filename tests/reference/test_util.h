// Helpers for the reference tests: build ops/nets/tensors tersely, run them, read results.
#ifndef PARITY_TESTS_REFERENCE_TEST_UTIL_H_
#define PARITY_TESTS_REFERENCE_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/proto/caffe2.pb.h"
#include "core/proto/error.h"
#include "reference/interpreter.h"

namespace parity::reference::testing {

using Tensors = std::map<std::string, caffe2::TensorProto>;

inline caffe2::TensorProto F(std::vector<int64_t> dims, std::vector<double> values) {
  caffe2::TensorProto p;
  for (int64_t d : dims) p.add_dims(d);
  p.set_data_type(caffe2::TensorProto::DOUBLE);
  for (double v : values) p.add_double_data(v);
  return p;
}

inline caffe2::TensorProto F32(std::vector<int64_t> dims, std::vector<float> values) {
  caffe2::TensorProto p;
  for (int64_t d : dims) p.add_dims(d);
  p.set_data_type(caffe2::TensorProto::FLOAT);
  for (float v : values) p.add_float_data(v);
  return p;
}

inline caffe2::TensorProto Int(std::vector<int64_t> dims, std::vector<int64_t> values,
                               caffe2::TensorProto::DataType type = caffe2::TensorProto::INT32) {
  caffe2::TensorProto p;
  for (int64_t d : dims) p.add_dims(d);
  p.set_data_type(type);
  for (int64_t v : values) {
    if (type == caffe2::TensorProto::INT64)
      p.add_int64_data(v);
    else
      p.add_int32_data(static_cast<int32_t>(v));
  }
  return p;
}

inline caffe2::TensorProto I64(std::vector<int64_t> dims, std::vector<int64_t> values) {
  return Int(dims, values, caffe2::TensorProto::INT64);
}

inline caffe2::TensorProto Bool(std::vector<int64_t> dims, std::vector<int64_t> values) {
  return Int(dims, values, caffe2::TensorProto::BOOL);
}

// Fluent OperatorDef builder.
class Op {
 public:
  Op(const std::string& type, std::vector<std::string> in, std::vector<std::string> out) {
    def_.set_type(type);
    for (auto& s : in) def_.add_input(s);
    for (auto& s : out) def_.add_output(s);
  }
  Op& I(const std::string& name, int64_t v) {
    auto* a = def_.add_arg();
    a->set_name(name);
    a->set_i(v);
    return *this;
  }
  Op& F(const std::string& name, float v) {
    auto* a = def_.add_arg();
    a->set_name(name);
    a->set_f(v);
    return *this;
  }
  Op& S(const std::string& name, const std::string& v) {
    auto* a = def_.add_arg();
    a->set_name(name);
    a->set_s(v);
    return *this;
  }
  Op& Ints(const std::string& name, std::vector<int64_t> v) {
    auto* a = def_.add_arg();
    a->set_name(name);
    for (int64_t x : v) a->add_ints(x);
    return *this;
  }
  Op& Floats(const std::string& name, std::vector<float> v) {
    auto* a = def_.add_arg();
    a->set_name(name);
    for (float x : v) a->add_floats(x);
    return *this;
  }
  Op& Strs(const std::string& name, std::vector<std::string> v) {
    auto* a = def_.add_arg();
    a->set_name(name);
    for (auto& x : v) a->add_strings(x);
    return *this;
  }
  Op& Net(const std::string& name, const caffe2::NetDef& n) {
    auto* a = def_.add_arg();
    a->set_name(name);
    *a->mutable_n() = n;
    return *this;
  }
  Op& Gradient() {
    def_.set_is_gradient_op(true);
    return *this;
  }
  operator caffe2::OperatorDef() const { return def_; }  // NOLINT: builder
  const caffe2::OperatorDef& def() const { return def_; }

 private:
  caffe2::OperatorDef def_;
};

inline caffe2::NetDef MakeNet(std::vector<caffe2::OperatorDef> ops, const std::string& name = "") {
  caffe2::NetDef net;
  if (!name.empty()) net.set_name(name);
  for (auto& op : ops) *net.add_op() = op;
  return net;
}

inline RunResult RunOps(std::vector<caffe2::OperatorDef> ops, const Tensors& inputs,
                        Precision precision = Precision::kF64) {
  RunOptions options;
  options.precision = precision;
  return RunNet(MakeNet(ops), inputs, options);
}

// Values of a result tensor as doubles (any dtype).
inline std::vector<double> Values(const caffe2::TensorProto& p) {
  std::vector<double> out;
  for (double v : p.double_data()) out.push_back(v);
  for (float v : p.float_data()) out.push_back(v);
  for (int32_t v : p.int32_data()) out.push_back(v);
  for (int64_t v : p.int64_data()) out.push_back(static_cast<double>(v));
  return out;
}

inline std::vector<int64_t> IntValues(const caffe2::TensorProto& p) {
  std::vector<int64_t> out;
  for (int32_t v : p.int32_data()) out.push_back(v);
  for (int64_t v : p.int64_data()) out.push_back(v);
  return out;
}

inline std::vector<int64_t> Dims(const caffe2::TensorProto& p) {
  return std::vector<int64_t>(p.dims().begin(), p.dims().end());
}

// Runs one op and returns output blob `out`.
inline caffe2::TensorProto RunOp(const caffe2::OperatorDef& op, const Tensors& inputs,
                                 const std::string& out) {
  RunResult r = RunNet(MakeNet({op}), inputs);
  auto it = r.blobs.find(out);
  if (it == r.blobs.end()) {
    ADD_FAILURE() << "no output blob " << out;
    return {};
  }
  return it->second;
}

#define EXPECT_VALUES_NEAR(proto, expected, tol)                                  \
  do {                                                                            \
    const std::vector<double> got_ = ::parity::reference::testing::Values(proto); \
    const std::vector<double> want_ = (expected);                                 \
    ASSERT_EQ(got_.size(), want_.size());                                         \
    for (size_t k_ = 0; k_ < want_.size(); ++k_) {                                \
      EXPECT_NEAR(got_[k_], want_[k_], (tol)) << "element " << k_;                \
    }                                                                             \
  } while (0)

// Expects fn() to throw parity::Error of `kind`; returns its message.
inline std::string ExpectError(const std::function<void()>& fn, ErrorKind kind) {
  try {
    fn();
  } catch (const Error& e) {
    EXPECT_EQ(ErrorKindName(e.kind()), std::string(ErrorKindName(kind))) << e.what();
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type: " << e.what();
    return "";
  }
  ADD_FAILURE() << "no error thrown";
  return "";
}

}  // namespace parity::reference::testing

#endif  // PARITY_TESTS_REFERENCE_TEST_UTIL_H_
