#include "oracles/smoothness.h"

#include <algorithm>
#include <cmath>

#include "oracles/tolerance.h"

namespace parity::oracles {

const std::vector<double>& FdSamplePoints() {
  static const auto* points = new std::vector<double>{
      kFdStep, -kFdStep, kFdStep / 2, -kFdStep / 2, kFdStep / 4, -kFdStep / 4, 0.0};
  return *points;
}

Derivative DerivativeFromSamples(const std::map<double, double>& samples) {
  auto f = [&](double t) { return samples.at(t); };
  auto central = [&](double h) { return (f(h) - f(-h)) / (2 * h); };
  const double d1 = central(kFdStep), d2 = central(kFdStep / 2), d4 = central(kFdStep / 4);
  const double coarse = (4 * d2 - d1) / 3;
  const double fine = (4 * d4 - d2) / 3;
  Derivative out;
  out.value = fine;
  out.uncertainty = std::abs(coarse - fine);
  const double scale = std::max({std::abs(d1), std::abs(d2), std::abs(d4), 1e-3});
  // The gap between the one-sided slopes is about step·f'' on a smooth function, so it halves
  // with the step; at a kink sitting exactly at x (where the central differences agree with each
  // other) it is the jump, whatever the step.
  auto gap = [&](double h) { return std::abs((f(h) - f(0.0)) / h - (f(0.0) - f(-h)) / h); };
  const double gap2 = gap(kFdStep / 2), gap4 = gap(kFdStep / 4);
  const bool kink_at_x = gap4 > 1e-7 * (1 + scale) && gap4 > 0.75 * gap2;
  // The two extrapolations agree to O(h^4) on a smooth function; a kink inside the step moves
  // them apart. (A point where only a higher derivative jumps, Softsign at 0, can also be
  // reported: no verdict there, which is safe.)
  out.smooth = std::abs(coarse - fine) <= 1e-6 + 1e-4 * scale && !kink_at_x;
  return out;
}

Blobs ShiftInputs(const Blobs& base, const Direction& dir, double t) {
  Blobs shifted = base;
  for (const auto& [name, d] : dir) {
    const caffe2::TensorProto& tensor = base.at(name);
    std::vector<double> x = ProtoValues(tensor);
    for (size_t i = 0; i < x.size(); ++i) x[i] += t * d[i];
    caffe2::TensorProto& out = shifted[name];
    out.Clear();
    out.set_name(name);
    *out.mutable_dims() = tensor.dims();
    out.set_data_type(caffe2::TensorProto::DOUBLE);
    for (double v : x) out.add_double_data(v);
  }
  return shifted;
}

namespace {

// The outputs `weights` names after the reference runs `c` from `inputs`; nullopt when a run
// fails or an output is missing or misshapen.
std::optional<std::map<std::string, std::vector<double>>> WeightedBlobs(
    const Case& c, const Blobs& inputs, const OutputWeights& weights) {
  Case copy = c;
  copy.clear_inputs();
  for (const auto& [name, tensor] : inputs) *copy.add_inputs() = tensor;
  BackendRun run = GetBackend(kReference).Run(copy);
  if (run.error) return std::nullopt;
  std::map<std::string, std::vector<double>> out;
  for (const auto& [y, w] : weights) {
    auto it = run.blobs.find(y);
    if (it == run.blobs.end()) return std::nullopt;
    out[y] = ProtoValues(it->second);
    if (out[y].size() != w.size()) return std::nullopt;
  }
  return out;
}

}  // namespace

std::optional<Derivative> WeightedOutputDerivative(const Case& c, const Blobs& inputs,
                                                   const OutputWeights& weights,
                                                   const Direction& dir) {
  auto base = WeightedBlobs(c, inputs, weights);
  if (!base) return std::nullopt;
  // f(t) - f(0), summed from each element's own change, so an output the direction does not move
  // adds exactly 0. Summing the objective first and differencing after loses a small sensitivity
  // to rounding beside a large unmoved output: with an Exp chain at 1e78 beside the one output
  // that depends on the input, 1e78 + 1e-3 rounds to 1e78 and the difference to 0.
  std::map<double, double> f;  // t -> objective(inputs + t·dir) - objective(inputs)
  for (double t : FdSamplePoints()) {
    if (t == 0.0) {
      f[t] = 0.0;
      continue;
    }
    auto moved = WeightedBlobs(c, ShiftInputs(inputs, dir, t), weights);
    if (!moved) return std::nullopt;
    double sum = 0;
    for (const auto& [y, w] : weights) {
      const std::vector<double>& now = moved->at(y);
      const std::vector<double>& then = base->at(y);
      for (size_t i = 0; i < w.size(); ++i) {
        // Equal values (an unmoved inf among them) change by 0, not by inf - inf.
        if (now[i] != then[i]) sum += w[i] * (now[i] - then[i]);
      }
    }
    f[t] = sum;
  }
  return DerivativeFromSamples(f);
}

std::string LocateKink(const Case& c, const Blobs& base, const Direction& dir) {
  std::map<double, BackendRun> runs;
  for (double t : FdSamplePoints()) {
    Case copy = c;
    copy.clear_inputs();
    for (const auto& [name, tensor] : ShiftInputs(base, dir, t)) *copy.add_inputs() = tensor;
    runs[t] = GetBackend(kReference).Run(copy, {/*trace=*/true, ""});
    if (runs[t].error) return "";
  }
  const std::vector<OpTrace>& trace = runs[0.0].trace;
  for (size_t k = 0; k < trace.size(); ++k) {
    for (const auto& [name, tensor] : trace[k].outputs) {
      if (!IsFloatingProto(tensor)) continue;
      std::map<double, std::vector<double>> values;
      for (auto& [t, run] : runs) {
        if (run.trace.size() <= k || !run.trace[k].outputs.count(name)) return "";
        values[t] = ProtoValues(run.trace[k].outputs.at(name));
      }
      const size_t n = values[0.0].size();
      for (size_t j = 0; j < n; ++j) {
        std::map<double, double> f;
        for (const auto& [t, v] : values) {
          if (v.size() != n) return "";
          f[t] = v[j];
        }
        if (!DerivativeFromSamples(f).smooth) {
          return "op #" + std::to_string(trace[k].op_index) + " (" + trace[k].op_type +
                 ") output '" + name + "' element " + std::to_string(j);
        }
      }
    }
  }
  return "";
}

}  // namespace parity::oracles
