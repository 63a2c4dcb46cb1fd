// Private case builders of the mutant catalogue: single ops in forms the specs do not draw (or
// nets such as a blob feeding several FCs) so that each mutant meets the bug it carries.
#include "tests/mutants/mutant_cases.h"

#include <rapidcheck.h>

#include <algorithm>
#include <map>
#include <random>

#include "fuzz/generators.h"

namespace parity::mutants::cases {

using fuzz::Dim;
using fuzz::Domain;
using fuzz::OpInstance;
using fuzz::Primary;

// A one-op Case from `inst` (inside rc::gen::exec), as fuzz::OpCaseGen builds it; `inplace` maps
// output j to input i (the op writes its input blob).
Case InstanceCase(const OpInstance& inst, const std::map<int, int>& inplace) {
  Case c;
  caffe2::NetDef* net = c.mutable_net();
  net->set_name(inst.type() + "_mutant_case");
  caffe2::OperatorDef* op = net->add_op();
  op->set_type(inst.type());
  for (size_t i = 0; i < inst.inputs().size(); ++i) {
    const std::string name = "in" + std::to_string(i);
    op->add_input(name);
    net->add_external_input(name);
    *c.add_inputs() = fuzz::DrawTensor(name, inst.inputs()[i]);
    if (inst.inputs()[i].differentiable && inst.inputs()[i].dtype == DataType::kFloat) {
      c.add_grad_inputs(name);
    }
  }
  for (int j = 0; j < inst.num_outputs(); ++j) {
    auto it = inplace.find(j);
    const std::string name =
        it != inplace.end() ? "in" + std::to_string(it->second) : "out" + std::to_string(j);
    op->add_output(name);
    net->add_external_output(name);
  }
  for (const auto& arg : inst.args()) *op->add_arg() = arg;
  c.set_generator_version(fuzz::kGeneratorVersion);
  c.set_description("mutant case " + inst.type());
  return c;
}

std::function<Case(uint64_t)> Builder(std::function<Case()> body) {
  return [body](uint64_t seed) { return fuzz::SampleCase(rc::gen::exec(body), seed); };
}

std::vector<int64_t> DimsAtLeast(int min_rank, int max_rank, int64_t min_dim, int64_t max_dim) {
  const int rank = *rc::gen::inRange(min_rank, max_rank + 1);
  std::vector<int64_t> dims;
  for (int i = 0; i < rank; ++i) dims.push_back(Dim(min_dim, max_dim));
  return dims;
}

std::optional<OpInstance> MakeSoftmax(const Primary*) {
  std::vector<int64_t> x = DimsAtLeast(2, 4, 2, 4);
  OpInstance op("Softmax");
  op.Input(x);
  op.Arg("axis", *rc::gen::inRange<int64_t>(0, static_cast<int64_t>(x.size())));
  return op;
}

std::optional<OpInstance> MakeConcat(const Primary*) {
  std::vector<int64_t> x = DimsAtLeast(2, 3, 1, 4);
  const int64_t axis = *rc::gen::inRange<int64_t>(0, static_cast<int64_t>(x.size()));
  OpInstance op("Concat", 2);
  const int n = *rc::gen::inRange(2, 4);
  for (int i = 0; i < n; ++i) {
    std::vector<int64_t> d = x;
    d[axis] = Dim(1, 4);
    op.Input(d);
  }
  op.Arg("axis", axis);
  return op;
}

std::optional<OpInstance> MakeReduceSum(const Primary*) {
  std::vector<int64_t> x = DimsAtLeast(2, 4, 2, 4);
  OpInstance op("ReduceSum");
  op.Input(x);
  op.Arg("axes", std::vector<int64_t>{*rc::gen::inRange<int64_t>(0, x.size())});
  op.Arg("keepdims", static_cast<int64_t>(*rc::gen::inRange(0, 2)));
  return op;
}

std::optional<OpInstance> MakeTranspose(const Primary*) {
  std::vector<int64_t> x = DimsAtLeast(2, 4, 1, 4);
  OpInstance op("Transpose");
  op.Input(x);
  if (*rc::gen::arbitrary<bool>()) {
    std::vector<int64_t> axes(x.size());
    for (size_t i = 0; i < axes.size(); ++i) axes[i] = static_cast<int64_t>(i);
    std::mt19937_64 rng(*rc::gen::arbitrary<uint64_t>());
    std::shuffle(axes.begin(), axes.end(), rng);
    op.Arg("axes", axes);
  }
  return op;
}

std::optional<OpInstance> MakeSum(const Primary*) {
  std::vector<int64_t> x = DimsAtLeast(1, 3, 1, 4);
  OpInstance op("Sum");
  const int n = *rc::gen::inRange(2, 5);
  for (int i = 0; i < n; ++i) op.Input(x);
  return op;
}

// State inputs, gates, seq_lengths and the timestep of a cell of `gate_count` gates.
OpInstance RnnUnit(const std::string& type, int states, int gate_count, bool past_rows) {
  const int64_t n = Dim(2, 4), d = Dim(1, 3);
  const int64_t t = Dim(1, 3);
  OpInstance op(type, type == "LSTMUnit" ? 2 : 1);
  for (int s = 0; s < states; ++s) op.Input({1, n, d});
  op.Input({1, n, gate_count * d});
  std::vector<int64_t> lengths;
  for (int64_t i = 0; i < n; ++i) {
    // Rows past their sequence (length <= t) copy the previous state; row 0 always is when asked.
    lengths.push_back(past_rows ? (i == 0 ? *rc::gen::inRange<int64_t>(0, t + 1)
                                          : *rc::gen::inRange<int64_t>(0, 6))
                                : t + *rc::gen::inRange<int64_t>(1, 3));
  }
  op.NotDifferentiable(op.ShapeInput(lengths, DataType::kInt32));
  op.NotDifferentiable(op.ShapeInput({t}, DataType::kInt32));
  return op;
}

std::optional<OpInstance> MakeLstmWithForgetBias(const Primary*) {
  OpInstance op = RnnUnit("LSTMUnit", 2, 4, false);
  op.Arg("forget_bias", static_cast<float>(*rc::gen::inRange(1, 5)) / 2.0f);
  return op;
}

std::optional<OpInstance> MakeGruWithPastRows(const Primary*) {
  OpInstance op = RnnUnit("GRUUnit", 1, 3, true);
  if (*rc::gen::arbitrary<bool>()) op.Arg("drop_states", int64_t{1});
  return op;
}

std::optional<OpInstance> MakeLayerNorm(const Primary*) {
  std::vector<int64_t> x = DimsAtLeast(2, 3, 2, 5);
  OpInstance op("LayerNorm", 3);
  op.Input(x);
  op.Arg("axis", *rc::gen::inRange<int64_t>(1, static_cast<int64_t>(x.size())));
  // A large epsilon, so where it is added shows (1e-5 would hide under the tolerance).
  op.Arg("epsilon", static_cast<float>(*rc::gen::inRange(1, 5)) / 8.0f);
  return op;
}

std::optional<OpInstance> MakeSoftmaxWithLoss(const Primary*) {
  const int64_t n = Dim(2, 5), d = Dim(2, 5);
  OpInstance op("SoftmaxWithLoss", 2);
  op.Input({n, d});
  op.NotDifferentiable(op.IndexInput({n}, d));
  return op;
}

std::optional<OpInstance> MakeSquaredL2(const Primary*) {
  std::vector<int64_t> x = DimsAtLeast(1, 3, 1, 4);
  OpInstance op("SquaredL2Distance");
  op.Input(x);
  op.Input(x);
  return op;
}

std::optional<OpInstance> MakeGather(const Primary*) {
  std::vector<int64_t> x = DimsAtLeast(1, 3, 2, 4);
  OpInstance op("Gather");
  op.Input(x);
  op.NotDifferentiable(op.IndexInput({Dim(1, 4)}, x[0]));
  return op;
}

std::optional<OpInstance> MakeSlice(const Primary*) {
  std::vector<int64_t> x = DimsAtLeast(1, 3, 2, 5);
  std::vector<int64_t> starts, ends;
  for (int64_t d : x) {
    const int64_t s = *rc::gen::inRange<int64_t>(0, d - 1);
    starts.push_back(s);
    const int64_t e = *rc::gen::inRange<int64_t>(s + 1, d + 1);
    ends.push_back(e == d && *rc::gen::arbitrary<bool>() ? -1 : e);
  }
  OpInstance op("Slice");
  op.Input(x);
  op.Arg("starts", starts);
  op.Arg("ends", ends);
  return op;
}

std::optional<OpInstance> MakeTile(const Primary*) {
  std::vector<int64_t> x = DimsAtLeast(2, 3, 1, 3);
  OpInstance op("Tile");
  op.Input(x);
  op.Arg("tiles", *rc::gen::inRange<int64_t>(2, 4));
  op.Arg("axis", *rc::gen::inRange<int64_t>(0, static_cast<int64_t>(x.size())));
  return op;
}

std::optional<OpInstance> MakeBroadcastAdd(const Primary*) {
  std::vector<int64_t> a = DimsAtLeast(2, 3, 1, 4);
  a.back() = Dim(2, 4);
  const size_t keep = *rc::gen::inRange<size_t>(1, a.size() + 1);
  std::vector<int64_t> b(a.end() - keep, a.end());
  OpInstance op("Add");
  op.Input(a);
  op.Input(b);
  return op;
}

std::optional<OpInstance> MakeUnary(const std::string& type, Domain domain) {
  OpInstance op(type);
  op.Input(fuzz::AnyDims(1, 3, 4), domain);
  return op;
}

// SpatialBN in training: running mean and var updated in place (outputs 1, 2 are inputs 3, 4).
std::function<Case(uint64_t)> SpatialBnTrainingCases() {
  return Builder([] {
    const int64_t c = Dim(1, 3);
    std::vector<int64_t> x = {Dim(1, 3), c, Dim(1, 3), Dim(1, 3)};
    if (x[0] * x[2] * x[3] < 2) x[2] = 2;  // n >= 2 values per channel
    OpInstance op("SpatialBN", 5);
    op.Input(x);
    op.Input({c}, Domain::kPositive);
    op.Input({c});
    op.Input({c});
    op.Input({c}, Domain::kPositive);
    op.Arg("is_test", int64_t{0});
    op.Arg("momentum", 0.9f);
    op.Arg("epsilon", 1e-3f);
    return InstanceCase(op, {{1, 3}, {2, 4}});
  });
}

// x feeds two FCs: its gradient is the Sum of theirs (the backward pass's accumulation).
std::function<Case(uint64_t)> FanOutFcCases() {
  return Builder([] {
    const int64_t m = Dim(1, 3), k = Dim(1, 4);
    Case c;
    caffe2::NetDef* net = c.mutable_net();
    net->set_name("fan_out_fc");
    fuzz::InputSpec x;
    x.dims = {m, k};
    *c.add_inputs() = fuzz::DrawTensor("x", x);
    net->add_external_input("x");
    c.add_grad_inputs("x");
    const int consumers = *rc::gen::inRange(2, 4);
    for (int i = 0; i < consumers; ++i) {
      const int64_t n = Dim(1, 3);
      const std::string w = "w" + std::to_string(i), b = "b" + std::to_string(i);
      fuzz::InputSpec ws, bs;
      ws.dims = {n, k};
      bs.dims = {n};
      *c.add_inputs() = fuzz::DrawTensor(w, ws);
      *c.add_inputs() = fuzz::DrawTensor(b, bs);
      net->add_external_input(w);
      net->add_external_input(b);
      caffe2::OperatorDef* op = net->add_op();
      op->set_type("FC");
      op->add_input("x");
      op->add_input(w);
      op->add_input(b);
      op->add_output("y" + std::to_string(i));
      net->add_external_output("y" + std::to_string(i));
    }
    c.set_generator_version(fuzz::kGeneratorVersion);
    c.set_description("x fanned out to FCs");
    return c;
  });
}

// Every way a gradient is accumulated: x feeds two FCs (gradient ops' contributions, the second
// renamed apart) and a Sum (a contribution passed straight through), and the Sum's output is both
// an output of the net (a seed) and read by a Tanh.
std::function<Case(uint64_t)> AccumulationCases() {
  return Builder([] {
    const int64_t m = Dim(1, 3), k = Dim(1, 4), n = Dim(1, 3);
    Case c;
    caffe2::NetDef* net = c.mutable_net();
    net->set_name("accumulation");
    auto input = [&](const std::string& name, std::vector<int64_t> dims) {
      fuzz::InputSpec spec;
      spec.dims = std::move(dims);
      *c.add_inputs() = fuzz::DrawTensor(name, spec);
      net->add_external_input(name);
      c.add_grad_inputs(name);
    };
    input("x", {m, k});
    input("w", {n, k});
    input("b", {n});
    input("z", {m, k});
    auto op = [&](const std::string& type, std::vector<std::string> in, const std::string& out) {
      caffe2::OperatorDef* def = net->add_op();
      def->set_type(type);
      for (const auto& name : in) def->add_input(name);
      def->add_output(out);
    };
    op("FC", {"x", "w", "b"}, "y0");
    op("Sum", {"x", "z"}, "y1");
    op("Tanh", {"y1"}, "y2");
    op("FC", {"x", "w", "b"}, "y3");
    for (const char* y : {"y0", "y1", "y2", "y3"}) net->add_external_output(y);
    c.set_generator_version(fuzz::kGeneratorVersion);
    c.set_description("x accumulated from an FC and a Sum; the Sum's output also a seed");
    return c;
  });
}

// x is read (Sigmoid), then overwritten in place (Relu), then read again (Tanh): the order of a
// read and a later overwrite matters.
std::function<Case(uint64_t)> ReadThenOverwriteCases() {
  return Builder([] {
    Case c;
    caffe2::NetDef* net = c.mutable_net();
    net->set_name("read_then_overwrite");
    fuzz::InputSpec x;
    x.dims = {Dim(1, 3), Dim(1, 4)};
    *c.add_inputs() = fuzz::DrawTensor("x", x);
    net->add_external_input("x");
    auto op = [&](const std::string& type, const std::string& in, const std::string& out) {
      caffe2::OperatorDef* def = net->add_op();
      def->set_type(type);
      def->add_input(in);
      def->add_output(out);
    };
    op("Sigmoid", "x", "y");
    op("Relu", "x", "x");
    op("Tanh", "x", "z");
    for (const char* out : {"y", "x", "z"}) net->add_external_output(out);
    c.set_generator_version(fuzz::kGeneratorVersion);
    c.set_description("x read, overwritten in place, read again");
    return c;
  });
}

}  // namespace parity::mutants::cases
