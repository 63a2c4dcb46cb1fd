// Range (Caffe2's input forms, numpy's length) against hand-worked sequences.
#include "core/schema.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

template <typename T>
std::vector<T> Range(const std::vector<T>& inputs) {
  std::map<std::string, Tensor> feed;
  std::vector<std::string> names;
  for (size_t i = 0; i < inputs.size(); ++i) {
    names.push_back("i" + std::to_string(i));
    feed[names.back()] = MakeTensor<T>({}, {inputs[i]});
  }
  auto ws = RunOp(MakeOp("Range", names, {"y"}), feed);
  EXPECT_EQ(ws->GetTensor("y").ndim(), 1);
  return Values<T>(ws->GetTensor("y"));
}

TEST(Range, PythonsForms) {
  EXPECT_EQ(Range<int32_t>({4}), (std::vector<int32_t>{0, 1, 2, 3}));
  EXPECT_EQ(Range<int64_t>({2, 5}), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(Range<int64_t>({1, 8, 3}), (std::vector<int64_t>{1, 4, 7}));
  // Descending: ceil(-4 / -3) = 2 elements (Caffe2's formula gave 1).
  EXPECT_EQ(Range<int32_t>({10, 6, -3}), (std::vector<int32_t>{10, 7}));
  // Empty when the step points away from stop.
  EXPECT_EQ(Range<int64_t>({5, 1, 1}), (std::vector<int64_t>{}));
  EXPECT_EQ(Range<float>({1, 5, 2}), (std::vector<float>{1, 3}));
  EXPECT_EQ(Range<double>({0, 1, 0.25}), (std::vector<double>{0, 0.25, 0.5, 0.75}));
}

TEST(Range, Errors) {
  ExpectError([] { Range<int32_t>({0, 4, 0}); }, ErrorKind::kBadArgument, {"Range", "step"});
  ExpectError(
      [] {
        RunOp(MakeOp("Range", {"a", "b"}, {"y"}),
              {{"a", MakeTensor<int32_t>({}, {0})}, {"b", MakeTensor<int64_t>({}, {3})}});
      },
      ErrorKind::kShapeMismatch, {"Range", "'b'", "one dtype"});
  ExpectError(
      [] {
        RunOp(MakeOp("Range", {"a"}, {"y"}), {{"a", MakeTensor<int32_t>({2}, {1, 2})}});
      },
      ErrorKind::kShapeMismatch, {"Range", "'a'", "one element"});
}

}  // namespace
}  // namespace parity::testing
