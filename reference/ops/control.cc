// Control flow with Caffe2's scoping: CreateScope, HasScope, Do, If, While.
//
// * CreateScope -> a WorkspaceStack blob; re-running it clears the stack but keeps the child
//   workspaces (and their local blobs) for reuse, as Caffe2's clear() does.
// * Do(outer inputs..., scope) -> (outer outputs..., scope): runs `net` in a child workspace that
//   sees ONLY the blobs bound by inner_blobs/outer_blobs_idx (indices into inputs-minus-scope
//   followed by outputs-minus-scope; every outer name bound exactly once). Each run pushes a
//   child (reusing the slot's workspace if one was allocated before) unless reuse_workspace=1 and
//   the stack is non-empty, in which case the top workspace runs again with its local blobs.
//   A gradient Do (is_gradient_op) pops the top workspace instead (the one its forward Do
//   left) and adds its bindings there except for names already visible in it, so its net reads
//   the forward net's local blobs; an empty stack is an error.
// * If(cond bool[1]) runs then_net or else_net in the SAME workspace.
// * While(cond) repeats: run cond_net (if any) in the same workspace, read input 0, stop when
//   false, else run loop_net; more passes than max_iterations (argument; default the runner's
//   max_loop_iterations) -> kResourceLimit.
#include <set>

#include "reference/ops/util.h"

