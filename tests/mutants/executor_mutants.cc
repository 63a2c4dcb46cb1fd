// Mutants of the executors (core/net.cc's SimpleNet, core/dag_net.cc's DagNet): the bugs an
// executor author makes — an off-by-one in the op loop, a dependency kind forgotten. Each is
// planted through the ReplaceNetType seam. The forward oracle compares what the executor computes
// (not the in-order replay localization uses) and blames the executor when the ops run in order
// agree with the truth; the determinism oracle compares SimpleNet with the DAG executor.
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/net.h"
#include "tests/mutants/mutant_cases.h"
#include "tests/mutants/mutant_wrap.h"

namespace parity::mutants {
namespace {

// SimpleNet's loop stopping one op short.
class SkipsLastOp final : public NetBase {
 public:
  using NetBase::NetBase;
  void Run() override {
    for (int i = 0; i + 1 < static_cast<int>(ops().size()); ++i) RunOp(i);
  }
};

// A DAG executor that orders ops by read-after-write only (an op waits for the writers of what
// it reads, not for earlier readers of what it overwrites), run one at a time taking the
// latest-defined ready op first, so a forgotten write-after-read edge shows every time.
class IgnoresWriteAfterRead final : public NetBase {
 public:
  using NetBase::NetBase;
  void Run() override {
    const int n = static_cast<int>(ops().size());
    std::vector<std::set<int>> parents(n);
    std::map<std::string, int> last_writer;
    for (int i = 0; i < n; ++i) {
      for (const auto& in : def().op(i).input()) {
        auto it = last_writer.find(in);
        if (it != last_writer.end()) parents[i].insert(it->second);
      }
      for (const auto& out : def().op(i).output()) last_writer[out] = i;
    }
    std::vector<bool> done(n, false);
    for (int ran = 0; ran < n; ++ran) {
      for (int i = n - 1; i >= 0; --i) {
        if (done[i]) continue;
        bool ready = true;
        for (int p : parents[i]) ready = ready && done[p];
        if (!ready) continue;
        RunOp(i);
        done[i] = true;
        break;
      }
    }
  }
};

template <typename Net>
Mutant ExecutorMutant(const std::string& name, const std::string& type, const std::string& oracle,
                      const std::string& description) {
  Mutant m = M(name, "executor " + type, oracle, "executor", description);
  m.build = cases::ReadThenOverwriteCases();
  m.install = [type] {
    auto previous = std::make_shared<NetFactory>(
        ReplaceNetType(type, [](const caffe2::NetDef& def, Workspace* ws) {
          return std::unique_ptr<NetBase>(std::make_unique<Net>(def, ws));
        }));
    return std::function<void()>([type, previous] { ReplaceNetType(type, *previous); });
  };
  return m;
}

}  // namespace

void AddExecutorMutants(std::vector<Entry>* out) {
  out->push_back({ExecutorMutant<SkipsLastOp>("SIMPLE_NET_SKIPS_LAST_OP", "simple", "forward",
                                              "SimpleNet's loop stops one op short"),
                  Wrap{}});
  out->push_back({ExecutorMutant<IgnoresWriteAfterRead>(
                      "DAG_NET_IGNORES_WRITE_AFTER_READ", "dag", "determinism",
                      "the DAG executor lets an op overwrite a blob before an earlier op has read "
                      "it (read-after-write edges only)"),
                  Wrap{}});
}

}  // namespace parity::mutants
