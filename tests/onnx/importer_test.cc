// Importer rules on hand-built ONNX models: what ops they emit, and what the emitted net computes
// on both engines (Gemm, Softmax before and from opset 13, Clip's attribute and input forms,
// Slice per axis, auto_pad SAME_*), plus the listing of what is not translated.
#include "onnx/importer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/tensor_proto.h"
#include "onnx/tensor.h"
#include "oracles/backend.h"
#include "tests/test_util.h"

namespace parity::onnx {
namespace {

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

void SetInt(::onnx::NodeProto* node, const std::string& name, int64_t value) {
  auto* attr = node->add_attribute();
  attr->set_name(name);
  attr->set_type(::onnx::AttributeProto::INT);
  attr->set_i(value);
}
void SetFloat(::onnx::NodeProto* node, const std::string& name, float value) {
  auto* attr = node->add_attribute();
  attr->set_name(name);
  attr->set_type(::onnx::AttributeProto::FLOAT);
  attr->set_f(value);
}
void SetInts(::onnx::NodeProto* node, const std::string& name, const std::vector<int64_t>& v) {
  auto* attr = node->add_attribute();
  attr->set_name(name);
  attr->set_type(::onnx::AttributeProto::INTS);
  for (int64_t x : v) attr->add_ints(x);
}
void SetString(::onnx::NodeProto* node, const std::string& name, const std::string& value) {
  auto* attr = node->add_attribute();
  attr->set_name(name);
  attr->set_type(::onnx::AttributeProto::STRING);
  attr->set_s(value);
}

std::vector<std::string> OpTypes(const caffe2::NetDef& net) {
  std::vector<std::string> types;
  for (const auto& op : net.op()) types.push_back(op.type());
  return types;
}

// Runs the imported nets on `engine` and returns `output` as float values.
std::vector<float> Run(const ImportResult& r, const std::string& engine,
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
      default: out.push_back(t.data<float>()[i]); break;
    }
  }
  return out;
}

void ExpectNear(const std::vector<float>& actual, const std::vector<float>& expected,
                const std::string& what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (size_t i = 0; i < actual.size(); ++i) {
    EXPECT_NEAR(actual[i], expected[i], 1e-5 + 1e-5 * std::fabs(expected[i])) << what << " @" << i;
  }
}

// Expects both engines to compute `expected` for `output`.
void ExpectBoth(const ImportResult& r, const std::map<std::string, Tensor>& feeds,
                const std::string& output, const std::vector<float>& expected) {
  for (const char* engine : {oracles::kProduction, oracles::kReference}) {
    ExpectNear(Run(r, engine, feeds, output), expected, engine);
  }
}

TEST(OnnxImporterTest, GemmIsMatMulScaleAdd) {
  ModelBuilder b(13);
  b.Input("a", {3, 2}).Input("b", {4, 3}).Input("c", {4}).Output("y");
  auto* gemm = b.Node("Gemm", {"a", "b", "c"}, {"y"});
  SetInt(gemm, "transA", 1);
  SetInt(gemm, "transB", 1);
  SetFloat(gemm, "alpha", 0.5f);
  SetFloat(gemm, "beta", 2.0f);
  const ImportResult r = ImportModel(b.model());
  EXPECT_EQ(OpTypes(r.net), (std::vector<std::string>{"MatMul", "Scale", "Scale", "Add"}));
  const Tensor a = MakeTensor<float>({3, 2}, {1, 2, 3, 4, 5, 6});
  const Tensor w = MakeTensor<float>({4, 3}, {1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1});
  const Tensor c = MakeTensor<float>({4}, {1, 2, 3, 4});
  // y[i][j] = 0.5 * sum_k a[k][i] * w[j][k] + 2 * c[j]; a^T = [[1,3,5],[2,4,6]].
  ExpectBoth(r, {{"a", a}, {"b", w}, {"c", c}}, "y",
             {0.5f * 1 + 2, 0.5f * 3 + 4, 0.5f * 5 + 6, 0.5f * 9 + 8,  //
              0.5f * 2 + 2, 0.5f * 4 + 4, 0.5f * 6 + 6, 0.5f * 12 + 8});

  // Without C (optional from opset 11) and with alpha 1: a single MatMul.
  ModelBuilder plain(13);
  plain.Input("a", {2, 2}).Input("b", {2, 2}).Output("y");
  plain.Node("Gemm", {"a", "b"}, {"y"});
  EXPECT_EQ(OpTypes(ImportModel(plain.model()).net), (std::vector<std::string>{"MatMul"}));
}

