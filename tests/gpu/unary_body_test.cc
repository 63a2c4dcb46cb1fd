// The unary-family kernels' bodies (gpu/kernels/unary_body.h) on the host, against the CPU engine
// (core/ops/unary/unary.cc, unary_grad.cc; Pow and PowGradient in core/ops/elementwise/), over
// general values and the special ones (signed zeros, NaN, infinities, denormals, halves, the edges
// of each domain).
//   - Bit for bit (NaN by position) where the CPU evaluates the same expression per element: the
//     exact formulas (Sign, Round, Scale, Clip, LeakyRelu, Abs / Clip / LeakyRelu / Elu /
//     Reciprocal / Softsign gradients) and those calling the C library's float functions per
//     element, which the body calls on the host too (Tan ... Erf and their gradients, Pow). CUDA's
//     own functions differ from those by a few ulp; the device oracle judges that on a GPU.
//   - Within a few ulp where the CPU uses Eigen's vectorized functions instead (Elu's expm1,
//     SinGradient's cos, CosGradient's sin, PowGradient's ln).
//   - Pow with an exponent input and PowGradient (dY, X, E, Y) over numpy and legacy broadcasts,
//     with the geometries the CUDA op builds; dX on exact values (every sum exact in any order)
//     and bit for bit in the CPU's order.
#include "gpu/kernels/unary_body.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "core/ops/elementwise/binary.h"
#include "core/schema.h"
#include "gpu/kernel_geometry.h"
#include "gpu/kernels/host_device.h"
#include "tests/test_util.h"

