// Where the CUDA kernels read their inputs and write their outputs: on the device, on the host, or
// either. Plain C++ (every build), so the oracles and `parity run --device cuda` can place a
// case's inputs and tell a net that cannot run on the device without a copy before running it.
//
// Caffe2 inserts no copies between devices at run time (its Python InjectCrossDeviceCopies does,
// before a net is made): a CUDA op reading a host tensor is an error there and here. The CPU runs
// the same nets with the cross-device copies as identities, so a net like CopyGPUToCPU -> Relu
// runs on the CPU and is rejected on the device; the device oracle calls that not applicable (the
// kernels never met), not a finding.
#ifndef PARITY_GPU_PLACEMENT_H_
#define PARITY_GPU_PLACEMENT_H_

#include <set>
#include <string>

#include "core/proto/caffe2.pb.h"

namespace parity::gpu {

enum class Placement { kDevice, kHost, kEither };

// Where the CUDA kernel of `type` reads input `index` / writes output `index`. The exceptions to
// kDevice are the cross-device copies, the shape-as-data inputs read on the host (Reshape's new
// shape, ResizeLike's model), the fills (made on the host, gpu/ops/fill.cc) and the host-side
// bookkeeping outputs (Reshape's old_shape, Concat's split_info), as Caffe2's CUDA ops have them.
Placement CudaInputPlacement(const std::string& type, int index);
Placement CudaOutputPlacement(const std::string& type, int index);

struct CudaPlacementPlan {
  // The blobs the net reads before writing them that must be on the host when it starts (the
  // inputs of CopyCPUToGPU); every other such blob goes to the device.
  std::set<std::string> host_inputs;
  // Empty when every op finds each input where its kernel reads it; else the first op that would
  // not, with the blob and where it is.
  std::string problem;
};

// Follows `net`'s ops in order, every op on the device, into the nets nested in control ops:
// Do's inner names through its bindings (its other blobs are local), both branches of If from
// the same start, While's cond_net and loop_net twice (a pass reads what the one before wrote),
// and a RecurrentNetwork's step net twice (its links are views of device tensors that a step op
// may not put on the host; the blobs it writes are its own). The control ops read their condition
// on either side; HasScope's flag is on the host. A blob that If's branches, or While's passes,
// leave on different sides is placed by the run: a strict reader of it after them is a problem.
CudaPlacementPlan PlanCudaPlacement(const caffe2::NetDef& net);

}  // namespace parity::gpu

#endif  // PARITY_GPU_PLACEMENT_H_
