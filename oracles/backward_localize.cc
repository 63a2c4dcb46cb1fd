#include "oracles/backward_localize.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <sstream>

#include "core/schema.h"
#include "oracles/smoothness.h"
#include "oracles/tolerance.h"

namespace parity::oracles {
namespace {

const OpSchema* SchemaOf(const caffe2::OperatorDef& op) {
  return OpSchemaRegistry::Find(op.type());
}

bool ReadsDifferentiably(const caffe2::OperatorDef& op, const std::string& blob) {
  const OpSchema* schema = SchemaOf(op);
  for (int i = 0; i < op.input_size(); ++i) {
    if (op.input(i) == blob && (schema == nullptr || schema->IsDifferentiable(i))) return true;
  }
  return false;
}

std::string OpName(const caffe2::NetDef& net, int index) {
  return "op #" + std::to_string(index) + " (" + net.op(index).type() + ")";
}

}  // namespace

std::optional<Projected> GradientProjection(const BackendRun& run,
                                            const std::map<std::string, std::string>& gradient_of,
                                            const std::string& blob,
                                            const caffe2::TensorProto& value,
                                            const std::vector<double>& w) {
  if (run.error) return std::nullopt;
  auto g = gradient_of.find(blob);
  if (g == gradient_of.end()) return Projected{};
  auto it = run.blobs.find(g->second);
  if (it == run.blobs.end()) return std::nullopt;
  if (!std::equal(it->second.dims().begin(), it->second.dims().end(), value.dims().begin(),
                  value.dims().end())) {
    return std::nullopt;
  }
  const std::vector<double> values = ProtoValues(it->second);
  if (values.size() != w.size()) return std::nullopt;
  Projected out;
  for (size_t i = 0; i < w.size(); ++i) {
    out.value += values[i] * w[i];
    out.scale += std::abs(values[i] * w[i]);
  }
  return out;
}

// An op that runs nets (If, While, Do, RecurrentNetwork) whose bodies name the op's blobs.
bool RunsNets(const caffe2::OperatorDef& op) {
  for (const caffe2::Argument& arg : op.arg()) {
    if (arg.has_n() || arg.nets_size() > 0) return true;
  }
  return false;
}

bool MadeByCreateScope(const caffe2::NetDef& net, const std::string& blob) {
  for (const caffe2::OperatorDef& op : net.op()) {
    if (op.type() == "CreateScope" && op.output_size() == 1 && op.output(0) == blob) return true;
  }
  return false;
}

Case OpAloneCase(const Case& c, int index, const Blobs& state) {
  const caffe2::OperatorDef& original = c.net().op(index);
  caffe2::OperatorDef op = original;
  // Inputs are renamed apart (in0, in1, ...) so a blob read twice gets two gradients; an op that
  // runs nets keeps its names, which its bodies read (If and While share the workspace, a step
  // net reads its parameters by name).
  const bool keep_names = RunsNets(original);
  auto input_name = [&](int i) {
    return keep_names ? original.input(i) : "in" + std::to_string(i);
  };
  Case single;
  single.set_seed(c.seed() * 31 + static_cast<uint64_t>(index));
  single.set_description("op #" + std::to_string(index) + " of a net, alone (maker check)");
  caffe2::NetDef* net = single.mutable_net();
  net->set_name("maker_check");
  std::set<std::string> fed;
  for (int i = 0; i < original.input_size(); ++i) {
    const std::string name = input_name(i);
    op.set_input(i, name);
    if (!fed.insert(name).second) continue;  // a kept name read twice is fed once
    auto it = state.find(original.input(i));
    if (it == state.end() && MadeByCreateScope(c.net(), original.input(i))) {
      // A workspace stack is not a tensor the state holds: a fresh one is made as the net made
      // it (the op alone starts from an empty stack, as it did in the net).
      caffe2::OperatorDef* scope = net->add_op();
      scope->set_type("CreateScope");
      scope->add_output(name);
      continue;
    }
    net->add_external_input(name);
    if (it == state.end()) continue;  // the run will say which blob is missing
    *single.add_inputs() = AsCaseInput(it->second, name);
  }
  for (int j = 0; j < original.output_size(); ++j) {
    // An output written in place over an input stays in place (some schemas require it).
    std::string name = keep_names ? original.output(j) : "out" + std::to_string(j);
    for (int i = 0; i < original.input_size(); ++i) {
      if (original.input(i) == original.output(j)) name = op.input(i);
    }
    op.set_output(j, name);
    net->add_external_output(name);
  }
  *net->add_op() = op;
  return single;
}

namespace {

// Every blob's value when op k starts, k = 0..n (the last: at the end), from a traced f64
// reference run; empty when the reference cannot run the net.
std::vector<Blobs> StatesBeforeEachOp(const Case& c) {
  const int n = c.net().op_size();
  BackendRun forward = GetBackend(kReference).Run(c, {/*trace=*/true, ""});
  if (forward.error || static_cast<int>(forward.trace.size()) != n) return {};
  std::vector<Blobs> before(n + 1);
  before[0] = CaseInputs(c);
  for (int k = 0; k < n; ++k) {
    before[k + 1] = before[k];
    for (const auto& [name, value] : forward.trace[k].outputs) before[k + 1][name] = value;
  }
  return before;
}

}  // namespace

BackwardBlame FirstWrongMaker(const Case& c, const SingleOpCheck& check_single_op) {
  BackwardBlame blame;
  if (c.has_init_net()) return blame;
  const std::vector<Blobs> before = StatesBeforeEachOp(c);
  if (before.empty()) return blame;
  for (int k = c.net().op_size() - 1; k >= 0; --k) {
    OracleResult alone = check_single_op(OpAloneCase(c, k, before[k]));
    if (!alone.finding) continue;
    blame.op_index = k;
    blame.error_class = kGradientMaker;
    blame.detail = OpName(c.net(), k) +
                   "'s gradient maker is wrong on the op alone: " + alone.finding->message();
    return blame;
  }
  return blame;
}

BackwardBlame LocalizeBackwardNet(const Case& c, const OutputWeights& weights,
                                  const BackwardPass& pass, const BackwardRuns& runs, double rtol,
                                  double atol, const SingleOpCheck& check_single_op) {
  BackwardBlame blame;
  if (c.has_init_net() || runs.production == nullptr) return blame;
  const caffe2::NetDef& net = c.net();
  const int n = net.op_size();
  const std::vector<Blobs> before = StatesBeforeEachOp(c);
  if (before.empty()) return blame;
  // Values with one gradient each: a case input as fed (producer -1), read before anything
  // writes over it, or a blob written once at a differentiable output position.
  std::map<std::string, int> writes, producer, first_write;
  for (int k = 0; k < n; ++k) {
    const OpSchema* schema = SchemaOf(net.op(k));
    for (int j = 0; j < net.op(k).output_size(); ++j) {
      const std::string& name = net.op(k).output(j);
      ++writes[name];
      first_write.emplace(name, k);
      producer[name] = (schema == nullptr || schema->IsOutputDifferentiable(j)) ? k : -2;
    }
  }
  struct Candidate {
    std::string blob;
    int producer;
    int last_reader;  // the last op that can read this value: the one writing over it, or any
  };
  std::vector<Candidate> candidates;
  std::set<std::string> seen;
  for (int k = 0; k < n; ++k) {
    for (const std::string& name : net.op(k).input()) {
      if (seen.count(name) || !ReadsDifferentiably(net.op(k), name)) continue;
      seen.insert(name);
      Candidate candidate{name, -1, n - 1};
      if (before[0].count(name)) {
        auto overwritten = first_write.find(name);
        if (overwritten != first_write.end()) {
          if (overwritten->second < k) continue;  // first read after the write: not the fed value
          candidate.last_reader = overwritten->second;
        }
      } else {
        auto p = producer.find(name);
        if (p == producer.end() || p->second == -2 || writes[name] > 1) continue;
        candidate.producer = p->second;
      }
      const Blobs& state = before[candidate.producer + 1];
      auto value = state.find(name);
      if (value == state.end() || !IsFloatingProto(value->second)) continue;
      candidates.push_back(candidate);
    }
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& a, const Candidate& b) { return a.producer > b.producer; });

