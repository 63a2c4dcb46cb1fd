// The translation table: one Rule per ONNX op type, from ONNX nodes to parity (Caffe2) ops, split
// by op family (rules_elementwise.cc, rules_nn.cc, rules_shape.cc, rules_misc.cc). A rule reads
// the node (its opset decides which attribute or input form applies: docs/onnx.md tabulates
// them), writes ops through the ImportContext, and throws parity::Error (kBadArgument) for any
// form it does not translate; the importer lists those per node.
#ifndef PARITY_ONNX_RULES_H_
#define PARITY_ONNX_RULES_H_

#include <map>
#include <string>
#include <vector>

#include "onnx/import_context.h"

namespace parity::onnx {

using TranslateFunction = void (*)(ImportContext& ctx, const Node& node);

struct Rule {
  TranslateFunction translate = nullptr;
  // Every attribute the rule reads; a node with any other attribute is unsupported (so an
  // attribute is never silently ignored). `consumed_inputs` (opset < 6, a memory hint with no
  // meaning for the result) is accepted everywhere.
  std::vector<std::string> attributes;
};

using RuleTable = std::map<std::string, Rule>;

void AddElementwiseRules(RuleTable* table);
void AddNnRules(RuleTable* table);
void AddShapeRules(RuleTable* table);
void AddMiscRules(RuleTable* table);
void AddRnnRules(RuleTable* table);
void AddComposedRules(RuleTable* table);  // GatherND, OneHot, LRN (rules_composed.cc)  // LSTM,
                                          // GRU, RNN through core/rnn's builders
// If (onnx/importer.cc: it translates the branch graphs as the importer does the main one).
void TranslateIf(ImportContext& ctx, const Node& node);
// Loop and Scan -> While (onnx/importer.cc, as If).
void TranslateLoop(ImportContext& ctx, const Node& node);
void TranslateScan(ImportContext& ctx, const Node& node);

// Every rule, by ONNX op type (default domain ai.onnx).
const RuleTable& Rules();

// Why an op type has no rule: a category for ops out of parity's scope ("quantized ops",
// "random ops", "sequence values", ...) or "no parity op translates it".
std::string WhyNoRule(const std::string& op_type);

// The input slots that older opsets had as attributes (Reshape's shape, Slice's starts, Clip's
// min, ...): where a graph input is bound as a constant by ImportOptions::constant_inputs.
const std::vector<int>& ParameterSlots(const std::string& op_type);

// 3-D Conv as a 2-D Conv over depth slabs folded into the channels (rules_conv3d.cc); Conv's rule
// calls it for a 5-D input.
void Conv3d(ImportContext& ctx, const Node& node);
// 3-D ConvTranspose as 2-D ones per kernel depth placed in depth by a 0/1 matrix (likewise).
void ConvTranspose3d(ImportContext& ctx, const Node& node);

// Refuses (kBadArgument, naming the op, the input and its shape) a kernel, strides or dilations
// whose length is not the input's spatial rank (rank - 2).
void CheckWindowLengths(ImportContext& ctx, const Node& node, const std::vector<int64_t>& kernel,
                        const std::vector<int64_t>& strides, const std::vector<int64_t>& dilations);

// Shared by the rules: ONNX `pads`/`auto_pad` of a 2-D Conv or pool as parity's [t, l, b, r]
// (auto_pad SAME_* computed from the static input shape), after CheckWindowLengths; a `pads` of
// other than 2 * spatial values is refused.

std::vector<int64_t> SpatialPads(ImportContext& ctx, const Node& node,
                                 const std::vector<int64_t>& kernel,
                                 const std::vector<int64_t>& strides,
                                 const std::vector<int64_t>& dilations);

}  // namespace parity::onnx

#endif  // PARITY_ONNX_RULES_H_