// Softmax over [2, 2, 2] at axis 1: opset 11 coerces to 2-D (one softmax over the last four
// values of each batch row), opset 13 normalizes along axis 1 alone (Transpose around it).
TEST(OnnxImporterTest, SoftmaxBeforeAndFromOpset13) {
  const Tensor x = MakeTensor<float>({2, 2, 2}, {0, 1, 2, 3, 0, 0, 0, 0});
  for (int opset : {11, 13}) {
    ModelBuilder b(opset);
    b.Input("x", {2, 2, 2}).Output("y");
    SetInt(b.Node("Softmax", {"x"}, {"y"}), "axis", 1);
    const ImportResult r = ImportModel(b.model());
    std::vector<float> expected;
    if (opset < 13) {
      EXPECT_EQ(OpTypes(r.net), (std::vector<std::string>{"Softmax"}));
      const double z = 1 + std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
      expected = {float(1 / z),
                  float(std::exp(1.0) / z),
                  float(std::exp(2.0) / z),
                  float(std::exp(3.0) / z),
                  0.25f,
                  0.25f,
                  0.25f,
                  0.25f};
    } else {
      EXPECT_EQ(OpTypes(r.net), (std::vector<std::string>{"Transpose", "Softmax", "Transpose"}));
      const float lo = 1 / (1 + std::exp(2.0)), hi = 1 - lo;  // pairs (0, 2) and (1, 3)
      expected = {lo, lo, hi, hi, 0.5f, 0.5f, 0.5f, 0.5f};
    }
    ExpectBoth(r, {{"x", x}}, "y", expected);
  }

  // Opset 13's default axis is the last: one Softmax, no Transpose.
  ModelBuilder last(13);
  last.Input("x", {2, 3}).Output("y");
  last.Node("Softmax", {"x"}, {"y"});
  const ImportResult r = ImportModel(last.model());
  ASSERT_EQ(r.net.op_size(), 1);
  EXPECT_EQ(r.net.op(0).arg(0).i(), 1);
}

TEST(OnnxImporterTest, ClipAttributeAndInputForms) {
  const Tensor x = MakeTensor<float>({4}, {-2, -0.5f, 0.5f, 2});
  // Opset 6: attributes.
  ModelBuilder attrs(6);
  attrs.Input("x", {4}).Output("y");
  auto* clip = attrs.Node("Clip", {"x"}, {"y"});
  SetFloat(clip, "min", -1);
  SetFloat(clip, "max", 1);
  ExpectBoth(ImportModel(attrs.model()), {{"x", x}}, "y", {-1, -0.5f, 0.5f, 1});

  // Opset 11: optional inputs; max left out ('') means no upper bound.
  ModelBuilder inputs(11);
  inputs.Input("x", {4}).Output("y").Initializer("lo", MakeTensor<float>({}, {0}));
  inputs.Node("Clip", {"x", "lo", ""}, {"y"});
  const ImportResult r = ImportModel(inputs.model());
  ExpectBoth(r, {{"x", x}}, "y", {0, 0, 0.5f, 2});

  // A bound graph input is a constant too; an unbound one is listed.
  ModelBuilder graph_input(13);
  graph_input.Input("x", {4}).Input("hi", {}).Output("y");
  graph_input.Node("Clip", {"x", "", "hi"}, {"y"}, "clip1");
  try {
    ImportModel(graph_input.model());
    ADD_FAILURE() << "an unbound Clip max was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kBadArgument);
    EXPECT_NE(std::string(e.what()).find("node #0 'clip1' (Clip): Clip's max (input 2) 'hi' is "
                                         "not a constant at import time"),
              std::string::npos)
        << e.what();
  }
  ImportOptions options;
  options.constant_inputs.push_back(TensorToProto(MakeTensor<float>({}, {1}), "hi"));
  const ImportResult bound = ImportModel(graph_input.model(), options);
  EXPECT_EQ(bound.bound, (std::vector<std::string>{"hi"}));
  EXPECT_EQ(bound.inputs, (std::vector<std::string>{"x"}));
  ExpectBoth(bound, {{"x", x}}, "y", {-2, -0.5f, 0.5f, 1});
}

