// Reductions (Reduce*, including the ones composed from ReduceSum), constants (Constant,
// ConstantOfShape), and the rule table itself: which ONNX ops have rules, why the others have
// none, and which inputs are parameters that older opsets had as attributes.
#include <algorithm>
#include <map>

#include "onnx/rules.h"
#include "onnx/tensor.h"

namespace parity::onnx {
namespace {

// ReduceMax/Min/Mean/Sum/Prod are parity ops; the others are ReduceSum between an elementwise op
// before and one after: L1 = Sum|x|, L2 = sqrt(Sum x^2), SumSquare = Sum x^2, LogSum =
// log(Sum x), LogSumExp = log(Sum e^x). Axes: an attribute, except ReduceSum from opset 13 and
// every other reduction from opset 18 (an optional input, with noop_with_empty_axes deciding what
// no axes mean). No axes: every axis.
void Reduce(ImportContext& ctx, const Node& node) {
  static const std::map<std::string, std::pair<std::string, std::string>> kComposed = {
      {"ReduceL1", {"Abs", ""}},
      {"ReduceL2", {"Sqr", "Sqrt"}},
      {"ReduceSumSquare", {"Sqr", ""}},
      {"ReduceLogSum", {"", "Log"}},
      {"ReduceLogSumExp", {"Exp", "Log"}}};
  std::string x = node.In(0);
  const int64_t rank = ctx.Rank(x);
  std::vector<int64_t> axes;
  const int axes_input_from = node.type() == "ReduceSum" ? 13 : 18;
  if (node.opset() >= axes_input_from) {
    PARITY_ENFORCE(!node.HasAttr("axes"), ErrorKind::kBadArgument,
                   "attribute 'axes' from opset ", axes_input_from, " (axes are input 1)");
    if (node.HasIn(1)) axes = ctx.ConstantInts(node.In(1), node.type() + "'s axes (input 1)");
    if (axes.empty() && node.Int("noop_with_empty_axes", 0) == 1) {
      ctx.Emit("Copy", {x}, {node.Out(0)});
      return;
    }
  } else {
    PARITY_ENFORCE(node.Int("noop_with_empty_axes", 0) == 0, ErrorKind::kBadArgument,
                   "attribute 'noop_with_empty_axes' before opset ", axes_input_from);
    PARITY_ENFORCE(!node.HasIn(1), ErrorKind::kBadArgument, "input 1 (axes) before opset ",
                   axes_input_from, " (axes are an attribute)");
    axes = node.Ints("axes");
  }
  axes = NormalizeAxes(axes, rank, "axis");
  std::sort(axes.begin(), axes.end());
  std::string base = node.type(), pre, post;
  if (auto it = kComposed.find(node.type()); it != kComposed.end()) {
    base = "ReduceSum";
    std::tie(pre, post) = it->second;
    ctx.Note(node.type() + " = " + (post.empty() ? "" : post + " . ") + "ReduceSum" +
             (pre.empty() ? "" : " . " + pre));
  }
  if (!pre.empty()) {
    const std::string t = ctx.Temp(x);
    ctx.Emit(pre, {x}, {t});
    x = t;
  }
  const std::string y = post.empty() ? node.Out(0) : ctx.Temp(node.Out(0));
  OpBuilder op = ctx.Emit(base, {x}, {y}).Int("keepdims", node.Int("keepdims", 1));
  if (!axes.empty()) op.Ints("axes", axes);
  if (!post.empty()) ctx.Emit(post, {y}, {node.Out(0)});
}

// A fill op for the value, which is also a constant for the rules that need one.
void Constant(ImportContext& ctx, const Node& node) {
  Tensor value;
  if (const auto* attr = node.Attr("value")) {
    value = TensorFromOnnx(attr->t());
  } else if (node.HasAttr("value_float")) {
    value = Tensor(DataType::kFloat, {});
    *value.mutable_data<float>() = node.Float("value_float", 0);
  } else if (node.HasAttr("value_floats")) {
    const auto floats = node.Floats("value_floats");
    value = Tensor(DataType::kFloat, {static_cast<int64_t>(floats.size())});
    std::copy(floats.begin(), floats.end(), value.mutable_data<float>());
  } else if (node.HasAttr("value_int")) {
    value = Tensor(DataType::kInt64, {});
    *value.mutable_data<int64_t>() = node.Int("value_int", 0);
  } else if (node.HasAttr("value_ints")) {
    const auto ints = node.Ints("value_ints");
    value = Tensor(DataType::kInt64, {static_cast<int64_t>(ints.size())});
    std::copy(ints.begin(), ints.end(), value.mutable_data<int64_t>());
  } else {
    throw MakeError(ErrorKind::kBadArgument,
                    "no value (the sparse and string forms are not translated)");
  }
  ctx.EmitFill(node.Out(0), value);
  ctx.SetConstant(node.Out(0), value);
}

// ConstantFill: the shape as an argument when constant, else the input (input_as_shape); the
// value's ONNX dtype renumbered (default float 0).
void ConstantOfShape(ImportContext& ctx, const Node& node) {
  DataType dtype = DataType::kFloat;
  double value = 0;
  if (const auto* attr = node.Attr("value")) {
    const Tensor t = TensorFromOnnx(attr->t());
    PARITY_ENFORCE(t.numel() == 1, ErrorKind::kBadArgument, "attribute 'value' has ", t.numel(),
                   " elements, expected 1");
    dtype = t.dtype();
    DispatchNumeric(dtype, "ConstantOfShape's value", [&](auto zero) {
      using T = decltype(zero);
      value = static_cast<double>(*t.data<T>());
    });
  }
  if (ctx.Constant(node.In(0)) != nullptr) {
    ctx.Emit("ConstantFill", {}, {node.Out(0)})
        .Ints("shape", ctx.ConstantInts(node.In(0), "ConstantOfShape's shape"))
        .Float("value", value)
        .Int("dtype", static_cast<int>(dtype));
  } else {
    ctx.Emit("ConstantFill", {node.In(0)}, {node.Out(0)})
        .Int("input_as_shape", 1)
        .Float("value", value)
        .Int("dtype", static_cast<int>(dtype));
  }
}

// ArgMax / ArgMin: ONNX's axis defaults to 0 (parity's, as Caffe2's, to -1), keepdims to 1;
// select_last_index (opset 12) is the same argument.
void Arg(ImportContext& ctx, const Node& node) {
  ctx.Emit(node.type(), {node.In(0)}, {node.Out(0)})
      .Int("axis", node.Int("axis", 0))
      .Int("keepdims", node.Int("keepdims", 1))
      .Int("select_last_index", node.Int("select_last_index", 0));
}

// Trilu (14): `upper`; the diagonal offset k is an optional input, a constant at import time.
void Trilu(ImportContext& ctx, const Node& node) {
  int64_t k = 0;
  if (node.HasIn(1)) {
    const std::vector<int64_t> values = ctx.ConstantInts(node.In(1), "Trilu's k");
    PARITY_ENFORCE(values.size() == 1, ErrorKind::kBadArgument, "Trilu's k must be one value, got ",
                   values.size());
    k = values[0];
  }
  ctx.Emit("Trilu", {node.In(0)}, {node.Out(0)}).Int("upper", node.Int("upper", 1)).Int("k", k);
}

// CumSum (11; 14 adds types): the axis input (a 0-D or 1-D tensor of one value) is constant at
// import time and becomes parity's argument; exclusive, reverse as they are.
void CumSum(ImportContext& ctx, const Node& node) {
  const std::vector<int64_t> axis = ctx.ConstantInts(node.In(1), "CumSum's axis (input 1)");
  PARITY_ENFORCE(axis.size() == 1, ErrorKind::kBadArgument, "CumSum's axis must be one value, got ",
                 axis.size());
  ctx.Emit("CumSum", {node.In(0)}, {node.Out(0)})
      .Int("axis", axis[0])
      .Int("exclusive", node.Int("exclusive", 0))
      .Int("reverse", node.Int("reverse", 0));
}

// Range (11): parity's three-input Range (Caffe2's op, with numpy's length for descending integer
// ranges); int16 is not a Range dtype of parity's.
void Range(ImportContext& ctx, const Node& node) {
  ctx.Emit("Range", {node.In(0), node.In(1), node.In(2)}, {node.Out(0)});
}

}  // namespace

void AddMiscRules(RuleTable* table) {
  (*table)["CumSum"] = {CumSum, {"exclusive", "reverse"}};
  (*table)["Range"] = {Range, {}};
  (*table)["Trilu"] = {Trilu, {"upper"}};
  (*table)["ArgMax"] = {Arg, {"axis", "keepdims", "select_last_index"}};
  (*table)["ArgMin"] = {Arg, {"axis", "keepdims", "select_last_index"}};
  for (const char* type :
       {"ReduceMax", "ReduceMin", "ReduceMean", "ReduceSum", "ReduceProd", "ReduceL1", "ReduceL2",
        "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp"}) {
    (*table)[type] = {Reduce, {"axes", "keepdims", "noop_with_empty_axes"}};
  }
  (*table)["Constant"] = {Constant,
                          {"value", "value_float", "value_floats", "value_int", "value_ints"}};
  (*table)["ConstantOfShape"] = {ConstantOfShape, {"value"}};
}

const RuleTable& Rules() {
  static const RuleTable* table = [] {
    auto* rules = new RuleTable();
    AddElementwiseRules(rules);
    AddNnRules(rules);
    AddShapeRules(rules);
    AddMiscRules(rules);
    AddRnnRules(rules);
    AddComposedRules(rules);
    (*rules)["If"] = {TranslateIf, {"then_branch", "else_branch"}};
    (*rules)["Loop"] = {TranslateLoop, {"body"}};
    (*rules)["Scan"] = {TranslateScan,
                        {"body", "num_scan_inputs", "scan_input_axes", "scan_input_directions",
                         "scan_output_axes", "scan_output_directions"}};
    return rules;
  }();
  return *table;
}

std::string WhyNoRule(const std::string& op_type) {
  static const auto* kOutOfScope =
      new std::map<std::string, std::string>{{"QuantizeLinear", "quantized ops"},
                                             {"DequantizeLinear", "quantized ops"},
                                             {"DynamicQuantizeLinear", "quantized ops"},
                                             {"QLinearConv", "quantized ops"},
                                             {"QLinearMatMul", "quantized ops"},
                                             {"ConvInteger", "quantized ops"},
                                             {"MatMulInteger", "quantized ops"},
                                             {"Bernoulli", "random ops"},
                                             {"RandomUniformLike", "random ops"},
                                             {"RandomNormalLike", "random ops"},
                                             {"RandomUniform", "random ops"},
                                             {"RandomNormal", "random ops"},
                                             {"Multinomial", "random ops"},
                                             {"StringNormalizer", "string tensors"},
                                             {"SequenceInsert", "sequence values"},
                                             {"SequenceMap", "sequence values"},
                                             {"SequenceEmpty", "sequence values"},
                                             {"SequenceLength", "sequence values"},
                                             {"SequenceAt", "sequence values"},
                                             {"SequenceConstruct", "sequence values"},
                                             {"SequenceErase", "sequence values"},
                                             {"SplitToSequence", "sequence values"},
                                             {"ConcatFromSequence", "sequence values"},
                                             {"Optional", "optional values"},
                                             {"OptionalHasElement", "optional values"},
                                             {"OptionalGetElement", "optional values"}};
  auto it = kOutOfScope->find(op_type);
  if (it != kOutOfScope->end()) return "out of scope: " + it->second;
  return "no translation: parity has no op for it";
}

const std::vector<int>& ParameterSlots(const std::string& op_type) {
  static const auto* kSlots = new std::map<std::string, std::vector<int>>{{"Reshape", {1}},
                                                                          {"Squeeze", {1}},
                                                                          {"Unsqueeze", {1}},
                                                                          {"Slice", {1, 2, 3, 4}},
                                                                          {"Tile", {1}},
                                                                          {"Split", {1}},
                                                                          {"ReduceSum", {1}},
                                                                          {"ReduceMean", {1}},
                                                                          {"ReduceMax", {1}},
                                                                          {"ReduceMin", {1}},
                                                                          {"ReduceProd", {1}},
                                                                          {"ReduceL1", {1}},
                                                                          {"ReduceL2", {1}},
                                                                          {"ReduceSumSquare", {1}},
                                                                          {"ReduceLogSum", {1}},
                                                                          {"ReduceLogSumExp", {1}},
                                                                          {"Clip", {1, 2}},
                                                                          {"Expand", {1}},
                                                                          {"Pad", {1, 2, 3}},
                                                                          {"TopK", {1}},
                                                                          {"Dropout", {1, 2}},
                                                                          {"Upsample", {1}},
                                                                          {"Resize", {1, 2, 3}},
                                                                          {"CumSum", {1}},
                                                                          {"OneHot", {1}},
                                                                          {"ConstantOfShape", {0}},
                                                                          {"Trilu", {1}},
                                                                          {"LSTM", {4}},
                                                                          {"GRU", {4}},
                                                                          {"RNN", {4}},
                                                                          {"Compress", {1}},
                                                                          {"ReverseSequence", {1}}};
  static const std::vector<int> kNone;
  auto it = kSlots->find(op_type);
  return it == kSlots->end() ? kNone : it->second;
}

}  // namespace parity::onnx
