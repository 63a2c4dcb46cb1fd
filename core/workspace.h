// Blobs by name with an optional parent, and nets by name.
//
// Two ways to see a parent (as in Caffe2): a child workspace reads through to its whole parent
// chain (RNN step workspaces, If/While scopes), or a workspace with forwarded blobs sees only the
// bound parent blobs under inner names (Do). Creation is local unless the name is visible already,
// in which case the existing blob is returned (writes then land in the parent's blob).
#ifndef PARITY_CORE_WORKSPACE_H_
#define PARITY_CORE_WORKSPACE_H_

#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/blob.h"
#include "core/proto/caffe2.pb.h"

namespace parity {

class NetBase;

class Workspace {
 public:
  Workspace();
  // A child that reads through to `parent` (not owned; must outlive the child).
  explicit Workspace(Workspace* parent);
  // A child that sees only `forwarded` blobs of `parent`: inner name -> parent blob name. Each
  // parent blob must exist (kMissingBlob otherwise).
  Workspace(Workspace* parent, const std::map<std::string, std::string>& forwarded);
  ~Workspace();
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  // The visible blob named `name` (forwarded, local, then the parent chain), or nullptr.
  Blob* GetBlob(const std::string& name);
  const Blob* GetBlob(const std::string& name) const;
  // Like GetBlob but throws kMissingBlob naming the blob.
  Blob* GetBlobOrThrow(const std::string& name);
  bool HasBlob(const std::string& name) const { return GetBlob(name) != nullptr; }
  // The visible blob, or a new local one. Pointers stay valid until the blob is removed.
  Blob* CreateBlob(const std::string& name);
  // Creates a new local blob even when a parent has one of that name (shadowing).
  Blob* CreateLocalBlob(const std::string& name);
  bool RemoveBlob(const std::string& name);
  // Adds forwarded blobs (inner name -> blob `outer` of `parent`; kMissingBlob when absent), as
  // Caffe2's AddBlobMapping. With `skip_defined`, an inner name already visible here keeps what
  // it names (how a gradient Do reuses its forward workspace's local blobs). Workspaces made
  // with forwarded blobs only: they never read through to a parent.
  void AddForwarding(Workspace* parent, const std::map<std::string, std::string>& forwarded,
                     bool skip_defined);
  // Caffe2's CopyForwardedTensors (a Do with copy_external_blobs, after its net ran): each name
  // in `names` that is forwarded becomes a local copy of the tensor it forwards to, and its
  // forwarding ends, so the workspace keeps the values its run saw (for the gradient Do that
  // pops it). A local blob of that name is reused, so nets that hold it stay valid. kShapeMismatch
  // when a forwarded blob holds no tensor.
  void CopyForwardedTensors(const std::vector<std::string>& names);
  // Local blob names, sorted; with `include_parents`, every visible name.
  std::vector<std::string> Blobs(bool include_parents = false) const;

  // Shorthands for tests and tools.
  Tensor* CreateTensor(const std::string& name) { return CreateBlob(name)->GetMutableTensor(); }
  const Tensor& GetTensor(const std::string& name) { return GetBlobOrThrow(name)->GetTensor(); }

  // Nets: created once, run many times (ops keep their blob pointers and buffers).
  NetBase* CreateNet(const caffe2::NetDef& def, bool overwrite = true);
  NetBase* GetNet(const std::string& name);
  void RunNet(const std::string& name);
  void RunNetOnce(const caffe2::NetDef& def);
  bool RemoveNet(const std::string& name);

  Workspace* parent() const { return parent_; }

 private:
  Workspace* parent_ = nullptr;
  bool read_through_parent_ = true;
  std::unordered_map<std::string, std::pair<Workspace*, std::string>> forwarded_;
  std::unordered_map<std::string, std::unique_ptr<Blob>> blobs_;
  std::map<std::string, std::unique_ptr<NetBase>> nets_;
};

}  // namespace parity

#endif  // PARITY_CORE_WORKSPACE_H_
