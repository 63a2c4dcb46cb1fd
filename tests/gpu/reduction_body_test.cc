// The reduction kernels' bodies (gpu/kernels/reduction_body.h) on the host, driven as the CUDA ops
// in gpu/ops/reduction.cc drive them (PlanReduce, PlanReducePasses, ReduceGeometryOf), against the
// CPU engine's ops, bit for bit: the bodies replay the CPU's order (Eigen's redux per row, row
// after row per column, X's row-major order per gradient group), so general floats, NaN and -0.0
// must come out exactly as on the CPU. A wrong alignment head, packet split or fold order changes
// the rounding of a product or which NaN / zero survives, and shows here.
#include "gpu/kernels/reduction_body.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/ops/reduce/reduce.h"
#include "gpu/kernel_geometry.h"
#include "gpu/kernels/host_device.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

namespace k = gpu::kernels;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

struct Case {
  std::vector<int64_t> dims;
  std::vector<int64_t> axes;
  bool keepdims;
};

const std::vector<Case>& Cases() {
  static const std::vector<Case> cases = {
      {{3, 4, 5, 2}, {0, 2}, false},  // alternating kept / reduced: two column passes
      {{3, 4, 5, 2}, {1, 3}, true},   // a column pass, then rows
      {{3, 4, 5}, {}, false},         // everything: one row of 60
      {{3, 4, 5}, {2}, false},        // trailing: rows of 5 at offsets 0, 5, 10, ...
      {{7, 13}, {1}, false},          // rows of 13: every alignment head
      {{5, 23}, {-1}, true},          // rows of 23: two packet accumulators and an odd packet
      {{3, 4, 5}, {0}, true},         // leading: strided columns
      {{6, 1, 7}, {0, 2}, false},     // a size-1 kept axis between: two row passes
      {{2, 3, 2, 3, 2, 3}, {0, 2, 4}, false},
      {{37, 33}, {0, 1}, false},  // 1221 elements in one row
      {{4, 3}, {0, 1}, true},
      {{2, 7}, {1}, false},     // short rows: serial folds
      {{}, {}, false},          // a scalar: a copy
      {{5, 0, 3}, {1}, false},  // empty reduction (ReduceProd only: 1)
  };
  return cases;
}

bool SameBits(float a, float b) {
  return std::memcmp(&a, &b, sizeof(float)) == 0 || (std::isnan(a) && std::isnan(b));
}

void ExpectSameBits(const std::vector<float>& cpu, const std::vector<float>& body,
                    const std::string& what) {
  ASSERT_EQ(cpu.size(), body.size()) << what;
  for (size_t i = 0; i < cpu.size(); ++i) {
    EXPECT_TRUE(SameBits(cpu[i], body[i]))
        << what << " element " << i << ": CPU " << cpu[i] << ", body " << body[i];
  }
}

k::Reducer ReducerOf(const std::string& type) {
  if (type == "ReduceMax") return k::Reducer::kMax;
  if (type == "ReduceMin") return k::Reducer::kMin;
  return k::Reducer::kProd;
}

// The CUDA op's passes on the host: each into a fresh buffer (the CPU's scratch vectors), the last
// into y.
std::vector<float> RunPasses(k::Reducer op, const Tensor& x, const std::vector<int64_t>& axes,
                             bool keepdims) {
  const reduce_util::ReducePlan plan = reduce_util::PlanReduce(x.dims(), axes, keepdims, "test");
  std::vector<float> src(x.data<float>(), x.data<float>() + x.numel());
  const std::vector<k::ReducePass> passes = k::PlanReducePasses(x.dims(), plan.reduced);
  for (const k::ReducePass& pass : passes) {
    std::vector<float> dst(static_cast<size_t>(pass.outer * pass.inner), -12345.0f);
    k::RunBodyOnHost(pass.outer * pass.inner, [&](int64_t i) {
      k::ReducePassBody(op, src.data(), dst.data(), pass.r, pass.inner, i);
    });
    src = dst;
  }
  return src;
}

std::vector<float> RunCpu(const std::string& type, const Case& c, const Tensor& x) {
  auto ws =
      RunOp(MakeOp(type, {"x"}, {"y"}, {{"axes", Ints(c.axes)}, {"keepdims", c.keepdims ? 1 : 0}}),
            {{"x", x}});
  return Values<float>(ws->GetBlob("y")->GetTensor());
}

