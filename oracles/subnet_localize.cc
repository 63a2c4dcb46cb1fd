#include "oracles/subnet_localize.h"

#include <cstring>
#include <set>

#include "core/argument.h"
#include "core/tensor_proto.h"

namespace parity::oracles {
namespace {

// Deeper than any generated case nests; a bound on malformed recursion.
constexpr int kMaxDepth = 6;

// Blobs `ops` read before writing them, in first-read order.
std::vector<std::string> ReadsBeforeWrites(const caffe2::NetDef& net) {
  std::vector<std::string> reads;
  std::set<std::string> written, seen;
  for (const caffe2::OperatorDef& op : net.op()) {
    for (const std::string& in : op.input()) {
      if (!written.count(in) && seen.insert(in).second) reads.push_back(in);
    }
    for (const std::string& out : op.output()) written.insert(out);
  }
  return reads;
}

// The workspace stacks a Do of `net` reads (its last input): not tensors, so not among the
// truth's values; the body case makes fresh ones (a first pass starts from an empty stack).
std::set<std::string> StacksOfDos(const caffe2::NetDef& net) {
  std::set<std::string> stacks;
  for (const caffe2::OperatorDef& op : net.op()) {
    if (op.type() == "Do" && op.input_size() > 0) stacks.insert(op.input(op.input_size() - 1));
  }
  return stacks;
}

// A case running `net` once from `inputs` (name -> value); every blob the net reads first must be
// there, else nullopt (the body reads something this cut cannot supply). The truth's values are
// f64; they are fed as float, as the case's own float blobs held them (cases compute in float).
std::optional<Case> MakeCase(const caffe2::NetDef& body, const Blobs& inputs, uint64_t seed) {
  Case c;
  c.set_seed(seed);
  caffe2::NetDef* net = c.mutable_net();
  net->set_name(body.name());
  net->set_type("simple");
  const std::set<std::string> stacks = StacksOfDos(body);
  for (const std::string& blob : ReadsBeforeWrites(body)) {
    auto it = inputs.find(blob);
    if (it == inputs.end() && stacks.count(blob)) {
      // In the init net, so the body's ops keep their indices.
      c.mutable_init_net()->set_name(body.name() + "_stacks");
      caffe2::OperatorDef* scope = c.mutable_init_net()->add_op();
      scope->set_type("CreateScope");
      scope->add_output(blob);
      continue;
    }
    if (it == inputs.end()) return std::nullopt;
    *c.add_inputs() = AsCaseInput(it->second, blob);
    net->add_external_input(blob);
  }
  for (const caffe2::OperatorDef& op : body.op()) *net->add_op() = op;
  return c;
}

bool TruthValue(const Blobs& before, const std::string& blob, bool* value) {
  auto it = before.find(blob);
  if (it == before.end()) return false;
  const Tensor t = TensorFromProto(it->second);
  if (t.numel() != 1 || t.dtype() != DataType::kBool) return false;
  *value = t.data<bool>()[0];
  return true;
}

std::optional<Case> IfBody(const ArgumentHelper& args, const caffe2::OperatorDef& op,
                           const Blobs& before, uint64_t seed, std::string* label) {
  bool cond = false;
  if (op.input_size() < 1 || !TruthValue(before, op.input(0), &cond)) return std::nullopt;
  *label = cond ? "then" : "else";
  const char* branch = cond ? "then_net" : "else_net";
  if (!args.Has(branch)) return std::nullopt;
  return MakeCase(args.GetNet(branch), before, seed);
}

// Do: the inner names bound to the outer inputs get their values; the body sees nothing else.
std::optional<Case> DoBody(const ArgumentHelper& args, const caffe2::OperatorDef& op,
                           const Blobs& before, uint64_t seed) {
  const std::vector<std::string> inner = args.GetVector<std::string>("inner_blobs");
  const std::vector<int64_t> index = args.GetVector<int64_t>("outer_blobs_idx");
  if (inner.size() != index.size() || op.input_size() < 1) return std::nullopt;
  const int64_t data_inputs = op.input_size() - 1;  // the last input is the workspace stack
  Blobs bound;
  for (size_t k = 0; k < inner.size(); ++k) {
    if (index[k] < 0 || index[k] >= data_inputs) continue;  // an output binding
    auto it = before.find(op.input(static_cast<int>(index[k])));
    if (it != before.end()) bound[inner[k]] = it->second;
  }
  return MakeCase(args.GetNet("net"), bound, seed);
}

// While: the first pass, cond_net (when there is one) and then loop_net in the op's workspace.
std::optional<Case> WhileFirstPass(const ArgumentHelper& args, const Blobs& before, uint64_t seed) {
  caffe2::NetDef pass;
  pass.set_name("while_first_pass");
  if (args.Has("cond_net")) {
    const caffe2::NetDef cond = args.GetNet("cond_net");
    for (const auto& op : cond.op()) *pass.add_op() = op;
  }
  const caffe2::NetDef loop = args.GetNet("loop_net");
  for (const auto& op : loop.op()) *pass.add_op() = op;
  return MakeCase(pass, before, seed);
}

// Rows [first, first + count) of a [rows, ...] tensor.
Tensor Rows(const Tensor& t, int64_t first, int64_t count) {
  std::vector<int64_t> dims = t.dims();
  const int64_t row = t.dim(0) == 0 ? 0 : t.numel() / t.dim(0);
  dims[0] = count;
  Tensor out;
  out.CopyFrom(t.View(first * row, dims));
  return out;
}

// RecurrentNetwork's step 0: every link the step net reads gets its rows at t = 0 of the sequence
// input or of the recurrent state, whose first L rows are the initial state ([D] broadcast over
// the batch, [N, D] as one row, [L, N, D] as is).
std::optional<Case> RnnStepZero(const ArgumentHelper& args, const caffe2::OperatorDef& op,
                                const Blobs& before, uint64_t seed) {
  const auto internal = args.GetVector<std::string>("link_internal");
  const auto external = args.GetVector<std::string>("link_external");
  const auto offset = args.GetVector<int64_t>("link_offset");
  std::vector<int64_t> window = args.GetVector<int64_t>("link_window");
  if (window.empty()) window.assign(internal.size(), 1);
  const auto states = args.GetVector<std::string>("recurrent_states");
  const auto state_ids = args.GetVector<int64_t>("initial_recurrent_state_ids");
  if (internal.size() != external.size() || internal.size() != offset.size() ||
      internal.size() != window.size() || states.size() != state_ids.size() ||
      op.input_size() < 1) {
    return std::nullopt;
  }
  auto sequence = before.find(op.input(0));
  if (sequence == before.end()) return std::nullopt;
  const Tensor input = TensorFromProto(sequence->second);
  if (input.ndim() < 2) return std::nullopt;
  const int64_t batch = input.dim(1);

  // The state tensors' first rows: the initial states as [L, N, ...].
  std::map<std::string, Tensor> initial;
  for (size_t i = 0; i < states.size(); ++i) {
    if (state_ids[i] < 0 || state_ids[i] >= op.input_size()) return std::nullopt;
    auto it = before.find(op.input(static_cast<int>(state_ids[i])));
    if (it == before.end()) return std::nullopt;
    const Tensor init = TensorFromProto(it->second);
    Tensor rows;
    if (init.ndim() == 1) {
      rows.Resize({1, batch, init.numel()});
      const size_t bytes = init.nbytes();
      char* dst = static_cast<char*>(rows.raw_mutable_data(init.dtype()));
      for (int64_t n = 0; n < batch; ++n) std::memcpy(dst + n * bytes, init.raw_data(), bytes);
    } else if (init.ndim() == 2) {
      rows.CopyFrom(init.View(0, {1, init.dim(0), init.dim(1)}));
    } else {
      rows.CopyFrom(init);
    }
    initial[states[i]] = rows;
  }

  Blobs step = before;  // references (weights, seq_lengths) are read by their own names
  for (size_t k = 0; k < internal.size(); ++k) {
    auto state = initial.find(external[k]);
    const Tensor* source = nullptr;
    if (state != initial.end()) {
      source = &state->second;
    } else if (external[k] == op.input(0)) {
      source = &input;
    } else {
      continue;
    }
    // A link past the initial rows is written by the step (an output link), not read.
    if (offset[k] < 0 || offset[k] + window[k] > source->dim(0)) continue;
    step[internal[k]] = TensorToProto(Rows(*source, offset[k], window[k]), internal[k]);
  }
  Tensor timestep;
  timestep.Resize({1});
  timestep.mutable_data<int32_t>()[0] = 0;
  const std::string timestep_name = args.Get<std::string>("timestep", "timestep");
  step[timestep_name] = TensorToProto(timestep, timestep_name);
  return MakeCase(args.GetNet("step_net"), step, seed);
}

}  // namespace

std::optional<Case> BodyCase(const caffe2::OperatorDef& op, const Blobs& before, uint64_t seed,
                             std::string* label) {
  try {
    const ArgumentHelper args(op, nullptr);
    if (op.type() == "If") return IfBody(args, op, before, seed, label);
    if (op.type() == "Do" && args.Has("net")) {
      *label = "body";
      return DoBody(args, op, before, seed);
    }
    if (op.type() == "While" && args.Has("loop_net")) {
      *label = "loop";
      return WhileFirstPass(args, before, seed);
    }
    if (op.type() == "RecurrentNetwork" && args.Has("step_net")) {
      *label = "step";
      return RnnStepZero(args, op, before, seed);
    }
  } catch (const Error&) {
    // A malformed argument: the op's own run reports it; there is no body to look into.
  }
  return std::nullopt;
}

std::optional<InnerBlame> LocalizeInside(const caffe2::OperatorDef& op, const Blobs& before,
                                         uint64_t seed, const Backend& under_test,
                                         const ToleranceClass& tolerance, int depth) {
  if (depth >= kMaxDepth) return std::nullopt;
  std::string label;
  const std::optional<Case> body = BodyCase(op, before, seed, &label);
  if (!body) return std::nullopt;
  const RunOptions traced{/*trace=*/true, ""};
  const BackendRun production = under_test.Run(*body, traced);
  const BackendRun truth = GetBackend(kReference).Run(*body, traced);
  const BackendRun f32 = GetBackend(kReferenceF32).Run(*body, traced);
  if (truth.error || f32.error) return std::nullopt;
  const Blame blame = Localize(body->net(), CaseInputs(*body), production, truth, f32, tolerance);
  if (blame.op_index < 0) return std::nullopt;
  const caffe2::OperatorDef& inner = body->net().op(blame.op_index);
  int index = blame.op_index;
  if (op.type() == "While") {
    // The first pass is cond_net's ops, then loop_net's: each is numbered in its own net.
    const ArgumentHelper args(op, nullptr);
    const int cond_ops = args.Has("cond_net") ? args.GetNet("cond_net").op_size() : 0;
    if (index < cond_ops) {
      label = "cond";
    } else {
      index -= cond_ops;
    }
  }
  InnerBlame result{" / " + label + " op #" + std::to_string(index) + " (" + inner.type() + ")",
                    inner.type(), blame.blob, blame.comparison.detail};
  if (auto deeper =
          LocalizeInside(inner, blame.truth_before, seed, under_test, tolerance, depth + 1)) {
    result.path += deeper->path;
    result.op_type = deeper->op_type;
    result.blob = deeper->blob;
    result.detail = deeper->detail;
  }
  return result;
}

void BlameInside(Finding* finding, const caffe2::NetDef& net, const Blame& blame, uint64_t seed,
                 const Backend& under_test, const ToleranceClass& tolerance) {
  if (blame.op_index < 0 || blame.op_index >= net.op_size()) return;
  const std::optional<InnerBlame> inner =
      LocalizeInside(net.op(blame.op_index), blame.truth_before, seed, under_test, tolerance);
  if (!inner) return;
  finding->set_blamed_op_path(finding->blamed_op_path() + inner->path);
  finding->set_blamed_op_type(inner->op_type);
  finding->mutable_signature()->set_blamed_op_type(inner->op_type);
  finding->set_message(finding->message() +
                       "; inside it, first diverging: " + finding->blamed_op_path() + " output '" +
                       inner->blob + "': " + inner->detail);
}

}  // namespace parity::oracles
