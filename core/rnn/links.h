// What RecurrentNetwork and its gradient share: links, offset aliases, the step-workspaces object,
// and how a step net is completed before it runs (Caffe2's detail:: helpers in
// recurrent_network_op.h, seed 000).
//
// A link (internal, external, offset, window) makes the step net's blob `internal` a view of rows
// [t + offset, t + offset + window) of the op-level blob `external` at timestep t: the step reads
// and writes those rows in place, with no copies. Links are applied by rnn_internal_apply_link ops
// prepended to the step net, one per link, so they run first at every step.
#ifndef PARITY_CORE_RNN_LINKS_H_
#define PARITY_CORE_RNN_LINKS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/argument.h"
#include "core/proto/caffe2.pb.h"
#include "core/workspace.h"

namespace parity {

struct RnnLink {
  std::string internal;
  std::string external;
  int64_t offset = 0;
  int64_t window = 1;
};

// Output alias: `dst` becomes a view of rows [offset, end) of `src` (a negative offset counts from
// the end: -1 is the last row). RecurrentNetwork exposes `<out>_all` (offset 1) and `<out>_last`
// (offset -1) this way.
struct RnnAlias {
  std::string src;
  std::string dst;
  int64_t offset = 0;
};

// The RecurrentNetwork's last output: its step workspaces (one per timestep when a backward step
// net exists, else `num_workspaces` reused in turn) and the workspace between them and the op's
// workspace, which holds the blobs every step shares (recompute_blobs_on_backward, and the
// gradient's intermediates).
struct RnnScratch {
  std::vector<std::shared_ptr<Workspace>> step_workspaces;
  std::shared_ptr<Workspace> shared_blobs;
};

// Links from the four parallel arguments `<prefix>link_internal/external/offset[/window]`
// (window 1 when `with_window` is false or the argument is absent). kBadArgument naming the op
// when the lengths differ or an offset or window is negative.
std::vector<RnnLink> ReadLinks(const ArgumentHelper& args, const std::string& prefix,
                               bool with_window);
std::vector<RnnAlias> ReadAliases(const ArgumentHelper& args);

// The argument `<blob>.rename` when the op has it, else `blob` (memonger renames step-net blobs).
std::string RemappedName(const ArgumentHelper& args, const std::string& blob);

// `links` with both ends remapped (Caffe2's remappedLink).
std::vector<RnnLink> RemappedLinks(const ArgumentHelper& args, std::vector<RnnLink> links);

// Prepends one rnn_internal_apply_link(timestep, external) -> (internal, external) per link.
void PrependApplyLinkOps(const std::vector<RnnLink>& links, const std::string& timestep,
                         const caffe2::DeviceOption& device, caffe2::NetDef* net);
void PrependOps(std::vector<caffe2::OperatorDef> ops, caffe2::NetDef* net);

// Points `internal` at rows [t + offset, t + offset + window) of `external` (shared storage).
// kShapeMismatch naming the link when the rows fall outside `external`.
void ApplyLink(const RnnLink& link, int64_t t, const Tensor& external, Tensor* internal);

// After a step: `internal` (the blob the step net left under the link's internal name, or null)
// must still be the link's view. A kernel that replaced its output's buffer instead of writing
// through it leaves the right shape elsewhere: that is copied into the rows. Anything else is a
// kShapeMismatch naming the link.
void SettleLink(const RnnLink& link, int64_t t, const Tensor& external, const Blob* internal);

// Points `dst` at the aliased rows of `src`.
void ApplyOffsetAlias(const RnnAlias& alias, const Tensor& src, Tensor* dst);

// Sets the int32 [1] timestep blob local to `step` (shadowing any blob of that name outside it).
void SetTimestep(Workspace* step, const std::string& name, int64_t t);

// The net named `name` in `ws`, created from `def` (renamed to `name`) at its first use.
NetBase* StepNet(Workspace* ws, const std::string& name, const caffe2::NetDef& def);

}  // namespace parity

#endif  // PARITY_CORE_RNN_LINKS_H_
