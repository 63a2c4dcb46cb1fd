// The MulGradient / DivGradient and SoftmaxGradient kernels' bodies (gpu/kernels/grad2_body.h)
// with the geometries the CUDA ops build (gpu/ops/grad2.cc: BroadcastGeometryOf and
// BroadcastReduceGeometryOf), on the host, against the CPU engine.
//   - Binary gradients on exact values (dC and A multiples of 1/8, B a signed power of two: every
//     product, quotient and partial sum exact in float whatever the order), so a wrong stride, a
//     wrong kept / reduced split or a wrong formula shows as a different value; and on general
//     floats bit for bit where the CPU sums in the body's order (no broadcast copies, or the
//     operand varies along the output's innermost run).
//   - SoftmaxGradient: bit for bit against a serial loop (the body's order), and within a few ulp
//     of the CPU (its Eigen dot sums in another order).
#include "gpu/kernels/grad2_body.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "core/ops/elementwise/binary.h"
#include "core/schema.h"
#include "gpu/kernel_geometry.h"
#include "gpu/kernels/host_device.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

using gpu::kernels::BinaryGrad;
using gpu::kernels::RunBodyOnHost;

// Signed powers of two in [0.5, 2]: dividing by them is exact.
Tensor PowerOfTwoTensor(const std::vector<int64_t>& dims, uint32_t seed) {
  static const float kValues[] = {0.5f, 1.0f, 2.0f, -0.5f, -1.0f, -2.0f};
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(0, 5);
  Tensor t(DataType::kFloat, dims);
  for (int64_t i = 0; i < t.numel(); ++i) t.mutable_data<float>()[i] = kValues[dist(rng)];
  return t;
}

// B in [0.5, 2] (away from 0), either sign.
Tensor DivisorTensor(const std::vector<int64_t>& dims, uint32_t seed) {
  Tensor t = RandomTensor(dims, seed, 0.5f, 2.0f);
  for (int64_t i = 0; i < t.numel(); i += 3) t.mutable_data<float>()[i] *= -1.0f;
  return t;
}

struct GradCase {
  std::vector<int64_t> a, b;
  bool legacy = false;
  int64_t axis = -1;       // legacy only
  bool cpu_order = false;  // the CPU sums each operand's copies in the body's order
};

const std::vector<GradCase>& GradCases() {
  static const std::vector<GradCase> cases = {
      {{2, 3}, {2, 3}, false, -1, true},    // no broadcast: assigned
      {{2, 3, 4}, {3, 1}},                  // numpy: B over dims 0 and 2
      {{2, 3, 4}, {4}, false, -1, true},    // numpy: trailing, B varies along the run
      {{3, 1}, {2, 3, 4}},                  // numpy: A broadcasts
      {{2, 1, 4}, {1, 3, 1}},               // numpy: both broadcast
      {{2, 3, 4}, {}},                      // scalar B
      {{2, 3, 4}, {3}, true, 1},            // legacy, axis 1
      {{2, 3, 4}, {3, 4}, true, -1, true},  // legacy, suffix
      {{2, 3, 4}, {2}, true, 0},            // legacy, axis 0
      {{2, 3, 4, 5}, {3, 4}, true, 1},      // legacy, middle dims
      {{0, 3}, {3}},                        // empty output: dB is zeros
  };
  return cases;
}

std::vector<TestArg> GradArgs(const GradCase& c) {
  std::vector<TestArg> args;
  if (c.legacy) {
    args.push_back({"broadcast", 1});
    if (c.axis >= 0) args.push_back({"axis", c.axis});
  }
  return args;
}

struct Operands {
  Tensor dc, a, b, c;  // c: Div's forward output A / B, computed by the CPU's Div
  std::vector<int64_t> out, b_plan;
};

