// Importer rules that compose ops parity has no op for (onnx/rules_composed.cc), on hand-built
// ONNX models run on both engines: GatherND, OneHot, LRN, Compress, ReverseSequence.
#include <gtest/gtest.h>

#include "tests/onnx/importer_test_util.h"

namespace parity::onnx {
namespace {

using ::parity::testing::MakeTensor;
using ::parity::onnx::importer_testing::ModelBuilder;
using ::parity::onnx::importer_testing::SetInt;
using ::parity::onnx::importer_testing::SetFloat;
using ::parity::onnx::importer_testing::ExpectBoth;

// GatherND through flat indices: DATA [[0, 1], [2, 3]]: tuples (0, 0), (1, 1) pick 0, 3; (-1, 0)
// wraps to (1, 0): 2; one-long tuples (1), (0) pick rows. batch_dims 1 over DATA [2, 2, 2] = 0..7:
// batch 0 takes its row 1 = [2, 3], batch 1 its row 0 = [4, 5].
TEST(OnnxImporterTest, GatherNdComposed) {
  struct Form {
    std::vector<int64_t> data_dims, index_dims, indices;
    int64_t batch_dims;
    std::vector<float> expected;
  };
  const std::vector<Form> forms = {
      {{2, 2}, {2, 2}, {0, 0, 1, 1}, 0, {0, 3}},
      {{2, 2}, {1, 2}, {-1, 0}, 0, {2}},
      {{2, 2}, {2, 1}, {1, 0}, 0, {2, 3, 0, 1}},
      {{2, 2, 2}, {2, 1}, {1, 0}, 1, {2, 3, 4, 5}},
  };
  for (const Form& f : forms) {
    ModelBuilder b(13);
    b.Input("data", f.data_dims).Input("i", f.index_dims, ::onnx::TensorProto::INT64);
    b.Output("y");
    SetInt(b.Node("GatherND", {"data", "i"}, {"y"}), "batch_dims", f.batch_dims);
    std::vector<float> data(f.data_dims.size() == 2 ? 4 : 8);
    for (size_t j = 0; j < data.size(); ++j) data[j] = static_cast<float>(j);
    ExpectBoth(ImportModel(b.model()),
               {{"data", MakeTensor<float>(f.data_dims, data)},
                {"i", MakeTensor<int64_t>(f.index_dims, f.indices)}},
               "y", f.expected);
  }
}

// OneHot: indices [0, -1, 3, 5] at depth 4: -1 wraps to 3, 5 matches nothing. Along the last
// axis each index is a row; along axis 0 each depth is a row (row 3 holds both 3s).
TEST(OnnxImporterTest, OneHotComposed) {
  for (int64_t axis : {-1, 0}) {
    ModelBuilder b(11);
    b.Input("i", {4}, ::onnx::TensorProto::INT64).Input("v", {2}).Output("y");
    b.Initializer("depth", MakeTensor<int64_t>({}, {4}));
    SetInt(b.Node("OneHot", {"i", "depth", "v"}, {"y"}), "axis", axis);
    const ImportResult r = ImportModel(b.model());
    const std::map<std::string, Tensor> feeds = {{"i", MakeTensor<int64_t>({4}, {0, -1, 3, 5})},
                                                 {"v", MakeTensor<float>({2}, {0, 1})}};
    ExpectBoth(r, feeds, "y",
               axis == -1 ? std::vector<float>{1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0}
                          : std::vector<float>{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0});
  }
}

// LRN over channels [1, 2, 3] with bias 1, beta 1: size 3, alpha 3 (alpha / size = 1) sums the
// squares 1 + 4, 1 + 4 + 9, 4 + 9: 1 / 6, 2 / 15, 3 / 14; size 2 (window [c, c + 1]), alpha 2:
// 1 / 6, 2 / 14, 3 / 10.
TEST(OnnxImporterTest, LrnComposed) {
  for (int64_t size : {3, 2}) {
    ModelBuilder b(13);
    b.Input("x", {1, 3, 1, 1}).Output("y");
    auto* lrn = b.Node("LRN", {"x"}, {"y"});
    SetInt(lrn, "size", size);
    SetFloat(lrn, "alpha", static_cast<float>(size));
    SetFloat(lrn, "beta", 1.0f);
    SetFloat(lrn, "bias", 1.0f);
    const ImportResult r = ImportModel(b.model());
    ExpectBoth(r, {{"x", MakeTensor<float>({1, 3, 1, 1}, {1, 2, 3})}}, "y",
               size == 3 ? std::vector<float>{1.0f / 6, 2.0f / 15, 3.0f / 14}
                         : std::vector<float>{1.0f / 6, 2.0f / 14, 3.0f / 10});
  }
}

// Compress: the condition, a constant, picks rows along axis 0 (rows 1 and 2 of [[1, 2], [3, 4],
// [5, 6]]) or, without an axis, flat positions (1 and 4: 2 and 5).
TEST(OnnxImporterTest, CompressIsAGatherOfConstantPositions) {
  for (bool with_axis : {true, false}) {
    ModelBuilder b(11);
    b.Input("x", {3, 2}).Output("y");
    b.Initializer("c", with_axis ? MakeTensor<bool>({3}, {false, true, true})
                                 : MakeTensor<bool>({5}, {false, true, false, false, true}));
    auto* compress = b.Node("Compress", {"x", "c"}, {"y"});
    if (with_axis) SetInt(compress, "axis", 0);
    ExpectBoth(ImportModel(b.model()), {{"x", MakeTensor<float>({3, 2}, {1, 2, 3, 4, 5, 6})}},
               "y", with_axis ? std::vector<float>{3, 4, 5, 6} : std::vector<float>{2, 5});
  }
}

// ReverseSequence, time-major X [4, 2] with x[t][b] = 10 b + t and lengths [3, 1]: batch 0's first
// three steps reversed (2, 1, 0, then 3), batch 1 unchanged.
TEST(OnnxImporterTest, ReverseSequenceIsAGatherOfConstantPositions) {
  ModelBuilder b(10);
  b.Input("x", {4, 2}).Output("y");
  b.Initializer("len", MakeTensor<int64_t>({2}, {3, 1}));
  b.Node("ReverseSequence", {"x", "len"}, {"y"});
  ExpectBoth(ImportModel(b.model()),
             {{"x", MakeTensor<float>({4, 2}, {0, 10, 1, 11, 2, 12, 3, 13})}}, "y",
             {2, 10, 1, 11, 0, 12, 3, 13});
}

}  // namespace
}  // namespace parity::onnx
