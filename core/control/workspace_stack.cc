#include "core/control/workspace_stack.h"

#include "core/proto/error.h"

namespace parity {

std::shared_ptr<Workspace> WorkspaceStack::PushForward(Workspace* parent,
                                                       const BlobBindings& bindings) {
  ++top_;
  if (top_ == static_cast<int>(workspaces_.size())) {
    workspaces_.push_back(std::make_shared<Workspace>(parent, bindings));
  } else {
    workspaces_[top_]->AddForwarding(parent, bindings, /*skip_defined=*/false);
  }
  return workspaces_[top_];
}

std::shared_ptr<Workspace> WorkspaceStack::ReuseLastForward(Workspace* parent,
                                                            const BlobBindings& bindings) {
  if (empty()) return PushForward(parent, bindings);
  workspaces_[top_]->AddForwarding(parent, bindings, /*skip_defined=*/false);
  return workspaces_[top_];
}

std::shared_ptr<Workspace> WorkspaceStack::PopGradient(Workspace* parent,
                                                       const BlobBindings& bindings) {
  PARITY_ENFORCE(!empty(), ErrorKind::kBadArgument,
                 "the workspace stack is empty: a gradient Do needs the workspace its forward Do "
                 "pushed");
  std::shared_ptr<Workspace> ws = workspaces_[top_--];
  ws->AddForwarding(parent, bindings, /*skip_defined=*/true);
  return ws;
}

}  // namespace parity