Operands MakeOperands(const char* type, const GradCase& c, bool exact, uint32_t* seed) {
  const caffe2::OperatorDef def = MakeOp(type, {"dc", "a", "b"}, {"da", "db"}, GradArgs(c));
  const BroadcastArgs bargs =
      ReadBroadcastArgs(def, ArgumentHelper(def, OpSchemaRegistry::Find(type)));
  Operands o;
  BinaryDims(bargs, c.a, c.b, type, &o.out, &o.b_plan);
  const bool div = std::string(type) == "DivGradient";
  o.dc = exact ? EighthsTensor(o.out, (*seed)++) : RandomTensor(o.out, (*seed)++, -2.0f, 2.0f);
  o.a = exact ? EighthsTensor(c.a, (*seed)++) : RandomTensor(c.a, (*seed)++, -2.0f, 2.0f);
  if (div) {
    o.b = exact ? PowerOfTwoTensor(c.b, (*seed)++) : DivisorTensor(c.b, (*seed)++);
    auto ws = RunOp(MakeOp("Div", {"a", "b"}, {"c"}, GradArgs(c)), {{"a", o.a}, {"b", o.b}});
    o.c = ws->GetBlob("c")->GetTensor();
  } else {
    o.b = exact ? EighthsTensor(c.b, (*seed)++) : RandomTensor(c.b, (*seed)++, -2.0f, 2.0f);
  }
  return o;
}

// dA or dB as the CUDA op computes it.
std::vector<float> GradOnHost(const std::string& label, BinaryGrad fn, const Operands& o,
                              const std::vector<int64_t>& a_dims,
                              const std::vector<int64_t>& operand_plan, int64_t n,
                              const float* pa) {
  std::vector<float> y(static_cast<size_t>(n), -12345.0f);
  int64_t count = 0;
  const gpu::kernels::ReduceGeometry r =
      gpu::BroadcastReduceGeometryOf(label, o.out, operand_plan, &count);
  const gpu::kernels::BroadcastGeometry g =
      gpu::BroadcastGeometryOf(label, o.out, a_dims, o.b_plan);
  const bool div = fn == BinaryGrad::kDivDA || fn == BinaryGrad::kDivDB;
  const float* pc = div ? o.c.data<float>() : nullptr;
  RunBodyOnHost(n, [&](int64_t i) {
    gpu::kernels::BinaryGradBody(fn, o.dc.data<float>(), pa, o.b.data<float>(), pc, y.data(), count,
                                 r, g, i);
  });
  return y;
}

void ExpectSameBits(const std::vector<float>& want, const std::vector<float>& got,
                    const std::string& what) {
  ASSERT_EQ(want.size(), got.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(std::memcmp(&want[i], &got[i], sizeof(float)), 0)
        << what << " element " << i << ": CPU " << want[i] << ", body " << got[i];
  }
}

