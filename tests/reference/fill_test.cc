// Fills and plumbing. Random fills are checked for shape, dtype, range and rough statistics only.
#include <cmath>

#include "tests/reference/test_util.h"

namespace parity::reference::testing {
namespace {

TEST(Fill, ConstantFill) {
  auto f = RunOp(Op("ConstantFill", {}, {"y"}).Ints("shape", {2, 3}).F("value", 1.5), {}, "y");
  EXPECT_EQ(Dims(f), (std::vector<int64_t>{2, 3}));
  EXPECT_VALUES_NEAR(f, std::vector<double>(6, 1.5), 0);
  auto i = RunOp(Op("ConstantFill", {}, {"y"})
                     .Ints("shape", {2})
                     .I("dtype", caffe2::TensorProto::INT32)
                     .I("value", 7),
                 {}, "y");
  EXPECT_EQ(i.data_type(), caffe2::TensorProto::INT32);
  EXPECT_EQ(IntValues(i), (std::vector<int64_t>{7, 7}));
  // Shape from the input's dims plus extra_shape; or from its values with input_as_shape.
  auto e = RunOp(Op("ConstantFill", {"x"}, {"y"}).Ints("extra_shape", {3}), {{"x", F({2}, {0, 0})}},
                 "y");
  EXPECT_EQ(Dims(e), (std::vector<int64_t>{2, 3}));
  auto s = RunOp(Op("ConstantFill", {"x"}, {"y"}).I("input_as_shape", 1), {{"x", I64({2}, {3, 1})}},
                 "y");
  EXPECT_EQ(Dims(s), (std::vector<int64_t>{3, 1}));
  ExpectError(
      [] {
        RunOps({Op("ConstantFill", {"x"}, {"y"}).Ints("shape", {1})}, {{"x", F({1}, {0})}});
      },
      ErrorKind::kBadArgument);
  ExpectError([] { RunOps({Op("ConstantFill", {}, {"y"}).Ints("extra_shape", {1})}, {}); },
              ErrorKind::kBadArgument);
}

TEST(Fill, GivenTensorFills) {
  EXPECT_VALUES_NEAR(
      RunOp(Op("GivenTensorFill", {}, {"y"}).Ints("shape", {2}).Floats("values", {1.5, 2.5}), {},
            "y"),
      (std::vector<double>{1.5, 2.5}), 0);
  EXPECT_VALUES_NEAR(
      RunOp(Op("GivenTensorDoubleFill", {}, {"y"}).Ints("shape", {1}).Floats("values", {0.5}), {},
            "y"),
      (std::vector<double>{0.5}), 0);
  auto i = RunOp(Op("GivenTensorIntFill", {}, {"y"}).Ints("shape", {2}).Ints("values", {-1, 4}), {},
                 "y");
  EXPECT_EQ(i.data_type(), caffe2::TensorProto::INT32);
  EXPECT_EQ(IntValues(i), (std::vector<int64_t>{-1, 4}));
  auto l = RunOp(
      Op("GivenTensorInt64Fill", {}, {"y"}).Ints("shape", {1}).Ints("values", {int64_t{1} << 50}),
      {}, "y");
  EXPECT_EQ(IntValues(l), (std::vector<int64_t>{int64_t{1} << 50}));
  auto b = RunOp(Op("GivenTensorBoolFill", {}, {"y"}).Ints("shape", {2}).Ints("values", {1, 0}), {},
                 "y");
  EXPECT_EQ(b.data_type(), caffe2::TensorProto::BOOL);
  EXPECT_EQ(IntValues(b), (std::vector<int64_t>{1, 0}));
  ExpectError(
      [] {
        RunOps({Op("GivenTensorFill", {}, {"y"}).Ints("shape", {3}).Floats("values", {1})}, {});
      },
      ErrorKind::kShapeMismatch);
}

TEST(Fill, RandomFillsHaveShapeDtypeAndDistribution) {
  auto u =
      RunOp(Op("UniformFill", {}, {"y"}).Ints("shape", {2000}).F("min", -1).F("max", 1), {}, "y");
  EXPECT_EQ(u.data_type(), caffe2::TensorProto::DOUBLE);
  double sum = 0;
  for (double v : Values(u)) {
    EXPECT_GE(v, -1);
    EXPECT_LE(v, 1);
    sum += v;
  }
  EXPECT_LT(std::abs(sum / 2000), 0.1);  // mean 0, sd of the mean ~0.013
  auto g =
      RunOp(Op("GaussianFill", {}, {"y"}).Ints("shape", {4000}).F("mean", 5).F("std", 2), {}, "y");
  double m = 0, sq = 0;
  for (double v : Values(g)) m += v;
  m /= 4000;
  for (double v : Values(g)) sq += (v - m) * (v - m);
  EXPECT_NEAR(m, 5, 0.2);
  EXPECT_NEAR(std::sqrt(sq / 4000), 2, 0.2);
  // Xavier: fan_in = 300, scale = sqrt(3/300) = 0.1.
  auto x = RunOp(Op("XavierFill", {}, {"y"}).Ints("shape", {10, 300}), {}, "y");
  EXPECT_EQ(Dims(x), (std::vector<int64_t>{10, 300}));
  for (double v : Values(x)) EXPECT_LE(std::abs(v), 0.1 + 1e-12);
}

// Range: numpy's arange, descending integer ranges included.
TEST(Fill, Range) {
  EXPECT_EQ(IntValues(RunOp(Op("Range", {"a", "b", "c"}, {"y"}),
                            {{"a", Int({}, {10})}, {"b", Int({}, {6})}, {"c", Int({}, {-3})}},
                            "y")),
            (std::vector<int64_t>{10, 7}));
  EXPECT_EQ(IntValues(RunOp(Op("Range", {"a"}, {"y"}), {{"a", I64({1}, {3})}}, "y")),
            (std::vector<int64_t>{0, 1, 2}));
  EXPECT_VALUES_NEAR(
      RunOp(Op("Range", {"a", "b", "c"}, {"y"}),
            {{"a", F({}, {1})}, {"b", F({}, {5})}, {"c", F({}, {2})}}, "y"),
      (std::vector<double>{1, 3}), 0);
  ExpectError(
      [] {
        RunOps({Op("Range", {"a", "b", "c"}, {"y"})},
               {{"a", Int({}, {1})}, {"b", Int({}, {5})}, {"c", Int({}, {0})}});
      },
      ErrorKind::kBadArgument);
}

}  // namespace
}  // namespace parity::reference::testing
