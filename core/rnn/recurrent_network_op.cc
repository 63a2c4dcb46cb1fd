// RecurrentNetwork (seed 000, RecurrentNetworkOp): runs `step_net` once per timestep of input 0
// (T x N x ...), in step workspaces under the op's workspace.
//
// * Recurrent states: for each (recurrent_states[i], initial_recurrent_state_ids[i]) a
//   (T + L) x N x D tensor in the op's workspace, rows [0, L) from the initial-state input: [D]
//   (copied to every batch row), [N, D] (L = 1) or [L, N, D].
// * Each step t runs in its workspace: one per timestep when a backward step net exists (the
//   gradient reads every step's intermediates there), else `num_workspaces` (default 2) in turn.
//   Step workspaces read through a shared one (recompute_blobs_on_backward live there) to the
//   op's workspace. `timestep` (int32 [1]) is local to each.
// * The step net gets one rnn_internal_apply_link per link first, so every linked blob is a view
//   of its rows of the op-level blob: the step reads x_t and h_{t-1} and writes h_t in place.
//   After the step, each link must still be that view (a kernel that reallocated its output
//   instead of writing through it would lose the write): one that still has the right shape is
//   copied into its rows, anything else is a kShapeMismatch naming the link and the step.
// * After the last step every alias_dst is a view of its rows of alias_src (`_all` offset 1,
//   `_last` offset -1). The last output holds the step workspaces (RnnScratch) for the gradient.
// * Link externals and aliases follow `<blob>.rename` arguments (RemappedName), as the gradient
//   op does in Caffe2: memonger (core/transforms/memonger.h) renames the op's inputs and outputs.
// Differences from Caffe2: T and the batch come from input 0 as in Caffe2, but bad shapes, links
// outside their tensors and non-float dtypes are errors instead of undefined behaviour; float and
// double are both accepted (Caffe2: float).
#include <functional>
#include <memory>

#include "core/net.h"
#include "core/operator.h"
#include "core/rnn/links.h"
#include "core/rnn/recurrent_network_schema.h"

namespace parity {
namespace {

struct RecurrentInput {
  std::string state;
  int input = 0;
};

class RecurrentNetworkOp final : public Operator {
 public:
  RecurrentNetworkOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws),
        step_def_(args().GetNet("step_net")),
        timestep_(Arg<std::string>("timestep")),
        links_(RemappedLinks(args(), ReadLinks(args(), "", true))),
        aliases_(ReadAliases(args())),
        has_backward_(HasBackwardStepNet(args())) {
    for (RnnAlias& alias : aliases_) {
      alias.src = RemappedName(args(), alias.src);
      alias.dst = RemappedName(args(), alias.dst);
    }
    const auto states = Args<std::string>("recurrent_states");
    const auto ids = Args<int64_t>("initial_recurrent_state_ids");
    PARITY_ENFORCE(states.size() == ids.size(), ErrorKind::kBadArgument, label(),
                   ": recurrent_states (", states.size(), ") and initial_recurrent_state_ids (",
                   ids.size(), ") must have the same length");
    for (size_t i = 0; i < states.size(); ++i) {
      PARITY_ENFORCE(ids[i] >= 0 && ids[i] < InputSize(), ErrorKind::kBadArgument, label(),
                     ": initial_recurrent_state_ids[", i, "] = ", ids[i],
                     " is not an input index (the op has ", InputSize(), " inputs)");
      // States are op-level blobs: the gradient op reads them from the same workspace.
      ws->CreateBlob(states[i]);
      inputs_.push_back({states[i], static_cast<int>(ids[i])});
    }
    num_workspaces_ = Arg<int64_t>("num_workspaces");
    PARITY_ENFORCE(num_workspaces_ >= 1, ErrorKind::kBadArgument, label(),
                   ": num_workspaces must be >= 1, got ", num_workspaces_);
    step_def_.add_external_input(timestep_);
    PrependApplyLinkOps(links_, timestep_, def.device_option(), &step_def_);
    step_net_name_ = StepNetName("step_net", OutputName(OutputSize() - 1), step_def_);
  }

  void Run() override {
    const Tensor& x = Input(0);
    PARITY_ENFORCE(x.ndim() >= 2, ErrorKind::kShapeMismatch, label(), ": input 0 '", InputName(0),
                   "' must be T x N x ..., got ", x.DebugString());
    const int64_t steps = x.dim(0), batch = x.dim(1);
    for (const RecurrentInput& ri : inputs_) InitializeState(ri, steps, batch);

    Blob* scratch_blob = OutputBlob(OutputSize() - 1);
    if (!scratch_blob->Holds<RnnScratch>()) {
      scratch_blob->ResetObject(std::make_shared<RnnScratch>());
    }
    RnnScratch* scratch = scratch_blob->GetObject<RnnScratch>();
    if (scratch->shared_blobs == nullptr) {
      scratch->shared_blobs = std::make_shared<Workspace>(workspace());
    }
    for (const std::string& b : Args<std::string>("recompute_blobs_on_backward")) {
      scratch->shared_blobs->CreateBlob(b);
    }
    auto& step_ws = scratch->step_workspaces;
    const int64_t needed = has_backward_ ? steps : num_workspaces_;
    if (static_cast<int64_t>(step_ws.size()) < needed) step_ws.resize(needed);

    for (int64_t t = 0; t < steps; ++t) {
      std::shared_ptr<Workspace>& ws = step_ws[has_backward_ ? t : t % num_workspaces_];
      if (ws == nullptr) ws = std::make_shared<Workspace>(scratch->shared_blobs.get());
      SetTimestep(ws.get(), timestep_, t);
      try {
        StepNet(ws.get(), step_net_name_, step_def_)->Run();
        SettleLinks(ws.get(), t);
      } catch (Error& e) {
        e.AddContext("step " + std::to_string(t) + " of " + label());
        throw;
      }
    }

    for (const RnnAlias& alias : aliases_) {
      Blob* src = workspace()->GetBlob(alias.src);
      PARITY_ENFORCE(src != nullptr && src->IsTensor(), ErrorKind::kBadArgument, label(),
                     ": alias_src '", alias.src, "' is not a tensor blob of the workspace");
      ApplyOffsetAlias(alias, src->GetTensor(), DestinationOf(alias.dst));
    }
  }

