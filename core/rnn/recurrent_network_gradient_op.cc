// RecurrentNetworkGradient (seed 000, RecurrentNetworkGradientOp): runs backward_step_net for
// t = T-1 .. 0 in the step workspace forward step t ran in, so it reads that step's intermediates.
//
// Inputs: [output gradients named by outputs_with_grads] + forward inputs + forward outputs (the
// step workspaces last). Outputs: d input 0, d each `param`, d each initial state.
//
// The backward step net is completed as Caffe2 completes it, in this order:
//   1. a param's gradient blob in the step net (param_grads[i], else the output's name) is renamed
//      `<name>_tmpstep`, so each step computes its own contribution;
//   2. prepended: rnn_internal_apply_link for the forward links and the backward links (the
//      gradient of `h_t` is a view of row t + 1 of `<state>_grad`, that of `h_{t-1}` of row t), and
//      before them, for each state whose `_all` output has a gradient,
//      rnn_internal_accumulate_gradient_input(timestep, d<out>_all, <state>_grad) adding row t of
//      it to row t + 1 of the state gradient;
//   3. appended: Sum(<param grad>, <param grad>_tmpstep) -> <param grad> per param.
// Before the steps: param gradients are zeroed, each state gradient is zeroed (Caffe2 zeroes its
// last row only and relies on the step net to write every other row; zeroing all of it keeps a
// step net that ignores h_{t-1} correct) and the gradient of a `_last` output is added to its last
// row. After them: an initial state's gradient is rows [0, L) of the state gradient (a view), or,
// for a [D] initial state broadcast over the batch, row 0 summed over the batch.
#include <cstring>
#include <memory>

#include "core/net.h"
#include "core/operator.h"
#include "core/ops/common/shape_util.h"
#include "core/rnn/links.h"
#include "core/rnn/recurrent_network_schema.h"