// Runs the CPU engine's gradient (4-input Div, or the legacy 3-input Div with `legacy_div`) and
// the bodies; exact or general values.
void CheckAgainstCpu(const char* type, const GradCase& c, bool exact, bool legacy_div,
                     uint32_t* seed) {
  const bool div = std::string(type) == "DivGradient";
  const Operands o = MakeOperands(type, c, exact, seed);
  // The legacy (B, C, dC) form takes A's dims from C: only where A has the output's dims.
  if (legacy_div && o.out != c.a) return;
  caffe2::OperatorDef def;
  std::map<std::string, Tensor> feed = {{"dc", o.dc}, {"b", o.b}};
  if (!div) {
    def = MakeOp(type, {"dc", "a", "b"}, {"da", "db"}, GradArgs(c));
    feed["a"] = o.a;
  } else if (legacy_div) {
    def = MakeOp(type, {"b", "c", "dc"}, {"da", "db"}, GradArgs(c));
    feed["c"] = o.c;
  } else {
    def = MakeOp(type, {"dc", "a", "b", "c"}, {"da", "db"}, GradArgs(c));
    feed["a"] = o.a;
    feed["c"] = o.c;
  }
  auto ws = RunOp(def, feed);
  const Tensor& da = ws->GetBlob("da")->GetTensor();
  const Tensor& db = ws->GetBlob("db")->GetTensor();
  EXPECT_EQ(da.dims(), c.a);
  EXPECT_EQ(db.dims(), c.b);
  const std::string what = std::string(type) + (legacy_div ? " (legacy)" : "") + " A " +
                           ShapeString(c.a) + " B " + ShapeString(c.b) +
                           (c.legacy ? " legacy broadcast" : "") + (exact ? " exact" : " general");
  // Legacy Div: A is absent, its dims are C's (the same as A's here) and the op hands C for A.
  const std::vector<int64_t> a_dims = legacy_div ? o.c.dims() : o.a.dims();
  const float* pa = legacy_div ? o.c.data<float>() : o.a.data<float>();
  const std::vector<float> da_body = GradOnHost(type, div ? BinaryGrad::kDivDA : BinaryGrad::kMulDA,
                                                o, a_dims, a_dims, da.numel(), pa);
  const std::vector<float> db_body = GradOnHost(type, div ? BinaryGrad::kDivDB : BinaryGrad::kMulDB,
                                                o, a_dims, o.b_plan, db.numel(), pa);
  ExpectSameBits(Values<float>(da), da_body, what + " dA");
  ExpectSameBits(Values<float>(db), db_body, what + " dB");
}

TEST(MulDivGradientBody, MatchesTheCpuEngineOnExactValues) {
  uint32_t seed = 1;
  for (const GradCase& c : GradCases()) {
    CheckAgainstCpu("MulGradient", c, true, false, &seed);
    CheckAgainstCpu("DivGradient", c, true, false, &seed);
    CheckAgainstCpu("DivGradient", c, true, true, &seed);
  }
}

TEST(MulDivGradientBody, MatchesTheCpuEngineBitForBitInTheCpuOrder) {
  uint32_t seed = 500;
  for (const GradCase& c : GradCases()) {
    if (!c.cpu_order) continue;
    CheckAgainstCpu("MulGradient", c, false, false, &seed);
    CheckAgainstCpu("DivGradient", c, false, false, &seed);
    CheckAgainstCpu("DivGradient", c, false, true, &seed);
  }
}

// Hand-worked: dC [2, 3] = 1..6, A [2, 3] = 1, B [3] = (1, 2, 4): MulGradient's dA = dC * B
// assigned, dB = column sums of dC * A; DivGradient's dA = dC / B.
TEST(MulDivGradientBody, HandWorked) {
  Operands o;
  o.out = {2, 3};
  o.b_plan = {3};
  o.dc = MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  o.a = MakeTensor<float>({2, 3}, {1, 1, 1, 1, 1, 1});
  o.b = MakeTensor<float>({3}, {1, 2, 4});
  o.c = MakeTensor<float>({2, 3}, {1, 0.5f, 0.25f, 1, 0.5f, 0.25f});  // A / B
  const float* pa = o.a.data<float>();
  EXPECT_EQ(GradOnHost("MulGradient", BinaryGrad::kMulDA, o, {2, 3}, {2, 3}, 6, pa),
            (std::vector<float>{1, 4, 12, 4, 10, 24}));
  EXPECT_EQ(GradOnHost("MulGradient", BinaryGrad::kMulDB, o, {2, 3}, {3}, 3, pa),
            (std::vector<float>{5, 7, 9}));
  EXPECT_EQ(GradOnHost("DivGradient", BinaryGrad::kDivDA, o, {2, 3}, {2, 3}, 6, pa),
            (std::vector<float>{1, 1, 0.75f, 4, 2.5f, 1.5f}));
  // dB = -(dC * C) / B summed over rows: -(1 + 4), -(2 * 0.5 + 5 * 0.5) / 2, ...
  EXPECT_EQ(GradOnHost("DivGradient", BinaryGrad::kDivDB, o, {2, 3}, {3}, 3, pa),
            (std::vector<float>{-5, -1.75f, -0.5625f}));
}