// x with NaN, +-0.0 and +-Inf sprinkled over it (about one element in `every`).
Tensor WithSpecials(Tensor x, uint32_t seed, int every) {
  std::mt19937 gen(seed);
  const float specials[] = {kNaN, 0.0f, -0.0f, INFINITY, -INFINITY, -kNaN};
  float* data = x.mutable_data<float>();
  for (int64_t i = 0; i < x.numel(); ++i) {
    if (gen() % every == 0) data[i] = specials[gen() % 6];
  }
  return x;
}

TEST(ReductionBody, MaxMinProdMatchTheCpuEngineBitForBit) {
  uint32_t seed = 1;
  for (const char* type : {"ReduceMax", "ReduceMin", "ReduceProd"}) {
    for (const Case& c : Cases()) {
      if (std::string(type) != "ReduceProd" && c.dims.size() == 3 && c.dims[1] == 0) continue;
      // General floats in [0.5, 2): products round, and only the CPU's order gives its bits.
      for (int variant = 0; variant < 4; ++variant) {
        ++seed;
        Tensor x = RandomTensor(c.dims, seed, 0.5f, 2.0f);
        if (variant == 1) x = RandomTensor(c.dims, seed, -2.0f, 2.0f);
        if (variant == 2) x = WithSpecials(RandomTensor(c.dims, seed), seed, 5);
        if (variant == 3) x = WithSpecials(EighthsTensor(c.dims, seed), seed, 2);
        ExpectSameBits(RunCpu(type, c, x), RunPasses(ReducerOf(type), x, c.axes, c.keepdims),
                       std::string(type) + " " + ShapeString(c.dims) + " axes " +
                           ShapeString(c.axes) + " variant " + std::to_string(variant));
      }
    }
  }
}

// One NaN at every position of rows of every length up to 40, each row at every alignment: the
// CPU's max and min propagate it wherever it is (Eigen's PropagateNaN), and so must the body.
TEST(ReductionBody, NanAtEveryPositionMatchesTheCpuEngine) {
  for (int64_t len = 1; len <= 40; ++len) {
    for (int64_t at = 0; at < len; ++at) {
      const Case c{{3, len}, {1}, false};
      Tensor x = RandomTensor(c.dims, static_cast<uint32_t>(len * 100 + at));
      for (int64_t row = 0; row < 3; ++row) x.mutable_data<float>()[row * len + at] = kNaN;
      for (const char* type : {"ReduceMax", "ReduceMin", "ReduceProd"}) {
        const std::string what =
            std::string(type) + " length " + std::to_string(len) + " NaN at " + std::to_string(at);
        const std::vector<float> cpu = RunCpu(type, c, x);
        for (float v : cpu) EXPECT_TRUE(std::isnan(v)) << what;
        ExpectSameBits(cpu, RunPasses(ReducerOf(type), x, c.axes, c.keepdims), what);
      }
    }
  }
}