namespace parity::reference {
namespace {

template <typename T>
void CreateScope(OpContext<T>& c) {
  Value<T>* existing = c.ws->Find(c.OutputName(0));
  Value<T> v;
  v.dtype = DType::kScope;
  if (existing && existing->dtype == DType::kScope) {
    v.scope = existing->scope;
    v.scope->top = -1;
  } else {
    v.scope = std::make_shared<ScopeStack<T>>();
  }
  c.SetOutputShared(0, std::move(v));
}

template <typename T>
std::shared_ptr<ScopeStack<T>> ScopeInput(const OpContext<T>& c, int i, bool create) {
  Value<T>* v = c.ws->Find(c.InputName(i));
  if (v == nullptr && create) return std::make_shared<ScopeStack<T>>();
  PARITY_ENFORCE(v != nullptr, ErrorKind::kMissingBlob, "scope blob '", c.InputName(i),
                 "' does not exist");
  PARITY_ENFORCE(v->dtype == DType::kScope, ErrorKind::kShapeMismatch, "blob '", c.InputName(i),
                 "' is a ", DTypeName(v->dtype), ", not a workspace stack (CreateScope)");
  return v->scope;
}

template <typename T>
void HasScope(OpContext<T>& c) {
  const auto stack = ScopeInput(c, 0, false);
  Value<T> y = c.NewTensor(DType::kBool, {1});
  y.i()[0] = stack->top >= 0;
  c.SetOutput(0, std::move(y));
}

template <typename T>
void Do(OpContext<T>& c) {
  const int n_in = c.InputSize() - 1, n_out = c.OutputSize() - 1;
  PARITY_ENFORCE(c.InputName(n_in) == c.OutputName(n_out), ErrorKind::kBadArgument,
                 "the last input and the last output of Do must be the same scope blob, got '",
                 c.InputName(n_in), "' and '", c.OutputName(n_out), "'");
  const bool copy_external = c.args.Bool("copy_external_blobs");
  PARITY_ENFORCE(!(copy_external && c.args.Bool("reuse_workspace")), ErrorKind::kBadArgument,
                 "reuse_workspace and copy_external_blobs cannot both be set");
  const caffe2::NetDef net = c.args.Net("net");
  std::vector<std::string> outer;
  for (int i = 0; i < n_in; ++i) outer.push_back(c.InputName(i));
  for (int i = 0; i < n_out; ++i) outer.push_back(c.OutputName(i));
  const std::vector<std::string> inner = c.args.Strs("inner_blobs");
  const std::vector<int64_t> idx = c.args.Ints("outer_blobs_idx");
  PARITY_ENFORCE(inner.size() == idx.size(), ErrorKind::kBadArgument, inner.size(),
                 " inner_blobs but ", idx.size(), " outer_blobs_idx");
  std::map<std::string, std::pair<Workspace<T>*, std::string>> bindings;
  std::set<std::string> used;
  for (size_t k = 0; k < inner.size(); ++k) {
    PARITY_ENFORCE(!bindings.count(inner[k]), ErrorKind::kBadArgument, "inner blob '", inner[k],
                   "' bound twice");
    PARITY_ENFORCE(idx[k] >= 0 && idx[k] < static_cast<int64_t>(outer.size()),
                   ErrorKind::kBadArgument, "outer_blobs_idx ", idx[k], " out of range [0, ",
                   outer.size(), ")");
    const std::string& name = outer[idx[k]];
    PARITY_ENFORCE(used.insert(name).second, ErrorKind::kBadArgument, "outer blob '", name,
                   "' bound twice");
    bindings[inner[k]] = {c.ws, name};
  }
  const std::set<std::string> all(outer.begin(), outer.end());
  PARITY_ENFORCE(used.size() == all.size(), ErrorKind::kBadArgument,
                 "every outer blob of Do must be bound by inner_blobs/outer_blobs_idx");
  for (int i = 0; i < n_in; ++i) c.Input(i);  // Bound inputs must exist (Caffe2 checks too).

  auto stack = ScopeInput(c, n_in, false);
  std::shared_ptr<Workspace<T>> child;
  if (c.def.is_gradient_op()) {
    PARITY_ENFORCE(!c.args.Bool("reuse_workspace"), ErrorKind::kBadArgument,
                   "a gradient Do cannot set reuse_workspace");
    PARITY_ENFORCE(stack->top >= 0, ErrorKind::kBadArgument, "workspace stack '", c.InputName(n_in),
                   "' is empty: a gradient Do pops its forward Do's workspace");
    child = stack->workspaces[stack->top--];
    auto merged = child->bindings();
    for (const auto& [inner, target] : bindings) {
      if (child->Find(inner) == nullptr) merged[inner] = target;
    }
    child->SetBindings(merged);
  } else if (c.args.Bool("reuse_workspace") && stack->top >= 0) {
    child = stack->workspaces[stack->top];
    child->SetBindings(bindings);
  } else {
    ++stack->top;
    if (stack->top == static_cast<int>(stack->workspaces.size())) {
      stack->workspaces.push_back(std::make_shared<Workspace<T>>(nullptr));
    }
    child = stack->workspaces[stack->top];
    child->SetBindings(bindings);
  }
  c.runner->RunNet(child.get(), net, false);
  if (copy_external && !c.def.is_gradient_op()) {
    // The child keeps a copy of each bound blob as it is after the run, and the binding ends: the
    // gradient Do that pops this workspace reads the copies (Caffe2's CopyForwardedTensors).
    auto kept = child->bindings();
    for (const auto& [inner, target] : bindings) {
      Value<T>* v = target.first->Find(target.second);
      PARITY_ENFORCE(v != nullptr && IsTensorType(v->dtype), ErrorKind::kShapeMismatch, "blob '",
                     target.second, "' bound to inner blob '", inner,
                     "' holds no tensor to copy (copy_external_blobs)");
      child->local_blobs()[inner] = v->Clone();
      kept.erase(inner);
    }
    child->SetBindings(kept);
  }
  Value<T> scope;
  scope.dtype = DType::kScope;
  scope.scope = stack;
  c.SetOutputShared(n_out, std::move(scope));
}

template <typename T>
bool Condition(const OpContext<T>& c) {
  const Value<T>& v = c.Input(0);
  PARITY_ENFORCE(v.dtype == DType::kBool && v.size() == 1, ErrorKind::kShapeMismatch,
                 "condition must be a bool tensor with one element, got ", Describe(c, 0));
  return v.i()[0] != 0;
}

template <typename T>
void If(OpContext<T>& c) {
  const bool cond = Condition(c);
  if (cond) {
    c.runner->RunNet(c.ws, c.args.Net("then_net"), false);
  } else if (c.args.Has("else_net")) {
    c.runner->RunNet(c.ws, c.args.Net("else_net"), false);
  }
}

template <typename T>
void While(OpContext<T>& c) {
  const caffe2::NetDef loop = c.args.Net("loop_net");
  const bool has_cond = c.args.Has("cond_net");
  const caffe2::NetDef cond = has_cond ? c.args.Net("cond_net") : caffe2::NetDef();
  const int64_t cap = c.args.Has("max_iterations") ? c.args.Int("max_iterations")
                                                   : c.runner->options().max_loop_iterations;
  for (int64_t pass = 0;; ++pass) {
    if (has_cond) c.runner->RunNet(c.ws, cond, false);
    if (!Condition(c)) return;
    PARITY_ENFORCE(pass < cap, ErrorKind::kResourceLimit, "While ran over its cap of ", cap,
                   " iterations");
    c.runner->RunNet(c.ws, loop, false);
  }
}

}  // namespace

void RegisterControlOps(Registry* r) {
  r->Add({"CreateScope", 0, 0, 1, 1, {}, PARITY_REF_KERNEL(CreateScope)});
  r->Add({"HasScope", 1, 1, 1, 1, {}, PARITY_REF_KERNEL(HasScope)});
  r->Add({"Do",
          1,
          -1,
          1,
          -1,
          {{"net", ""},
           {"inner_blobs", "[]"},
           {"outer_blobs_idx", "[]"},
           {"saved_fwd_blobs", "[]"},
           {"reuse_workspace", "0"},
           {"copy_external_blobs", "0"}},
          PARITY_REF_KERNEL(Do)})
      .any_inplace = true;
  // Caffe2's Do, If and While schemas allow any input in place of any output: they bind blobs
  // by name, and Do's workspace stack is both its last input and its last output.
  r->Add({"If", 1, -1, 0, -1, {{"then_net", ""}, {"else_net", ""}}, PARITY_REF_KERNEL(If)})
      .any_inplace = true;
  r->Add({"While",
          1,
          -1,
          0,
          -1,
          {{"loop_net", ""}, {"cond_net", ""}, {"max_iterations", ""}},
          PARITY_REF_KERNEL(While)})
      .any_inplace = true;
}

PARITY_REFERENCE_FAMILY(RegisterControlOps);

}  // namespace parity::reference
