// Localizing a wrong backward net. A bug in a gradient maker or in the backward-pass builder
// (accumulation of shared gradients, seeds, renaming) builds the same wrong net for every engine,
// so every gradient op agrees with its reference and op-by-op localization finds nothing. Then the
// net itself is checked against the truth, blob by blob:
//
//  1. For every intermediate blob b (and every differentiable case input), nearest the outputs
//     first, the gradient the backward net computed for b is compared with the finite-difference
//     derivative of the objective ⟨v, y⟩ with respect to b: the reference runs the rest of the net
//     (the ops after b's producer) from the traced state with b moved along a random direction.
//  2. The first blob whose gradient is wrong has consumers whose own outputs' gradients are right
//     (they are nearer the outputs and were checked before). Each consumer's maker is then checked
//     on its own: the op alone, inputs renamed apart, at the values it saw in the net, through the
//     gradient oracle. A consumer whose maker is wrong there is blamed as "gradient maker".
//  3. Otherwise every maker is right and the right gradients of the consumers' outputs were turned
//     into a wrong gradient of b: the builder summed or routed them wrongly — "gradient wiring",
//     blamed on b's first consumer (where the builder accumulates b's gradient).
//  4. When every blob's gradient checked is right, or none can be checked (all written in place),
//     the last op whose maker is wrong alone is blamed (FirstWrongMaker).
//
// Blobs written more than once (in-place chains) have no single gradient and are not checked.
#ifndef PARITY_ORACLES_BACKWARD_LOCALIZE_H_
#define PARITY_ORACLES_BACKWARD_LOCALIZE_H_

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/grad/backward.h"
#include "core/proto/parity.pb.h"
#include "oracles/backend.h"
#include "oracles/oracle.h"
#include "oracles/smoothness.h"

namespace parity::oracles {

// The f32 reference's own rounding of a gradient projection, times this, is allowed on top of a
// gradient tolerance: production sums in another order (blocked, vectorized) than the naive loops,
// whose error differs by a factor of a few; 8 is that factor with margin (the gradient oracle
// explains where it applies).
inline constexpr double kF32PeerFactor = 8.0;

inline constexpr char kGradientMaker[] = "gradient maker";
inline constexpr char kGradientWiring[] = "gradient wiring";
// An op's gradient is wrong alone, and its gradient op is one the reference has no kernel for
// (RecurrentNetworkGradient: the reference checks it only by finite differences of the forward
// op), so a wrong maker and a wrong gradient kernel look alike: the gradient op is blamed.
inline constexpr char kGradientOpUnchecked[] = "gradient op (finite differences only)";

struct BackwardBlame {
  int op_index = -1;        // forward op to blame; -1: nothing found
  std::string error_class;  // kGradientMaker or kGradientWiring
  std::string blob;         // the blob whose gradient is wrong
  std::string detail;       // readable: values, and why maker or wiring
};

struct BackwardRuns {
  const BackendRun* production = nullptr;   // the backward net under test (every blob)
  const BackendRun* reference64 = nullptr;  // the reference's runs of the same backward net, or
  const BackendRun* reference32 = nullptr;  // null (they size the f32 rounding allowance)
};

// ⟨the gradient `run` holds for `blob` (gradient_of names it), w⟩ and Σ|gradient·w| (the scale of
// its rounding); 0 when the backward pass built no gradient for `blob`; nullopt when `run` lacks
// that gradient or its dims are not `value`'s (the blob's own).
struct Projected {
  double value = 0;
  double scale = 0;
};
std::optional<Projected> GradientProjection(const BackendRun& run,
                                            const std::map<std::string, std::string>& gradient_of,
                                            const std::string& blob,
                                            const caffe2::TensorProto& value,
                                            const std::vector<double>& w);

// Checks one op's maker alone: the gradient oracle on a one-op case, without localization.
using SingleOpCheck = std::function<OracleResult(const Case&)>;

// `pass` is the backward pass the runs ran: a case input's gradient is its input_gradient_of
// (the value fed, which the net may overwrite later), any other blob's its gradient_of.
BackwardBlame LocalizeBackwardNet(const Case& c, const OutputWeights& weights,
                                  const BackwardPass& pass, const BackwardRuns& runs, double rtol,
                                  double atol, const SingleOpCheck& check_single_op);

// When the backward net cannot run at all (on the reference either: it is built wrong), the last
// forward op whose maker is wrong on the op alone.
BackwardBlame FirstWrongMaker(const Case& c, const SingleOpCheck& check_single_op);

// The one-op case the maker check runs: op `index` of `c`'s net with its inputs and outputs
// renamed apart ("in0", "out0", ...) and fed the values `state` holds for them (floating ones as
// f32, as production sees them).
Case OpAloneCase(const Case& c, int index, const Blobs& state);

}  // namespace parity::oracles

#endif  // PARITY_ORACLES_BACKWARD_LOCALIZE_H_