TEST(ReductionBody, HandWorkedEigenReduxOrder) {
  // 10 elements from an aligned start: packets [0..3] and [4..7] start the two accumulators,
  // combine lane by lane, fold as ((l0 . l2) . (l1 . l3)), then the tail 8, 9.
  const float x[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  EXPECT_EQ(k::EigenRedux(k::Reducer::kSum, x, 10, 0), 55.0f);
  EXPECT_EQ(k::EigenRedux(k::Reducer::kMax, x, 10, 0), 10.0f);
  EXPECT_EQ(k::EigenRedux(k::Reducer::kMin, x + 1, 9, 3), 2.0f);
  EXPECT_EQ(k::FirstAligned(0, 10), 0);
  EXPECT_EQ(k::FirstAligned(5, 10), 3);
  EXPECT_EQ(k::FirstAligned(6, 1), 1);
  // A NaN comes out wherever it is: starting an accumulator or folded into a number.
  const float first_nan[] = {kNaN, 1, 2, 3};
  EXPECT_TRUE(std::isnan(k::EigenRedux(k::Reducer::kMax, first_nan, 4, 0)));
  const float later_nan[] = {1, 2, 3, kNaN, 4};
  EXPECT_TRUE(std::isnan(k::EigenRedux(k::Reducer::kMax, later_nan, 5, 5)));
  EXPECT_TRUE(std::isnan(k::EigenRedux(k::Reducer::kMin, later_nan, 5, 5)));
  // Passes: [6, 1, 7] over axes 0 and 2 reduces the 7s first, then the 6 leftovers.
  const std::vector<k::ReducePass> passes = k::PlanReducePasses({6, 1, 7}, {true, false, true});
  ASSERT_EQ(passes.size(), 2u);
  EXPECT_EQ(passes[0].outer, 6);
  EXPECT_EQ(passes[0].r, 7);
  EXPECT_EQ(passes[0].inner, 1);
  EXPECT_EQ(passes[1].outer, 1);
  EXPECT_EQ(passes[1].r, 6);
  EXPECT_EQ(passes[1].inner, 1);
}

// ---------------------------------------------------------------------------------------------
// Gradients: (dY, X, Y) -> dX, Y from the CPU's forward op.

std::vector<float> RunGradientBody(const std::string& type, const Case& c, const Tensor& dy,
                                   const Tensor& x, const Tensor& y) {
  const reduce_util::ReducePlan plan = reduce_util::PlanReduce(x.dims(), c.axes, c.keepdims, type);
  const k::ReduceGeometry g = gpu::ReduceGeometryOf(type, x.dims(), plan.reduced);
  const int64_t out_numel = dy.numel();
  std::vector<float> dx(static_cast<size_t>(x.numel()), -12345.0f);
  const float* pdy = dy.data<float>();
  const float* px = x.data<float>();
  if (type == "ReduceSumGradient" || type == "ReduceMeanGradient") {
    const float scale = type == "ReduceMeanGradient" ? 1.0f / static_cast<float>(plan.count) : 1.0f;
    k::RunBodyOnHost(out_numel * plan.count, [&](int64_t i) {
      k::ReduceBroadcastGradientBody(pdy, dx.data(), plan.count, scale, g, i);
    });
  } else if (type == "ReduceProdGradient") {
    k::RunBodyOnHost(out_numel, [&](int64_t o) {
      k::ReduceProdGradientBody(pdy, px, dx.data(), plan.count, g, o);
    });
  } else {
    k::RunBodyOnHost(out_numel, [&](int64_t o) {
      k::ReduceSelectGradientBody(pdy, px, y.data<float>(), dx.data(), plan.count, g, o);
    });
  }
  return dx;
}

void CheckGradient(const std::string& type, const Case& c, const Tensor& x, uint32_t seed) {
  const std::string forward = type.substr(0, type.size() - std::string("Gradient").size());
  const std::vector<TestArg> args = {{"axes", Ints(c.axes)}, {"keepdims", c.keepdims ? 1 : 0}};
  auto fwd = RunOp(MakeOp(forward, {"x"}, {"y"}, args), {{"x", x}});
  const Tensor y = fwd->GetBlob("y")->GetTensor();
  const Tensor dy = RandomTensor(y.dims(), seed, -2.0f, 2.0f);
  auto ws = RunOp(MakeOp(type, {"dy", "x", "y"}, {"dx"}, args), {{"dy", dy}, {"x", x}, {"y", y}});
  ExpectSameBits(Values<float>(ws->GetBlob("dx")->GetTensor()), RunGradientBody(type, c, dy, x, y),
                 type + " " + ShapeString(c.dims) + " axes " + ShapeString(c.axes));
}

TEST(ReductionBody, GradientsMatchTheCpuEngineBitForBit) {
  uint32_t seed = 500;
  for (const char* type : {"ReduceSumGradient", "ReduceMeanGradient", "ReduceMaxGradient",
                           "ReduceMinGradient", "ReduceProdGradient"}) {
    for (const Case& c : Cases()) {
      const bool empty = c.dims.size() == 3 && c.dims[1] == 0;
      if (empty &&
          (std::string(type) == "ReduceMaxGradient" || std::string(type) == "ReduceMinGradient")) {
        continue;  // no forward max / min over an empty axis
      }
      ++seed;
      CheckGradient(type, c, RandomTensor(c.dims, seed, 0.5f, 2.0f), seed);
      // Few distinct values: ties for max / min, zeros (one, several) for the product.
      Tensor ties = EighthsTensor(c.dims, seed);
      float* t = ties.mutable_data<float>();
      for (int64_t i = 0; i < ties.numel(); ++i) t[i] = std::round(t[i] / 2.0f);
      CheckGradient(type, c, ties, seed);
      CheckGradient(type, c, WithSpecials(RandomTensor(c.dims, seed), seed, 4), seed);
    }
  }
}

TEST(ReductionBody, HandWorkedSelectAndProdGradients) {
  // [2, 3] over axis 1: row 0's max 5 is tied at 1 and 2 (the first takes dY), row 1's is NaN
  // (equal to nothing: all 0).
  const k::ReduceGeometry g = gpu::ReduceGeometryOf("t", {2, 3}, {false, true});
  const float x[] = {1, 5, 5, 2, kNaN, 3};
  const float y[] = {5, kNaN};
  const float dy[] = {10, 20};
  float dx[6];
  k::RunBodyOnHost(2, [&](int64_t o) { k::ReduceSelectGradientBody(dy, x, y, dx, 3, g, o); });
  EXPECT_EQ(std::vector<float>(dx, dx + 6), (std::vector<float>{0, 10, 0, 0, 0, 0}));
  // Products: row 0 has no zero (dY * 6 / x), row 1 one zero (dY * 6 there, 0 elsewhere).
  const float xp[] = {1, 2, 3, 2, 0, 3};
  k::RunBodyOnHost(2, [&](int64_t o) { k::ReduceProdGradientBody(dy, xp, dx, 3, g, o); });
  EXPECT_EQ(std::vector<float>(dx, dx + 6), (std::vector<float>{60, 30, 20, 0, 120, 0}));
}

// ---------------------------------------------------------------------------------------------
// SumElements, AveragedLoss and their gradients.

TEST(ReductionBody, SumElementsAndAveragedLossMatchTheCpuEngineBitForBit) {
  std::vector<std::vector<int64_t>> shapes = {{0}, {2, 0}, {},     {1},
                                              {3}, {4, 5}, {1000}, {3, 7, 11}};
  for (int64_t n = 1; n <= 40; ++n) shapes.push_back({n});
  uint32_t seed = 900;
  for (const auto& dims : shapes) {
    for (int variant = 0; variant < 2; ++variant) {
      Tensor x = RandomTensor(dims, seed++, -1.0f, 1.0f);
      if (variant == 1) x = WithSpecials(x, seed, 7);
      const int64_t n = x.numel();
      for (int average = 0; average < 2; ++average) {
        auto ws = RunOp(MakeOp("SumElements", {"x"}, {"y"}, {{"average", average}}), {{"x", x}});
        float body = -1.0f;
        k::SumAllBody(x.data<float>(), &body, n, average == 1);
        ExpectSameBits(Values<float>(ws->GetBlob("y")->GetTensor()), {body},
                       "SumElements " + ShapeString(dims) + " average " + std::to_string(average));
      }
      auto ws = RunOp(MakeOp("AveragedLoss", {"x"}, {"y"}), {{"x", x}});
      float body = -1.0f;
      k::SumAllBody(x.data<float>(), &body, n, true);
      ExpectSameBits(Values<float>(ws->GetBlob("y")->GetTensor()), {body},
                     "AveragedLoss " + ShapeString(dims));
    }
  }
}

TEST(ReductionBody, ScalarGradientsMatchTheCpuEngineBitForBit) {
  for (const auto& dims : std::vector<std::vector<int64_t>>{{3, 7}, {}, {0, 2}, {6}}) {
    for (float g : {1.0f, -0.3f, 7.0f / 3.0f, kNaN, -0.0f}) {
      const Tensor x = RandomTensor(dims, 3);
      const Tensor dy = MakeTensor<float>({}, {g});
      const float divisor = static_cast<float>(x.numel());
      for (int average = 0; average < 2; ++average) {
        auto ws = RunOp(MakeOp("SumElementsGradient", {"x", "dy"}, {"dx"}, {{"average", average}}),
                        {{"x", x}, {"dy", dy}});
        std::vector<float> body(static_cast<size_t>(x.numel()));
        k::RunBodyOnHost(x.numel(), [&](int64_t i) {
          k::ScalarGradientBody(dy.data<float>(), body.data(), divisor, average == 1, i);
        });
        ExpectSameBits(Values<float>(ws->GetBlob("dx")->GetTensor()), body,
                       "SumElementsGradient " + ShapeString(dims));
      }
      auto ws = RunOp(MakeOp("AveragedLossGradient", {"x", "dy"}, {"dx"}), {{"x", x}, {"dy", dy}});
      std::vector<float> body(static_cast<size_t>(x.numel()));
      k::RunBodyOnHost(x.numel(), [&](int64_t i) {
        k::ScalarGradientBody(dy.data<float>(), body.data(), divisor, true, i);
      });
      ExpectSameBits(Values<float>(ws->GetBlob("dx")->GetTensor()), body,
                     "AveragedLossGradient " + ShapeString(dims));
    }
  }
}

}  // namespace
}  // namespace parity::testing
