// Mutants of control flow (issue 13): the bugs control_ops_grad.py invites and Do's bindings make
// easy. The two gradient mutants swap the If and While gradient makers (their gradient control ops
// run alike on both engines, so only the gradient oracle's finite differences of the forward net
// can see them); the binding mutant wraps the Do kernel (the forward oracle sees it), and the If
// that decides once wraps the If kernel, met where control flow nests (While > Do > If).
#include <google/protobuf/text_format.h>

#include <random>
#include <string>
#include <utility>

#include "core/grad/gradient.h"
#include "fuzz/specs/control.h"
#include "tests/mutants/mutant_wrap.h"

namespace parity::mutants {
namespace {

using Edit = std::function<void(Ops* ops)>;

// Wraps `type`'s registered gradient maker and edits what it emits (as maker_mutants.cc does).
Mutant ControlMakerMutant(const std::string& name, const std::string& type,
                          const std::string& description, Edit edit) {
  Mutant m = M(name, type, "gradient", "maker", description);
  m.install = [type, edit] {
    const GradientEntry* found = GradientRegistry::Find(type);
    PARITY_ENFORCE(found != nullptr, ErrorKind::kInternal, "control mutant: no gradient for ",
                   type);
    GradientEntry original = *found;
    GradientEntry mutated = original;
    GradientMaker inner = original.maker;
    mutated.maker = [inner, edit](GradientContext& g) {
      Ops ops = inner(g);
      edit(&ops);
      return ops;
    };
    GradientRegistry::Replace(type, mutated);
    return std::function<void()>([type, original] { GradientRegistry::Replace(type, original); });
  };
  return m;
}

caffe2::NetDef* NetArgOf(caffe2::OperatorDef* op, const std::string& name) {
  for (caffe2::Argument& arg : *op->mutable_arg()) {
    if (arg.name() == name && arg.has_n()) return arg.mutable_n();
  }
  return nullptr;
}

// x <- x * w, k in [2, 4] passes: a While whose body is a Do (tests/control's power loop), with
// random x and w, so the weight w's gradient sums one contribution per pass.
Case PowerWhileCase(uint64_t seed) {
  static const char kNet[] = R"(name: "power"
    op { output: "ws" type: "CreateScope" }
    op {
      type: "While"
      input: "cond" input: "x" input: "w" input: "ws" input: "i" input: "k" input: "one"
      output: "x" output: "ws" output: "i" output: "cond"
      arg { name: "loop_net" n { name: "loop" op {
        type: "Do" input: "x" input: "w" input: "ws" output: "x" output: "ws"
        arg { name: "inner_blobs" strings: "a0" strings: "a2" }
        arg { name: "outer_blobs_idx" ints: 0 ints: 1 }
        arg { name: "net" n { name: "body"
          op { type: "Copy" input: "a0" output: "xin" }
          op { type: "Mul" input: "xin" input: "a2" output: "res" }
          op { type: "Copy" input: "res" output: "a0" } } } } } }
      arg { name: "cond_net" n { name: "cond"
        op { type: "Add" input: "i" input: "one" output: "i" }
        op { type: "LE" input: "i" input: "k" output: "cond" } } }
    }
    external_input: "x" external_input: "w" external_output: "x")";
  Case c;
  c.set_seed(seed);
  PARITY_ENFORCE(google::protobuf::TextFormat::ParseFromString(kNet, c.mutable_net()),
                 ErrorKind::kInternal, "control mutant: the power loop does not parse");
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> magnitude(0.5f, 1.5f);
  std::bernoulli_distribution negative(0.3);
  const int64_t n = 1 + static_cast<int64_t>(seed % 4);
  for (const char* name : {"x", "w"}) {
    caffe2::TensorProto* t = c.add_inputs();
    t->set_name(name);
    t->set_data_type(caffe2::TensorProto::FLOAT);
    t->add_dims(n);
    for (int64_t e = 0; e < n; ++e) t->add_float_data(magnitude(rng) * (negative(rng) ? -1 : 1));
    c.add_grad_inputs(name);
  }
  auto scalar = [&c](const char* name, caffe2::TensorProto::DataType type, int32_t value) {
    caffe2::TensorProto* t = c.add_inputs();
    t->set_name(name);
    t->set_data_type(type);
    t->add_dims(1);
    t->add_int32_data(value);
  };
  scalar("cond", caffe2::TensorProto::BOOL, 1);
  scalar("i", caffe2::TensorProto::INT32, 0);
  scalar("k", caffe2::TensorProto::INT32, 2 + static_cast<int32_t>(seed % 3));
  scalar("one", caffe2::TensorProto::INT32, 1);
  return c;
}

}  // namespace

