// parity's reference interpreter: the ground truth of every oracle.
//
// A naive interpreter of caffe2 NetDefs written from the ops' definitions
// (shared/docs/caffe2-semantics.md, Caffe2's op docs), independent of the production engine: it
// depends on core/proto only, has its own tensor type (reference/value.h), its own argument
// parsing and its own broadcasting, all as plain nested loops over multi-indices.
//
// * Precision: every kernel is a template on the floating scalar type. kF64 is the ground truth;
//   kF32 runs the same kernels in float so the oracles can see how much rounding a plain f32
//   computation of the same net picks up. FLOAT and DOUBLE inputs both run in the chosen
//   precision; integer and bool tensors stay exact integers in either mode.
// * Value semantics: every op reads its inputs, computes fresh outputs and only then stores
//   them, so in-place use (X -> X) is always well defined. `Alias` shares storage as in Caffe2:
//   a later write of the same dtype and element count to either name is seen through both.
// * Workspaces: name -> blob with an optional parent. Reads fall through to the parent; a write
//   goes to the blob where it already exists, else is created locally (Caffe2's CreateBlob).
//   Do's child workspace sees ONLY its bound blobs (inner_blobs/outer_blobs_idx), as in Caffe2's
//   Workspace(parent, forwarded_blobs); If/While run their nets in the same workspace;
//   RecurrentNetwork runs each step in a fresh child workspace that falls through to the op's.
// * Errors: every failure caused by the net or its inputs is a parity::Error whose message names
//   the op ("op #3 (Add 'sum1')", nested ops prefixed by their parents), the blob or argument,
//   and the shapes. Missing blob -> kMissingBlob; wrong arity, bad or duplicated argument values,
//   out-of-range indices/axes -> kBadArgument; incompatible shapes or dtypes -> kShapeMismatch;
//   unknown op type (or a finite-differences-only op) -> kUnknownOp; a tensor over
//   max_alloc_bytes, int64-overflowing dims, a While over max_loop_iterations -> kResourceLimit.
//   Nothing the user feeds aborts the process.
// * Random fills (UniformFill, GaussianFill, XavierFill) and Dropout's training mask produce the
//   right shape and dtype and values from the documented distribution (seeded from
//   DeviceOption.random_seed), but values cannot match production's generator: check them
//   statistically, not elementwise.
//
// ---- Gradient-op conventions used by the reference kernels (inputs -> outputs) ----
// Outputs in [brackets] are optional (the op may list fewer outputs). Names and orders follow
// Caffe2's gradient makers; the autodiff issue should emit exactly these. Arguments are the
// forward op's (copied into the gradient op, as Caffe2 does).
//   ReluGradient(Y, dY)->dX              dX = dY if Y > 0 else 0
//   LeakyReluGradient(Y, dY)->dX         dX = dY if Y > 0 else alpha*dY
//   EluGradient(Y, dY)->dX               dX = dY if Y > 0 else dY*(Y + alpha)
//   SigmoidGradient(Y, dY)->dX           dX = dY*Y*(1-Y)
//   TanhGradient(Y, dY)->dX              dX = dY*(1-Y^2)
//   SoftsignGradient(X, dY)->dX          dX = dY/(1+|X|)^2
//   AbsGradient(X, dY)->dX               dX = dY*sign(X) (0 at 0)
//   ReciprocalGradient(Y, dY)->dX        dX = -dY*Y^2
//   SinGradient(X, dY)->dX               dX = dY*cos(X)
//   CosGradient(X, dY)->dX               dX = -dY*sin(X)
//   ClipGradient(Y, dY)->dX              dX = dY where min < Y < max, else 0
//   MaxGradient / MinGradient(Y, dY, X0, X1, ...)->(dX0, dX1, ...)  dY to every Xi == Y (ties all)
//   AddGradient / SubGradient / MulGradient(dC, A, B)->(dA[, dB])    summed over broadcast copies
//   DivGradient(dC, A, B, C)->(dA[, dB]), also the legacy DivGradient(B, C, dC)
//   ReduceSumGradient / ReduceMeanGradient / ReduceMaxGradient / ReduceMinGradient(dY, X, Y)->dX
//   ReduceProdGradient(dY, X, Y)->dX    dY times the product of the group's other elements
//     (Max/Min: dY to every X equal to its Y, ties all)
//   SumElementsGradient(X, dSum)->dX     dX = dSum (/numel with average=1)
//   TileGradient(dY[, tiles, axis])->dX  the copies summed
//   SliceGradient(X, [starts, ends,] dY)->dX   dY scattered into zeros
//   GatherElementsGradient(DATA, INDICES, dY)->dDATA   dY added where each index picked
//   ModGradient(dC, A, B, C)->(dA[, dB]) dA = dC, dB = -dC * trunc(A/B) (floor with
//                                        sign_follow_divisor), summed over broadcast copies
//   WhereGradient(C, X, Y, dZ)->(dX, dY)  dZ to X where C, else to Y; summed over broadcast copies
//   SoftmaxGradient(Y, dY)->dX           dX = Y*(dY - sum(dY*Y)) per row of the 2-D view
//   FCGradient(X, W, dY)->(dW, db[, dX]); FCTransposedGradient likewise with W stored K x N
//   AveragedLossGradient(X, dLoss)->dX   dX = dLoss/numel
//   SquaredL2DistanceGradient(X, Y, dDist)->(dX[, dY])   dX = (X-Y)*dDist_row, dY = -dX
//   LabelCrossEntropyGradient(X, label, dY)->dX   dX[i, l_i] = -dY_i / max(X[i, l_i], 1e-20)
//   SoftmaxWithLossGradient(X, label, [weight,] P, dLoss)->dX
//     dX = (P - target) * w_i * scale * dLoss / sum(w)   (0 when sum(w) == 0)
//   NegativeLogLikelihoodLossGradient(X, target, [weight,] dLoss)->dX   -w*scale at the targets
//   SoftmaxCrossEntropyLossGradient(scores, labels, [weights,] dLoss)->dScores
//                                        (softmax - onehot) * w * scale, 0 at ignored positions
//   SigmoidCrossEntropyWithLogitsGradient(dY, logits, targets)->dX = (sigmoid(x)-t)*dY/inner
//   SpatialBNGradient(X, scale, dY, saved_mean, saved_inv_std)->(dX, dScale, dBias); with
//     is_test=1 inputs 3, 4 are the running mean and running var (dX = dY*scale/sqrt(var+eps))
//   LayerNormGradient(dY, Y, mean, std, X)->dX   (no elementwise_affine)
//   LRNGradient(X, Y, dY)->dX            dX = dY*s^-beta - 2*alpha*beta/size * X * (sum over the
//                                        windows holding X of dY*Y/s), s recomputed from X
//   DropoutGrad(dY[, mask])->dX          dX = dY/(1-ratio) where the mask keeps, else 0 (times
//                                        dY: NaN stays NaN); is_test: dX = dY
//   ConvGradient(X, W, dY)->(dW, db[, dX]); with no_bias=1: (dW[, dX])
//   MaxPoolGradient(X, Y, dY)->dX        dY to every X equal to its window's max (ties all)
//   AveragePoolGradient(X, Y, dY)->dX    dY/count to every real input of the window
//   LSTMUnitGradient(H_prev, C_prev, G, [seq_lengths,] timestep, H, C, dH, dC)
//     ->(dH_prev, dC_prev, dG): dct = dC + dH*o*(1-tanh(C)^2); dC_prev = dct*f; dH_prev = 0;
//     dG = [dct*g*i(1-i), dct*C_prev*f(1-f), dH*tanh(C)*o(1-o), dct*i*(1-g^2)];
//     rows with t >= seq_len: dG = 0, dH_prev = dH, dC_prev = dC (both 0 with drop_states).
//   GRUUnitGradient(H_prev, G, [seq_lengths,] timestep, H, dH)->(dH_prev, dG):
//     dH_prev = dH*z; dG = [0, dH*(H_prev - tanh(G_h))*z(1-z), dH*(1-z)*(1-tanh(G_h)^2)];
//     invalid rows: dG = 0, dH_prev = dH (0 with drop_states).
// Not ops in Caffe2 (their makers emit other forward ops), hence absent here: Exp, Log, Sqrt,
// Sqr, Pow, Neg, Scale, MatMul, BatchMatMul, Reshape, Transpose, Concat, Split, ... gradients.
// Likewise the fused FCRelu and ConvRelu: their makers emit ReluGradient, then FCGradient /
// ConvGradient, so they have no gradient op of their own.
// The gradient control ops are the control ops themselves with is_gradient_op set: a gradient Do
// pops the workspace its forward Do left (see reference/ops/control.cc); gradient If and While
// run generated gradient nets like any If and While. RecurrentNetworkGradient is
// finite-differences only; see FiniteDifferenceOnlyOps().
#ifndef PARITY_REFERENCE_INTERPRETER_H_
#define PARITY_REFERENCE_INTERPRETER_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/proto/caffe2.pb.h"
#include "core/proto/env_limits.h"