namespace parity {
namespace {

struct ParamGradient {
  int input = 0;              // the parameter, as an input of this op
  int output = 0;             // its gradient, as an output of this op
  std::string cell_gradient;  // the step net's per-step contribution (`_tmpstep`)
};

struct StateGradient {
  std::string state;
  std::string grad;              // `<state>_grad` (remapped)
  int all_gradient_input = -1;   // input holding the gradient of the state's `_all` output
  int last_gradient_input = -1;  // input holding the gradient of its `_last` output
};

void RenameEverywhere(caffe2::NetDef* net, const std::string& from, const std::string& to) {
  for (caffe2::OperatorDef& op : *net->mutable_op()) {
    for (std::string& in : *op.mutable_input()) {
      if (in == from) in = to;
    }
    for (std::string& out : *op.mutable_output()) {
      if (out == from) out = to;
    }
  }
}

template <typename T>
void Fill(Tensor* t, T value, int64_t begin, int64_t count) {
  T* data = t->mutable_data<T>();
  for (int64_t i = 0; i < count; ++i) data[begin + i] = value;
}

class RecurrentNetworkGradientOp final : public Operator {
 public:
  RecurrentNetworkGradientOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws), timestep_(Arg<std::string>("timestep")) {
    PARITY_ENFORCE(HasBackwardStepNet(args()), ErrorKind::kBadArgument, label(),
                   ": needs backward_step_net (the forward RecurrentNetwork was built "
                   "forward-only)");
    step_def_ = args().GetNet("backward_step_net");
    const auto with_grads = Args<int64_t>("outputs_with_grads");
    num_output_grads_ = static_cast<int>(with_grads.size());
    PARITY_ENFORCE(num_output_grads_ + 2 <= InputSize(), ErrorKind::kBadArgument, label(), ": has ",
                   InputSize(), " inputs, fewer than the ", num_output_grads_,
                   " output gradients + input 0 + the step workspaces");

    // Every link by its memonger name (`<blob>.rename`), as Caffe2's remappedLink.
    std::vector<RnnLink> links = RemappedLinks(args(), ReadLinks(args(), "", true));
    backward_links_ = RemappedLinks(args(), ReadLinks(args(), "backward_", false));
    // The gradient of input 0 is linked into `<input>_grad`; when the backward pass named this
    // op's output 0 otherwise (an `_autosplit_` name: several ops read the input), the links
    // write that output instead, so another op's `<input>_grad` is left alone.
    const std::string canonical = RemappedName(args(), InputName(num_output_grads_) + "_grad");
    for (RnnLink& l : backward_links_) {
      if (l.external == canonical) l.external = OutputName(0);
    }
    input_grad_name_ = OutputName(0);
    links.insert(links.end(), backward_links_.begin(), backward_links_.end());

    // 1. Params: per-step contributions go to `_tmpstep`.
    const auto params = Args<int64_t>("param");
    const auto param_grads = Args<std::string>("param_grads");
    PARITY_ENFORCE(param_grads.empty() || param_grads.size() == params.size(),
                   ErrorKind::kBadArgument, label(), ": param (", params.size(),
                   ") and param_grads (", param_grads.size(), ") must have the same length");
    PARITY_ENFORCE(1 + static_cast<int>(params.size()) <= OutputSize(), ErrorKind::kBadArgument,
                   label(), ": has ", OutputSize(), " outputs, fewer than d input 0 + ",
                   params.size(), " param gradients");
    for (size_t i = 0; i < params.size(); ++i) {
      ParamGradient p;
      p.input = ForwardInput(params[i], "param");
      p.output = 1 + static_cast<int>(i);
      const std::string grad =
          param_grads.empty() ? OutputName(p.output) : RemappedName(args(), param_grads[i]);
      p.cell_gradient = grad + "_tmpstep";
      RenameEverywhere(&step_def_, grad, p.cell_gradient);
      params_.push_back(p);
    }

    // States, and which output gradients reach them.
    const auto states = Args<std::string>("recurrent_states");
    const auto init_ids = Args<int64_t>("initial_recurrent_state_ids");
    PARITY_ENFORCE(states.size() == init_ids.size(), ErrorKind::kBadArgument, label(),
                   ": recurrent_states and initial_recurrent_state_ids differ in length");
    PARITY_ENFORCE(1 + params.size() + states.size() <= static_cast<size_t>(OutputSize()),
                   ErrorKind::kBadArgument, label(), ": has ", OutputSize(),
                   " outputs, fewer than d input 0 + ", params.size(), " params + ", states.size(),
                   " initial states");
    const auto alias_src = Args<std::string>("alias_src");
    const auto alias_offset = Args<int64_t>("alias_offset");
    for (size_t i = 0; i < states.size(); ++i) {
      StateGradient rg;
      rg.state = states[i];
      rg.grad = RemappedName(args(), states[i] + "_grad");
      for (size_t j = 0; j < alias_src.size() && j < alias_offset.size(); ++j) {
        if (alias_src[j] != states[i]) continue;
        for (int k = 0; k < num_output_grads_; ++k) {
          if (with_grads[k] != static_cast<int64_t>(j)) continue;
          PARITY_ENFORCE(alias_offset[j] == 1 || alias_offset[j] == -1, ErrorKind::kBadArgument,
                         label(), ": output ", j, " (an alias of state '", states[i],
                         "' at offset ", alias_offset[j],
                         ") has a gradient, but only offsets 1 (_all) and -1 (_last) can");
          (alias_offset[j] == 1 ? rg.all_gradient_input : rg.last_gradient_input) = k;
        }
      }
      state_grads_.push_back(rg);
      init_inputs_.push_back(ForwardInput(init_ids[i], "initial_recurrent_state_ids"));
    }

    // 2. Accumulation of `_all` gradients, then the links (prepended, so links run first).
    std::vector<caffe2::OperatorDef> accumulate;
    for (const StateGradient& rg : state_grads_) {
      if (rg.all_gradient_input < 0) continue;
      caffe2::OperatorDef op;
      op.set_type("rnn_internal_accumulate_gradient_input");
      op.add_input(timestep_);
      op.add_input(InputName(rg.all_gradient_input));
      op.add_input(rg.grad);
      op.add_output(rg.grad);
      *op.mutable_device_option() = def.device_option();
      caffe2::Argument* offset = op.add_arg();
      offset->set_name("offset");
      offset->set_i(1);
      accumulate.push_back(std::move(op));
      step_def_.add_external_input(InputName(rg.all_gradient_input));
      step_def_.add_external_input(rg.grad);
    }
    step_def_.add_external_input(timestep_);
    PrependOps(std::move(accumulate), &step_def_);
    PrependApplyLinkOps(links, timestep_, def.device_option(), &step_def_);
    // 3. Sum of each step's parameter gradient into the op's output.
    for (const ParamGradient& p : params_) {
      caffe2::OperatorDef* sum = step_def_.add_op();
      sum->set_type("Sum");
      sum->add_input(OutputName(p.output));
      sum->add_input(p.cell_gradient);
      sum->add_output(OutputName(p.output));
      *sum->mutable_device_option() = def.device_option();
    }
    // State gradients and d input 0 are op-level blobs the step nets reach through the links.
    for (const StateGradient& rg : state_grads_) ws->CreateBlob(rg.grad);
    ws->CreateBlob(input_grad_name_);
    step_net_name_ = StepNetName("backward_step_net", InputName(InputSize() - 1), step_def_);
  }

