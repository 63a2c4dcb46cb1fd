// Importer rules that build more than a few ops, on hand-built ONNX models run on both engines:
// LSTM, GRU and RNN through the recurrent-net builders (values from ONNX's equations worked in
// double), 3-D pools as two 2-D pools, 3-D Conv and ConvTranspose on 2-D ones, Loop and Scan as While.
#include <gtest/gtest.h>

#include "tests/onnx/importer_test_util.h"

namespace parity::onnx {
namespace {

using ::parity::testing::MakeTensor;
using ::parity::onnx::importer_testing::ModelBuilder;
using ::parity::onnx::importer_testing::SetInt;
using ::parity::onnx::importer_testing::SetInts;
using ::parity::onnx::importer_testing::SetString;
using ::parity::onnx::importer_testing::ExpectBoth;

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

  // Peepholes P = (Pi, Po, Pf) = (0.5, -0.3, 0.2): i and f also see P C_prev, o sees Po times the
  // new C (ONNX's equations, double): H = 0.1195880, -0.1065928, last C = -0.1611080. With a
  // constant sequence_lens of the full length T = 2 (an initializer), which is accepted.
  ModelBuilder peep(14);
  peep.Input("x", {2, 1, 1}).Input("w", {1, 4, 1}).Input("r", {1, 4, 1}).Input("b", {1, 8});
  peep.Input("p", {1, 3}).Initializer("len", MakeTensor<int32_t>({1}, {2}));
  peep.Output("y").Output("y_h").Output("y_c");
  auto* with_p = peep.Node("LSTM", {"x", "w", "r", "b", "len", "", "", "p"}, {"y", "y_h", "y_c"});
  SetInt(with_p, "hidden_size", 1);
  const ImportResult rp = ImportModel(peep.model());
  std::map<std::string, Tensor> peep_feeds = feeds;
  peep_feeds["p"] = MakeTensor<float>({1, 3}, {0.5f, -0.3f, 0.2f});
  ExpectBoth(rp, peep_feeds, "y", {0.1195880f, -0.1065928f});
  ExpectBoth(rp, peep_feeds, "y_c", {-0.1611080f});

