// Finite differences that know when they cannot be trusted. f(t) = objective(x + t·dir) is sampled
// at t = 0, ±h, ±h/2, ±h/4; the derivative is the Richardson-extrapolated central difference, and
// the samples also tell whether f is smooth around 0. Where it is not (a Relu input or a Max tie
// within the step), the gradient oracle gives no verdict — and LocateKink says which op is to
// blame, by the same test on every intermediate blob of a traced reference run.
#ifndef PARITY_ORACLES_SMOOTHNESS_H_
#define PARITY_ORACLES_SMOOTHNESS_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/proto/parity.pb.h"
#include "oracles/backend.h"

namespace parity::oracles {

// The largest step; the samples are at 0, ±kFdStep, ±kFdStep/2, ±kFdStep/4.
constexpr double kFdStep = 1e-3;
const std::vector<double>& FdSamplePoints();

using Direction = std::map<std::string, std::vector<double>>;  // per input blob

// What the finite differences say: the derivative, and whether the function looked smooth.
struct Derivative {
  double value = 0;
  bool smooth = true;
  // How far the two Richardson extrapolations (steps h and h/2) disagree: the finite
  // differences' own error is about this or less (a kink too small for `smooth` to see leaves
  // its mark here). A comparison with the derivative allows it.
  double uncertainty = 0;
};

// From f at every sample point (t -> f(t)).
Derivative DerivativeFromSamples(const std::map<double, double>& f);

// `base` with every input named in `dir` moved by t·dir, as f64 tensors.
Blobs ShiftInputs(const Blobs& base, const Direction& dir, double t);

// The objective the gradient checks differentiate: Σ_y ⟨weights[y], y⟩ over output blobs y.
using OutputWeights = std::map<std::string, std::vector<double>>;

// d/dt of the objective at t = 0, with `c`'s net run on the f64 reference from `inputs` moved by
// t·dir; nullopt when a run fails or an output is missing or misshapen.
std::optional<Derivative> WeightedOutputDerivative(const Case& c, const Blobs& inputs,
                                                   const OutputWeights& weights,
                                                   const Direction& dir);

// The first op (execution order) of `c`'s net with an output element that is not smooth along
// `dir` on the f64 reference: "op #2 (Relu) output 'h' element 5". Its inputs are smooth (they are
// case inputs or earlier ops' outputs), so that op's kink or tie is the cause. "" when no single
// element shows it (a higher-derivative jump, say) or the reference fails.
std::string LocateKink(const Case& c, const Blobs& base, const Direction& dir);

}  // namespace parity::oracles

#endif  // PARITY_ORACLES_SMOOTHNESS_H_