namespace parity::reference {

enum class Precision { kF64, kF32 };

struct RunOptions {
  Precision precision = Precision::kF64;
  // Record the value of every output of every top-level op (RunResult::trace).
  bool trace = false;
  // Passes of one While (cond + loop) before kResourceLimit: PARITY_MAX_LOOP_ITERATIONS, as
  // production reads it, else 100,000 (a malformed value throws, naming the variable).
  int64_t max_loop_iterations = MaxLoopIterationsFromEnv().value_or(100000);
  // Largest single tensor, in bytes of the reference's own storage (8 per integer element):
  // PARITY_MAX_ALLOC_BYTES, as production reads it, else 4 GiB.
  int64_t max_alloc_bytes = MaxAllocBytesFromEnv().value_or(int64_t{4} << 30);
};

struct TraceEntry {
  int op_index = 0;  // Position of the op in the top-level net (init net ops first in RunNets).
  std::string op_type;
  // Every tensor output of the op, by blob name, right after the op ran.
  std::map<std::string, caffe2::TensorProto> outputs;
};

struct RunResult {
  // Every tensor blob of the top-level workspace after the run (inputs included), by name.
  std::map<std::string, caffe2::TensorProto> blobs;
  std::vector<TraceEntry> trace;
  // Where a floating value first came out inf or NaN, in any net at any depth ("op #2 (Exp) wrote
  // inf or NaN to 'res'"); empty when none did. The gradient oracle asks: a derivative through an
  // overflowed intermediate has no value (the backward pass multiplies inf by 0).
  std::string first_non_finite;
};

// Runs `net` on a fresh workspace holding `inputs` (blob name -> value; TensorProto.name is
// ignored). Floating results come back as DOUBLE (kF64) or FLOAT (kF32) TensorProtos; integer
// and bool results keep their dtype (INT64 in int64_data, other integers and BOOL in int32_data).
// Throws parity::Error (see the header comment for the kinds).
RunResult RunNet(const caffe2::NetDef& net,
                 const std::map<std::string, caffe2::TensorProto>& inputs,
                 const RunOptions& options = {});

// Runs init_net, then net, in the same workspace (trace indices continue across both).
RunResult RunNets(const caffe2::NetDef& init_net, const caffe2::NetDef& net,
                  const std::map<std::string, caffe2::TensorProto>& inputs,
                  const RunOptions& options = {});

// Every op type the reference implements (forward, gradient and control), sorted.
std::vector<std::string> SupportedOps();

// Op types the reference deliberately does not implement, with the recorded reason: their
// gradients are checked by finite differences of the forward ops instead.
std::map<std::string, std::string> FiniteDifferenceOnlyOps();

// Per-op argument table: op type -> [(argument name, default as a string)]. "" means "no
// default" (optional or required, see the op); list defaults are "[]". This is the single source
// the kernels read their defaults from, so it can be compared against production schemas.
std::map<std::string, std::vector<std::pair<std::string, std::string>>> ArgumentTable();

// Which inputs an op may write in place, by (input, output) index pairs: `allowed` may share a
// blob, `enforced` must, `any` lets every pair share (control ops). Compared with the production
// schemas' AllowInplace/EnforceInplace by the coverage test.
struct InplaceRules {
  std::vector<std::pair<int, int>> allowed;
  std::vector<std::pair<int, int>> enforced;
  bool any = false;
};
std::map<std::string, InplaceRules> InplaceTable();

// Arity of an op type: {min inputs, max inputs, min outputs, max outputs} (-1 = unbounded).
// Throws kUnknownOp for a type the reference lacks.
std::vector<int> Arity(const std::string& op_type);

}  // namespace parity::reference

#endif  // PARITY_REFERENCE_INTERPRETER_H_