  void Run() override {
    const Tensor& x = Input(num_output_grads_);
    PARITY_ENFORCE(x.ndim() >= 2, ErrorKind::kShapeMismatch, label(), ": forward input 0 '",
                   InputName(num_output_grads_), "' must be T x N x ..., got ", x.DebugString());
    const int64_t steps = x.dim(0), batch = x.dim(1);
    Blob* scratch_blob = InputBlob(InputSize() - 1);
    PARITY_ENFORCE(scratch_blob->Holds<RnnScratch>(), ErrorKind::kBadArgument, label(),
                   ": the last input '", InputName(InputSize() - 1), "' holds ",
                   scratch_blob->Describe(), ", not RecurrentNetwork's step workspaces");
    RnnScratch* scratch = scratch_blob->GetObject<RnnScratch>();
    PARITY_ENFORCE(static_cast<int64_t>(scratch->step_workspaces.size()) >= steps &&
                       scratch->shared_blobs != nullptr,
                   ErrorKind::kBadArgument, label(), ": the forward RecurrentNetwork kept ",
                   scratch->step_workspaces.size(), " step workspaces for ", steps,
                   " timesteps (was it run, with a backward_step_net?)");

    shape_util::DispatchFloating(x, label(), InputName(num_output_grads_), [&](auto zero) {
      using T = decltype(zero);
      for (const ParamGradient& p : params_) {
        Tensor* g = Output(p.output);
        g->ResizeLike(Input(p.input));
        Fill<T>(g, T(0), 0, g->numel());
      }
      for (const StateGradient& rg : state_grads_) {
        const Tensor& state = workspace()->GetBlobOrThrow(rg.state)->GetTensor();
        PARITY_ENFORCE(state.ndim() == 3, ErrorKind::kShapeMismatch, label(), ": state '", rg.state,
                       "' must be (T + L) x N x D, got ", state.DebugString());
        Tensor* g = workspace()->GetBlob(rg.grad)->GetMutableTensor(device());
        g->ResizeLike(state);
        Fill<T>(g, T(0), 0, g->numel());
        if (rg.last_gradient_input >= 0) AddLastGradient<T>(rg, g);
      }
      Tensor* dx = workspace()->GetBlob(input_grad_name_)->GetMutableTensor(device());
      dx->ResizeLike(x);
      Fill<T>(dx, T(0), 0, dx->numel());
    });

    // Blobs the backward step net writes that step 0 does not have are shared by all steps.
    if (!scratch->step_workspaces.empty() && scratch->step_workspaces[0] != nullptr) {
      for (const caffe2::OperatorDef& op : step_def_.op()) {
        for (const std::string& out : op.output()) {
          if (!scratch->step_workspaces[0]->HasBlob(out)) {
            scratch->shared_blobs->CreateBlob(out);
          }
        }
      }
    }
    for (int64_t t = steps - 1; t >= 0; --t) {
      Workspace* ws = scratch->step_workspaces[t].get();
      PARITY_ENFORCE(ws != nullptr, ErrorKind::kBadArgument, label(), ": no step workspace for ",
                     "timestep ", t, " (the forward RecurrentNetwork did not run it)");
      SetTimestep(ws, timestep_, t);
      try {
        StepNet(ws, step_net_name_, step_def_)->Run();
        for (const RnnLink& link : backward_links_) {
          SettleLink(link, t, workspace()->GetBlobOrThrow(link.external)->GetTensor(),
                     ws->GetBlob(link.internal));
        }
      } catch (Error& e) {
        e.AddContext("backward step " + std::to_string(t) + " of " + label());
        throw;
      }
    }

    for (size_t i = 0; i < state_grads_.size(); ++i) {
      const Tensor& init = Input(init_inputs_[i]);
      const Tensor& g = workspace()->GetBlob(state_grads_[i].grad)->GetTensor();
      Tensor* out = Output(1 + static_cast<int>(params_.size() + i));
      if (init.ndim() >= 2) {
        *out = g.View(0, init.dims());
        continue;
      }
      shape_util::DispatchFloating(g, label(), state_grads_[i].grad, [&](auto zero) {
        using T = decltype(zero);
        const int64_t d = init.numel();
        out->Resize(init.dims());
        T* o = out->mutable_data<T>();
        const T* src = g.data<T>();
        for (int64_t k = 0; k < d; ++k) o[k] = T(0);
        for (int64_t n = 0; n < batch; ++n) {
          for (int64_t k = 0; k < d; ++k) o[k] += src[n * d + k];
        }
      });
    }
  }