// ONNX slices any axes at once, with negative and out-of-range bounds; Caffe2's Slice cuts one
// leading-dims box, so each cut axis is a Slice of its own.
TEST(OnnxImporterTest, SlicePerAxis) {
  ModelBuilder b(13);
  b.Input("x", {3, 4}).Output("y");
  b.Initializer("starts", MakeTensor<int64_t>({2}, {-3, 1}));
  b.Initializer("ends", MakeTensor<int64_t>({2}, {std::numeric_limits<int64_t>::max(), -1}));
  b.Initializer("axes", MakeTensor<int64_t>({2}, {1, 0}));
  b.Node("Slice", {"x", "starts", "ends", "axes"}, {"y"});
  const ImportResult r = ImportModel(b.model());
  EXPECT_EQ(OpTypes(r.net), (std::vector<std::string>{"Slice", "Slice"}));
  // Rows [1, 2), columns [1, 4).
  const Tensor x = MakeTensor<float>({3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  ExpectBoth(r, {{"x", x}}, "y", {5, 6, 7});

  // A step other than 1 picks its indices by a Gather: x[3:0:-2] is [3, 1] and x[0:4:3] is
  // [0, 3]; a backward end past the front (INT64_MIN) runs through index 0.
  struct StepCase {
    int64_t start, end, step;
    std::vector<float> expected;
  };
  for (const StepCase& c : {StepCase{3, 0, -2, {3, 1}}, StepCase{0, 4, 3, {0, 3}},
                            StepCase{-1, std::numeric_limits<int64_t>::min(), -1, {3, 2, 1, 0}},
                            StepCase{10, -10, -3, {3, 0}}, StepCase{0, 4, -1, {}}}) {
    ModelBuilder steps(13);
    steps.Input("x", {4}).Output("y");
    steps.Initializer("s", MakeTensor<int64_t>({1}, {c.start}))
        .Initializer("e", MakeTensor<int64_t>({1}, {c.end}))
        .Initializer("a", MakeTensor<int64_t>({1}, {0}))
        .Initializer("st", MakeTensor<int64_t>({1}, {c.step}));
    steps.Node("Slice", {"x", "s", "e", "a", "st"}, {"y"});
    const ImportResult stepped = ImportModel(steps.model());
    ExpectBoth(stepped, {{"x", MakeTensor<float>({4}, {0, 1, 2, 3})}}, "y", c.expected);
  }
}

// allowzero=1 (opset 14) takes a 0 in the shape literally: an empty [0, 3] becomes [3, 0], where
// Caffe2's 0 would copy the input's dim 1 and ask for [3, 3], an error; or [0, 0, 3] with several
// 0s.
TEST(OnnxImporterTest, ReshapeAllowzero) {
  for (const std::vector<int64_t>& shape :
       {std::vector<int64_t>{3, 0}, std::vector<int64_t>{0, 0, 3}}) {
    ModelBuilder b(14);
    b.Input("x", {0, 3}).Output("y");
    b.Initializer("shape", MakeTensor<int64_t>({static_cast<int64_t>(shape.size())}, shape));
    SetInt(b.Node("Reshape", {"x", "shape"}, {"y"}), "allowzero", 1);
    const ImportResult r = ImportModel(b.model());
    for (const char* engine : {oracles::kProduction, oracles::kReference}) {
      Case c;
      *c.mutable_net() = r.net;
      *c.mutable_init_net() = r.init_net;
      *c.add_inputs() = TensorToProto(Tensor(DataType::kFloat, {0, 3}), "x");
      const auto run = oracles::GetBackend(engine).Run(c);
      ASSERT_FALSE(run.error) << engine << ": " << run.error->what();
      EXPECT_EQ(TensorFromProto(run.blobs.at("y")).dims(), shape) << engine;
    }
  }
}

// SAME_UPPER pads the odd total at the end, SAME_LOWER at the beginning: 4x4 input, 3x3 kernel,
// stride 2 -> 2x2 output, which needs one row and column of padding.
TEST(OnnxImporterTest, AutoPadSame) {
  for (const std::string mode : {"SAME_UPPER", "SAME_LOWER"}) {
    ModelBuilder b(11);
    b.Input("x", {1, 1, 4, 4}).Output("y");
    auto* pool = b.Node("AveragePool", {"x"}, {"y"});
    SetString(pool, "auto_pad", mode);
    SetInts(pool, "kernel_shape", {3, 3});
    SetInts(pool, "strides", {2, 2});
    const ImportResult r = ImportModel(b.model());
    ASSERT_EQ(r.net.op_size(), 1);
    std::vector<int64_t> pads;
    for (const auto& arg : r.net.op(0).arg()) {
      if (arg.name() == "pads") pads.assign(arg.ints().begin(), arg.ints().end());
    }
    const std::vector<int64_t> expected_pads =
        mode == "SAME_UPPER" ? std::vector<int64_t>{0, 0, 1, 1} : std::vector<int64_t>{1, 1, 0, 0};
    EXPECT_EQ(pads, expected_pads) << mode;
    std::vector<float> values(16);
    for (int i = 0; i < 16; ++i) values[i] = i;
    // count_include_pad=0: the mean of the window's real cells.
    const std::vector<float> expected = mode == "SAME_UPPER"
                                            ? std::vector<float>{5, 6.5f, 11, 12.5f}
                                            : std::vector<float>{2.5f, 4, 8.5f, 10};
    ExpectBoth(r, {{"x", MakeTensor<float>({1, 1, 4, 4}, values)}}, "y", expected);
  }
}

// ceil_mode=1 rounds the output up: 4x4, kernel 3, stride 2 gives 2x2 (1x1 rounded down), by one
// more row and column of end padding, which MaxPool ignores.
TEST(OnnxImporterTest, PoolCeilModeIsEndPadding) {
  ModelBuilder b(12);
  b.Input("x", {1, 1, 4, 4}).Output("y");
  auto* pool = b.Node("MaxPool", {"x"}, {"y"});
  SetInts(pool, "kernel_shape", {3, 3});
  SetInts(pool, "strides", {2, 2});
  SetInt(pool, "ceil_mode", 1);
  const ImportResult r = ImportModel(b.model());
  std::vector<float> values(16);
  for (int i = 0; i < 16; ++i) values[i] = i;
  ExpectBoth(r, {{"x", MakeTensor<float>({1, 1, 4, 4}, values)}}, "y", {10, 11, 14, 15});
}

// MaxPool's Indices: parity's MaxPool output 1 (row-major flat indices in X); storage_order 1
// recomposed column-major per plane. X [1, 2, 3, 3]: plane 0 = [[1, 200, 3], [4, 5, 255],
// [7, 8, 9]], plane 1 all 7 (ties: the first in scan order). Kernel 2: row-major maxima at
// (0, 1), (1, 2), (2, 1), (1, 2) and, in plane 1, (0, 0), (0, 1), (1, 0), (1, 1); column-major
// w * 3 + h: 3, 7, 5, 7 and 9 + 0, 3, 1, 4.
TEST(OnnxImporterTest, MaxPoolIndicesInBothStorageOrders) {
  std::vector<float> x = {1, 200, 3, 4, 5, 255, 7, 8, 9};
  x.resize(18, 7.0f);
  const std::map<std::string, Tensor> feeds = {{"x", MakeTensor<float>({1, 2, 3, 3}, x)}};
  for (int order : {0, 1}) {
    ModelBuilder b(12);
    b.Input("x", {1, 2, 3, 3}).Output("y").Output("i");
    auto* pool = b.Node("MaxPool", {"x"}, {"y", "i"});
    SetInts(pool, "kernel_shape", {2, 2});
    SetInt(pool, "storage_order", order);
    const ImportResult r = ImportModel(b.model());
    ExpectBoth(r, feeds, "y", {200, 255, 8, 255, 7, 7, 7, 7});
    ExpectBoth(r, feeds, "i",
               order == 0 ? std::vector<float>{1, 5, 7, 5, 9, 10, 12, 13}
                          : std::vector<float>{3, 7, 5, 7, 9, 12, 10, 13});
  }
  // 1-D: the index into [N, C, L, 1] is the index into [N, C, L]. [3, 9, 1, 9, 2], kernel 2:
  // 9 at 1 twice, then 9 at 3 twice.
  ModelBuilder b(12);
  b.Input("x", {1, 1, 5}).Output("y").Output("i");
  auto* pool = b.Node("MaxPool", {"x"}, {"y", "i"});
  SetInts(pool, "kernel_shape", {2});
  const ImportResult r = ImportModel(b.model());
  const std::map<std::string, Tensor> line = {{"x", MakeTensor<float>({1, 1, 5}, {3, 9, 1, 9, 2})}};
  ExpectBoth(r, line, "i", {1, 1, 3, 3});
}

// LSTM through parity's Lstm builder, ONNX's gate order i, o, f, c reordered; values from ONNX's
// equations (i, o, f = sigmoid, c~ = tanh of W x + R h + Wb + Rb; C = f C + i c~; H = o tanh(C)),
// worked in double beside the test: D = H = 1, X = [0.5, -1], W = [0.3, -0.7, 1.1, 0.9],
// R = [0.2, 0.4, -0.5, 0.6], Wb = [0.1, -0.2, 0.3, 0.05], Rb = [0, 0.1, -0.1, 0.2] give
// H = 0.1274239, -0.0931025 and the last C = -0.1426183. Distinct gate weights: any gate swapped
// changes every value.
TEST(OnnxImporterTest, LstmThroughTheBuilder) {
  ModelBuilder b(14);
  b.Input("x", {2, 1, 1}).Input("w", {1, 4, 1}).Input("r", {1, 4, 1}).Input("b", {1, 8});
  b.Output("y").Output("y_h").Output("y_c");
  auto* lstm = b.Node("LSTM", {"x", "w", "r", "b"}, {"y", "y_h", "y_c"});
  SetInt(lstm, "hidden_size", 1);
  const ImportResult r = ImportModel(b.model());
  const std::map<std::string, Tensor> feeds = {
      {"x", MakeTensor<float>({2, 1, 1}, {0.5f, -1})},
      {"w", MakeTensor<float>({1, 4, 1}, {0.3f, -0.7f, 1.1f, 0.9f})},
      {"r", MakeTensor<float>({1, 4, 1}, {0.2f, 0.4f, -0.5f, 0.6f})},
      {"b", MakeTensor<float>({1, 8}, {0.1f, -0.2f, 0.3f, 0.05f, 0, 0.1f, -0.1f, 0.2f})}};
  ExpectBoth(r, feeds, "y", {0.1274239f, -0.0931025f});
  ExpectBoth(r, feeds, "y_h", {-0.0931025f});
  ExpectBoth(r, feeds, "y_c", {-0.1426183f});
  // Peepholes, other directions and sequence_lens are refused by name.
  ModelBuilder p(14);
  p.Input("x", {2, 1, 1}).Input("w", {1, 4, 1}).Input("r", {1, 4, 1}).Output("y_h");
  auto* reverse = p.Node("LSTM", {"x", "w", "r"}, {"", "y_h"});
  SetInt(reverse, "hidden_size", 1);
  SetString(reverse, "direction", "reverse");
  try {
    ImportModel(p.model());
    ADD_FAILURE() << "a reverse LSTM was imported";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("direction' = 'reverse'"), std::string::npos) << e.what();
  }
}

// GRU through parity's Gru builder (ONNX's z, r, h reordered), both linear_before_reset forms,
// batch-major (layout 1). ONNX's equations in double: z, r = sigmoid(W x + R h + Wb + Rb);
// h~ = tanh(Wh x + Rh (r h) + Rbh + Wbh), or with linear_before_reset tanh(Wh x + r (Rh h + Rbh)
// + Wbh); H = (1 - z) h~ + z H. X = [0.5, -1], W = [0.3, -0.6, 0.8], R = [0.5, 0.2, -0.4],
// B = [0.1, 0.2, -0.1, 0.05, -0.05, 0.15]: H = 0.1795423, -0.2547537 (0.1504150, -0.2828858).
TEST(OnnxImporterTest, GruThroughTheBuilder) {
  const std::map<std::string, Tensor> feeds = {
      {"x", MakeTensor<float>({1, 2, 1}, {0.5f, -1})},
      {"w", MakeTensor<float>({1, 3, 1}, {0.3f, -0.6f, 0.8f})},
      {"r", MakeTensor<float>({1, 3, 1}, {0.5f, 0.2f, -0.4f})},
      {"b", MakeTensor<float>({1, 6}, {0.1f, 0.2f, -0.1f, 0.05f, -0.05f, 0.15f})}};
  for (int linear_before_reset : {0, 1}) {
    ModelBuilder b(14);
    b.Input("x", {1, 2, 1}).Input("w", {1, 3, 1}).Input("r", {1, 3, 1}).Input("b", {1, 6});
    b.Output("y").Output("y_h");
    auto* gru = b.Node("GRU", {"x", "w", "r", "b"}, {"y", "y_h"});
    SetInt(gru, "hidden_size", 1);
    SetInt(gru, "layout", 1);
    SetInt(gru, "linear_before_reset", linear_before_reset);
    const ImportResult r = ImportModel(b.model());
    const std::vector<float> h = linear_before_reset == 0
                                     ? std::vector<float>{0.1795423f, -0.2547537f}
                                     : std::vector<float>{0.1504150f, -0.2828858f};
    ExpectBoth(r, feeds, "y", h);
    ExpectBoth(r, feeds, "y_h", {h[1]});
  }
}

// RNN: a RecurrentNetwork of FC, Sum, Tanh. H = tanh(W x + Wb + R H + Rb) with W = 0.7,
// R = -0.3, B = [0.1, 0.2], X = [0.5, -1]: tanh(0.65) = 0.5716700, then
// tanh(-0.7 + 0.3 - 0.3 * 0.5716700) = -0.5164608 (double, beside the test).
TEST(OnnxImporterTest, RnnAsARecurrentNetwork) {
  ModelBuilder b(14);
  b.Input("x", {2, 1, 1}).Input("w", {1, 1, 1}).Input("r", {1, 1, 1}).Input("b", {1, 2});
  b.Output("y").Output("y_h");
  SetInt(b.Node("RNN", {"x", "w", "r", "b"}, {"y", "y_h"}), "hidden_size", 1);
  const ImportResult r = ImportModel(b.model());
  const std::map<std::string, Tensor> feeds = {{"x", MakeTensor<float>({2, 1, 1}, {0.5f, -1})},
                                               {"w", MakeTensor<float>({1, 1, 1}, {0.7f})},
                                               {"r", MakeTensor<float>({1, 1, 1}, {-0.3f})},
                                               {"b", MakeTensor<float>({1, 2}, {0.1f, 0.2f})}};
  ExpectBoth(r, feeds, "y", {0.5716700f, -0.5164608f});
  ExpectBoth(r, feeds, "y_h", {-0.5164608f});
}

// A 3-D pool is a 2-D pool over (H, W), then one over D. X [1, 1, 3, 2, 2] = 1 + 4d + 2h + w.
// Kernel (2, 1, 2), depth stride 2, one depth pad at the start: depth windows {0} and {1, 2}, each
// row's two columns. Max: 2, 4, then X(2, 0, 1) = 10, X(2, 1, 1) = 12. Average counting padding
// (divisor 2 * 1 * 2 = 4): (1 + 2) / 4, (3 + 4) / 4, (5 + 6 + 9 + 10) / 4, (7 + 8 + 11 + 12) / 4;
// without: the first depth window holds 2 elements, so (1 + 2) / 2 and (3 + 4) / 2.
TEST(OnnxImporterTest, Pool3dAsTwo2dPools) {
  std::vector<float> x(12);
  for (int i = 0; i < 12; ++i) x[i] = static_cast<float>(i + 1);
  const std::map<std::string, Tensor> feeds = {{"x", MakeTensor<float>({1, 1, 3, 2, 2}, x)}};
  struct Form {
    const char* type;
    int count_include_pad;
    std::vector<float> expected;
  };
  for (const Form& f : {Form{"MaxPool", 0, {2, 4, 10, 12}},
                        Form{"AveragePool", 1, {0.75f, 1.75f, 7.5f, 9.5f}},
                        Form{"AveragePool", 0, {1.5f, 3.5f, 7.5f, 9.5f}}}) {
    ModelBuilder b(12);
    b.Input("x", {1, 1, 3, 2, 2}).Output("y");
    auto* pool = b.Node(f.type, {"x"}, {"y"});
    SetInts(pool, "kernel_shape", {2, 1, 2});
    SetInts(pool, "strides", {2, 1, 1});
    SetInts(pool, "pads", {1, 0, 0, 0, 0, 0});
    if (std::string(f.type) == "AveragePool") SetInt(pool, "count_include_pad", f.count_include_pad);
    const ImportResult r = ImportModel(b.model());
    ExpectBoth(r, feeds, "y", f.expected);
  }
}

// A 1-D Conv runs as 2-D with a unit width: ExpandDims of X and W, Conv, Squeeze.
TEST(OnnxImporterTest, Conv1dAsUnitWidth2d) {
  ModelBuilder b(11);
  b.Input("x", {1, 1, 5}).Input("w", {1, 1, 2}).Output("y");
  auto* conv = b.Node("Conv", {"x", "w"}, {"y"});
  SetInts(conv, "pads", {1, 0});
  SetInts(conv, "strides", {2});
  const ImportResult r = ImportModel(b.model());
  EXPECT_EQ(OpTypes(r.net),
            (std::vector<std::string>{"ExpandDims", "ExpandDims", "Conv", "Squeeze"}));
  // Padded [0, 1, 2, 3, 4, 5], windows at 0, 2, 4 of w = [1, 10].
  ExpectBoth(r,
             {{"x", MakeTensor<float>({1, 1, 5}, {1, 2, 3, 4, 5})},
              {"w", MakeTensor<float>({1, 1, 2}, {1, 10})}},
             "y", {10, 32, 54});
}

// ConvTranspose's output_shape and auto_pad fix the total padding; 1-D runs as 2-D. X = [1, 2, 3]
// stamps W at stride 2. Kernel 2: the stamps tile 6 outputs, so output_shape 7 is a negative end
// pad, Caffe2's adj (a last 0). Kernel 3 (7 outputs, overlapping): SAME_* asks for 3 * 2 = 6, one
// pad, cropped at the end (SAME_UPPER) or at the start (SAME_LOWER).
TEST(OnnxImporterTest, ConvTransposeOutputShapeAndAutoPad) {
  const Tensor x = MakeTensor<float>({1, 1, 3}, {1, 2, 3});
  ModelBuilder shaped(11);
  shaped.Input("x", {1, 1, 3}).Input("w", {1, 1, 2}).Output("y");
  auto* node = shaped.Node("ConvTranspose", {"x", "w"}, {"y"});
  SetInts(node, "strides", {2});
  SetInts(node, "output_shape", {7});
  ExpectBoth(ImportModel(shaped.model()), {{"x", x}, {"w", MakeTensor<float>({1, 1, 2}, {1, 10})}},
             "y", {1, 10, 2, 20, 3, 30, 0});
  for (const std::string mode : {"SAME_UPPER", "SAME_LOWER"}) {
    ModelBuilder same(11);
    same.Input("x", {1, 1, 3}).Input("w", {1, 1, 3}).Output("y");
    auto* t = same.Node("ConvTranspose", {"x", "w"}, {"y"});
    SetInts(t, "strides", {2});
    SetString(t, "auto_pad", mode);
    const std::vector<float> expected = mode == "SAME_UPPER"
                                            ? std::vector<float>{1, 10, 102, 20, 203, 30}
                                            : std::vector<float>{10, 102, 20, 203, 30, 300};
    ExpectBoth(ImportModel(same.model()),
               {{"x", x}, {"w", MakeTensor<float>({1, 1, 3}, {1, 10, 100})}}, "y", expected);
  }
}

// Pad has no parity op: per axis, a Slice for a negative pad, a Concat for a positive one.
TEST(OnnxImporterTest, PadModes) {
  const Tensor x = MakeTensor<float>({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  const std::map<std::string, std::vector<float>> expected = {
      // pads [0, 2, 0, -1]: columns mirrored / repeated / filled at the start, the last cropped.
      {"reflect", {3, 2, 1, 2, 3, 7, 6, 5, 6, 7}},
      {"edge", {1, 1, 1, 2, 3, 5, 5, 5, 6, 7}},
      {"constant", {7, 7, 1, 2, 3, 7, 7, 5, 6, 7}}};
  for (const auto& [mode, values] : expected) {
    ModelBuilder b(13);
    b.Input("x", {2, 4}).Output("y");
    b.Initializer("pads", MakeTensor<int64_t>({4}, {0, 2, 0, -1}));
    b.Initializer("value", MakeTensor<float>({}, {7}));
    SetString(b.Node("Pad", {"x", "pads", "value"}, {"y"}), "mode", mode);
    ExpectBoth(ImportModel(b.model()), {{"x", x}}, "y", values);
  }
}

// An integer base with a float exponent: in double, then cast back (numpy's result).
TEST(OnnxImporterTest, PowIntegerBaseFloatExponent) {
  ModelBuilder b(15);
  b.Input("x", {3}, ::onnx::TensorProto::INT64).Input("e", {3}).Output("z");
  b.Node("Pow", {"x", "e"}, {"z"});
  const ImportResult r = ImportModel(b.model());
  EXPECT_EQ(OpTypes(r.net), (std::vector<std::string>{"Cast", "Cast", "Pow", "Cast"}));
  for (const char* engine : {oracles::kProduction, oracles::kReference}) {
    Case c;
    *c.mutable_net() = r.net;
    *c.add_inputs() = TensorToProto(MakeTensor<int64_t>({3}, {2, 3, 4}), "x");
    *c.add_inputs() = TensorToProto(MakeTensor<float>({3}, {3, 2, 0.5f}), "e");
    const auto run = oracles::GetBackend(engine).Run(c);
    ASSERT_FALSE(run.error) << run.error->what();
    EXPECT_EQ(Values<int64_t>(TensorFromProto(run.blobs.at("z"))), (std::vector<int64_t>{8, 9, 2}))
        << engine;
  }
}

TEST(OnnxImporterTest, ListsEveryUnsupportedNodeAndAttribute) {
  ModelBuilder b(13);
  b.Input("x", {2, 3}).Output("z");
  b.Node("Acosh", {"x"}, {"a"}, "acosh1");
  SetInt(b.Node("Relu", {"x"}, {"r"}, "relu1"), "fancy", 1);
  b.Node("Add", {"a", "r"}, {"z"});  // reads an untranslated value: not listed itself
  try {
    ImportModel(b.model());
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kBadArgument);
    const std::string message = e.what();
    EXPECT_NE(message.find("2 thing(s)"), std::string::npos) << message;
    EXPECT_NE(message.find("node #0 'acosh1' (Acosh): no translation"), std::string::npos) << message;
    EXPECT_NE(message.find("node #1 'relu1' (Relu): attribute 'fancy' is not translated"),
              std::string::npos)
        << message;
    EXPECT_EQ(message.find("(Add)"), std::string::npos) << message;
  }
}

TEST(OnnxImporterTest, InitializersBecomeTheInitNet) {
  ModelBuilder b(13);
  b.Input("x", {2}).Output("y").Initializer("w", MakeTensor<float>({2}, {3, 4}));
  b.Node("Mul", {"x", "w"}, {"y"});
  const ImportResult r = ImportModel(b.model());
  EXPECT_EQ(OpTypes(r.init_net), (std::vector<std::string>{"GivenTensorFill"}));
  EXPECT_EQ(r.inputs, (std::vector<std::string>{"x"}));
  ExpectBoth(r, {{"x", MakeTensor<float>({2}, {1, 2})}}, "y", {3, 8});
}

// Cast's `to` is an ONNX type number: 7 is INT64 (Caffe2's 10), 10 is FLOAT16 (refused).
TEST(OnnxImporterTest, CastRenumbersTheType) {
  ModelBuilder b(13);
  b.Input("x", {2}).Output("y");
  SetInt(b.Node("Cast", {"x"}, {"y"}), "to", ::onnx::TensorProto::INT64);
  const ImportResult r = ImportModel(b.model());
  ASSERT_EQ(r.net.op_size(), 1);
  EXPECT_EQ(r.net.op(0).arg(0).i(), static_cast<int>(DataType::kInt64));

  ModelBuilder half(13);
  half.Input("x", {2}).Output("y");
  SetInt(half.Node("Cast", {"x"}, {"y"}), "to", ::onnx::TensorProto::FLOAT16);
  const ImportResult refused = TranslateModel(half.model());
  ASSERT_EQ(refused.unsupported.size(), 1u);
  EXPECT_NE(refused.unsupported[0].reason.find("FLOAT16"), std::string::npos);
}

}  // namespace
}  // namespace parity::onnx