  std::mt19937_64 rng(c.seed() * 0xD1B54A32D192ED03ull + 5);
  std::normal_distribution<double> normal(0.0, 1.0);
  for (const Candidate& candidate : candidates) {
    const Blobs& state = before[candidate.producer + 1];
    const caffe2::TensorProto& value = state.at(candidate.blob);
    std::vector<double> w(ProtoValues(value).size());
    for (double& e : w) e = normal(rng);
    Case suffix = c;
    suffix.mutable_net()->clear_op();
    for (int k = candidate.producer + 1; k < n; ++k) *suffix.mutable_net()->add_op() = net.op(k);
    auto derivative = WeightedOutputDerivative(suffix, state, weights, {{candidate.blob, w}});
    if (!derivative || !derivative->smooth) continue;  // no verdict on this blob
    const std::map<std::string, std::string>& gradient_of =
        candidate.producer < 0 ? pass.input_gradient_of : pass.gradient_of;
    const std::optional<Projected> analytic =
        GradientProjection(*runs.production, gradient_of, candidate.blob, value, w);
    const double numeric = derivative->value;
    if (analytic) {
      double allowed = atol + rtol * (analytic->scale + std::abs(numeric));
      if (runs.reference64 != nullptr && runs.reference32 != nullptr) {
        auto a64 = GradientProjection(*runs.reference64, gradient_of, candidate.blob, value, w);
        auto a32 = GradientProjection(*runs.reference32, gradient_of, candidate.blob, value, w);
        if (a64 && a32) allowed += kF32PeerFactor * std::abs(a32->value - a64->value);
      }
      if (std::abs(analytic->value - numeric) <= allowed) continue;
    }
    std::ostringstream values;
    values.precision(9);
    values << "the gradient of '" << candidate.blob << "' ("
           << (gradient_of.count(candidate.blob) ? "'" + gradient_of.at(candidate.blob) + "'"
                                                 : std::string("none built"))
           << ") is wrong: projection "
           << (analytic ? std::to_string(analytic->value) : std::string("missing or misshapen"))
           << ", finite differences of the rest of the net " << numeric;
    blame.blob = candidate.blob;
    std::vector<int> consumers;
    for (int k = candidate.producer + 1; k <= candidate.last_reader; ++k) {
      if (ReadsDifferentiably(net.op(k), candidate.blob)) consumers.push_back(k);
    }
    bool inconclusive = false;
    for (int k : consumers) {
      OracleResult alone = check_single_op(OpAloneCase(c, k, before[k]));
      if (alone.finding) {
        blame.op_index = k;
        blame.error_class = kGradientMaker;
        blame.detail = values.str() + "; " + OpName(net, k) +
                       "'s gradient maker is wrong on the op alone: " + alone.finding->message();
        return blame;
      }
      if (!alone.not_applicable.empty() || alone.rejected) inconclusive = true;
    }
    if (consumers.empty() || inconclusive) {
      blame.detail = values.str() + "; its consumers' makers could not all be checked alone";
      return blame;
    }
    std::string readers;
    for (int k : consumers) readers += (readers.empty() ? "" : ", ") + OpName(net, k);
    blame.op_index = consumers.front();
    blame.error_class = kGradientWiring;
    blame.detail = values.str() + "; the gradients of its consumers' outputs are right and their " +
                   "makers are right alone (" + readers +
                   "): the backward pass sums or routes them into a wrong gradient of '" +
                   candidate.blob + "'";
    return blame;
  }
  // No blob had a single gradient to check (every one is written in place, as an If without
  // else updates its input): the makers are checked alone, last op first.
  return FirstWrongMaker(c, check_single_op);
}

}  // namespace parity::oracles