 private:
  // Input `index` of the forward op, as an input of this op.
  int ForwardInput(int64_t index, const char* what) const {
    const int64_t at = index + num_output_grads_;
    PARITY_ENFORCE(index >= 0 && at < InputSize() - 1, ErrorKind::kBadArgument, label(), ": ", what,
                   " names forward input ", index, ", which this op does not have");
    return static_cast<int>(at);
  }

  template <typename T>
  void AddLastGradient(const StateGradient& rg, Tensor* g) {
    const Tensor& last = Input(rg.last_gradient_input);
    const int64_t row = g->numel() / g->dim(0);
    PARITY_ENFORCE(last.dtype() == g->dtype() && last.numel() == row && last.ndim() == 3 &&
                       last.dim(1) == g->dim(1) && last.dim(2) == g->dim(2),
                   ErrorKind::kShapeMismatch, label(), ": the gradient '",
                   InputName(rg.last_gradient_input), "' of a _last output is ", last.DebugString(),
                   "; state '", rg.state, "' has rows of ", g->dim(1), " x ", g->dim(2));
    T* dst = g->mutable_data<T>() + (g->dim(0) - 1) * row;
    const T* src = last.data<T>();
    for (int64_t i = 0; i < row; ++i) dst[i] += src[i];
  }

  caffe2::NetDef step_def_;
  std::string timestep_;
  std::vector<RnnLink> backward_links_;
  int num_output_grads_ = 0;
  std::vector<ParamGradient> params_;
  std::vector<StateGradient> state_grads_;
  std::vector<int> init_inputs_;
  std::string input_grad_name_;
  std::string step_net_name_;
};

}  // namespace

PARITY_REGISTER_CPU_OPERATOR(RecurrentNetworkGradient, RecurrentNetworkGradientOp);

}  // namespace parity
