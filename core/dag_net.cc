#include "core/dag_net.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <thread>

namespace parity {
namespace {

bool RunsNestedNets(const caffe2::OperatorDef& op) {
  for (const auto& arg : op.arg()) {
    if (arg.has_n() || arg.nets_size() > 0) return true;
    // RecurrentNetwork passes its step nets as text in string arguments.
    if (arg.name() == "step_net" || arg.name() == "backward_step_net") return true;
  }
  return false;
}

// Union-find over blob names: Alias makes its output share its input's storage.
class StorageGroups {
 public:
  explicit StorageGroups(const caffe2::NetDef& def) {
    for (const auto& op : def.op()) {
      if (op.type() == "Alias" && op.input_size() == 1 && op.output_size() == 1) {
        Union(op.input(0), op.output(0));
      }
    }
  }
  std::string Find(const std::string& name) {
    auto it = parent_.find(name);
    if (it == parent_.end() || it->second == name) return name;
    std::string root = Find(it->second);
    parent_[name] = root;
    return root;
  }

 private:
  void Union(const std::string& a, const std::string& b) {
    std::string ra = Find(a), rb = Find(b);
    if (ra != rb) parent_[rb] = ra;
    parent_.emplace(ra, ra);
  }
  std::map<std::string, std::string> parent_;
};

}  // namespace

std::vector<std::vector<int>> ComputeOpDependencies(const caffe2::NetDef& def) {
  StorageGroups groups(def);
  const int n = def.op_size();
  std::vector<std::set<int>> parents(n);
  std::map<std::string, int> last_writer;
  std::map<std::string, std::vector<int>> readers_since_write;
  int last_barrier = -1;
  for (int j = 0; j < n; ++j) {
    const auto& op = def.op(j);
    if (RunsNestedNets(op)) {
      for (int i = 0; i < j; ++i) parents[j].insert(i);
      last_barrier = j;
      last_writer.clear();
      readers_since_write.clear();
      continue;
    }
    if (last_barrier >= 0) parents[j].insert(last_barrier);
    for (const auto& input : op.input()) {
      std::string g = groups.Find(input);
      if (auto it = last_writer.find(g); it != last_writer.end()) parents[j].insert(it->second);
    }
    for (const auto& control : op.control_input()) {
      std::string g = groups.Find(control);
      if (auto it = last_writer.find(g); it != last_writer.end()) parents[j].insert(it->second);
    }
    for (const auto& output : op.output()) {
      std::string g = groups.Find(output);
      if (auto it = last_writer.find(g); it != last_writer.end()) parents[j].insert(it->second);
      for (int reader : readers_since_write[g]) parents[j].insert(reader);
    }
    for (const auto& input : op.input()) readers_since_write[groups.Find(input)].push_back(j);
    for (const auto& output : op.output()) {
      std::string g = groups.Find(output);
      last_writer[g] = j;
      readers_since_write[g].clear();
    }
  }
  std::vector<std::vector<int>> out(n);
  for (int j = 0; j < n; ++j) {
    parents[j].erase(j);
    out[j].assign(parents[j].begin(), parents[j].end());
  }
  return out;
}

DagNet::DagNet(const caffe2::NetDef& def, Workspace* ws) : NetBase(def, ws) {
  parents_ = ComputeOpDependencies(def_);
  children_.resize(parents_.size());
  for (size_t j = 0; j < parents_.size(); ++j) {
    for (int i : parents_[j]) children_[i].push_back(static_cast<int>(j));
    if (parents_[j].empty()) roots_.push_back(static_cast<int>(j));
  }
  // NetDef.num_workers is a hint: more threads than ops, or far more than cores, cannot run
  // anything sooner, and a net asking for 100000 would spend minutes creating them (the result
  // never depends on the count). So it is capped at the op count and at 4 threads per core.
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  int workers = def_.num_workers() > 0 ? def_.num_workers() : cores;
  workers = std::max(1, std::min({workers, 4 * cores, static_cast<int>(parents_.size())}));
  pool_ = std::make_unique<ThreadPool>(workers);
}

void DagNet::Run() {
  const int n = static_cast<int>(ops_.size());
  if (n == 0) return;
  std::vector<std::atomic<int>> waiting(n);
  for (int j = 0; j < n; ++j) waiting[j].store(static_cast<int>(parents_[j].size()));
  std::mutex mutex;
  std::condition_variable all_done;
  int finished = 0;
  bool failed = false;
  std::optional<Error> first_error;
  int first_error_index = n;
  std::exception_ptr foreign_error;

  // Runs op j, then schedules the children it released. Once an op fails, only ops before it in
  // the net still start: one of them may fail as well, and the error thrown is then the first in
  // the net's order, as SimpleNet's, whatever the schedule (two independent failing ops once made
  // the determinism oracle's two executors name different ops). After a foreign exception, none.
  std::function<void(int)> run_op = [&](int j) {
    bool ok = true;
    {
      std::lock_guard<std::mutex> lock(mutex);
      ok = !failed || (!foreign_error && j < first_error_index);
    }
    if (ok) {
      try {
        RunOp(j);
      } catch (const Error& error) {
        std::lock_guard<std::mutex> lock(mutex);
        failed = true;
        if (j < first_error_index) {
          first_error_index = j;
          first_error = error;
        }
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex);
        failed = true;
        if (!foreign_error) foreign_error = std::current_exception();
      }
    }
    // Children are released even after a failure so the run drains and `finished` reaches n.
    for (int child : children_[j]) {
      if (waiting[child].fetch_sub(1) == 1) pool_->Submit([&run_op, child] { run_op(child); });
    }
    std::lock_guard<std::mutex> lock(mutex);
    if (++finished == n) all_done.notify_all();
  };

  for (int root : roots_) pool_->Submit([&run_op, root] { run_op(root); });
  std::unique_lock<std::mutex> lock(mutex);
  all_done.wait(lock, [&] { return finished == n; });
  if (first_error) throw *first_error;
  if (foreign_error) std::rethrow_exception(foreign_error);
}

namespace {
std::unique_ptr<NetBase> MakeDagNet(const caffe2::NetDef& def, Workspace* ws) {
  return std::make_unique<DagNet>(def, ws);
}
const bool kDagRegistered =
    RegisterNetType("dag", MakeDagNet) && RegisterNetType("async_dag", MakeDagNet) &&
    RegisterNetType("async_scheduling", MakeDagNet) && RegisterNetType("async_simple", MakeDagNet);
}  // namespace

}  // namespace parity
