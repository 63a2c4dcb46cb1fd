// The workspace stack behind CreateScope / Do / HasScope (Caffe2's detail::WorkspaceStack).
//
// A forward Do pushes a child workspace that sees only the blobs it binds (or reruns the top one
// with reuse_workspace); its local blobs stay on the stack after it returns, so the gradient Do
// can pop the same workspace and read them ("saved forward blobs"). A While whose body is a Do
// leaves one workspace per pass, popped in reverse by the gradient While. Clear() keeps the
// allocated workspaces (and their blobs) for reuse, as Caffe2's clear() does.
#ifndef PARITY_CORE_CONTROL_WORKSPACE_STACK_H_
#define PARITY_CORE_CONTROL_WORKSPACE_STACK_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/workspace.h"

namespace parity {

// Inner blob name -> outer blob name in the parent workspace.
using BlobBindings = std::map<std::string, std::string>;

class WorkspaceStack {
 public:
  // Pushes the next workspace, bound to `parent` through `bindings`; the slot's workspace from an
  // earlier push is reused with its local blobs.
  std::shared_ptr<Workspace> PushForward(Workspace* parent, const BlobBindings& bindings);
  // The top workspace again, re-bound (reuse_workspace); pushes when the stack is empty.
  std::shared_ptr<Workspace> ReuseLastForward(Workspace* parent, const BlobBindings& bindings);
  // Pops the top workspace for a gradient Do: `bindings` are added where the inner name is not
  // already visible there. kBadArgument when the stack is empty (no forward Do ran).
  std::shared_ptr<Workspace> PopGradient(Workspace* parent, const BlobBindings& bindings);

  void Clear() { top_ = -1; }
  bool empty() const { return top_ < 0; }
  int depth() const { return top_ + 1; }

 private:
  std::vector<std::shared_ptr<Workspace>> workspaces_;
  int top_ = -1;
};

}  // namespace parity

#endif  // PARITY_CORE_CONTROL_WORKSPACE_STACK_H_
