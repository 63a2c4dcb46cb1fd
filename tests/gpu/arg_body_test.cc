// The ArgMax / ArgMin, CumSum and Hardmax kernels' bodies (gpu/kernels/arg_body.h) on the host,
// over the views the CUDA ops in gpu/ops/arg.cc hand them, against the CPU engine's ops: the same
// indices (ties first or last, NaN only at the start of a run), the same one-hot rows (the first
// NaN or maximum) and the same running sums bit for bit (the same order: -0.0 and NaN included).
#include "gpu/kernels/arg_body.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/ops/common/shape_util.h"
#include "gpu/kernels/host_device.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

namespace k = gpu::kernels;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// Few distinct values (ties), with NaN, +-0 and +-Inf now and then.
Tensor Ties(const std::vector<int64_t>& dims, uint32_t seed, bool specials) {
  std::mt19937 gen(seed);
  const float pool[] = {kNaN, 0.0f, -0.0f, INFINITY, -INFINITY};
  Tensor t(DataType::kFloat, dims);
  float* data = t.mutable_data<float>();
  for (int64_t i = 0; i < t.numel(); ++i) {
    data[i] =
        specials && gen() % 4 == 0 ? pool[gen() % 5] : static_cast<float>(gen() % 4) * 0.75f - 1.0f;
  }
  return t;
}

bool SameBits(float a, float b) {
  return std::memcmp(&a, &b, sizeof(float)) == 0 || (std::isnan(a) && std::isnan(b));
}

struct View {
  int64_t outer, n, inner;
};

View ViewAt(const std::vector<int64_t>& dims, int64_t axis) {
  const int a =
      shape_util::CanonicalAxis(axis, static_cast<int>(dims.size()), "test", "axis", dims);
  return {shape_util::SizeToDim(dims, a), dims[a], shape_util::SizeFromDim(dims, a + 1)};
}

const std::vector<std::pair<std::vector<int64_t>, int64_t>> kAxisCases = {
    {{4, 7}, -1}, {{4, 7}, 0},    {{2, 3, 5}, 1}, {{2, 3, 5}, 2},
    {{9}, 0},     {{3, 1, 4}, 1}, {{2, 0, 3}, 0}, {{1, 6, 2}, -2},
};

TEST(ArgBody, ArgMaxArgMinMatchTheCpuEngine) {
  uint32_t seed = 1;
  for (const auto& [dims, axis] : kAxisCases) {
    for (int variant = 0; variant < 3; ++variant) {
      ++seed;
      const Tensor x = variant == 0 ? RandomTensor(dims, seed) : Ties(dims, seed, variant == 2);
      const View v = ViewAt(dims, axis);
      for (const char* type : {"ArgMax", "ArgMin"}) {
        for (int last = 0; last < 2; ++last) {
          for (int keepdims = 0; keepdims < 2; ++keepdims) {
            auto ws =
                RunOp(MakeOp(type, {"x"}, {"y"},
                             {{"axis", axis}, {"keepdims", keepdims}, {"select_last_index", last}}),
                      {{"x", x}});
            const Tensor& expected = ws->GetBlob("y")->GetTensor();
            ASSERT_EQ(expected.dtype(), DataType::kInt64);
            ASSERT_EQ(expected.numel(), v.outer * v.inner);
            std::vector<int64_t> y(static_cast<size_t>(expected.numel()), -7);
            k::RunBodyOnHost(v.outer * v.inner, [&](int64_t j) {
              k::ArgBody(std::string(type) == "ArgMax", last == 1, x.data<float>(), y.data(), v.n,
                         v.inner, j);
            });
            EXPECT_EQ(Values<int64_t>(expected), y)
                << type << " " << ShapeString(dims) << " axis " << axis << " last " << last
                << " variant " << variant;
          }
        }
      }
    }
  }
}

