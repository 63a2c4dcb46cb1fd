// The memonger passes (core/transforms/memonger.h): optimize_inference_for_dag shares every blob
// the net keeps to itself, share_grad_blobs only gradients. Both check their result the way
// Caffe2 asserts it (verify_graph_equality, verify_inplace_blobs): a failed check is kInternal,
// a bug of the pass.
#include <sstream>

#include "core/proto/error.h"
#include "core/transforms/memonger.h"
#include "core/transforms/net_edits.h"
#include "core/transforms/pass.h"

namespace parity::transforms {
namespace {

std::string Setting(const TransformedNet& t, const std::string& name) {
  auto found = t.settings.find(name);
  return found == t.settings.end() ? "" : found->second;
}

std::set<std::string> CommaSeparated(const std::string& text) {
  std::set<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    if (!item.empty()) out.insert(item);
  }
  return out;
}

void ShareBlobs(TransformedNet* t, const std::string& pass, const std::string& namescope,
                const std::function<bool(const std::string&)>& shareable) {
  const caffe2::NetDef before = t->predict;
  const auto ranges = ComputeLiveRanges(before, shareable);
  ApplyAssignments(ComputeBlobRecycling(before, ranges, namescope, NamesIn(*t)), &t->predict);
  const std::string unequal = GraphEqualityDifference(before, t->predict);
  PARITY_ENFORCE(unequal.empty(), ErrorKind::kInternal, pass,
                 ": Memonger graph is not equal to original: ", unequal);
  const std::string inplace = InplaceBlobsDifference(before, t->predict);
  PARITY_ENFORCE(inplace.empty(), ErrorKind::kInternal, pass,
                 ": Inplace assignments differ in memonger net: ", inplace);
}

void OptimizeInferenceForDag(TransformedNet* t) {
  const caffe2::NetDef& net = t->predict;
  std::set<std::string> seen_as_output(net.external_input().begin(), net.external_input().end());
  for (const auto& op : t->init.op()) seen_as_output.insert(op.output().begin(), op.output().end());
  for (const auto& op : net.op()) {
    for (const auto& blob : op.input()) {
      PARITY_ENFORCE(seen_as_output.count(blob), ErrorKind::kIllegalTransform,
                     "optimize_inference_for_dag: ", blob, " not in external input");
    }
    seen_as_output.insert(op.output().begin(), op.output().end());
    PARITY_ENFORCE(!op.is_gradient_op(), ErrorKind::kIllegalTransform,
                   "optimize_inference_for_dag: You can only pass inference-only nets to "
                   "optimize_inference_for_dag (",
                   op.type(), " is a gradient op)");
  }
  ShareBlobs(t, "optimize_inference_for_dag", Setting(*t, "namescope"),
             [](const std::string&) { return true; });
}

void ShareGradBlobs(TransformedNet* t) {
  std::string namescope = Setting(*t, "namescope");
  if (!namescope.empty() && namescope.back() != '/') namescope += '/';
  const std::set<std::string> param_grads = CommaSeparated(Setting(*t, "param_grads"));
  ShareBlobs(t, "share_grad_blobs", namescope, [&](const std::string& blob) {
    return blob.find("_grad") != std::string::npos &&
           (blob.rfind(namescope, 0) == 0 || blob.rfind("_" + namescope, 0) == 0) &&
           !param_grads.count(blob);
  });
}

PARITY_REGISTER_PASS(PassInfo{
    "optimize_inference_for_dag",
    "Requires an inference net (no gradient ops) whose ops read only external inputs and what "
    "earlier ops wrote. Blobs that are not external inputs or outputs share names when their "
    "lives (first write to last use, in op order) do not overlap; shared names are "
    "<namescope>__m<k>_shared (setting namescope). Never shared: names sub-nets use or ops with "
    "sub-nets name in arguments, Alias's blobs, RecurrentNetwork's step workspaces. Checked: every "
    "op reads what the same earlier op wrote, and no op becomes in place. Same external outputs.",
    true, OptimizeInferenceForDag, /*uses_constants=*/false, /*rewrites=*/{},
    /*settings=*/{"namescope"}});

PARITY_REGISTER_PASS(PassInfo{
    "share_grad_blobs",
    "Gradient blobs of a training net (names containing _grad, under the setting namescope, "
    "except the setting param_grads, comma-separated, and external outputs) share names when "
    "their lives do not overlap, as optimize_inference_for_dag; RecurrentNetworkGradient follows "
    "its renamed blobs through <blob>.rename arguments. Same external outputs.",
    true, ShareGradBlobs, /*uses_constants=*/false, /*rewrites=*/{},
    /*settings=*/{"namescope", "param_grads"}});

}  // namespace
}  // namespace parity::transforms
