#include "oracles/device_determinism.h"

#include <algorithm>

#include "oracles/finding.h"
#include "oracles/tolerance.h"

namespace parity::oracles {

const std::set<std::string>& CudaNondeterministicOps() {
  // Add an op type here, with why, when its CUDA kernel starts using float atomics.
  static const auto* ops = new std::set<std::string>();
  return *ops;
}

std::set<std::string> NondeterministicBlobs(const caffe2::NetDef& net,
                                            const std::set<std::string>& ops) {
  std::set<std::string> blobs;
  for (const auto& op : net.op()) {
    bool tainted = ops.count(op.type()) > 0;
    for (const auto& in : op.input()) tainted = tainted || blobs.count(in) > 0;
    if (!tainted) continue;
    for (const auto& out : op.output()) blobs.insert(out);
  }
  return blobs;
}

namespace {

// The index of the first op whose traced outputs differ between the runs (a blob missing on one
// side counts), skipping the declared-nondeterministic blobs; -1 when the traces agree or are
// absent.
int FirstDifferingOp(const BackendRun& first, const BackendRun& second,
                     const std::set<std::string>& skipped) {
  const size_t ops = std::min(first.trace.size(), second.trace.size());
  for (size_t i = 0; i < ops; ++i) {
    const OpTrace& a = first.trace[i];
    const OpTrace& b = second.trace[i];
    for (const auto& [blob, tensor] : a.outputs) {
      if (skipped.count(blob)) continue;
      auto other = b.outputs.find(blob);
      if (other == b.outputs.end() || !BitwiseEqual(tensor, other->second)) return a.op_index;
    }
  }
  return -1;
}

}  // namespace

std::optional<Finding> CompareDeviceRuns(const Case& c, const BackendRun& first,
                                         const BackendRun& second,
                                         const std::set<std::string>& nondeterministic_ops) {
  if (first.error || second.error) {
    if (first.error && second.error && std::string(first.error->what()) == second.error->what()) {
      return std::nullopt;
    }
    const Error& error = first.error ? *first.error : *second.error;
    Finding finding = MakeFinding(
        "device", c, kDeviceNondeterminism,
        std::string("the same case twice on the GPU: ") +
            (first.error && second.error ? "the runs failed differently"
                                         : "one run failed and the other did not") +
            ": " + error.what());
    const int index = FailingOpIndex(error);
    if (index >= 0 && index < c.net().op_size()) SetBlame(&finding, index, c.net());
    return finding;
  }
  const std::set<std::string> skipped = NondeterministicBlobs(c.net(), nondeterministic_ops);
  for (const std::string& blob : ComparedBlobs(c)) {
    if (skipped.count(blob)) continue;
    auto x = first.blobs.find(blob), y = second.blobs.find(blob);
    if (x == first.blobs.end() && y == second.blobs.end()) continue;
    std::string what;
    if (x == first.blobs.end() || y == second.blobs.end()) {
      what = "blob '" + blob + "' is missing from one run";
    } else if (!BitwiseEqual(x->second, y->second)) {
      what = "blob '" + blob + "' differs between the runs";
    } else {
      continue;
    }
    Finding finding = MakeFinding("device", c, kDeviceNondeterminism,
                                  "the same case twice on the GPU: " + what);
    if (x != first.blobs.end() && y != second.blobs.end()) {
      // "exact": any bit that moved is out of tolerance, and the comparison names where.
      const Comparison comparison =
          CompareWithTruth(x->second, x->second, y->second, GetToleranceClass("exact"));
      AddComparison(&finding, blob, x->second, y->second, comparison);
    }
    const int index = FirstDifferingOp(first, second, skipped);
    if (index >= 0 && index < c.net().op_size()) {
      SetBlame(&finding, index, c.net());
      finding.set_message(finding.message() + "; first differing op #" + std::to_string(index) +
                          " (" + c.net().op(index).type() + ")");
    }
    return finding;
  }
  return std::nullopt;
}

}  // namespace parity::oracles