TEST(ArgBody, HandWorkedTiesAndNaN) {
  const float x[] = {1, 3, 3, 2, kNaN, 5, 1, 5};
  int64_t y[2];
  k::RunBodyOnHost(2, [&](int64_t j) { k::ArgBody(true, false, x, y, 4, 1, j); });
  EXPECT_EQ(y[0], 1);  // the first of the tied 3s
  EXPECT_EQ(y[1], 0);  // NaN first: it stays (every comparison with it is false)
  k::RunBodyOnHost(2, [&](int64_t j) { k::ArgBody(true, true, x, y, 4, 1, j); });
  EXPECT_EQ(y[0], 2);
  const float later_nan[] = {1, kNaN, 0};
  k::ArgBody(false, false, later_nan, y, 3, 1, 0);
  EXPECT_EQ(y[0], 2);  // a NaN after the start is never selected
}

TEST(ArgBody, CumSumMatchesTheCpuEngineBitForBit) {
  uint32_t seed = 100;
  for (const auto& [dims, axis] : kAxisCases) {
    for (int variant = 0; variant < 2; ++variant) {
      ++seed;
      const Tensor x = variant == 0 ? RandomTensor(dims, seed) : Ties(dims, seed, true);
      const View v = ViewAt(dims, axis);
      for (int exclusive = 0; exclusive < 2; ++exclusive) {
        for (int reverse = 0; reverse < 2; ++reverse) {
          const std::vector<TestArg> args = {
              {"axis", axis}, {"exclusive", exclusive}, {"reverse", reverse}};
          auto ws = RunOp(MakeOp("CumSum", {"x"}, {"y"}, args), {{"x", x}});
          const std::vector<float> cpu = Values<float>(ws->GetBlob("y")->GetTensor());
          // In place, as the op may run: y starts as a copy of x.
          std::vector<float> y(x.data<float>(), x.data<float>() + x.numel());
          k::RunBodyOnHost(v.outer * v.inner, [&](int64_t j) {
            k::CumSumBody(y.data(), y.data(), v.n, v.inner, exclusive == 1, reverse == 1, j);
          });
          ASSERT_EQ(cpu.size(), y.size());
          for (size_t i = 0; i < y.size(); ++i) {
            EXPECT_TRUE(SameBits(cpu[i], y[i]))
                << "CumSum " << ShapeString(dims) << " axis " << axis << " exclusive " << exclusive
                << " reverse " << reverse << " element " << i << ": CPU " << cpu[i] << ", body "
                << y[i];
          }
        }
      }
    }
  }
}

TEST(ArgBody, HardmaxMatchesTheCpuEngine) {
  uint32_t seed = 200;
  for (const auto& [dims, axis] : kAxisCases) {
    for (int variant = 0; variant < 3; ++variant) {
      ++seed;
      const Tensor x = variant == 0 ? RandomTensor(dims, seed) : Ties(dims, seed, variant == 2);
      const int a =
          shape_util::CanonicalAxis(axis, static_cast<int>(dims.size()), "t", "axis", dims);
      const int64_t rows = shape_util::SizeToDim(dims, a);
      const int64_t cols = shape_util::SizeFromDim(dims, a);
      auto ws = RunOp(MakeOp("Hardmax", {"x"}, {"y"}, {{"axis", axis}}), {{"x", x}});
      if (x.numel() == 0) {
        // The CPU kernel never touches an empty output's data, so it comes back without a dtype;
        // the CUDA op's is float. Only the dims are compared.
        EXPECT_EQ(ws->GetBlob("y")->GetTensor().dims(), dims);
        continue;
      }
      std::vector<float> y(x.data<float>(), x.data<float>() + x.numel());  // in place
      if (cols > 0) {
        k::RunBodyOnHost(rows,
                         [&](int64_t row) { k::HardmaxRowBody(y.data(), y.data(), cols, row); });
      }
      EXPECT_EQ(Values<float>(ws->GetBlob("y")->GetTensor()), y)
          << "Hardmax " << ShapeString(dims) << " axis " << axis << " variant " << variant;
    }
  }
}

}  // namespace
}  // namespace parity::testing
