// Elementwise ONNX ops: unary math and activations, binary arithmetic / comparison / logic with
// ONNX's two broadcasting regimes, variadic Sum/Mean/Max/Min, Pow, Clip, Cast, and the
// activations parity has no op for, composed from ops it has (Celu, Selu, HardSigmoid, HardSwish,
// Softplus, ThresholdedRelu, PRelu, Shrink, Acosh), IsNaN / IsInf as comparisons, BitShift
// through int64 arithmetic and EyeLike as a constant.
#include <limits>
#include <map>
#include <optional>

#include "onnx/rules.h"
#include "onnx/tensor.h"

namespace parity::onnx {
namespace {

const std::map<std::string, std::string>& UnaryOps() {
  static const auto* ops = new std::map<std::string, std::string>{
      {"Abs", "Abs"},         {"Neg", "Neg"},      {"Relu", "Relu"},
      {"Sigmoid", "Sigmoid"}, {"Tanh", "Tanh"},    {"Exp", "Exp"},
      {"Log", "Log"},         {"Sqrt", "Sqrt"},    {"Reciprocal", "Reciprocal"},
      {"Sin", "Sin"},         {"Cos", "Cos"},      {"Softsign", "Softsign"},
      {"Not", "Not"},         {"Identity", "Copy"},
      // parity's ops of ONNX's unary math (core/ops/unary/unary.cc).
      {"Tan", "Tan"},         {"Asin", "Asin"},    {"Acos", "Acos"},
      {"Atan", "Atan"},       {"Sinh", "Sinh"},    {"Cosh", "Cosh"},
      {"Asinh", "Asinh"},     {"Atanh", "Atanh"},  {"Erf", "Erf"},
      {"Ceil", "Ceil"},       {"Floor", "Floor"},  {"Round", "Round"},
      {"Sign", "Sign"}};
  return *ops;
}

const std::map<std::string, std::string>& BinaryOps() {
  static const auto* ops = new std::map<std::string, std::string>{
      {"Add", "Add"},    {"Sub", "Sub"}, {"Mul", "Mul"},           {"Div", "Div"},
      {"And", "And"},    {"Or", "Or"},   {"Xor", "Xor"},           {"Equal", "EQ"},
      {"Greater", "GT"}, {"Less", "LT"}, {"GreaterOrEqual", "GE"}, {"LessOrEqual", "LE"}};
  return *ops;
}

void Unary(ImportContext& ctx, const Node& node) {
  ctx.Emit(UnaryOps().at(node.type()), {node.In(0)}, {node.Out(0)});
}

// Opset < 7: `broadcast`/`axis` attributes, B broadcast onto a suffix of A (or at `axis`) — exactly
// Caffe2's legacy broadcast=1. Opset >= 7: numpy broadcasting, parity's default (broadcast=0).
void SetBroadcast(const Node& node, OpBuilder& op) {
  if (node.opset() >= 7 || node.Int("broadcast", 0) == 0) return;
  op.Int("broadcast", 1);
  if (node.HasAttr("axis")) op.Int("axis", node.Int("axis", -1));
}

void Binary(ImportContext& ctx, const Node& node) {
  OpBuilder op = ctx.Emit(BinaryOps().at(node.type()), {node.In(0), node.In(1)}, {node.Out(0)});
  SetBroadcast(node, op);
}

// Sum, Mean, Max, Min: the same variadic ops (numpy broadcasting from opset 8).
void Variadic(ImportContext& ctx, const Node& node) {
  ctx.Emit(node.type(), node.Inputs(), {node.Out(0)});
}

void Elu(ImportContext& ctx, const Node& node) {
  ctx.Emit("Elu", {node.In(0)}, {node.Out(0)}).Float("alpha", node.Float("alpha", 1.0f));
}

void LeakyRelu(ImportContext& ctx, const Node& node) {
  ctx.Emit("LeakyRelu", {node.In(0)}, {node.Out(0)}).Float("alpha", node.Float("alpha", 0.01f));
}

// ONNX's Pow may take an exponent of another dtype; parity's Pow takes one. A float base gets
// its exponent cast to the base's dtype. An integer base with a float exponent is computed as
// numpy does (ONNX's reference): in double, then cast back to the base's dtype.
void Pow(ImportContext& ctx, const Node& node) {
  const std::string base = node.In(0);
  std::string exponent = node.In(1);
  const DataType base_type = ctx.Dtype(base), exponent_type = ctx.Dtype(exponent);
  if (exponent_type != base_type && IsFloatingDataType(base_type)) {
    const std::string cast = ctx.Temp(exponent);
    ctx.Emit("Cast", {exponent}, {cast}).Int("to", static_cast<int>(base_type));
    ctx.Note("Pow: exponent cast to the base's dtype");
    exponent = cast;
  } else if (exponent_type != base_type) {
    PARITY_ENFORCE(IsFloatingDataType(exponent_type), ErrorKind::kBadArgument, "base of dtype ",
                   DataTypeName(base_type), " with an exponent of dtype ",
                   DataTypeName(exponent_type), " (parity's Pow takes one dtype)");
    const std::string base64 = ctx.Temp(base), exponent64 = ctx.Temp(exponent),
                      power = ctx.Temp(node.Out(0));
    const int f64 = static_cast<int>(DataType::kDouble);
    ctx.Emit("Cast", {base}, {base64}).Int("to", f64);
    ctx.Emit("Cast", {exponent}, {exponent64}).Int("to", f64);
    OpBuilder op = ctx.Emit("Pow", {base64, exponent64}, {power});
    SetBroadcast(node, op);
    ctx.Emit("Cast", {power}, {node.Out(0)}).Int("to", static_cast<int>(base_type));
    ctx.Note("Pow of an integer base with a float exponent: in double, cast back");
    return;
  }
  OpBuilder op = ctx.Emit("Pow", {base, exponent}, {node.Out(0)});
  SetBroadcast(node, op);
}

// Opset < 11: `min`/`max` attributes; opset >= 11: optional inputs 1 and 2, which must be
// constants at import time (parity's Clip takes arguments). Absent: the dtype's limits.
// ONNX's Clip is min(max(x, min), max), so a min above max makes every value max; parity's Clip
// refuses min > max (a net that means it is rare), and Clip(x, max, max) computes the same.
void Clip(ImportContext& ctx, const Node& node) {
  std::optional<float> min, max;
  if (node.opset() < 11) {
    if (node.HasAttr("min")) min = node.Float("min", 0);
    if (node.HasAttr("max")) max = node.Float("max", 0);
  } else {
    if (node.HasIn(1)) min = ctx.ConstantScalar(node.In(1), "Clip's min (input 1)");
    if (node.HasIn(2)) max = ctx.ConstantScalar(node.In(2), "Clip's max (input 2)");
  }
  if (min && max && *min > *max) {
    ctx.Note("Clip: min > max, every value is max (ONNX's min(max(x, min), max))");
    min = max;
  }
  OpBuilder op = ctx.Emit("Clip", {node.In(0)}, {node.Out(0)});
  if (min) op.Float("min", *min);
  if (max) op.Float("max", *max);
}

void EmitCast(ImportContext& ctx, const Node& node, DataType to) {
  PARITY_ENFORCE(to != DataType::kFloat16, ErrorKind::kBadArgument,
                 "a cast to FLOAT16 (parity stores float16 but its Cast does not make it)");
  ctx.Emit("Cast", {node.In(0)}, {node.Out(0)}).Int("to", static_cast<int>(to));
}

// `to` is an ONNX DataType number (ONNX 10 is FLOAT16, Caffe2's 10 is INT64): renumbered. Opset
// < 6 names the type instead ("FLOAT").
void Cast(ImportContext& ctx, const Node& node) {
  const ::onnx::AttributeProto* to = node.Attr("to");
  PARITY_ENFORCE(to != nullptr, ErrorKind::kBadArgument, "required attribute 'to' is missing");
  int onnx_type = static_cast<int>(to->i());
  if (to->type() == ::onnx::AttributeProto::STRING || (!to->has_i() && to->has_s())) {
    ::onnx::TensorProto::DataType parsed;
    PARITY_ENFORCE(::onnx::TensorProto::DataType_Parse(to->s(), &parsed), ErrorKind::kBadArgument,
                   "attribute 'to' = '", to->s(), "' is not an ONNX type name");
    onnx_type = parsed;
  }
  EmitCast(ctx, node, RequireDataType(onnx_type, "Cast's 'to'"));
}

void CastLike(ImportContext& ctx, const Node& node) { EmitCast(ctx, node, ctx.Dtype(node.In(1))); }

// Celu(x) = alpha * Elu(x / alpha) with Elu's alpha 1.
void Celu(ImportContext& ctx, const Node& node) {
  const double alpha = node.Float("alpha", 1.0f);
  const std::string scaled = ctx.Temp(node.In(0)), elu = ctx.Temp(node.In(0));
  ctx.Emit("Scale", {node.In(0)}, {scaled}).Float("scale", 1.0 / alpha);
  ctx.Emit("Elu", {scaled}, {elu}).Float("alpha", 1.0);
  ctx.Emit("Scale", {elu}, {node.Out(0)}).Float("scale", alpha);
  ctx.Note("Celu = Scale(alpha) . Elu(1) . Scale(1/alpha)");
}

// Selu(x) = gamma * Elu(x, alpha).
void Selu(ImportContext& ctx, const Node& node) {
  const std::string elu = ctx.Temp(node.In(0));
  ctx.Emit("Elu", {node.In(0)}, {elu})
      .Float("alpha", node.Float("alpha", 1.67326319217681884765625f));
  ctx.Emit("Scale", {elu}, {node.Out(0)})
      .Float("scale", node.Float("gamma", 1.05070102214813232421875f));
  ctx.Note("Selu = Scale(gamma) . Elu(alpha)");
}

// max(0, min(1, alpha * x + beta)), written to `out`.
void EmitHardSigmoid(ImportContext& ctx, const std::string& x, double alpha, double beta,
                     const std::string& out) {
  const std::string scaled = ctx.Temp(x), shifted = ctx.Temp(x);
  ctx.Emit("Scale", {x}, {scaled}).Float("scale", alpha);
  ctx.Emit("Add", {scaled, ctx.ScalarLike(beta, x)}, {shifted});
  ctx.Emit("Clip", {shifted}, {out}).Float("min", 0.0).Float("max", 1.0);
}

void HardSigmoid(ImportContext& ctx, const Node& node) {
  EmitHardSigmoid(ctx, node.In(0), node.Float("alpha", 0.2f), node.Float("beta", 0.5f),
                  node.Out(0));
  ctx.Note("HardSigmoid = Clip(0, 1) . Add(beta) . Scale(alpha)");
}

// HardSwish(x) = x * HardSigmoid(x) with alpha 1/6, beta 0.5.
void HardSwish(ImportContext& ctx, const Node& node) {
  const std::string gate = ctx.Temp(node.In(0));
  EmitHardSigmoid(ctx, node.In(0), 1.0 / 6.0, 0.5, gate);
  ctx.Emit("Mul", {node.In(0), gate}, {node.Out(0)});
  ctx.Note("HardSwish = x * HardSigmoid(x)");
}

// BitShift on parity's integers: through int64, where no shift of a narrower value overflows:
// x << y = x * 2^y and x >> y = x / 2^y (non-negative operands: truncation is the floor), Pow of
// a constant 2 giving 2^y; the Cast back keeps the low bits, the wrap-around of a left shift.
void BitShift(ImportContext& ctx, const Node& node) {
  const std::string direction = node.String("direction", "");
  PARITY_ENFORCE(direction == "LEFT" || direction == "RIGHT", ErrorKind::kBadArgument,
                 "attribute 'direction' = '", direction, "' (LEFT or RIGHT)");
  const DataType dtype = ctx.Dtype(node.In(0));
  PARITY_ENFORCE(dtype == DataType::kUint8 || dtype == DataType::kUint16,
                 ErrorKind::kBadArgument, "BitShift of ", DataTypeName(dtype),
                 " (ONNX's unsigned types parity holds: uint8, uint16)");
  const int to = static_cast<int>(DataType::kInt64);
  const std::string x = ctx.Temp(node.In(0)), y = ctx.Temp(node.In(1)), power = ctx.Temp(node.In(1)),
                    shifted = ctx.Temp(node.In(0));
  ctx.Emit("Cast", {node.In(0)}, {x}).Int("to", to);
  ctx.Emit("Cast", {node.In(1)}, {y}).Int("to", to);
  Tensor two(DataType::kInt64, {});
  *two.mutable_data<int64_t>() = 2;
  const std::string base = ctx.Temp("two");
  ctx.EmitFill(base, two);
  ctx.SetConstant(base, two);
  ctx.Emit("Pow", {base, y}, {power});
  ctx.Emit(direction == "LEFT" ? "Mul" : "Div", {x, power}, {shifted});
  ctx.Emit("Cast", {shifted}, {node.Out(0)}).Int("to", static_cast<int>(dtype));
  ctx.Note("BitShift: Mul / Div by Pow(2, y) in int64");
}

// EyeLike: ones on diagonal k of a matrix of the input's static shape, in `dtype` (ONNX's
// number) or the input's; a constant, since nothing about it depends on the input's values.
void EyeLike(ImportContext& ctx, const Node& node) {
  const std::vector<int64_t> dims = ctx.Dims(node.In(0));
  PARITY_ENFORCE(dims.size() == 2, ErrorKind::kBadArgument, "EyeLike of a rank-", dims.size(),
                 " input");
  const DataType dtype = node.HasAttr("dtype")
                             ? RequireDataType(static_cast<int>(node.Int("dtype", 0)),
                                               "EyeLike's 'dtype'")
                             : ctx.Dtype(node.In(0));
  const int64_t k = node.Int("k", 0);
  Tensor eye(dtype, dims);
  DispatchNumeric(dtype, "EyeLike", [&](auto zero) {
    using T = decltype(zero);
    T* p = eye.mutable_data<T>();
    for (int64_t r = 0; r < dims[0]; ++r) {
      for (int64_t c = 0; c < dims[1]; ++c) p[r * dims[1] + c] = c - r == k ? T(1) : T(0);
    }
  });
  ctx.EmitFill(node.Out(0), eye);
  ctx.Note("EyeLike: a constant of the input's static shape");
}

// Shrink: x + bias below -lambd, x - bias above lambd, 0 between (ONNX's definition, by two
// comparisons and two Wheres).
void Shrink(ImportContext& ctx, const Node& node) {
  const std::string x = node.In(0);
  const double lambd = node.Float("lambd", 0.5f), bias = node.Float("bias", 0.0f);
  const std::string below = ctx.Temp(x), above = ctx.Temp(x), plus = ctx.Temp(x),
                    minus = ctx.Temp(x), upper = ctx.Temp(x);
  ctx.Emit("LT", {x, ctx.ScalarLike(-lambd, x)}, {below});
  ctx.Emit("GT", {x, ctx.ScalarLike(lambd, x)}, {above});
  ctx.Emit("Add", {x, ctx.ScalarLike(bias, x)}, {plus});
  ctx.Emit("Sub", {x, ctx.ScalarLike(bias, x)}, {minus});
  ctx.Emit("Where", {above, minus, ctx.ScalarLike(0.0, x)}, {upper});
  ctx.Emit("Where", {below, plus, upper}, {node.Out(0)});
  ctx.Note("Shrink = Where(x < -lambd, x + bias, Where(x > lambd, x - bias, 0))");
}

// Acosh(x) = log(x + sqrt((x - 1)(x + 1))): (x - 1)(x + 1) rather than x^2 - 1, whose
// subtraction cancels near x = 1 (x - 1 is exact there).
void Acosh(ImportContext& ctx, const Node& node) {
  const std::string x = node.In(0);
  const std::string one = ctx.ScalarLike(1.0, x);
  const std::string below = ctx.Temp(x), above = ctx.Temp(x), product = ctx.Temp(x),
                    root = ctx.Temp(x), sum = ctx.Temp(x);
  ctx.Emit("Sub", {x, one}, {below});
  ctx.Emit("Add", {x, one}, {above});
  ctx.Emit("Mul", {below, above}, {product});
  ctx.Emit("Sqrt", {product}, {root});
  ctx.Emit("Add", {x, root}, {sum});
  ctx.Emit("Log", {sum}, {node.Out(0)});
  ctx.Note("Acosh = Log(x + Sqrt((x - 1)(x + 1)))");
}

// Softplus(x) = log(exp(x) + 1).
void Softplus(ImportContext& ctx, const Node& node) {
  const std::string e = ctx.Temp(node.In(0)), e1 = ctx.Temp(node.In(0));
  ctx.Emit("Exp", {node.In(0)}, {e});
  ctx.Emit("Add", {e, ctx.ScalarLike(1.0, node.In(0))}, {e1});
  ctx.Emit("Log", {e1}, {node.Out(0)});
  ctx.Note("Softplus = Log . Add(1) . Exp");
}

// ThresholdedRelu(x) = x where x > alpha, else 0.
void ThresholdedRelu(ImportContext& ctx, const Node& node) {
  const std::string x = node.In(0);
  const std::string mask = ctx.Temp(x), gate = ctx.Temp(x);
  ctx.Emit("GT", {x, ctx.ScalarLike(node.Float("alpha", 1.0f), x)}, {mask});
  ctx.Emit("Cast", {mask}, {gate}).Int("to", static_cast<int>(ctx.Dtype(x)));
  ctx.Emit("Mul", {x, gate}, {node.Out(0)});
  ctx.Note("ThresholdedRelu = x * Cast(x > alpha)");
}

// PRelu(x) = Relu(x) + slope * (-Relu(-x)). Opset < 7 broadcast a [C] slope on axis 1 (Caffe2's
// legacy broadcast), opset >= 7 broadcasts it numpy-style.
void PRelu(ImportContext& ctx, const Node& node) {
  const std::string x = node.In(0), slope = node.In(1);
  const std::string pos = ctx.Temp(x), neg_x = ctx.Temp(x), relu_neg = ctx.Temp(x),
                    neg = ctx.Temp(x), scaled = ctx.Temp(x);
  ctx.Emit("Relu", {x}, {pos});
  ctx.Emit("Neg", {x}, {neg_x});
  ctx.Emit("Relu", {neg_x}, {relu_neg});
  ctx.Emit("Neg", {relu_neg}, {neg});
  OpBuilder mul = ctx.Emit("Mul", {neg, slope}, {scaled});
  if (node.opset() < 7 && ctx.HasDims(slope) && ctx.HasDims(x)) {
    const auto s = ctx.Dims(slope), d = ctx.Dims(x);
    if (s.size() == 1 && d.size() > 2 && s[0] == d[1] && s[0] != d.back()) {
      mul.Int("broadcast", 1).Int("axis", 1);
      ctx.Note("PRelu opset < 7: slope broadcast on axis 1");
    }
  }
  ctx.Emit("Add", {pos, scaled}, {node.Out(0)});
  ctx.Note("PRelu = Relu(x) + slope * -Relu(-x)");
}

// NaN is the one value not equal to itself.
void IsNaN(ImportContext& ctx, const Node& node) {
  ctx.Emit("NE", {node.In(0), node.In(0)}, {node.Out(0)});
  ctx.Note("IsNaN = NE(x, x)");
}

// x == +inf and/or x == -inf, as detect_positive / detect_negative ask.
void IsInf(ImportContext& ctx, const Node& node) {
  const std::string x = node.In(0);
  const bool positive = node.Int("detect_positive", 1) != 0;
  const bool negative = node.Int("detect_negative", 1) != 0;
  const double inf = std::numeric_limits<double>::infinity();
  if (positive && negative) {
    const std::string pos = ctx.Temp(x), neg = ctx.Temp(x);
    ctx.Emit("EQ", {x, ctx.ScalarLike(inf, x)}, {pos});
    ctx.Emit("EQ", {x, ctx.ScalarLike(-inf, x)}, {neg});
    ctx.Emit("Or", {pos, neg}, {node.Out(0)});
  } else if (positive || negative) {
    ctx.Emit("EQ", {x, ctx.ScalarLike(positive ? inf : -inf, x)}, {node.Out(0)});
  } else {
    ctx.Emit("ConstantFill", {x}, {node.Out(0)})
        .Float("value", 0)
        .Int("dtype", static_cast<int>(DataType::kBool));
  }
  ctx.Note("IsInf = EQ(x, +-inf)");
}

// Where (9; 16 adds bfloat16): C, X, Y broadcast as numpy does, which is parity's Where without
// broadcast_on_rows.
void Where(ImportContext& ctx, const Node& node) {
  ctx.Emit("Where", {node.In(0), node.In(1), node.In(2)}, {node.Out(0)});
}

// Mod (10; 13 adds bfloat16): fmod=0 (the default; integers only in ONNX) is Python's %, the
// remainder with the divisor's sign (parity's sign_follow_divisor=1); fmod=1 is C's fmod, the
// dividend's sign (parity's default). B broadcasts as numpy does, as parity's does.
void Mod(ImportContext& ctx, const Node& node) {
  ctx.Emit("Mod", {node.In(0), node.In(1)}, {node.Out(0)})
      .Int("sign_follow_divisor", node.Int("fmod", 0) == 0 ? 1 : 0);
}

}  // namespace

void AddElementwiseRules(RuleTable* table) {
  (*table)["Mod"] = {Mod, {"fmod"}};
  (*table)["Where"] = {Where, {}};
  (*table)["Shrink"] = {Shrink, {"bias", "lambd"}};
  (*table)["BitShift"] = {BitShift, {"direction"}};
  (*table)["EyeLike"] = {EyeLike, {"dtype", "k"}};
  (*table)["Acosh"] = {Acosh, {}};
  for (const auto& [type, ours] : UnaryOps()) (*table)[type] = {Unary, {}};
  for (const auto& [type, ours] : BinaryOps()) (*table)[type] = {Binary, {"broadcast", "axis"}};
  for (const char* type : {"Sum", "Mean", "Max", "Min"}) (*table)[type] = {Variadic, {}};
  (*table)["Elu"] = {Elu, {"alpha"}};
  (*table)["LeakyRelu"] = {LeakyRelu, {"alpha"}};
  (*table)["Pow"] = {Pow, {"broadcast", "axis"}};
  (*table)["Clip"] = {Clip, {"min", "max"}};
  (*table)["Cast"] = {Cast, {"to"}};
  (*table)["CastLike"] = {CastLike, {}};
  (*table)["Celu"] = {Celu, {"alpha"}};
  (*table)["Selu"] = {Selu, {"alpha", "gamma"}};
  (*table)["HardSigmoid"] = {HardSigmoid, {"alpha", "beta"}};
  (*table)["HardSwish"] = {HardSwish, {}};
  (*table)["Softplus"] = {Softplus, {}};
  (*table)["ThresholdedRelu"] = {ThresholdedRelu, {"alpha"}};
  (*table)["PRelu"] = {PRelu, {}};
  (*table)["IsNaN"] = {IsNaN, {}};
  (*table)["IsInf"] = {IsInf, {"detect_positive", "detect_negative"}};
}

}  // namespace parity::onnx