void AddControlMutants(std::vector<Entry>* out) {
  auto add = [out](Mutant m, Wrap w) { out->push_back({std::move(m), std::move(w)}); };

  // The gradient If runs then's backward pass when the condition holds and nothing otherwise: the
  // gradients of an If that took its else branch stay zero (or stale).
  add(ControlMakerMutant("CF_IF_GRADIENT_DROPS_ELSE", "If",
                         "the gradient If has no else_net: an If that took else gets no gradient",
                         [](Ops* ops) {
                           for (caffe2::OperatorDef& op : *ops) {
                             if (op.type() == "If") RemoveArg(&op, "else_net");
                           }
                         }),
      Wrap{});

  // Each pass of the gradient While overwrites a loop weight's gradient instead of adding to it:
  // Sum(<g>_accum, <g>_tmpstep) -> <g>_accum becomes Copy(<g>_tmpstep) -> <g>_accum, so only the
  // last backward pass (the first forward pass) counts.
  add(ControlMakerMutant(
          "CF_WHILE_GRADIENT_NOT_ACCUMULATED", "While",
          "the gradient While keeps one pass's gradient of a loop weight instead of summing over "
          "the passes",
          [](Ops* ops) {
            for (caffe2::OperatorDef& op : *ops) {
              if (op.type() != "While") continue;
              caffe2::NetDef* loop = NetArgOf(&op, "loop_net");
              if (loop == nullptr) continue;
              for (caffe2::OperatorDef& step : *loop->mutable_op()) {
                if (step.type() != "Sum" || step.input_size() != 2) continue;
                const std::string& accum = step.input(0);
                if (accum.size() < 6 || accum.substr(accum.size() - 6) != "_accum") continue;
                const std::string tmpstep = step.input(1);
                step.set_type("Copy");
                step.clear_input();
                step.add_input(tmpstep);
              }
            }
          }),
      Wrap{});
  out->back().mutant.build = PowerWhileCase;

  {
    Wrap w;
    // inner_blobs[0] and [1] each bound to the other's outer input (when both are inputs).
    w.edit = [](const Operator& self, caffe2::OperatorDef* def) {
      std::vector<int64_t> index = IntsArg(*def, "outer_blobs_idx");
      const int64_t data_inputs = self.def().input_size() - 1;  // the last is the scope
      if (index.size() >= 2 && index[0] < data_inputs && index[1] < data_inputs) {
        std::swap(index[0], index[1]);
        SetInts(def, "outer_blobs_idx", index);
      }
    };
    add(M("CF_DO_BINDING_OFF_BY_ONE", "Do", "forward", "control",
          "Do binds its first two inner blobs each to the other's outer input"),
        w);
  }

  {
    Wrap w;
    // The condition an If instance saw on its first run, kept in the instance's scratch blob
    // (it outlives the run in the op's workspace), stands for every later run: a decision made
    // once per instance, as a kernel that picks its branch's net at construction would. One If
    // instance runs again on another condition only inside a loop whose body reruns one
    // workspace: While > Do (reuse_workspace) > If, the condition recomputed before each pass.
    w.inputs[0] = [](const Operator&, const Tensor& in, Tensor* out) {
      if (!out->defined()) out->CopyFrom(in);
    };
    add(M("CF_IF_DECIDES_ONCE", "If", "forward", "control",
          "an If instance takes the branch of its first run on every later run"),
        w);
    // Cases: the While spec's loops of three passes whose body If takes then on the first pass
    // and else from the second (the registered spec draws that shape among others).
    out->back().mutant.make = [](const fuzz::Primary* p) {
      fuzz::WhileChoices loop;
      loop.nested_if = true;
      loop.reuse_workspace = true;
      loop.passes = 3;
      loop.else_from_pass = 2;
      return fuzz::DrawWhile(p, loop);
    };
    // A pass cut out of the loop runs a fresh If, which decides right: the loop is to blame.
    out->back().mutant.blamed_as = "While";
  }
}

}  // namespace parity::mutants
