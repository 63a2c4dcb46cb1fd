// Helpers of the importer tests: hand-built ONNX models, and running what the importer makes on
// both engines.
#ifndef PARITY_TESTS_ONNX_IMPORTER_TEST_UTIL_H_
#define PARITY_TESTS_ONNX_IMPORTER_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "core/tensor_proto.h"
#include "onnx/importer.h"
#include "onnx/tensor.h"
#include "oracles/backend.h"
#include "tests/test_util.h"

namespace parity::onnx::importer_testing {

using ::parity::testing::MakeTensor;
using ::parity::testing::Values;

// A one-graph model under construction.
class ModelBuilder {
 public:
  explicit ModelBuilder(int opset) {
    model_.set_ir_version(8);
    auto* op = model_.add_opset_import();
    op->set_domain("");
    op->set_version(opset);
    model_.mutable_graph()->set_name("g");
  }

  ModelBuilder& Input(const std::string& name, const std::vector<int64_t>& dims,
                      int type = ::onnx::TensorProto::FLOAT) {
    Declare(model_.mutable_graph()->add_input(), name, dims, type);
    return *this;
  }
  ModelBuilder& Output(const std::string& name) {
    model_.mutable_graph()->add_output()->set_name(name);
    return *this;
  }
  ModelBuilder& Initializer(const std::string& name, const Tensor& value) {
    *model_.mutable_graph()->add_initializer() = TensorToOnnx(value, name);
    return *this;
  }
  ::onnx::NodeProto* Node(const std::string& type, const std::vector<std::string>& inputs,
                          const std::vector<std::string>& outputs, const std::string& name = "") {
    auto* node = model_.mutable_graph()->add_node();
    node->set_op_type(type);
    node->set_name(name);
    for (const auto& in : inputs) node->add_input(in);
    for (const auto& out : outputs) node->add_output(out);
    return node;
  }
  const ::onnx::ModelProto& model() const { return model_; }

 private:
  static void Declare(::onnx::ValueInfoProto* info, const std::string& name,
                      const std::vector<int64_t>& dims, int type) {
    info->set_name(name);
    auto* tensor = info->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(type);
    auto* shape = tensor->mutable_shape();
    for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
  }
  ::onnx::ModelProto model_;
};

inline void SetInt(::onnx::NodeProto* node, const std::string& name, int64_t value) {
  auto* attr = node->add_attribute();
  attr->set_name(name);
  attr->set_type(::onnx::AttributeProto::INT);
  attr->set_i(value);
}
inline void SetFloat(::onnx::NodeProto* node, const std::string& name, float value) {
  auto* attr = node->add_attribute();
  attr->set_name(name);
  attr->set_type(::onnx::AttributeProto::FLOAT);
  attr->set_f(value);
}
inline void SetInts(::onnx::NodeProto* node, const std::string& name, const std::vector<int64_t>& v) {
  auto* attr = node->add_attribute();
  attr->set_name(name);
  attr->set_type(::onnx::AttributeProto::INTS);
  for (int64_t x : v) attr->add_ints(x);
}
inline void SetString(::onnx::NodeProto* node, const std::string& name, const std::string& value) {
  auto* attr = node->add_attribute();
  attr->set_name(name);
  attr->set_type(::onnx::AttributeProto::STRING);
  attr->set_s(value);
}

inline std::vector<std::string> OpTypes(const caffe2::NetDef& net) {
  std::vector<std::string> types;
  for (const auto& op : net.op()) types.push_back(op.type());
  return types;
}

// Runs the imported nets on `engine` and returns `output` as float values.
inline std::vector<float> Run(const ImportResult& r, const std::string& engine,
                       const std::map<std::string, Tensor>& feeds, const std::string& output) {
  Case c;
  *c.mutable_net() = r.net;
  *c.mutable_init_net() = r.init_net;
  for (const auto& [name, value] : feeds) *c.add_inputs() = TensorToProto(value, name);
  const auto run = oracles::GetBackend(engine).Run(c);
  if (run.error) {
    ADD_FAILURE() << engine << ": " << run.error->what();
    return {};
  }
  const Tensor t = TensorFromProto(run.blobs.at(output));
  std::vector<float> out;
  for (int64_t i = 0; i < t.numel(); ++i) {
    switch (t.dtype()) {
      case DataType::kDouble: out.push_back(static_cast<float>(t.data<double>()[i])); break;
      case DataType::kInt64: out.push_back(static_cast<float>(t.data<int64_t>()[i])); break;
      case DataType::kUint8: out.push_back(static_cast<float>(t.data<uint8_t>()[i])); break;
      case DataType::kUint16: out.push_back(static_cast<float>(t.data<uint16_t>()[i])); break;
      default: out.push_back(t.data<float>()[i]); break;
    }
  }
  return out;
}

inline void ExpectNear(const std::vector<float>& actual, const std::vector<float>& expected,
                const std::string& what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (size_t i = 0; i < actual.size(); ++i) {
    EXPECT_NEAR(actual[i], expected[i], 1e-5 + 1e-5 * std::fabs(expected[i])) << what << " @" << i;
  }
}

// Expects both engines to compute `expected` for `output`.
inline void ExpectBoth(const ImportResult& r, const std::map<std::string, Tensor>& feeds,
                const std::string& output, const std::vector<float>& expected) {
  for (const char* engine : {oracles::kProduction, oracles::kReference}) {
    ExpectNear(Run(r, engine, feeds, output), expected, engine);
  }
}

}  // namespace parity::onnx::importer_testing

#endif  // PARITY_TESTS_ONNX_IMPORTER_TEST_UTIL_H_