namespace parity::testing {
namespace {

using gpu::kernels::PowGrad;
using gpu::kernels::RunBodyOnHost;
using gpu::kernels::UnaryArgs;
using gpu::kernels::UnaryGrad;
using gpu::kernels::UnaryMath;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// The special values, then `general` uniform values in [lo, hi). With `general` a multiple of 4 the
// length is too, so the CPU's Eigen kernels take their vector path for every element (their scalar
// tail breaks max / min ties between signed zeros the other way, unary_body.h).
Tensor TestValues(int64_t general, uint32_t seed, float lo, float hi) {
  std::vector<float> v = {0.0f,    -0.0f,   kNaN,    kInf,       -kInf,     0.5f,    -0.5f,
                          1.5f,    2.5f,    -2.5f,   3.5f,       1.0f,      -1.0f,   2.0f,
                          -2.0f,   0.99f,   -0.99f,  1.01f,      -1.01f,    1e-40f,  -1e-40f,
                          1e-20f,  -1e-20f, 1e-3f,   -1e-3f,     7.25f,     -7.75f,  30.0f,
                          -30.0f,  100.0f,  -100.0f, 1e30f,      -1e30f,    FLT_MAX, -FLT_MAX,
                          FLT_MIN, 0.125f,  -0.375f, 1.5707964f, 3.1415927f};
  EXPECT_EQ(v.size() % 4, 0u);
  const Tensor r = RandomTensor({general}, seed, lo, hi);
  for (int64_t i = 0; i < general; ++i) v.push_back(r.data<float>()[i]);
  return MakeTensor<float>({static_cast<int64_t>(v.size())}, v);
}

// The distance in ulps between two floats of one sign convention (-0 and +0 are 0 apart); NaN
// against NaN is 0, NaN against a number the largest distance.
int64_t UlpDistance(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) {
    return std::isnan(a) && std::isnan(b) ? 0 : std::numeric_limits<int64_t>::max();
  }
  auto ordered = [](float f) {
    int32_t bits;
    std::memcpy(&bits, &f, sizeof(bits));
    return bits < 0 ? -static_cast<int64_t>(bits & 0x7fffffff) : static_cast<int64_t>(bits);
  };
  const int64_t d = ordered(a) - ordered(b);
  return d < 0 ? -d : d;
}

// Bit for bit (max_ulps 0; NaN only by position) or within max_ulps.
void ExpectMatches(const std::vector<float>& cpu, const std::vector<float>& body,
                   const std::vector<float>& in, int64_t max_ulps, const std::string& what) {
  ASSERT_EQ(cpu.size(), body.size()) << what;
  for (size_t i = 0; i < cpu.size(); ++i) {
    const std::string where = what + " element " + std::to_string(i) + " (input " +
                              std::to_string(in[i % in.size()]) + "): CPU " +
                              std::to_string(cpu[i]) + ", body " + std::to_string(body[i]);
    if (std::isnan(cpu[i]) || std::isnan(body[i])) {
      EXPECT_TRUE(std::isnan(cpu[i]) && std::isnan(body[i])) << where;
    } else if (max_ulps == 0) {
      EXPECT_EQ(std::memcmp(&cpu[i], &body[i], sizeof(float)), 0) << where;
    } else {
      EXPECT_LE(UlpDistance(cpu[i], body[i]), max_ulps) << where;
    }
  }
}

std::vector<float> RunCpu(const caffe2::OperatorDef& def, const std::map<std::string, Tensor>& in,
                          const std::string& out) {
  auto ws = RunOp(def, in);
  return Values<float>(ws->GetBlob(out)->GetTensor());
}

struct MathCase {
  const char* type;
  UnaryMath fn;
  std::vector<TestArg> args;
  UnaryArgs body_args;
  int64_t max_ulps;
};

std::vector<float> MathOnHost(UnaryMath fn, UnaryArgs args, const Tensor& x) {
  std::vector<float> y(static_cast<size_t>(x.numel()), -12345.0f);
  RunBodyOnHost(x.numel(), [&](int64_t i) {
    gpu::kernels::UnaryMathBody(fn, args, x.data<float>(), y.data(), i);
  });
  return y;
}

TEST(UnaryMathBody, MatchesTheCpuEngine) {
  const float lowest = std::numeric_limits<float>::lowest();
  const float largest = std::numeric_limits<float>::max();
  const std::vector<MathCase> cases = {
      {"Tan", UnaryMath::kTan, {}, {}, 0},
      {"Asin", UnaryMath::kAsin, {}, {}, 0},
      {"Acos", UnaryMath::kAcos, {}, {}, 0},
      {"Atan", UnaryMath::kAtan, {}, {}, 0},
      {"Sinh", UnaryMath::kSinh, {}, {}, 0},
      {"Cosh", UnaryMath::kCosh, {}, {}, 0},
      {"Asinh", UnaryMath::kAsinh, {}, {}, 0},
      {"Atanh", UnaryMath::kAtanh, {}, {}, 0},
      {"Erf", UnaryMath::kErf, {}, {}, 0},
      {"Round", UnaryMath::kRound, {}, {}, 0},
      {"Sign", UnaryMath::kSign, {}, {}, 0},
      // Eigen's vectorized expm1 on the CPU (its tail: std::expm1), expm1f in the body.
      {"Elu", UnaryMath::kElu, {}, {1.0f, 0.0f}, 4},
      {"Elu", UnaryMath::kElu, {{"alpha", 0.3f}}, {0.3f, 0.0f}, 4},
      {"Elu", UnaryMath::kElu, {{"alpha", -2.0f}}, {-2.0f, 0.0f}, 4},
      {"LeakyRelu", UnaryMath::kLeakyRelu, {}, {0.01f, 0.0f}, 0},
      {"LeakyRelu", UnaryMath::kLeakyRelu, {{"alpha", 0.3f}}, {0.3f, 0.0f}, 0},
      {"LeakyRelu", UnaryMath::kLeakyRelu, {{"alpha", -2.0f}}, {-2.0f, 0.0f}, 0},
      {"LeakyRelu", UnaryMath::kLeakyRelu, {{"alpha", 0.0f}}, {0.0f, 0.0f}, 0},
      {"Scale", UnaryMath::kScale, {}, {1.0f, 0.0f}, 0},
      {"Scale", UnaryMath::kScale, {{"scale", 0.1f}}, {0.1f, 0.0f}, 0},
      {"Scale", UnaryMath::kScale, {{"scale", -3.0f}}, {-3.0f, 0.0f}, 0},
      {"Scale", UnaryMath::kScale, {{"scale", 0.0f}}, {0.0f, 0.0f}, 0},
      {"Clip", UnaryMath::kClip, {{"min", -1.0f}, {"max", 2.5f}}, {-1.0f, 2.5f}, 0},
      {"Clip", UnaryMath::kClip, {{"min", 0.1f}}, {0.1f, largest}, 0},
      {"Clip", UnaryMath::kClip, {{"max", -0.0f}}, {lowest, -0.0f}, 0},
      {"Clip", UnaryMath::kClip, {{"min", 0.0f}, {"max", 0.0f}}, {0.0f, 0.0f}, 0},
      {"Clip", UnaryMath::kClip, {}, {lowest, largest}, 0},
      {"Pow", UnaryMath::kPow, {{"exponent", 2.0f}}, {2.0f, 0.0f}, 0},
      {"Pow", UnaryMath::kPow, {{"exponent", 3.0f}}, {3.0f, 0.0f}, 0},
      {"Pow", UnaryMath::kPow, {{"exponent", 0.5f}}, {0.5f, 0.0f}, 0},
      {"Pow", UnaryMath::kPow, {{"exponent", -1.5f}}, {-1.5f, 0.0f}, 0},
      {"Pow", UnaryMath::kPow, {{"exponent", 0.0f}}, {0.0f, 0.0f}, 0},
      {"Pow", UnaryMath::kPow, {{"exponent", -1.0f}}, {-1.0f, 0.0f}, 0},
  };
  uint32_t seed = 1;
  for (const MathCase& c : cases) {
    const Tensor x = TestValues(300, seed++, -4.0f, 4.0f);
    const std::vector<float> cpu = RunCpu(MakeOp(c.type, {"x"}, {"y"}, c.args), {{"x", x}}, "y");
    const std::vector<float> body = MathOnHost(c.fn, c.body_args, x);
    std::string what = c.type;
    for (const TestArg& a : c.args) what += " " + a.arg.name() + "=" + std::to_string(a.arg.f());
    ExpectMatches(cpu, body, Values<float>(x), c.max_ulps, what);
  }
}

// Hand-worked values of the exact functions.
TEST(UnaryMathBody, HandWorked) {
  const Tensor x = MakeTensor<float>({8}, {-2.5f, -1.5f, -0.5f, -0.0f, 0.0f, 0.5f, 1.5f, 2.5f});
  EXPECT_EQ(MathOnHost(UnaryMath::kRound, {}, x),
            (std::vector<float>{-2, -2, -0.0f, -0.0f, 0, 0, 2, 2}));
  EXPECT_EQ(MathOnHost(UnaryMath::kSign, {}, x), (std::vector<float>{-1, -1, -1, 0, 0, 1, 1, 1}));
  EXPECT_EQ(MathOnHost(UnaryMath::kClip, {-1.0f, 1.0f}, x),
            (std::vector<float>{-1, -1, -0.5f, 0, 0, 0.5f, 1, 1}));
  EXPECT_EQ(MathOnHost(UnaryMath::kLeakyRelu, {0.5f, 0.0f}, x),
            (std::vector<float>{-1.25f, -0.75f, -0.25f, 0, 0, 0.5f, 1.5f, 2.5f}));
  // Signed zeros: Sign keeps -0; LeakyRelu gives +0 (the CPU's vectorized max(-0, +0) is +0).
  EXPECT_TRUE(std::signbit(MathOnHost(UnaryMath::kSign, {}, x)[3]));
  EXPECT_FALSE(std::signbit(MathOnHost(UnaryMath::kLeakyRelu, {0.5f, 0.0f}, x)[3]));
  // A NaN bound clips everything to NaN, as Eigen's NaN-propagating max / min do on the CPU.
  const std::vector<float> nan_clip = MathOnHost(UnaryMath::kClip, {kNaN, 1.0f}, x);
  for (float v : nan_clip) EXPECT_TRUE(std::isnan(v));
}

struct GradCase {
  const char* type;
  UnaryGrad fn;
  std::vector<TestArg> args;
  UnaryArgs body_args;
  int64_t max_ulps;
  float lo, hi;  // the general values of input 0 (X or Y)
};

std::vector<float> GradOnHost(UnaryGrad fn, UnaryArgs args, const Tensor& v, const Tensor& dy) {
  std::vector<float> dx(static_cast<size_t>(dy.numel()), -12345.0f);
  RunBodyOnHost(dy.numel(), [&](int64_t i) {
    gpu::kernels::UnaryGradBody(fn, args, v.data<float>(), dy.data<float>(), dx.data(), i);
  });
  return dx;
}

TEST(UnaryGradBody, MatchesTheCpuEngine) {
  const float lowest = std::numeric_limits<float>::lowest();
  const float largest = std::numeric_limits<float>::max();
  const std::vector<GradCase> cases = {
      {"AbsGradient", UnaryGrad::kAbs, {}, {}, 0, -3.0f, 3.0f},
      // Eigen's vectorized cos / sin on the CPU.
      {"SinGradient", UnaryGrad::kSin, {}, {}, 4, -10.0f, 10.0f},
      {"CosGradient", UnaryGrad::kCos, {}, {}, 4, -10.0f, 10.0f},
      {"TanGradient", UnaryGrad::kTan, {}, {}, 0, -3.0f, 3.0f},
      {"AsinGradient", UnaryGrad::kAsin, {}, {}, 0, -1.2f, 1.2f},
      {"AcosGradient", UnaryGrad::kAcos, {}, {}, 0, -1.2f, 1.2f},
      {"AtanGradient", UnaryGrad::kAtan, {}, {}, 0, -5.0f, 5.0f},
      {"SinhGradient", UnaryGrad::kSinh, {}, {}, 0, -5.0f, 5.0f},
      {"CoshGradient", UnaryGrad::kCosh, {}, {}, 0, -5.0f, 5.0f},
      {"AsinhGradient", UnaryGrad::kAsinh, {}, {}, 0, -5.0f, 5.0f},
      {"AtanhGradient", UnaryGrad::kAtanh, {}, {}, 0, -1.2f, 1.2f},
      {"ErfGradient", UnaryGrad::kErf, {}, {}, 0, -4.0f, 4.0f},
      {"SoftsignGradient", UnaryGrad::kSoftsign, {}, {}, 0, -5.0f, 5.0f},
      {"ReciprocalGradient", UnaryGrad::kReciprocal, {}, {}, 0, -5.0f, 5.0f},
      {"EluGradient", UnaryGrad::kElu, {}, {1.0f, 0.0f}, 0, -1.0f, 3.0f},
      {"EluGradient", UnaryGrad::kElu, {{"alpha", 0.3f}}, {0.3f, 0.0f}, 0, -0.3f, 3.0f},
      {"LeakyReluGradient", UnaryGrad::kLeakyRelu, {}, {0.01f, 0.0f}, 0, -3.0f, 3.0f},
      {"LeakyReluGradient",
       UnaryGrad::kLeakyRelu,
       {{"alpha", -0.7f}},
       {-0.7f, 0.0f},
       0,
       -3.0f,
       3.0f},
      {"ClipGradient",
       UnaryGrad::kClip,
       {{"min", -1.0f}, {"max", 2.5f}},
       {-1.0f, 2.5f},
       0,
       -1.0f,
       2.5f},
      {"ClipGradient", UnaryGrad::kClip, {{"min", 0.1f}}, {0.1f, largest}, 0, -1.0f, 1.0f},
      {"ClipGradient", UnaryGrad::kClip, {{"max", 0.0f}}, {lowest, 0.0f}, 0, -1.0f, 1.0f},
      {"ClipGradient", UnaryGrad::kClip, {}, {lowest, largest}, 0, -1.0f, 1.0f},
  };
  uint32_t seed = 100;
  for (const GradCase& c : cases) {
    const Tensor v = TestValues(300, seed++, c.lo, c.hi);
    // dY: general values, with NaN, infinities and zeros at other positions than v's.
    Tensor dy = RandomTensor(v.dims(), seed++, -2.0f, 2.0f);
    float* pdy = dy.mutable_data<float>();
    pdy[5] = kNaN, pdy[6] = kInf, pdy[7] = -0.0f, pdy[8] = 0.0f, pdy[9] = -kInf;
    const std::vector<float> cpu =
        RunCpu(MakeOp(c.type, {"v", "dy"}, {"dx"}, c.args), {{"v", v}, {"dy", dy}}, "dx");
    std::string what = c.type;
    for (const TestArg& a : c.args) what += " " + a.arg.name() + "=" + std::to_string(a.arg.f());
    ExpectMatches(cpu, GradOnHost(c.fn, c.body_args, v, dy), Values<float>(v), c.max_ulps, what);
  }
}

// PowGradient (dY, X, Y) with the exponent argument: the CPU's cases e = 0 (zeros, even for a NaN
// dY), 1 (dY), 2 (2 X dY) and pow otherwise.
TEST(UnaryGradBody, PowGradientWithTheExponentArgument) {
  uint32_t seed = 300;
  for (float e : {0.0f, 1.0f, 2.0f, 3.0f, 0.5f, -1.5f, -1.0f}) {
    const Tensor x = TestValues(200, seed++, -3.0f, 3.0f);
    Tensor dy = RandomTensor(x.dims(), seed++, -2.0f, 2.0f);
    dy.mutable_data<float>()[5] = kNaN;
    const Tensor y = RandomTensor(x.dims(), seed++);  // read by neither kernel
    const std::vector<float> cpu =
        RunCpu(MakeOp("PowGradient", {"dy", "x", "y"}, {"dx"}, {{"exponent", e}}),
               {{"dy", dy}, {"x", x}, {"y", y}}, "dx");
    ExpectMatches(cpu, GradOnHost(UnaryGrad::kPow, {e, 0.0f}, x, dy), Values<float>(x), 0,
                  "PowGradient exponent " + std::to_string(e));
  }
}

// dX written over dY or over V (the schemas' in place): each index reads both before writing.
TEST(UnaryGradBody, InPlace) {
  const Tensor v = RandomTensor({50}, 7, -0.9f, 0.9f);
  const Tensor dy = RandomTensor({50}, 8, -1.0f, 1.0f);
  const std::vector<float> aside = GradOnHost(UnaryGrad::kAsin, {}, v, dy);
  Tensor over_dy, over_v;  // deep copies (a Tensor copy shares storage)
  over_dy.CopyFrom(dy);
  over_v.CopyFrom(v);
  float* pdy = over_dy.mutable_data<float>();
  float* pv = over_v.mutable_data<float>();
  RunBodyOnHost(50, [&](int64_t i) {
    gpu::kernels::UnaryGradBody(UnaryGrad::kAsin, {}, v.data<float>(), pdy, pdy, i);
    gpu::kernels::UnaryGradBody(UnaryGrad::kAsin, {}, pv, dy.data<float>(), pv, i);
  });
  EXPECT_EQ(Values<float>(over_dy), aside);
  EXPECT_EQ(Values<float>(over_v), aside);
}

// ---------------------------------------------------------------------------------------------
// Pow with an exponent input, and PowGradient (dY, X, E, Y).

struct BroadcastCase {
  std::vector<int64_t> x, e;
  bool legacy = false;
  int64_t axis = -1;       // legacy only
  bool cpu_order = false;  // the CPU sums each operand's copies in the body's order
};

const std::vector<BroadcastCase>& BroadcastCases() {
  static const std::vector<BroadcastCase> cases = {
      {{2, 3}, {2, 3}, false, -1, true},    // no broadcast
      {{2, 3, 4}, {3, 1}},                  // numpy: E over dims 0 and 2
      {{2, 3, 4}, {4}, false, -1, true},    // numpy: trailing, E varies along the run
      {{3, 1}, {2, 3, 4}},                  // numpy: X broadcasts
      {{2, 1, 4}, {1, 3, 1}},               // numpy: both broadcast
      {{2, 3, 4}, {}},                      // scalar E
      {{2, 3, 4}, {3}, true, 1},            // legacy, axis 1
      {{2, 3, 4}, {3, 4}, true, -1, true},  // legacy, suffix
      {{2, 3, 4, 5}, {3, 4}, true, 1},      // legacy, middle dims
      {{0, 3}, {3}},                        // empty output
  };
  return cases;
}

std::vector<TestArg> BroadcastTestArgs(const BroadcastCase& c) {
  std::vector<TestArg> args;
  if (c.legacy) {
    args.push_back({"broadcast", 1});
    if (c.axis >= 0) args.push_back({"axis", c.axis});
  }
  return args;
}

// The output dims and E's plan, as the CUDA op computes them.
void PlanOf(const char* type, const BroadcastCase& c, std::vector<int64_t>* out,
            std::vector<int64_t>* e_plan) {
  const caffe2::OperatorDef def = MakeOp(type, {"a", "b"}, {"c"}, BroadcastTestArgs(c));
  const BroadcastArgs bargs =
      ReadBroadcastArgs(def, ArgumentHelper(def, OpSchemaRegistry::Find(type)));
  BinaryDims(bargs, c.x, c.e, type, out, e_plan);
}

// X: general values with some negatives (a fractional power of one is NaN) and zeros; E in
// [-2, 2], every third an integer.
Tensor Bases(const std::vector<int64_t>& dims, uint32_t seed) {
  Tensor t = RandomTensor(dims, seed, 0.25f, 3.0f);
  float* p = t.mutable_data<float>();
  for (int64_t i = 0; i < t.numel(); i += 5) p[i] = -p[i];
  for (int64_t i = 3; i < t.numel(); i += 11) p[i] = 0.0f;
  return t;
}
Tensor Exponents(const std::vector<int64_t>& dims, uint32_t seed) {
  Tensor t = RandomTensor(dims, seed, -2.0f, 2.0f);
  float* p = t.mutable_data<float>();
  for (int64_t i = 0; i < t.numel(); i += 3) p[i] = std::round(p[i]);
  return t;
}

TEST(PowBroadcastBody, MatchesTheCpuEngine) {
  uint32_t seed = 400;
  for (const BroadcastCase& c : BroadcastCases()) {
    std::vector<int64_t> out, e_plan;
    PlanOf("Pow", c, &out, &e_plan);
    const Tensor x = Bases(c.x, seed++);
    const Tensor e = Exponents(c.e, seed++);
    const std::vector<float> cpu =
        RunCpu(MakeOp("Pow", {"x", "e"}, {"y"}, BroadcastTestArgs(c)), {{"x", x}, {"e", e}}, "y");
    const gpu::kernels::BroadcastGeometry g = gpu::BroadcastGeometryOf("Pow", out, c.x, e_plan);
    int64_t n = 1;
    for (int64_t d : out) n *= d;
    std::vector<float> body(static_cast<size_t>(n), -12345.0f);
    RunBodyOnHost(n, [&](int64_t i) {
      gpu::kernels::PowBroadcastBody(x.data<float>(), e.data<float>(), body.data(), g, i);
    });
    ExpectMatches(cpu, body, {0.0f}, 0, "Pow X " + ShapeString(c.x) + " E " + ShapeString(c.e));
  }
}

struct PowGradOperands {
  Tensor dy, x, e, y;
  std::vector<int64_t> out, e_plan;
};

// dX or dE as the CUDA op computes it.
std::vector<float> PowGradOnHost(PowGrad which, const PowGradOperands& o, const BroadcastCase& c) {
  const std::vector<int64_t>& dims = which == PowGrad::kDX ? c.x : c.e;
  const std::vector<int64_t>& plan = which == PowGrad::kDX ? c.x : o.e_plan;
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  std::vector<float> out(static_cast<size_t>(n), -12345.0f);
  int64_t count = 0;
  const gpu::kernels::ReduceGeometry r =
      gpu::BroadcastReduceGeometryOf("PowGradient", o.out, plan, &count);
  const gpu::kernels::BroadcastGeometry g =
      gpu::BroadcastGeometryOf("PowGradient", o.out, c.x, o.e_plan);
  RunBodyOnHost(n, [&](int64_t i) {
    gpu::kernels::PowGradBody(which, o.dy.data<float>(), o.x.data<float>(), o.e.data<float>(),
                              o.y.data<float>(), out.data(), count, r, g, i);
  });
  return out;
}

// Runs the CPU's PowGradient on `o` and compares dX and dE with the bodies: dX within dx_ulps
// (0: bit for bit); dE (the CPU's ln is Eigen's vectorized one) NaN by position and within
// de_abs + de_rel * |CPU| elsewhere.
void CheckPowGradient(const PowGradOperands& o, const BroadcastCase& c, int64_t dx_ulps,
                      double de_abs, double de_rel, const std::string& what) {
  auto ws = RunOp(MakeOp("PowGradient", {"dy", "x", "e", "y"}, {"dx", "de"}, BroadcastTestArgs(c)),
                  {{"dy", o.dy}, {"x", o.x}, {"e", o.e}, {"y", o.y}});
  const Tensor& dx = ws->GetBlob("dx")->GetTensor();
  const Tensor& de = ws->GetBlob("de")->GetTensor();
  EXPECT_EQ(dx.dims(), c.x) << what;
  EXPECT_EQ(de.dims(), c.e) << what;
  ExpectMatches(Values<float>(dx), PowGradOnHost(PowGrad::kDX, o, c), {0.0f}, dx_ulps,
                what + " dX");
  const std::vector<float> cpu_de = Values<float>(de);
  const std::vector<float> body_de = PowGradOnHost(PowGrad::kDE, o, c);
  ASSERT_EQ(cpu_de.size(), body_de.size()) << what;
  for (size_t i = 0; i < cpu_de.size(); ++i) {
    if (std::isnan(cpu_de[i]) || std::isnan(body_de[i])) {
      EXPECT_TRUE(std::isnan(cpu_de[i]) && std::isnan(body_de[i])) << what << " dE " << i;
    } else {
      EXPECT_NEAR(cpu_de[i], body_de[i], de_abs + de_rel * std::fabs(cpu_de[i]))
          << what << " dE " << i;
    }
  }
}

// Exact values: dY eighths, X signed powers of two, E small integers, Y ones: every power,
// product and partial sum of dX is exact, so dX matches bit for bit whatever the order of the
// sums. dE is NaN wherever a summed X is negative (ln), and close elsewhere.
TEST(PowGradBody, MatchesTheCpuEngineOnExactValues) {
  static const float kPowers[] = {0.5f, 1.0f, 2.0f, -0.5f, -1.0f, -2.0f};
  uint32_t seed = 500;
  for (const BroadcastCase& c : BroadcastCases()) {
    PowGradOperands o;
    PlanOf("PowGradient", c, &o.out, &o.e_plan);
    o.dy = EighthsTensor(o.out, seed++);
    o.x = Tensor(DataType::kFloat, c.x);
    for (int64_t i = 0; i < o.x.numel(); ++i) o.x.mutable_data<float>()[i] = kPowers[(i * 5) % 6];
    o.e = Tensor(DataType::kFloat, c.e);
    for (int64_t i = 0; i < o.e.numel(); ++i) o.e.mutable_data<float>()[i] = (i * 3) % 6 - 2.0f;
    o.y = MakeTensor<float>(o.out, std::vector<float>(o.dy.numel(), 1.0f));
    CheckPowGradient(o, c, 0, 1e-4, 1e-5, "exact X " + ShapeString(c.x) + " E " + ShapeString(c.e));
  }
}

// General values, all positive and X > 1 (no NaN, no sum cancels): dX bit for bit in the CPU's
// order and within a few ulp out of it; dE within a relative 1e-5.
TEST(PowGradBody, MatchesTheCpuEngineInTheCpuOrder) {
  uint32_t seed = 600;
  for (const BroadcastCase& c : BroadcastCases()) {
    PowGradOperands o;
    PlanOf("PowGradient", c, &o.out, &o.e_plan);
    o.dy = RandomTensor(o.out, seed++, 0.5f, 1.0f);
    o.x = RandomTensor(c.x, seed++, 1.5f, 3.0f);
    o.e = RandomTensor(c.e, seed++, -2.0f, 2.0f);
    o.y = RandomTensor(o.out, seed++, 0.5f, 1.0f);
    const std::string what = "general X " + ShapeString(c.x) + " E " + ShapeString(c.e);
    // Out of the CPU's order dX may differ in the last bits: a few ulp of positive sums.
    CheckPowGradient(o, c, c.cpu_order ? 0 : 8, 0.0, 1e-5, what);
  }
}

// Hand-worked: dY = 1, X [2] = (2, 4), E [] = 3, Y = X^3: dX = 3 X^2 = (12, 48) and
// dE = sum of Y ln X = 8 ln 2 + 64 ln 4 = 136 ln 2.
TEST(PowGradBody, HandWorked) {
  BroadcastCase c{{2}, {}};
  PowGradOperands o;
  PlanOf("PowGradient", c, &o.out, &o.e_plan);
  o.dy = MakeTensor<float>({2}, {1, 1});
  o.x = MakeTensor<float>({2}, {2, 4});
  o.e = MakeTensor<float>({}, {3});
  o.y = MakeTensor<float>({2}, {8, 64});
  EXPECT_EQ(PowGradOnHost(PowGrad::kDX, o, c), (std::vector<float>{12, 48}));
  const std::vector<float> de = PowGradOnHost(PowGrad::kDE, o, c);
  ASSERT_EQ(de.size(), 1u);
  EXPECT_NEAR(de[0], 136.0 * std::log(2.0), 1e-4);
}

}  // namespace
}  // namespace parity::testing
