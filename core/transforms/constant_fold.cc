// constant_fold: an op of the predict net whose inputs are all constants is run once, by the
// production engine, and replaced by a fill of its results in the init net.
//
// Constants are what the init net's deterministic ops write (not the blobs a feed overwrites:
// the setting `inputs`, which Export sets), then what folded ops write, each until a predict op
// that stays overwrites it. An op folds when it is deterministic (its schema is not impure), runs
// on the CPU, has no sub-nets, and its outputs are exactly representable by a fill (float, int32,
// int64, bool: a GivenTensorDoubleFill holds f32 values), at most kMaxFoldedElements of them, not
// an external input or output, and neither read nor written by an earlier predict op nor written by
// the init net (moving the write into the init net would move it before those). Nothing after an
// op with sub-nets folds: such an op may write any blob by name.
#include <memory>

#include "core/schema.h"
#include "core/tensor_proto.h"
#include "core/transforms/constants.h"
#include "core/transforms/export.h"
#include "core/transforms/net_edits.h"
#include "core/transforms/pass.h"
#include "core/workspace.h"

namespace parity::transforms {
namespace {

// A folded op adds its results to the init net as literal values: past this many elements per
// op, the net grows more than the fold saves.
constexpr int64_t kMaxFoldedElements = 1 << 16;

bool ExactlyFilled(const Tensor& value) {
  const DataType dtype = value.dtype();
  return dtype == DataType::kFloat || dtype == DataType::kInt32 || dtype == DataType::kInt64 ||
         dtype == DataType::kBool;
}

// Whether `op`'s own properties allow folding it (inputs aside).
bool FoldableKind(const caffe2::OperatorDef& op) {
  const OpSchema* schema = OpSchemaRegistry::Find(op.type());
  return schema != nullptr && !schema->impure() && !HasSubNets(op) &&
         (!op.has_device_option() || op.device_option().device_type() == kCpuDeviceType);
}

// The fills holding `op`'s results, run in `ws` (which holds every constant); nullopt when the
// op fails or a result is not exactly fillable.
std::optional<std::vector<caffe2::OperatorDef>> Evaluate(const caffe2::OperatorDef& op,
                                                         Workspace* ws) {
  caffe2::NetDef one;
  one.set_name("constant_fold");
  *one.add_op() = op;
  try {
    ws->RunNetOnce(one);
    std::vector<caffe2::OperatorDef> fills;
    for (const auto& name : op.output()) {
      const Blob* blob = ws->GetBlob(name);
      if (blob == nullptr || !blob->IsTensor()) return std::nullopt;
      const Tensor& value = blob->GetTensor();
      if (!ExactlyFilled(value) || value.numel() > kMaxFoldedElements) return std::nullopt;
      fills.push_back(ConstantFillOf(TensorToProto(value, name)));
    }
    return fills;
  } catch (const Error&) {
    return std::nullopt;  // the op fails on these constants: the net's own run will say so
  }
}

void ConstantFold(TransformedNet* t) {
  if (t->init.op_size() == 0) return;
  Workspace ws;
  try {
    ws.RunNetOnce(t->init);
  } catch (const Error& e) {
    throw MakeError(ErrorKind::kIllegalTransform,
                    "constant_fold: the init net does not run: ", e.what());
  }
  const std::set<std::string> fed = FedBlobs(*t);
  const std::set<std::string> kept(t->predict.external_output().begin(),
                                   t->predict.external_output().end());
  std::set<std::string> init_outputs, constants;
  for (const auto& op : t->init.op()) {
    init_outputs.insert(op.output().begin(), op.output().end());
    const OpSchema* schema = OpSchemaRegistry::Find(op.type());
    for (const auto& blob : op.output()) {
      if (schema != nullptr && !schema->impure() && !fed.count(blob)) {
        constants.insert(blob);
      } else {
        constants.erase(blob);
      }
    }
  }
  std::set<std::string> touched;  // read or written by an earlier predict op
  std::set<int> folded;
  std::vector<caffe2::OperatorDef> fills;
  for (int i = 0; i < t->predict.op_size(); ++i) {
    const caffe2::OperatorDef& op = t->predict.op(i);
    if (HasSubNets(op)) break;
    bool foldable = FoldableKind(op) && op.output_size() > 0;
    for (const auto& blob : op.input()) foldable = foldable && constants.count(blob);
    for (const auto& blob : op.output()) {
      foldable = foldable && !fed.count(blob) && !kept.count(blob) && !touched.count(blob) &&
                 !init_outputs.count(blob);
    }
    std::optional<std::vector<caffe2::OperatorDef>> results;
    if (foldable) results = Evaluate(op, &ws);
    if (results) {
      folded.insert(i);
      fills.insert(fills.end(), results->begin(), results->end());
      constants.insert(op.output().begin(), op.output().end());
    } else {
      for (const auto& blob : op.output()) constants.erase(blob);
    }
    touched.insert(op.input().begin(), op.input().end());
    touched.insert(op.output().begin(), op.output().end());
  }
  RemoveOps(&t->predict, folded);
  for (const auto& fill : fills) AddConstant(t, fill);
}

PARITY_REGISTER_PASS(PassInfo{
    "constant_fold",
    "Requires an init net that runs. An op whose inputs are all constants (written by the init "
    "net's deterministic ops and not fed: the setting inputs, comma-separated, which Export "
    "sets; or by ops folded before it) is run once by the "
    "production engine and replaced by a GivenTensor*Fill of its results in the init net, when it "
    "is deterministic, on the CPU, without sub-nets, its results float, int32, int64 or bool (at "
    "most 65,536 elements each op), and its outputs neither external nor used before it. Nothing "
    "after an op with sub-nets folds. Same external outputs.",
    true, ConstantFold, /*uses_constants=*/true});

}  // namespace
}  // namespace parity::transforms