// SoftmaxGradient: Y = Softmax(X) from the CPU engine, dY general floats.
TEST(SoftmaxGradientBody, MatchesASerialLoopAndTheCpuEngine) {
  struct Case {
    std::vector<int64_t> dims;
    int64_t axis;
  };
  uint32_t seed = 900;
  for (const Case& c : {Case{{4, 7}, 1}, Case{{2, 3, 5}, 2}, Case{{2, 3, 5}, 1}, Case{{2, 3, 5}, 0},
                        Case{{3, 40}, -1}, Case{{0, 4}, 1}}) {
    const std::vector<TestArg> args = {{"axis", c.axis}};
    auto fwd = RunOp(MakeOp("Softmax", {"x"}, {"y"}, args),
                     {{"x", RandomTensor(c.dims, seed++, -3.0f, 3.0f)}});
    const Tensor y = fwd->GetBlob("y")->GetTensor();
    const Tensor dy = RandomTensor(c.dims, seed++, -1.0f, 1.0f);
    auto ws = RunOp(MakeOp("SoftmaxGradient", {"y", "dy"}, {"dx"}, args), {{"y", y}, {"dy", dy}});
    const std::vector<float> cpu = Values<float>(ws->GetBlob("dx")->GetTensor());
    const int axis = static_cast<int>(c.axis < 0 ? c.axis + c.dims.size() : c.axis);
    int64_t rows = 1, d = 1;
    for (int k = 0; k < static_cast<int>(c.dims.size()); ++k) (k < axis ? rows : d) *= c.dims[k];
    std::vector<float> body(static_cast<size_t>(y.numel()), -12345.0f);
    RunBodyOnHost(rows, [&](int64_t row) {
      gpu::kernels::SoftmaxGradientRowBody(y.data<float>(), dy.data<float>(), body.data(), d, row);
    });
    const std::string what = ShapeString(c.dims) + " axis " + std::to_string(c.axis);
    ASSERT_EQ(cpu.size(), body.size()) << what;
    for (int64_t r = 0; r < rows; ++r) {
      const float* yr = y.data<float>() + r * d;
      const float* gr = dy.data<float>() + r * d;
      float dot = 0.0f;
      for (int64_t j = 0; j < d; ++j) dot += yr[j] * gr[j];
      for (int64_t j = 0; j < d; ++j) {
        const float naive = yr[j] * (gr[j] - dot);
        const size_t i = static_cast<size_t>(r * d + j);
        EXPECT_EQ(std::memcmp(&naive, &body[i], sizeof(float)), 0) << what << " element " << i;
        EXPECT_NEAR(cpu[i], body[i], 1e-6f + 1e-5f * std::fabs(cpu[i])) << what << " " << i;
      }
    }
  }
}

// dX over dY (the schema's in place): each row reads dY before writing dX.
TEST(SoftmaxGradientBody, InPlaceOverDy) {
  auto fwd = RunOp(MakeOp("Softmax", {"x"}, {"y"}), {{"x", RandomTensor({3, 6}, 7, -2.0f, 2.0f)}});
  const Tensor y = fwd->GetBlob("y")->GetTensor();
  Tensor dy = RandomTensor({3, 6}, 8, -1.0f, 1.0f);
  std::vector<float> aside(18);
  RunBodyOnHost(3, [&](int64_t row) {
    gpu::kernels::SoftmaxGradientRowBody(y.data<float>(), dy.data<float>(), aside.data(), 6, row);
  });
  float* inplace = dy.mutable_data<float>();
  RunBodyOnHost(3, [&](int64_t row) {
    gpu::kernels::SoftmaxGradientRowBody(y.data<float>(), inplace, inplace, 6, row);
  });
  EXPECT_EQ(std::vector<float>(inplace, inplace + 18), aside);
}

}  // namespace
}  // namespace parity::testing