  // A sequence shorter than T is refused (ONNX zeroes Y past its end).
  ModelBuilder short_seq(14);
  short_seq.Input("x", {2, 1, 1}).Input("w", {1, 4, 1}).Input("r", {1, 4, 1});
  short_seq.Initializer("len", MakeTensor<int32_t>({1}, {1})).Output("y_h");
  SetInt(short_seq.Node("LSTM", {"x", "w", "r", "", "len"}, {"", "y_h"}), "hidden_size", 1);
  try {
    ImportModel(short_seq.model());
    ADD_FAILURE() << "a sequence shorter than T was imported";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("sequence_lens 1 shorter than T = 2"), std::string::npos)
        << e.what();
  }
  // Other directions are refused by name.
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

// 3-D Conv: each output depth's slab of input depths folded into a 2-D Conv's channels.
TEST(OnnxImporterTest, Conv3dFoldsDepthIntoChannels) {
  struct Form {
    std::vector<int64_t> x_dims, w_dims;
    std::vector<float> x, w;
    std::vector<int64_t> pads, strides, dilations;
    int64_t group;
    std::vector<float> expected;
  };
  const std::vector<Form> forms = {
      // Depth [1, 2, 3] padded to [0, 1, 2, 3, 0], W [10, 1]: 1, 12, 23, 30.
      {{1, 1, 3, 1, 1}, {1, 1, 2, 1, 1}, {1, 2, 3}, {10, 1}, {1, 0, 0, 1, 0, 0}, {1, 1, 1},
       {1, 1, 1}, 1, {1, 12, 23, 30}},
      // Depth [1..5], W [1, 10] dilated 2, stride 2: taps (0, 2) and (2, 4): 31, 53.
      {{1, 1, 5, 1, 1}, {1, 1, 2, 1, 1}, {1, 2, 3, 4, 5}, {1, 10}, {0, 0, 0, 0, 0, 0}, {2, 1, 1},
       {2, 1, 1}, 1, {31, 53}},
      // Two groups, X [1, 2, 2 (D), 2 (H), 1]: channel 0 [[1, 2], [3, 4]] with W [1, -1] over
      // depth gives 1 - 3, 2 - 4; channel 1 [[10, 20], [30, 40]] with [2, 0.5]: 35, 60.
      {{1, 2, 2, 2, 1}, {2, 1, 2, 1, 1}, {1, 2, 3, 4, 10, 20, 30, 40}, {1, -1, 2, 0.5f},
       {0, 0, 0, 0, 0, 0}, {1, 1, 1}, {1, 1, 1}, 2, {-2, -2, 35, 60}},
  };
  for (const Form& f : forms) {
    ModelBuilder b(11);
    b.Input("x", f.x_dims).Input("w", f.w_dims).Output("y");
    auto* conv = b.Node("Conv", {"x", "w"}, {"y"});
    SetInts(conv, "pads", f.pads);
    SetInts(conv, "strides", f.strides);
    SetInts(conv, "dilations", f.dilations);
    SetInt(conv, "group", f.group);
    const ImportResult r = ImportModel(b.model());
    ExpectBoth(r, {{"x", MakeTensor<float>(f.x_dims, f.x)}, {"w", MakeTensor<float>(f.w_dims, f.w)}},
               "y", f.expected);
  }
}

// 3-D ConvTranspose: 2-D ones per kernel depth, placed in depth by a 0/1 matrix. Input depth id
// and kernel depth k reach output depth id * s + k - pad: X [1, 2] with W [10, 1].
TEST(OnnxImporterTest, ConvTranspose3dPlacesKernelDepths) {
  struct Form {
    std::vector<int64_t> x_dims, w_dims;
    std::vector<float> x, w, bias;
    std::vector<int64_t> strides, pads, output_padding;
    int64_t group;
    std::vector<float> expected;
  };
  const std::vector<Form> forms = {
      // Stride 2: 1 * [10, 1] at 0, 2 * [10, 1] at 2.
      {{1, 1, 2, 1, 1}, {1, 1, 2, 1, 1}, {1, 2}, {10, 1}, {}, {2, 1, 1}, {0, 0, 0, 0, 0, 0},
       {0, 0, 0}, 1, {10, 1, 20, 2}},
      // Stride 1: the stamps overlap at depth 1 (1 + 20); with output_padding 1 and stride 2 a
      // trailing 0; a start pad of 1 crops depth 0 (10).
      {{1, 1, 2, 1, 1}, {1, 1, 2, 1, 1}, {1, 2}, {10, 1}, {}, {1, 1, 1}, {0, 0, 0, 0, 0, 0},
       {0, 0, 0}, 1, {10, 21, 2}},
      {{1, 1, 2, 1, 1}, {1, 1, 2, 1, 1}, {1, 2}, {10, 1}, {}, {2, 1, 1}, {0, 0, 0, 0, 0, 0},
       {1, 0, 0}, 1, {10, 1, 20, 2, 0}},
      {{1, 1, 2, 1, 1}, {1, 1, 2, 1, 1}, {1, 2}, {10, 1}, {}, {1, 1, 1}, {1, 0, 0, 0, 0, 0},
       {0, 0, 0}, 1, {21, 2}},
      // Two groups and a bias: channel 0 [1, 2] times 2, plus 1; channel 1 [3, 4] times 5, minus 1.
      {{1, 2, 2, 1, 1}, {2, 1, 1, 1, 1}, {1, 2, 3, 4}, {2, 5}, {1, -1}, {1, 1, 1},
       {0, 0, 0, 0, 0, 0}, {0, 0, 0}, 2, {3, 5, 14, 19}},
  };
  for (const Form& f : forms) {
    ModelBuilder b(11);
    b.Input("x", f.x_dims).Input("w", f.w_dims).Output("y");
    std::vector<std::string> inputs = {"x", "w"};
    std::map<std::string, Tensor> feeds = {{"x", MakeTensor<float>(f.x_dims, f.x)},
                                           {"w", MakeTensor<float>(f.w_dims, f.w)}};
    if (!f.bias.empty()) {
      const int64_t m = static_cast<int64_t>(f.bias.size());
      b.Input("b", {m});
      inputs.push_back("b");
      feeds["b"] = MakeTensor<float>({m}, f.bias);
    }
    auto* conv = b.Node("ConvTranspose", inputs, {"y"});
    SetInts(conv, "strides", f.strides);
    SetInts(conv, "pads", f.pads);
    SetInts(conv, "output_padding", f.output_padding);
    SetInt(conv, "group", f.group);
    const ImportResult r = ImportModel(b.model());
    ExpectBoth(r, feeds, "y", f.expected);
  }
}

// A body input or output of `type` (an ONNX elem type) without a shape, as ONNX's function
// expansions declare them.
void AddValue(::google::protobuf::RepeatedPtrField<::onnx::ValueInfoProto>* values,
              const std::string& name, int type) {
  auto* value = values->Add();
  value->set_name(name);
  value->mutable_type()->mutable_tensor_type()->set_elem_type(type);
}

// Loop -> While. Body (i, cond, v) -> (cond', 2 v, v + i) from v = 1: passes i = 0..3 carry v
// through 2, 4, 8, 16 and scan 1 + 0, 2 + 1, 4 + 2, 8 + 3 = 1, 3, 6, 11. Stopped by the trip count
// M = 4 (cond' = cond), or by the body's condition cond' = 2 v < 10 (false after the fourth pass);
// M = 0 runs no pass.
TEST(OnnxImporterTest, LoopAsWhile) {
  for (bool by_condition : {false, true}) {
    ModelBuilder b(13);
    b.Input("v0", {}, ::onnx::TensorProto::INT64).Output("v_final").Output("scan");
    if (!by_condition) b.Input("m", {}, ::onnx::TensorProto::INT64);
    b.Input("c0", {}, ::onnx::TensorProto::BOOL);
    auto* loop = b.Node("Loop", {by_condition ? "" : "m", "c0", "v0"}, {"v_final", "scan"});
    auto* attr = loop->add_attribute();
    attr->set_name("body");
    attr->set_type(::onnx::AttributeProto::GRAPH);
    ::onnx::GraphProto* body = attr->mutable_g();
    body->set_name("body");
    AddValue(body->mutable_input(), "i", ::onnx::TensorProto::INT64);
    AddValue(body->mutable_input(), "cond", ::onnx::TensorProto::BOOL);
    AddValue(body->mutable_input(), "v", ::onnx::TensorProto::INT64);
    auto node = [&](const std::string& type, std::vector<std::string> in, const std::string& out) {
      auto* n = body->add_node();
      n->set_op_type(type);
      for (const auto& name : in) n->add_input(name);
      n->add_output(out);
      return n;
    };
    auto* two = node("Constant", {}, "two");
    auto* value = two->add_attribute();
    value->set_name("value");
    value->set_type(::onnx::AttributeProto::TENSOR);
    value->mutable_t()->set_data_type(::onnx::TensorProto::INT64);
    value->mutable_t()->add_int64_data(2);
    node("Mul", {"v", "two"}, "v_next");
    node("Add", {"v", "i"}, "s");
    if (by_condition) {
      auto* ten = node("Constant", {}, "ten");
      auto* t = ten->add_attribute();
      t->set_name("value");
      t->set_type(::onnx::AttributeProto::TENSOR);
      t->mutable_t()->set_data_type(::onnx::TensorProto::INT64);
      t->mutable_t()->add_int64_data(10);
      node("Less", {"v_next", "ten"}, "cond_next");
    } else {
      node("Identity", {"cond"}, "cond_next");
    }
    AddValue(body->mutable_output(), "cond_next", ::onnx::TensorProto::BOOL);
    AddValue(body->mutable_output(), "v_next", ::onnx::TensorProto::INT64);
    AddValue(body->mutable_output(), "s", ::onnx::TensorProto::INT64);
    const ImportResult r = ImportModel(b.model());
    std::map<std::string, Tensor> feeds = {{"v0", MakeTensor<int64_t>({}, {1})},
                                           {"c0", MakeTensor<bool>({}, {true})}};
    if (!by_condition) feeds["m"] = MakeTensor<int64_t>({}, {4});
    ExpectBoth(r, feeds, "v_final", {16});
    ExpectBoth(r, feeds, "scan", {1, 3, 6, 11});
    if (!by_condition) {
      // No pass at all: the initial value, and an empty scan output (its [0] accumulator).
      feeds["m"] = MakeTensor<int64_t>({}, {0});
      ExpectBoth(r, feeds, "v_final", {1});
      ExpectBoth(r, feeds, "scan", {});
    }
  }
}

// Scan (opset 9) -> While over the scan input's first axis: a running sum. s0 = [0, 0],
// X = [[1, 2], [3, 4], [5, 6]]: states [1, 2], [4, 6], [9, 12], stacked as the scan output.
TEST(OnnxImporterTest, ScanAsWhile) {
  ModelBuilder b(11);
  b.Input("s0", {2}).Input("x", {3, 2}).Output("s_final").Output("sums");
  auto* scan = b.Node("Scan", {"s0", "x"}, {"s_final", "sums"});
  SetInt(scan, "num_scan_inputs", 1);
  auto* attr = scan->add_attribute();
  attr->set_name("body");
  attr->set_type(::onnx::AttributeProto::GRAPH);
  ::onnx::GraphProto* body = attr->mutable_g();
  body->set_name("body");
  AddValue(body->mutable_input(), "s", ::onnx::TensorProto::FLOAT);
  AddValue(body->mutable_input(), "x_t", ::onnx::TensorProto::FLOAT);
  auto* add = body->add_node();
  add->set_op_type("Add");
  add->add_input("s");
  add->add_input("x_t");
  add->add_output("s_next");
  auto* copy = body->add_node();
  copy->set_op_type("Identity");
  copy->add_input("s_next");
  copy->add_output("s_scan");
  AddValue(body->mutable_output(), "s_next", ::onnx::TensorProto::FLOAT);
  AddValue(body->mutable_output(), "s_scan", ::onnx::TensorProto::FLOAT);
  const ImportResult r = ImportModel(b.model());
  const std::map<std::string, Tensor> feeds = {
      {"s0", MakeTensor<float>({2}, {0, 0})},
      {"x", MakeTensor<float>({3, 2}, {1, 2, 3, 4, 5, 6})}};
  ExpectBoth(r, feeds, "s_final", {9, 12});
  ExpectBoth(r, feeds, "sums", {1, 2, 4, 6, 9, 12});
}

}  // namespace
}  // namespace parity::onnx