 private:
  void InitializeState(const RecurrentInput& ri, int64_t steps, int64_t batch) {
    const Tensor& init = Input(ri.input);
    PARITY_ENFORCE(init.ndim() >= 1 && init.ndim() <= 3, ErrorKind::kShapeMismatch, label(),
                   ": initial state '", InputName(ri.input), "' of '", ri.state,
                   "' must be [D], [N, D] or [L, N, D], got ", init.DebugString());
    PARITY_ENFORCE(init.dtype() == Input(0).dtype(), ErrorKind::kShapeMismatch, label(),
                   ": initial state '", InputName(ri.input), "' is ", init.DebugString(),
                   " but input 0 is ", Input(0).DebugString());
    PARITY_ENFORCE(init.dtype() == DataType::kFloat || init.dtype() == DataType::kDouble,
                   ErrorKind::kShapeMismatch, label(),
                   ": recurrent states must be float or "
                   "double, '",
                   InputName(ri.input), "' is ", init.DebugString());
    if (init.ndim() >= 2) {
      PARITY_ENFORCE(init.dim(-2) == batch, ErrorKind::kShapeMismatch, label(), ": initial state '",
                     InputName(ri.input), "' ", init.DebugString(), " has batch ", init.dim(-2),
                     " but input 0 '", InputName(0), "' ", Input(0).DebugString(), " has batch ",
                     batch);
    }
    const int64_t d = init.dim(-1), len = init.ndim() == 3 ? init.dim(0) : 1;
    Tensor* state = workspace()->GetBlob(ri.state)->GetMutableTensor(device());
    state->Resize({steps + len, batch, d});
    char* dst = static_cast<char*>(state->raw_mutable_data(init.dtype()));
    const char* src = static_cast<const char*>(init.raw_data());
    // On the op's device (CopyBytes): the op runs on CUDA as it does on the CPU.
    PARITY_ENFORCE(init.device() == state->device(), ErrorKind::kBadArgument, label(),
                   ": initial state '", InputName(ri.input), "' is on device type ",
                   init.device().type, " but the op runs on device type ", state->device().type);
    if (init.ndim() >= 2) {
      CopyBytes(state->device(), dst, src, init.nbytes());
    } else {
      for (int64_t n = 0; n < batch; ++n) {
        CopyBytes(state->device(), dst + n * init.nbytes(), src, init.nbytes());
      }
    }
  }

  // After step t: every link must still be its view (see the file comment).
  void SettleLinks(Workspace* ws, int64_t t) {
    for (const RnnLink& link : links_) {
      SettleLink(link, t, workspace()->GetBlobOrThrow(link.external)->GetTensor(),
                 ws->GetBlob(link.internal));
    }
  }

  Tensor* DestinationOf(const std::string& name) {
    for (int o = 0; o + 1 < OutputSize(); ++o) {
      if (OutputName(o) == name) return Output(o);
    }
    return workspace()->CreateBlob(name)->GetMutableTensor(device());
  }

  caffe2::NetDef step_def_;
  std::string timestep_;
  std::vector<RnnLink> links_;
  std::vector<RnnAlias> aliases_;
  bool has_backward_;
  std::vector<RecurrentInput> inputs_;
  int64_t num_workspaces_ = 2;
  std::string step_net_name_;
};

}  // namespace

bool HasBackwardStepNet(const ArgumentHelper& args) {
  const caffe2::Argument* arg = args.Find("backward_step_net");
  return arg != nullptr && (arg->has_n() || (arg->has_s() && !arg->s().empty()));
}

std::string StepNetName(const std::string& which, const std::string& scratch,
                        const caffe2::NetDef& def) {
  // Keyed by the net's content: the step workspaces outlive the op (they sit in the scratch blob),
  // and a rebuilt net may put a different RecurrentNetwork on the same scratch blob.
  const size_t hash = std::hash<std::string>()(def.SerializeAsString());
  return "rnn:" + which + ":" + scratch + ":" + std::to_string(hash);
}

PARITY_REGISTER_CPU_OPERATOR(RecurrentNetwork, RecurrentNetworkOp);

}  // namespace parity
