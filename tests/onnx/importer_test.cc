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
#include "tests/onnx/importer_test_util.h"
#include "tests/test_util.h"

namespace parity::onnx {
namespace {

using ::parity::testing::MakeTensor;
using ::parity::testing::Values;
using ::parity::onnx::importer_testing::ModelBuilder;
using ::parity::onnx::importer_testing::SetInt;
using ::parity::onnx::importer_testing::SetFloat;
using ::parity::onnx::importer_testing::SetInts;
using ::parity::onnx::importer_testing::SetString;
using ::parity::onnx::importer_testing::OpTypes;
using ::parity::onnx::importer_testing::Run;
using ::parity::onnx::importer_testing::ExpectNear;
using ::parity::onnx::importer_testing::ExpectBoth;

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
// Slice bounds the net computes (graph inputs here, not bound): normalized by ops (negative v +
// d, clamped to [0, d], an end before the start empties the axis) for parity's Slice input form,
// one axis at a time. X [2, 5] = 0..9.
TEST(OnnxImporterTest, SliceWithBoundsFromTheNet) {
  struct Form {
    std::vector<int64_t> starts, ends, axes;  // axes empty: the default
    std::vector<float> expected;
  };
  const std::vector<Form> forms = {
      {{-3}, {100}, {1}, {2, 3, 4, 7, 8, 9}},  // the last three columns
      {{3}, {1}, {1}, {}},                     // end before start: empty
      {{1, -4}, {2, 3}, {}, {6, 7}},           // row 1, columns 1 and 2
  };
  std::vector<float> x(10);
  for (int i = 0; i < 10; ++i) x[i] = static_cast<float>(i);
  for (const Form& f : forms) {
    const int64_t n = static_cast<int64_t>(f.starts.size());
    ModelBuilder b(13);
    b.Input("x", {2, 5}).Input("starts", {n}, ::onnx::TensorProto::INT64);
    b.Input("ends", {n}, ::onnx::TensorProto::INT64).Output("y");
    std::vector<std::string> inputs = {"x", "starts", "ends"};
    if (!f.axes.empty()) {
      b.Initializer("axes", MakeTensor<int64_t>({n}, f.axes));
      inputs.push_back("axes");
    }
    b.Node("Slice", inputs, {"y"});
    const ImportResult r = ImportModel(b.model());
    ExpectBoth(r,
               {{"x", MakeTensor<float>({2, 5}, x)},
                {"starts", MakeTensor<int64_t>({n}, f.starts)},
                {"ends", MakeTensor<int64_t>({n}, f.ends)}},
               "y", f.expected);
  }
}

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

// From opset 18 every reduction takes its axes as input 1 (ReduceSum from 13); the importer once
// ignored it and reduced over every axis, a silent wrong answer.
TEST(OnnxImporterTest, ReduceAxesInputFromOpset18) {
  const Tensor x = MakeTensor<float>({2, 3}, {1, 5, 3, -4, 2, 0});
  struct Want {
    const char* type;
    std::vector<float> rows;  // reduced over axis 1, keepdims 0
  };
  for (const Want& want : {Want{"ReduceMean", {3, -2.0f / 3}}, Want{"ReduceMax", {5, 2}},
                           Want{"ReduceMin", {1, -4}}, Want{"ReduceL1", {9, 6}},
                           Want{"ReduceSumSquare", {35, 20}}}) {
    ModelBuilder b(18);
    b.Input("x", {2, 3}).Output("y").Initializer("axes", MakeTensor<int64_t>({1}, {-1}));
    SetInt(b.Node(want.type, {"x", "axes"}, {"y"}), "keepdims", 0);
    ExpectBoth(ImportModel(b.model()), {{"x", x}}, "y", want.rows);
  }
  // No axes: every axis; with noop_with_empty_axes=1, the input unchanged.
  ModelBuilder all(18);
  all.Input("x", {2, 3}).Output("y");
  all.Node("ReduceMax", {"x"}, {"y"});
  ExpectBoth(ImportModel(all.model()), {{"x", x}}, "y", {5});
  ModelBuilder noop(18);
  noop.Input("x", {2, 3}).Output("y");
  SetInt(noop.Node("ReduceMean", {"x"}, {"y"}), "noop_with_empty_axes", 1);
  ExpectBoth(ImportModel(noop.model()), {{"x", x}}, "y", {1, 5, 3, -4, 2, 0});
  // Before 18 the axes are an attribute; an input there, or an attribute from 18, is refused.
  ModelBuilder old(17);
  old.Input("x", {2, 3}).Output("y");
  SetInts(old.Node("ReduceMean", {"x"}, {"y"}), "axes", {0});
  ExpectBoth(ImportModel(old.model()), {{"x", x}}, "y", {-1.5f, 3.5f, 1.5f});
  for (int opset : {17, 18}) {
    ModelBuilder bad(opset);
    bad.Input("x", {2, 3}).Output("y").Initializer("axes", MakeTensor<int64_t>({1}, {0}));
    auto* node = bad.Node("ReduceMax", opset == 17 ? std::vector<std::string>{"x", "axes"}
                                                   : std::vector<std::string>{"x"},
                          {"y"});
    if (opset == 18) SetInts(node, "axes", {0});
    EXPECT_THROW(ImportModel(bad.model()), Error) << "opset " << opset;
  }
}

// Opset 18: Split's num_outputs (parts of ceil(d / n), the last smaller) and Pad's axes input.
TEST(OnnxImporterTest, SplitNumOutputsAndPadAxesFromOpset18) {
  const Tensor x = MakeTensor<float>({2, 5}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  ModelBuilder split(18);
  split.Input("x", {2, 5}).Output("a").Output("b").Output("c");
  auto* node = split.Node("Split", {"x"}, {"a", "b", "c"});
  SetInt(node, "axis", 1);
  SetInt(node, "num_outputs", 3);
  const ImportResult r = ImportModel(split.model());
  ExpectBoth(r, {{"x", x}}, "a", {0, 1, 5, 6});
  ExpectBoth(r, {{"x", x}}, "b", {2, 3, 7, 8});
  ExpectBoth(r, {{"x", x}}, "c", {4, 9});
  // Pad only axis -1 (1 before, 2 after) with 7s; axis 0 untouched.
  ModelBuilder pad(18);
  pad.Input("x", {2, 5}).Output("y");
  pad.Initializer("pads", MakeTensor<int64_t>({2}, {1, 2}))
      .Initializer("value", MakeTensor<float>({}, {7}))
      .Initializer("axes", MakeTensor<int64_t>({1}, {-1}));
  pad.Node("Pad", {"x", "pads", "value", "axes"}, {"y"});
  ExpectBoth(ImportModel(pad.model()), {{"x", x}}, "y",
             {7, 0, 1, 2, 3, 4, 7, 7, 7, 5, 6, 7, 8, 9, 7, 7});
  // Before 18 an axes input is refused, not ignored.
  ModelBuilder old(17);
  old.Input("x", {2, 5}).Output("y");
  old.Initializer("pads", MakeTensor<int64_t>({2}, {1, 2}))
      .Initializer("axes", MakeTensor<int64_t>({1}, {1}));
  old.Node("Pad", {"x", "pads", "", "axes"}, {"y"});
  EXPECT_THROW(ImportModel(old.model()), Error);
}

// numpy's matmul of two vectors is a scalar (rank 0), not Caffe2's [1].
TEST(OnnxImporterTest, MatMulOfTwoVectorsIsAScalar) {
  ModelBuilder b(13);
  b.Input("a", {3}).Input("b", {3}).Output("y");
  b.Node("MatMul", {"a", "b"}, {"y"});
  const ImportResult r = ImportModel(b.model());
  const std::map<std::string, Tensor> feeds = {{"a", MakeTensor<float>({3}, {1, 2, 3})},
                                               {"b", MakeTensor<float>({3}, {4, -5, 6})}};
  ExpectBoth(r, feeds, "y", {12});
  for (const char* engine : {oracles::kProduction, oracles::kReference}) {
    Case c;
    *c.mutable_net() = r.net;
    for (const auto& [name, value] : feeds) *c.add_inputs() = TensorToProto(value, name);
    const auto run = oracles::GetBackend(engine).Run(c);
    ASSERT_FALSE(run.error) << engine << ": " << run.error->what();
    EXPECT_TRUE(TensorFromProto(run.blobs.at("y")).dims().empty()) << engine;
  }
}

// ONNX's Clip is min(max(x, min), max): with min > max every value is max.
TEST(OnnxImporterTest, ClipWithMinAboveMaxIsMax) {
  const Tensor x = MakeTensor<float>({4}, {-2, 0.5f, 1.5f, 3});
  ModelBuilder inputs(13);
  inputs.Input("x", {4}).Output("y");
  inputs.Initializer("lo", MakeTensor<float>({}, {2})).Initializer("hi", MakeTensor<float>({}, {1}));
  inputs.Node("Clip", {"x", "lo", "hi"}, {"y"});
  ExpectBoth(ImportModel(inputs.model()), {{"x", x}}, "y", {1, 1, 1, 1});
  ModelBuilder attrs(6);
  attrs.Input("x", {4}).Output("y");
  auto* clip = attrs.Node("Clip", {"x"}, {"y"});
  SetFloat(clip, "min", 0.75f);
  SetFloat(clip, "max", -1);
  ExpectBoth(ImportModel(attrs.model()), {{"x", x}}, "y", {-1, -1, -1, -1});
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
// Shrink and Acosh, composed. Shrink(lambd 1.5, bias 0.5) of [-2, -1, 0, 1, 2]: -2 + 0.5, three
// zeros, 2 - 0.5. Acosh of [1, 2, 10]: 0, 1.3169579, 2.9932228 (std::acosh in double).
TEST(OnnxImporterTest, ShrinkAndAcoshComposed) {
  ModelBuilder b(13);
  b.Input("x", {5}).Input("a", {3}).Output("s").Output("c");
  auto* shrink = b.Node("Shrink", {"x"}, {"s"});
  SetFloat(shrink, "lambd", 1.5f);
  SetFloat(shrink, "bias", 0.5f);
  b.Node("Acosh", {"a"}, {"c"});
  const ImportResult r = ImportModel(b.model());
  const std::map<std::string, Tensor> feeds = {{"x", MakeTensor<float>({5}, {-2, -1, 0, 1, 2})},
                                               {"a", MakeTensor<float>({3}, {1, 2, 10})}};
  ExpectBoth(r, feeds, "s", {-1.5f, 0, 0, 0, 1.5f});
  ExpectBoth(r, feeds, "c", {0, 1.3169579f, 2.9932228f});
}

// BitShift through int64: uint8 [16, 4, 200] shifted left by [1, 2, 1] is [32, 16, 400 mod 256 =
// 144], right by [1, 2, 3] is [8, 1, 25]; uint16 40000 << 1 = 80000 mod 65536 = 14464.
TEST(OnnxImporterTest, BitShiftComposed) {
  for (const char* direction : {"LEFT", "RIGHT"}) {
    ModelBuilder b(11);
    b.Input("x", {3}, ::onnx::TensorProto::UINT8).Input("y", {3}, ::onnx::TensorProto::UINT8);
    b.Output("z");
    SetString(b.Node("BitShift", {"x", "y"}, {"z"}), "direction", direction);
    const ImportResult r = ImportModel(b.model());
    const bool left = std::string(direction) == "LEFT";
    const std::map<std::string, Tensor> feeds = {
        {"x", MakeTensor<uint8_t>({3}, {16, 4, 200})},
        {"y", MakeTensor<uint8_t>({3}, left ? std::vector<uint8_t>{1, 2, 1}
                                            : std::vector<uint8_t>{1, 2, 3})}};
    ExpectBoth(r, feeds, "z", left ? std::vector<float>{32, 16, 144} : std::vector<float>{8, 1, 25});
  }
  ModelBuilder b(11);
  b.Input("x", {1}, ::onnx::TensorProto::UINT16).Input("y", {1}, ::onnx::TensorProto::UINT16);
  b.Output("z");
  SetString(b.Node("BitShift", {"x", "y"}, {"z"}), "direction", "LEFT");
  ExpectBoth(ImportModel(b.model()),
             {{"x", MakeTensor<uint16_t>({1}, {40000})}, {"y", MakeTensor<uint16_t>({1}, {1})}},
             "z", {14464});
}

// EyeLike: the diagonal k of the input's static [2, 3] shape, in the input's dtype or `dtype`.
TEST(OnnxImporterTest, EyeLikeIsAConstant) {
  ModelBuilder b(11);
  b.Input("x", {2, 3}).Output("above").Output("below");
  SetInt(b.Node("EyeLike", {"x"}, {"above"}), "k", 1);
  auto* below = b.Node("EyeLike", {"x"}, {"below"});
  SetInt(below, "k", -1);
  SetInt(below, "dtype", ::onnx::TensorProto::INT64);
  const ImportResult r = ImportModel(b.model());
  const std::map<std::string, Tensor> feeds = {{"x", MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6})}};
  ExpectBoth(r, feeds, "above", {0, 1, 0, 0, 0, 1});
  ExpectBoth(r, feeds, "below", {0, 0, 0, 1, 0, 0});
}

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
  b.Node("Det", {"x"}, {"a"}, "det1");
  SetInt(b.Node("Relu", {"x"}, {"r"}, "relu1"), "fancy", 1);
  b.Node("Add", {"a", "r"}, {"z"});  // reads an untranslated value: not listed itself
  try {
    ImportModel(b.model());
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kBadArgument);
    const std::string message = e.what();
    EXPECT_NE(message.find("2 thing(s)"), std::string::npos) << message;
    EXPECT_NE(message.find("node #0 'det1' (Det): no translation"), std::string::npos) << message;
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
