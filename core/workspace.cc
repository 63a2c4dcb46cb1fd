#include "core/workspace.h"

#include <algorithm>
#include <set>

#include "core/net.h"

namespace parity {

Workspace::Workspace() = default;

Workspace::Workspace(Workspace* parent) : parent_(parent) {}

Workspace::Workspace(Workspace* parent, const std::map<std::string, std::string>& forwarded)
    : parent_(parent), read_through_parent_(false) {
  AddForwarding(parent, forwarded, false);
}

void Workspace::AddForwarding(Workspace* parent,
                              const std::map<std::string, std::string>& forwarded,
                              bool skip_defined) {
  PARITY_ENFORCE(parent != nullptr, ErrorKind::kInternal, "forwarding blobs needs a parent");
  PARITY_ENFORCE(!read_through_parent_ || parent_ == nullptr, ErrorKind::kInternal,
                 "a workspace that reads through to its parent cannot forward blobs");
  read_through_parent_ = false;
  for (const auto& [inner, outer] : forwarded) {
    if (skip_defined && HasBlob(inner)) continue;
    PARITY_ENFORCE(parent->HasBlob(outer), ErrorKind::kMissingBlob, "blob '", outer,
                   "' bound to inner blob '", inner, "' does not exist in the parent workspace");
    forwarded_[inner] = {parent, outer};
  }
}

void Workspace::CopyForwardedTensors(const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    auto fwd = forwarded_.find(name);
    if (fwd == forwarded_.end()) continue;
    const Blob* from = fwd->second.first->GetBlob(fwd->second.second);
    PARITY_ENFORCE(from != nullptr && from->IsTensor(), ErrorKind::kShapeMismatch, "blob '",
                   fwd->second.second, "' bound to inner blob '", name, "' holds ",
                   from == nullptr ? std::string("nothing") : from->Describe(),
                   ", not a tensor to copy (copy_external_blobs)");
    Tensor copy(from->GetTensor().device());
    copy.CopyFrom(from->GetTensor());
    forwarded_.erase(fwd);
    *CreateLocalBlob(name)->GetMutableTensor(copy.device()) = std::move(copy);
  }
}

Workspace::~Workspace() {
  // Nets hold pointers into blobs_: destroy them first.
  nets_.clear();
}

Blob* Workspace::GetBlob(const std::string& name) {
  return const_cast<Blob*>(static_cast<const Workspace*>(this)->GetBlob(name));
}

const Blob* Workspace::GetBlob(const std::string& name) const {
  const Workspace* ws = this;
  while (ws != nullptr) {
    // Forwarding first: a local blob of a forwarded name is a copy an earlier run kept
    // (copy_external_blobs), and a new binding of the name sees the outer blob again.
    auto fwd = ws->forwarded_.find(name);
    if (fwd != ws->forwarded_.end()) return fwd->second.first->GetBlob(fwd->second.second);
    auto it = ws->blobs_.find(name);
    if (it != ws->blobs_.end()) return it->second.get();
    ws = ws->read_through_parent_ ? ws->parent_ : nullptr;
  }
  return nullptr;
}

Blob* Workspace::GetBlobOrThrow(const std::string& name) {
  Blob* blob = GetBlob(name);
  PARITY_ENFORCE(blob != nullptr, ErrorKind::kMissingBlob, "blob '", name,
                 "' does not exist in the workspace");
  return blob;
}

Blob* Workspace::CreateBlob(const std::string& name) {
  if (Blob* existing = GetBlob(name)) return existing;
  return CreateLocalBlob(name);
}

Blob* Workspace::CreateLocalBlob(const std::string& name) {
  auto& slot = blobs_[name];
  if (slot == nullptr) slot = std::make_unique<Blob>(name);
  return slot.get();
}

bool Workspace::RemoveBlob(const std::string& name) { return blobs_.erase(name) > 0; }

std::vector<std::string> Workspace::Blobs(bool include_parents) const {
  std::set<std::string> names;
  const Workspace* ws = this;
  while (ws != nullptr) {
    for (const auto& [name, blob] : ws->blobs_) names.insert(name);
    for (const auto& [name, target] : ws->forwarded_) names.insert(name);
    ws = include_parents && ws->read_through_parent_ ? ws->parent_ : nullptr;
  }
  return {names.begin(), names.end()};
}

NetBase* Workspace::CreateNet(const caffe2::NetDef& def, bool overwrite) {
  auto it = nets_.find(def.name());
  if (it != nets_.end()) {
    PARITY_ENFORCE(overwrite, ErrorKind::kInvalidNet, "net '", def.name(), "' already exists");
    nets_.erase(it);
  }
  std::unique_ptr<NetBase> net = CreateNetForDef(def, this);
  NetBase* raw = net.get();
  nets_[def.name()] = std::move(net);
  return raw;
}

NetBase* Workspace::GetNet(const std::string& name) {
  auto it = nets_.find(name);
  return it == nets_.end() ? nullptr : it->second.get();
}

void Workspace::RunNet(const std::string& name) {
  NetBase* net = GetNet(name);
  PARITY_ENFORCE(net != nullptr, ErrorKind::kInvalidNet, "no net named '", name,
                 "' in the workspace");
  net->Run();
}

void Workspace::RunNetOnce(const caffe2::NetDef& def) { CreateNetForDef(def, this)->Run(); }

bool Workspace::RemoveNet(const std::string& name) { return nets_.erase(name) > 0; }

}  // namespace parity
