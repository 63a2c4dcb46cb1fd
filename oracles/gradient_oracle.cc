// The gradient oracle: production's backward pass (AddGradientOperators) against central finite
// differences of the f64 reference.
//
// Fast mode (every case): for random directions u (inputs) and v (outputs), compare
//   vᵀJu from production = Σ_x ⟨∂⟨v,y⟩/∂x, u_x⟩   (one backward run, seeded with v)
// with the derivative of f(t) = ⟨v, y(x + t·u)⟩ on the reference, by central differences with
// Richardson extrapolation (4 reference runs). Full mode checks every input element separately
// (∂⟨v,y⟩/∂x_j), and runs automatically when fast mode fails, to show which elements are wrong.
// On failure the backward net itself is localized: its gradient ops are ops like any other.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <set>
#include <sstream>

#include "core/grad/backward.h"
#include "core/schema.h"
#include "core/tensor.h"
#include "core/tensor_proto.h"
#include "oracles/backward_localize.h"
#include "oracles/finding.h"
#include "oracles/localize.h"
#include "oracles/oracle.h"
#include "oracles/smoothness.h"
#include "oracles/subnet_localize.h"

namespace parity::oracles {
namespace {

constexpr char kNotSmooth[] = "not smooth";
constexpr char kNotFinite[] = "not finite";
constexpr int64_t kMaxFullElements = 4096;

caffe2::TensorProto DoubleProto(const std::string& name, const std::vector<int64_t>& dims,
                                const std::vector<double>& values) {
  caffe2::TensorProto t;
  t.set_name(name);
  for (int64_t d : dims) t.add_dims(d);
  t.set_data_type(caffe2::TensorProto::DOUBLE);
  for (double v : values) t.add_double_data(v);
  return t;
}

caffe2::TensorProto FloatProto(const std::string& name, const std::vector<int64_t>& dims,
                               const std::vector<double>& values) {
  caffe2::TensorProto t;
  t.set_name(name);
  for (int64_t d : dims) t.add_dims(d);
  t.set_data_type(caffe2::TensorProto::FLOAT);
  for (double v : values) t.add_float_data(static_cast<float>(v));
  return t;
}

std::vector<int64_t> Dims(const caffe2::TensorProto& t) {
  return {t.dims().begin(), t.dims().end()};
}

// Floating case inputs read at a differentiable position of some op.
std::vector<std::string> DifferentiableInputs(const Case& c) {
  if (c.grad_inputs_size() > 0) return {c.grad_inputs().begin(), c.grad_inputs().end()};
  std::set<std::string> floating;
  for (const auto& t : c.inputs()) {
    if (IsFloatingProto(t)) floating.insert(t.name());
  }
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const auto& op : c.net().op()) {
    const OpSchema* schema = OpSchemaRegistry::Find(op.type());
    for (int i = 0; i < op.input_size(); ++i) {
      const std::string& name = op.input(i);
      if (!floating.count(name) || seen.count(name)) continue;
      if (schema != nullptr && schema->IsDifferentiable(i)) {
        seen.insert(name);
        out.push_back(name);
      }
    }
  }
  return out;
}

struct Problem {
  const Case* c;
  std::vector<std::string> inputs;               // x
  std::vector<std::string> outputs;              // y
  std::map<std::string, std::vector<double>> u;  // direction per input
  std::map<std::string, std::vector<double>> v;  // weight per output
  Blobs base_inputs;
};

// d/dt ⟨v, y(x + t·dir)⟩ at 0 on the f64 reference, with whether it looked smooth there.
std::optional<Derivative> DirectionalDerivative(const Problem& p, const Direction& dir) {
  return WeightedOutputDerivative(*p.c, p.base_inputs, p.v, dir);
}

OracleResult CheckGradient(const Case& c, const OracleOptions& options);

OracleResult CheckGradientAt(const Case& c, const OracleOptions& options) {
  Problem p;
  p.c = &c;
  p.inputs = DifferentiableInputs(c);
  if (p.inputs.empty()) return {std::nullopt, "no differentiable floating inputs"};
  BackendRun truth = GetBackend(kReference).Run(c);
  if (truth.error) {
    // Bad input when the backend under test rejects it too; else the forward oracle reports the
    // disagreement.
    BackendRun candidate = options.backend->Run(c);
    if (candidate.error) return {std::nullopt, "", candidate.error};
    return {std::nullopt, std::string("the reference cannot run the net: ") + truth.error->what()};
  }
  // Statistics are left out of the objective (BlobsWithoutGradient).
  const std::set<std::string> without_gradient = BlobsWithoutGradient(c.net());
  for (const std::string& y : ComparedBlobs(c)) {
    auto it = truth.blobs.find(y);
    if (it != truth.blobs.end() && IsFloatingProto(it->second) && !without_gradient.count(y)) {
      p.outputs.push_back(y);
    }
  }
  if (p.outputs.empty()) return {std::nullopt, "no floating outputs"};
  p.base_inputs = CaseInputs(c);
  // Inputs without elements (empty tensors) make a Jacobian without columns: what is left to check
  // is that the backward pass runs and gives gradients of their shapes. Outputs they cannot move
  // (the -inf of a max over nothing, the NaN of a mean over nothing) are then no obstacle.
  const bool all_inputs_empty = std::all_of(p.inputs.begin(), p.inputs.end(), [&](auto& x) {
    auto it = p.base_inputs.find(x);  // a dim of 0, read off the proto without converting it
    return it != p.base_inputs.end() &&
           std::find(it->second.dims().begin(), it->second.dims().end(), 0) !=
               it->second.dims().end();
  });
  // An output that overflowed (or is NaN) even in f64 has no derivative to compare: finite
  // differences see it unmoved (inf - inf), while the backward pass multiplies inf by 0.
  for (const auto& y : all_inputs_empty ? std::vector<std::string>{} : p.outputs) {
    for (double value : ProtoValues(truth.blobs.at(y))) {
      if (!std::isfinite(value)) {
        return {std::nullopt, std::string(kNotFinite) + ": output '" + y +
                                  "' holds inf or NaN in the f64 reference"};
      }
    }
  }

  std::mt19937_64 rng(c.seed() * 0x9E3779B97F4A7C15ull + 17);
  std::normal_distribution<double> normal(0.0, 1.0);
  for (const auto& x : p.inputs) {
    auto it = p.base_inputs.find(x);
    if (it == p.base_inputs.end()) return {std::nullopt, "gradient input '" + x + "' is not fed"};
    std::vector<double> d(ProtoValues(it->second).size());
    for (double& e : d) e = normal(rng);
    p.u[x] = d;
  }
  for (const auto& y : p.outputs) {
    std::vector<double> w(ProtoValues(truth.blobs.at(y)).size());
    for (double& e : w) e = normal(rng);
    p.v[y] = w;
  }

  // Each seed has its output's dtype: a net fed doubles computes them in double, and its gradient
  // ops take a dY of Y's dtype. Read off a forward run of the backend when a double is fed.
  std::set<std::string> double_outputs;
  if (std::any_of(c.inputs().begin(), c.inputs().end(), [](const caffe2::TensorProto& t) {
        return t.data_type() == caffe2::TensorProto::DOUBLE;
      })) {
    const BackendRun forward = options.backend->Run(c);
    for (const auto& y : p.outputs) {
      auto it = forward.blobs.find(y);
      if (it != forward.blobs.end() && it->second.data_type() == caffe2::TensorProto::DOUBLE) {
        double_outputs.insert(y);
      }
    }
  }

  // Production: the net with its backward pass, seeded with v.
  Case backward = c;
  GradientSeeds seeds;
  for (const auto& y : p.outputs) seeds.emplace_back(y, y + "_parity_dy");
  BackwardPass pass;
  try {
    std::vector<caffe2::OperatorDef> ops(c.net().op().begin(), c.net().op().end());
    pass = GetBackwardPass(ops, seeds);
  } catch (const Error& error) {
    return {std::nullopt, std::string("no backward pass: ") + error.what()};
  }
  backward.mutable_net()->clear_external_output();
  for (auto& op : pass.ops) *backward.mutable_net()->add_op() = op;
  for (const auto& y : p.outputs) {
    const auto& dims = truth.blobs.at(y).dims();
    *backward.add_inputs() = double_outputs.count(y)
                                 ? DoubleProto(y + "_parity_dy", {dims.begin(), dims.end()}, p.v.at(y))
                                 : FloatProto(y + "_parity_dy", {dims.begin(), dims.end()}, p.v.at(y));
  }
  // The gradients of the values fed: a fed blob the net overwrites before reading has none.
  const std::map<std::string, std::string>& gradient_of_input = pass.input_gradient_of;
  for (const auto& x : p.inputs) {
    auto g = gradient_of_input.find(x);
    if (g != gradient_of_input.end()) backward.mutable_net()->add_external_output(g->second);
  }
  const double rtol = 5e-4 * options.tolerance.k;
  const double atol = 1e-4;
  // A backward net built wrong (by a maker or the builder) runs alike on every engine; its blame
  // comes from checking the net against the truth and each maker alone
  // (oracles/backward_localize.h), every element of the op alone: one random projection can
  // cancel a small error by chance.
  OracleOptions alone = options;
  alone.localize = false;
  alone.full_jacobian = true;
  const SingleOpCheck check_alone = [&alone](const Case& single) {
    return CheckGradient(single, alone);
  };
  auto blame_backward = [&c](Finding* finding, const BackwardBlame& wrong) {
    if (!wrong.detail.empty()) finding->set_message(finding->message() + "; " + wrong.detail);
    if (wrong.op_index < 0) return;
    SetBlame(finding, wrong.op_index, c.net());
    finding->set_blamed_op_path(finding->blamed_op_path() + " " + wrong.error_class);
    finding->mutable_signature()->set_error_class(wrong.error_class);
  };

  const RunOptions config{options.localize, ""};
  BackendRun production = options.backend->Run(backward, config);
  if (production.error) {
    Finding finding =
        MakeFinding("gradient", c, "backward failed",
                    std::string("the backward net failed: ") + production.error->what());
    finding.set_error_kind(ErrorKindName(production.error->kind()));
    if (!options.localize) {
      SetBlame(&finding, FailingOpIndex(*production.error), backward.net());
    } else if (GetBackend(kReference).Run(backward).error) {
      // The truth cannot run it either: the net is built wrong.
      blame_backward(&finding, FirstWrongMaker(c, check_alone));
      if (!finding.has_blamed_op_index() || finding.blamed_op_index() < 0) {
        // Every maker builds a net that runs alone: the builder put them together wrongly.
        SetBlame(&finding, FailingOpIndex(*production.error), backward.net());
        finding.set_message(finding.message() + "; every forward op's maker is right alone, " +
                            "so the backward pass assembled their gradient ops wrongly");
        finding.mutable_signature()->set_error_class(kGradientWiring);
      }
    } else {
      SetBlame(&finding,
               UpstreamCulprit(backward, *options.backend, *production.error, options.tolerance),
               backward.net());
    }
    return {finding, ""};
  }
  std::map<std::string, std::vector<double>> gradients;
  for (const auto& x : p.inputs) {
    size_t n = p.u.at(x).size();
    auto g = gradient_of_input.find(x);
    std::vector<double> values(n, 0.0);
    if (g != gradient_of_input.end() && production.blobs.count(g->second)) {
      const caffe2::TensorProto& grad = production.blobs.at(g->second);
      values = ProtoValues(grad);
      if (Dims(grad) != Dims(p.base_inputs.at(x))) {
        Finding finding = MakeFinding("gradient", c, "shape mismatch",
                                      "gradient '" + g->second + "' of '" + x + "' has dims " +
                                          ShapeString(Dims(grad)) + ", the input has dims " +
                                          ShapeString(Dims(p.base_inputs.at(x))));
        if (options.localize) {
          blame_backward(&finding,
                         LocalizeBackwardNet(c, p.v, pass, {&production, nullptr, nullptr}, rtol,
                                             atol, check_alone));
        }
        return {finding, ""};
      }
    }
    gradients[x] = values;
  }

  // Each input on its own (vᵀJ u_x, the direction restricted to x): a wrong gradient of a small
  // input (a bias, a thin layer's weight) cannot hide behind a large one's magnitude. The relative
  // tolerance is the whole check's; the absolute floor (for f32 cancellation inside the backward
  // net) is shared out by each input's part of the random direction, ||u_x|| / ||u||.
  double u_norm = 0;
  for (const auto& x : p.inputs) {
    for (double e : p.u.at(x)) u_norm += e * e;
  }
  u_norm = std::sqrt(std::max(u_norm, 1e-300));
  struct Projection {
    std::string x;
    double analytic, numeric, allowed;
  };
  std::vector<Projection> over;  // inputs whose projection is off by more than `allowed`
  for (const auto& x : p.inputs) {
    const std::vector<double>& u = p.u.at(x);
    if (u.empty()) continue;  // an empty input: its projection is exactly 0 on both sides
    double analytic = 0, scale = 0, u_x = 0;
    for (size_t i = 0; i < u.size(); ++i) {
      analytic += gradients[x][i] * u[i];
      scale += std::abs(gradients[x][i] * u[i]);
      u_x += u[i] * u[i];
    }
    auto derivative = DirectionalDerivative(p, {{x, u}});
    if (!derivative) return {std::nullopt, "the reference failed near the inputs"};
    if (!derivative->smooth) {
      const std::string where = LocateKink(c, p.base_inputs, {{x, u}});
      return {std::nullopt, std::string(kNotSmooth) + " at these inputs: a kink or tie within " +
                                "the finite-difference step" +
                                (where.empty() ? "" : " at " + where)};
    }
    const double numeric = derivative->value;
    // A true derivative past f32's largest value cannot come out of an f32 backward pass (it
    // overflows to inf, and inf - inf to NaN): no verdict on f32 (a 220k-case campaign found a
    // Sqr chain whose projection was 8e96).
    if (!(std::abs(numeric) <= std::numeric_limits<float>::max())) {
      return {std::nullopt, std::string(kNotFinite) + ": the gradient of '" + x +
                                "' along the direction is beyond f32's range in the f64 reference"};
    }
    const double allowed = atol * std::sqrt(u_x) / u_norm + rtol * (scale + std::abs(numeric)) +
                           derivative->uncertainty;
    // Written as !(error <= allowed) so that a NaN or inf gradient is a mismatch, not a pass.
    if (!(std::abs(analytic - numeric) <= allowed)) over.push_back({x, analytic, numeric, allowed});
  }
  // A value that overflowed (or went NaN) inside the net, even in f64, leaves the derivative
  // without a value although the outputs are finite (Atan of an overflowed Exp: finite differences
  // see a flat function, the backward pass multiplies inf by 0). A campaign found it so: two
  // While loops, the first's Exp overflowing on its second pass, the second's Atan saturating.
  if (!over.empty() && !truth.first_non_finite.empty()) {
    return {std::nullopt, std::string(kNotFinite) + ": " + truth.first_non_finite +
                              " in the f64 reference, so the derivative there has no value"};
  }
  // An input whose true projection is (nearly) zero while its backward net sums large terms that
  // cancel (a bias in front of a normalization: the shift drops out) gets production's f32
  // rounding of those terms, which no relative tolerance covers. The f32 reference runs the same
  // backward net in f32 with its naive loops: its distance from the f64 reference on this
  // projection measures the rounding this computation carries in f32. Production may sum in
  // another order (blocked, vectorized), whose error differs from the naive order's by a factor
  // of a few; kF32PeerFactor (oracles/backward_localize.h) is that factor with margin. Run only
  // when a projection is off, so passing cases pay nothing.
  // The reference's runs of the backward net, f64 and f32: made once, when the allowance below or
  // the localization at the end first needs them.
  std::optional<BackendRun> peer64, peer32;
  auto run_peers = [&] {
    if (peer64) return;
    peer64 = GetBackend(kReference).Run(backward, config);
    peer32 = GetBackend(kReferenceF32).Run(backward, config);
  };
  if (!over.empty()) {
    run_peers();
    if (!peer64->error && !peer32->error) {
      auto projection = [&](const BackendRun& run, const std::string& x) -> std::optional<double> {
        auto projected =
            GradientProjection(run, gradient_of_input, x, p.base_inputs.at(x), p.u.at(x));
        if (!projected) return std::nullopt;
        return projected->value;
      };
      // One realization of f32 rounding can land near zero by luck (the f32 reference's sum
      // happening to cancel better than production's), so the rounding is sampled
      // kRoundingSamples times: the backward net's floating inputs moved by one f32 ulp at random
      // (the same computation to first order, another realization of its rounding), the f32 and
      // f64 reference run on each, and the largest distance taken.
      std::map<std::string, double> rounding;
      auto sample = [&](const BackendRun& run64, const BackendRun& run32) {
        for (const Projection& o : over) {
          auto a64 = projection(run64, o.x), a32 = projection(run32, o.x);
          if (a64 && a32) rounding[o.x] = std::max(rounding[o.x], std::abs(*a32 - *a64));
        }
      };
      sample(*peer64, *peer32);
      SampleMovedCopies(backward, 0xA0761D6478BD642Full, sample);
      std::vector<Projection> still;
      for (Projection& o : over) {
        o.allowed += kF32PeerFactor * rounding[o.x];
        if (!(std::abs(o.analytic - o.numeric) <= o.allowed)) still.push_back(o);
      }
      over = still;
    }
    // An intermediate past f32's range but not f64's (Cosh of a Sinh of -5.8 is 5e68) makes an
    // f32 backward pass multiply inf by 0 where the f64 finite differences see a flat function (a
    // Clip above it): where the f32 reference's own gradient of the input is inf or NaN too, on the
    // same backward net, f32 has no value to give, and production's inf or NaN there is no bug (a
    // 2,224-case slice of the default campaign found it so). A finite wrong value still counts.
    if (!over.empty() && !peer32->error && !peer64->error && !peer32->first_non_finite.empty()) {
      const bool f32_has_no_value = std::all_of(over.begin(), over.end(), [&](const Projection& o) {
        auto a32 = GradientProjection(*peer32, gradient_of_input, o.x, p.base_inputs.at(o.x),
                                      p.u.at(o.x));
        return !std::isfinite(o.analytic) && (!a32 || !std::isfinite(a32->value));
      });
      if (f32_has_no_value) {
        return {std::nullopt, std::string(kNotFinite) + ": " + peer32->first_non_finite +
                                  " in the f32 reference, whose gradient is not finite either"};
      }
    }
  }
  std::vector<std::string> mismatched;
  std::ostringstream fast_message;
  fast_message.precision(9);
  for (const Projection& o : over) {
    mismatched.push_back(o.x);
    fast_message << (mismatched.size() > 1 ? "; " : "") << "vᵀJu for input '" << o.x
                 << "': production " << o.analytic << ", finite differences " << o.numeric;
  }
  const bool fast_ok = mismatched.empty();
  if (fast_ok && !options.full_jacobian) return {};

  // Full mode: every input element on its own.
  std::optional<Finding> finding;
  if (!fast_ok) finding = MakeFinding("gradient", c, "gradient mismatch", fast_message.str());
  for (const auto& x : p.inputs) {
    const caffe2::TensorProto& base = p.base_inputs.at(x);
    size_t n = p.u.at(x).size();
    if (static_cast<int64_t>(n) > kMaxFullElements) continue;
    std::vector<double> fd(n, 0.0);
    bool bad = false;
    for (size_t j = 0; j < n; ++j) {
      std::map<std::string, std::vector<double>> e{{x, std::vector<double>(n, 0.0)}};
      e[x][j] = 1.0;
      auto d = DirectionalDerivative(p, e);
      fd[j] = d ? d->value : NAN;
      double g = gradients[x][j];
      if (d && !d->smooth) {
        fd[j] = g;  // a kink at this element: no verdict either way
        continue;
      }
      if (!d || !(std::abs(g - d->value) <= atol + rtol * (std::abs(d->value) + std::abs(g)))) {
        bad = true;
      }
    }
    if (!bad) continue;
    if (!finding)
      finding = MakeFinding("gradient", c, "gradient mismatch", "per-element gradient mismatch");
    caffe2::TensorProto expected = DoubleProto(x + "_grad", Dims(base), fd);
    caffe2::TensorProto actual = FloatProto(x + "_grad", Dims(base), gradients[x]);
    ToleranceClass tol{"gradient", 0.0, atol, rtol};
    AddComparison(&*finding, "d/d " + x, expected, actual,
                  CompareWithTruth(expected, expected, actual, tol));
  }
  if (!finding) return {};
  finding->mutable_signature()->set_dtype("FLOAT");
  *finding->mutable_case_()->mutable_net() = c.net();
  if (options.localize) {
    // Localize on the backward net: the first gradient (or forward) op whose outputs diverge.
    run_peers();
    if (!peer64->error) {
      Blame blame = Localize(backward.net(), CaseInputs(backward), production, *peer64, *peer32,
                             options.tolerance);
      if (blame.op_index >= 0) {
        SetBlame(&*finding, blame.op_index, backward.net());
        finding->set_message(finding->message() + "; first diverging op of the backward net #" +
                             std::to_string(blame.op_index) + " (" +
                             backward.net().op(blame.op_index).type() + ") output '" + blame.blob +
                             "': " + blame.comparison.detail);
        BlameInside(&*finding, backward.net(), blame, c.seed(), *options.backend,
                    options.tolerance);
        return {finding, ""};
      }
    }
    // Every op of the backward net agrees with its reference: the net itself is wrong.
    blame_backward(&*finding, LocalizeBackwardNet(c, p.v, pass,
                                                  {&production, peer64->error ? nullptr : &*peer64,
                                                   peer32->error ? nullptr : &*peer32},
                                                  rtol, atol, check_alone));
    const int unknown = peer64->error && peer64->error->kind() == ErrorKind::kUnknownOp
                            ? FailingOpIndex(*peer64->error)
                            : -1;
    if (finding->signature().error_class() == kGradientMaker && unknown >= 0 &&
        unknown < backward.net().op_size()) {
      // The reference could not run the backward net past a gradient op it has no kernel for:
      // wrong alone, that op's maker and kernel cannot be told apart, and the kernel is named.
      const std::string& type = backward.net().op(unknown).type();
      finding->set_blamed_op_type(type);
      finding->set_blamed_op_path(finding->blamed_op_path() + ": " + type + " (op #" +
                                  std::to_string(unknown) + " of the backward net)");
      finding->mutable_signature()->set_blamed_op_type(type);
      finding->mutable_signature()->set_error_class(kGradientOpUnchecked);
    }
  }
  return {finding, ""};
}

// The inputs moved a little off whatever kink or tie sat within the step: each differentiable
// input scaled by 1 + 1% noise (signs and positivity kept) plus a 0.2% shift (so exact zeros
// move too). The values stay in the spec's domains up to that margin.
Case Nudged(const Case& c, int attempt) {
  std::mt19937_64 rng(c.seed() * 0x2545F4914F6CDD1Dull + static_cast<uint64_t>(attempt));
  std::normal_distribution<double> normal(0.0, 1.0);
  auto noise = [&] { return std::clamp(normal(rng), -2.0, 2.0); };
  const std::vector<std::string> names = DifferentiableInputs(c);
  Case out = c;
  for (auto& input : *out.mutable_inputs()) {
    if (std::find(names.begin(), names.end(), input.name()) == names.end()) continue;
    std::vector<double> x = ProtoValues(input);
    for (double& v : x) v = v * (1 + 0.01 * noise()) + 0.002 * noise();
    input = input.data_type() == caffe2::TensorProto::DOUBLE
                ? DoubleProto(input.name(), Dims(input), x)
                : FloatProto(input.name(), Dims(input), x);
  }
  return out;
}

// Where the finite differences straddle a kink, the inputs are nudged (as Caffe2's gradient
// checker callers move inputs off ties and zeros) and the check runs again, so a net with
// Relu or MaxPool is still checked; the verdict, and any finding, holds the nudged case.
// Why the net has no gradient at all, or "": a RecurrentNetwork built forward-only carries no
// backward step net, so neither Caffe2 nor parity can differentiate it (the forward oracles still
// check it).
std::string WithoutGradient(const caffe2::NetDef& net) {
  for (int i = 0; i < net.op_size(); ++i) {
    const caffe2::OperatorDef& op = net.op(i);
    if (op.type() != "RecurrentNetwork") continue;
    const bool has_backward = std::any_of(op.arg().begin(), op.arg().end(), [](const auto& arg) {
      return arg.name() == "backward_step_net";
    });
    if (!has_backward) {
      return "op #" + std::to_string(i) +
             " (RecurrentNetwork) was built forward-only (no backward_step_net): it has no "
             "gradient";
    }
  }
  return "";
}

OracleResult CheckGradient(const Case& c, const OracleOptions& options) {
  constexpr int kNudges = 3;
  if (std::string reason = WithoutGradient(c.net()); !reason.empty()) return {std::nullopt, reason};
  OracleResult result = CheckGradientAt(c, options);
  for (int attempt = 1; attempt <= kNudges; ++attempt) {
    if (result.finding || result.not_applicable.rfind(kNotSmooth, 0) != 0) return result;
    OracleResult nudged = CheckGradientAt(Nudged(c, attempt), options);
    if (nudged.finding || nudged.not_applicable.rfind(kNotSmooth, 0) != 0) return nudged;
  }
  result.not_applicable +=
      " (still after nudging the inputs " + std::to_string(kNudges) + " times)";
  return result;
}

const bool kRegistered = RegisterOracle("gradient", CheckGradient);

}  // namespace
}  // namespace parity::oracles
