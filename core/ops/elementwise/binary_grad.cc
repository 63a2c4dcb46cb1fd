// Gradient kernels of the broadcasting and variadic elementwise ops, in the conventions of the
// makers (core/ops/elementwise/makers.cc):
//
//   AddGradient / SubGradient / MulGradient (dC, A, B)  -> (dA, dB)
//   DivGradient (dC, A, B, C)                           -> (dA, dB)
//   ModGradient (dC, A, B, C)                           -> (dA, dB)  dA = dC, dB = -dC * quotient
//               (B, C, dC)  the legacy 3-input form (Caffe2's NumInputs(3, 4)): A's dims are C's
//   PowGradient (dY, X, Y)      exponent argument        -> dX = dY * e * X^(e-1)
//   PowGradient (dY, X, E, Y)   exponent input           -> (dX, dE),  dE = dY * Y * ln X
//   (Max/Min/MeanGradient: elementwise_variadic_grad.cc)
//
// The binary gradients copy the forward op's broadcast / axis / axis_str / order arguments and
// use the same broadcast rules (numpy, or the legacy broadcast=1 form): the elementwise derivative
// is computed over the broadcast (output) shape and SUM-REDUCED over every broadcast copy back to
// each input's dims, in one pass over the forward op's BroadcastPlan. Inputs float or double (one
// dtype for all); outputs keep their buffers across runs, so repeated runs do not allocate.
//
// Choices:
//   - dE of Pow is dY * Y * ln X: defined for X > 0; NaN where X < 0 and where X = 0 (0 * -inf),
//     as the formula gives. e = 0 gives dX = 0 everywhere (not 0 * X^-1).
//   - Max / Min: on ties the FIRST input (in input order) holding the extremum at an output
//     position takes the whole gradient there; the others get 0 (Caffe2's SelectGradient gives
//     dY to every tied input, which double-counts). Inputs broadcast as in the forward op, and
//     each dXi is reduced back to Xi's dims. A NaN output position passes no gradient.
//   - In place (Caffe2's AllowInplace): Add/Sub/MulGradient may write dA or dB over dC, Div and
//     Pow dA over dC, MeanGradient dX0 over dY. Any output sharing memory with an input (in place,
//     or a view) is computed aside and copied over at the end, so every input is read intact.
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/operator.h"
#include "core/ops/common/broadcast.h"
#include "core/ops/common/elementwise.h"
#include "core/ops/elementwise/binary.h"
#include "core/ops/elementwise/binary_grad.h"
#include "core/schema.h"

namespace parity {
namespace {

using namespace elementwise_grad;  // NOLINT: the shared gradient helpers

// ---------------------------------------------------------------------------------------------
// Binary gradients: functors give the elementwise derivatives as Eigen expressions of dC (the
// output gradient), A, B (each a block or a repeated scalar) and C (the forward output).

template <typename T>
struct PowOf {
  T operator()(T x, T y) const { return std::pow(x, y); }
};

struct AddGradFn {
  static constexpr bool kUsesOutput = false;
  template <typename T, class DC, class A, class B, class C>
  static auto DA(const DC& dc, const A&, const B&, const C&) { return dc; }
  template <typename T, class DC, class A, class B, class C>
  static auto DB(const DC& dc, const A&, const B&, const C&) { return dc; }
};

struct SubGradFn {
  static constexpr bool kUsesOutput = false;
  template <typename T, class DC, class A, class B, class C>
  static auto DA(const DC& dc, const A&, const B&, const C&) { return dc; }
  template <typename T, class DC, class A, class B, class C>
  static auto DB(const DC& dc, const A&, const B&, const C&) { return -dc; }
};

struct MulGradFn {
  static constexpr bool kUsesOutput = false;
  template <typename T, class DC, class A, class B, class C>
  static auto DA(const DC& dc, const A&, const B& b, const C&) { return dc * b; }
  template <typename T, class DC, class A, class B, class C>
  static auto DB(const DC& dc, const A& a, const B&, const C&) { return dc * a; }
};

struct DivGradFn {
  static constexpr bool kUsesOutput = true;
  // C = A / B: dA = dC / B, dB = -dC * C / B.
  template <typename T, class DC, class A, class B, class C>
  static auto DA(const DC& dc, const A&, const B& b, const C&) { return dc / b; }
  template <typename T, class DC, class A, class B, class C>
  static auto DB(const DC& dc, const A&, const B& b, const C& c) { return -(dc * c) / b; }
};

struct ModGradFn {
  static constexpr bool kUsesOutput = true;
  // C = A - q * B with q an integer (truncated or floored A / B, by the sign rule): dA = dC and
  // dB = -dC * q, q recovered exactly as round((A - C) / B) from the forward output.
  template <typename T, class DC, class A, class B, class C>
  static auto DA(const DC& dc, const A&, const B&, const C&) { return dc; }
  template <typename T, class DC, class A, class B, class C>
  static auto DB(const DC& dc, const A& a, const B& b, const C& c) {
    return -(dc * ((a - c) / b).round());
  }
};

struct PowGradFn {
  static constexpr bool kUsesOutput = true;
  // Y = X ^ E: dX = dY * E * X^(E-1), dE = dY * Y * ln X.
  template <typename T, class DC, class A, class B, class C>
  static auto DA(const DC& dc, const A& x, const B& e, const C&) {
    return dc * e * x.binaryExpr(e - T(1), PowOf<T>());
  }
  template <typename T, class DC, class A, class B, class C>
  static auto DB(const DC& dc, const A& x, const B&, const C& y) { return dc * y * x.log(); }
};


// One pass over the plan: the derivatives of each block added to dA and dB (either may be null).
template <typename T, class Fn>
void BinaryGradientPass(const BroadcastPlan& plan, const T* dc, const T* a, const T* b, const T* c,
                        T* da, bool da_assign, T* db, bool db_assign) {
  const Eigen::Index n = plan.inner();
  const bool a_vec = plan.a_mode() == BroadcastPlan::Mode::kVector;
  const bool b_vec = plan.b_mode() == BroadcastPlan::Mode::kVector;
  auto block = [&](int64_t o, int64_t ia, int64_t ib, const auto& av, const auto& bv) {
    ConstMap<T> dcv(dc + o, n);
    ConstMap<T> cv(c != nullptr ? c + o : dc + o, n);
    if (da != nullptr) Store(da, ia, a_vec, da_assign, Fn::template DA<T>(dcv, av, bv, cv));
    if (db != nullptr) Store(db, ib, b_vec, db_assign, Fn::template DB<T>(dcv, av, bv, cv));
  };
  if (a_vec && b_vec) {
    plan.ForEachBlock([&](int64_t o, int64_t ia, int64_t ib) {
      block(o, ia, ib, ConstMap<T>(a + ia, n), ConstMap<T>(b + ib, n));
    });
  } else if (a_vec) {
    plan.ForEachBlock([&](int64_t o, int64_t ia, int64_t ib) {
      block(o, ia, ib, ConstMap<T>(a + ia, n), Array<T>::Constant(n, b[ib]));
    });
  } else if (b_vec) {
    plan.ForEachBlock([&](int64_t o, int64_t ia, int64_t ib) {
      block(o, ia, ib, Array<T>::Constant(n, a[ia]), ConstMap<T>(b + ib, n));
    });
  } else {
    plan.ForEachBlock([&](int64_t o, int64_t ia, int64_t ib) {
      block(o, ia, ib, Array<T>::Constant(n, a[ia]), Array<T>::Constant(n, b[ib]));
    });
  }
}

// Which input holds what. Standard: (dC, A, B[, C]); Div's legacy form: (B, C, dC), A absent.
struct BinaryGradLayout {
  int dc = 0;
  int a = 1;  // -1: absent (A's dims are C's)
  int b = 2;
  int c = -1;
};

BinaryGradLayout LayoutFor(const std::string& type, int inputs) {
  BinaryGradLayout l;
  if (type == "DivGradient" && inputs == 3) return {2, -1, 0, 1};
  if (inputs == 4) l.c = 3;
  return l;
}

std::vector<std::string> BinaryGradInputNames(const BinaryGradLayout& l, int inputs) {
  std::vector<std::string> names(inputs);
  names[l.dc] = "dC";
  if (l.a >= 0) names[l.a] = "A";
  names[l.b] = "B";
  if (l.c >= 0) names[l.c] = "C";
  return names;
}

// Checks the dims of a binary gradient op; fills the forward output dims, B's plan dims and A's
// dims. Shared by the kernels and shape inference.
void BinaryGradientDims(const std::string& label, const BroadcastArgs& bargs,
                        const BinaryGradLayout& l, const std::vector<const std::vector<int64_t>*>& in,
                        std::vector<int64_t>* out_dims, std::vector<int64_t>* b_plan,
                        std::vector<int64_t>* a_dims) {
  const std::vector<int64_t>& b = *in[l.b];
  if (l.a >= 0) {
    *a_dims = *in[l.a];
  } else {
    // Legacy Div form: the forward output C has A's dims (Caffe2 reads them from C).
    *a_dims = *in[l.c];
  }
  BinaryDims(bargs, *a_dims, b, label, out_dims, b_plan);
  PARITY_ENFORCE(SameDims(*in[l.dc], *out_dims), ErrorKind::kShapeMismatch, label, ": dC ",
                 ShapeString(*in[l.dc]), " must have the forward output's dims ",
                 ShapeString(*out_dims), " (A ", ShapeString(*a_dims), " broadcast with B ",
                 ShapeString(b), ")");
  if (l.c >= 0) {
    PARITY_ENFORCE(SameDims(*in[l.c], *out_dims), ErrorKind::kShapeMismatch, label,
                   ": the forward output C ", ShapeString(*in[l.c]), " must have dims ",
                   ShapeString(*out_dims), " (A ", ShapeString(*a_dims), " broadcast with B ",
                   ShapeString(b), ")");
  }
}

// Pow's gradient needs the exponent argument with 3 inputs, and forbids it with 4.
void CheckPowGradientArity(const caffe2::OperatorDef& def, const ArgumentHelper& args) {
  if (def.type() != "PowGradient") return;
  PARITY_ENFORCE(def.input_size() == 4 || args.Has("exponent"), ErrorKind::kBadArgument,
                 args.op_label(), ": with inputs (dY, X, Y) the argument 'exponent' is required");
  PARITY_ENFORCE(def.input_size() == 3 || !args.Has("exponent"), ErrorKind::kBadArgument,
                 args.op_label(), ": takes the exponent either as input E of (dY, X, E, Y) or "
                 "as the argument 'exponent' with (dY, X, Y), not both");
}


template <class Fn>
class BinaryGradientOp final : public Operator {
 public:
  BinaryGradientOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws),
        layout_(LayoutFor(def.type(), def.input_size())),
        bargs_(ReadBroadcastArgs(def, args())) {
    CheckDistinctOutputs(def, label());
  }

  void Run() override {
    const int inputs = InputSize();
    dtypes_.clear();
    dims_.clear();
    for (int i = 0; i < inputs; ++i) {
      dtypes_.push_back(Input(i).dtype());
      dims_.push_back(&Input(i).dims());
    }
    if (names_.empty()) names_ = BinaryGradInputNames(layout_, inputs);
    const DataType dtype = CheckGradientDtypes(
        dtypes_, names_, [&](size_t i) { return Input(static_cast<int>(i)).DebugString(); },
        label());
    bool cached = cached_;
    for (int i = 0; cached && i < inputs; ++i) cached = SameDims(*dims_[i], seen_dims_[i]);
    if (!cached) {
      cached_ = false;
      BinaryGradientDims(label(), bargs_, layout_, dims_, &out_dims_, &b_plan_, &a_dims_);
      plan_.Build(out_dims_, a_dims_, b_plan_);
      seen_dims_.resize(inputs);
      for (int i = 0; i < inputs; ++i) seen_dims_[i] = *dims_[i];
      cached_ = true;
    }
    if (dtype == DataType::kFloat) {
      Compute<float>();
    } else {
      Compute<double>();
    }
  }

 private:
  template <typename T>
  void Compute() {
    const Tensor& b = Input(layout_.b);
    const T* dc = Input(layout_.dc).template data<T>();
    const T* pb = b.data<T>();
    const T* pa = layout_.a >= 0 ? Input(layout_.a).template data<T>() : nullptr;
    const T* pc = layout_.c >= 0 ? Input(layout_.c).template data<T>() : nullptr;
    const int64_t n_out = NumElements(out_dims_);
    const int64_t n_a = NumElements(a_dims_);
    const int64_t n_b = b.numel();
    T* da = router_.Prepare<T>(*this, 0, a_dims_);
    T* db = OutputSize() > 1 ? router_.Prepare<T>(*this, 1, b.dims()) : nullptr;
    // An operand without broadcast copies gets each derivative once: assigned. Otherwise the
    // copies are summed into zeros.
    const bool da_assign = n_a == n_out;
    const bool db_assign = n_b == n_out;
    if (!da_assign) std::fill(da, da + n_a, T(0));
    if (db != nullptr && !db_assign) std::fill(db, db + n_b, T(0));
    if (pa == nullptr) {
      // Legacy Div: A is not an input; its derivative (dC / B) does not read it.
      pa = pc;
    }
    BinaryGradientPass<T, Fn>(plan_, dc, pa, pb, pc, da, da_assign, db, db_assign);
    router_.Finish<T>(*this);
  }

  const BinaryGradLayout layout_;
  const BroadcastArgs bargs_;
  std::vector<std::string> names_;
  std::vector<DataType> dtypes_;
  std::vector<const std::vector<int64_t>*> dims_;
  bool cached_ = false;
  std::vector<std::vector<int64_t>> seen_dims_;
  std::vector<int64_t> out_dims_;
  std::vector<int64_t> a_dims_;
  std::vector<int64_t> b_plan_;
  BroadcastPlan plan_;
  OutputRouter router_;
};

std::vector<TensorType> BinaryGradientShape(const caffe2::OperatorDef& def,
                                            const ArgumentHelper& args,
                                            const std::vector<TensorType>& in) {
  CheckPowGradientArity(def, args);
  const BinaryGradLayout l = LayoutFor(def.type(), def.input_size());
  std::vector<DataType> dtypes;
  std::vector<const std::vector<int64_t>*> dims;
  for (const auto& t : in) {
    dtypes.push_back(t.dtype);
    dims.push_back(&t.dims);
  }
  const DataType dtype = CheckGradientDtypes(
      dtypes, BinaryGradInputNames(l, def.input_size()),
      [&](size_t i) { return TensorTypeString(in[i]); }, args.op_label());
  CheckDistinctOutputs(def, args.op_label());
  const BroadcastArgs bargs = ReadBroadcastArgs(def, args);
  std::vector<int64_t> out_dims, b_plan, a_dims;
  BinaryGradientDims(args.op_label(), bargs, l, dims, &out_dims, &b_plan, &a_dims);
  std::vector<TensorType> out(def.output_size());
  for (auto& t : out) t.dtype = dtype;
  out[0].dims = a_dims;
  if (out.size() > 1) out[1].dims = in[l.b].dims;
  return out;
}

OpSchema& BinaryGradientSchema(OpSchema& schema) {
  return schema.Apply(BroadcastArgsSchema)
      .ShapeInference(BinaryGradientShape)
      .InputDoc(0, "dC", "Gradient of the forward output C (float or double).")
      .InputDoc(1, "A", "The forward op's first operand.")
      .InputDoc(2, "B", "The forward op's second operand.")
      .OutputDoc(0, "dA", "Gradient of A, with A's dims (summed over B's broadcast of A).")
      .OutputDoc(1, "dB", "Gradient of B, with B's dims (summed over every broadcast copy).");
}

const std::vector<std::pair<int, int>> kGradOverDc = {{0, 0}, {0, 1}};

PARITY_OP_SCHEMA(AddGradient)
    .NumInputs(3)
    .NumOutputs(2)
    .AllowInplace(kGradOverDc)
    .Apply(BinaryGradientSchema)
    .Doc("Gradient of Add: dA = dC and dB = dC, each summed back to its input's dims over the "
         "broadcast. dA or dB may be written in place of dC.");
PARITY_REGISTER_CPU_OPERATOR(AddGradient, BinaryGradientOp<AddGradFn>);

PARITY_OP_SCHEMA(SubGradient)
    .NumInputs(3)
    .NumOutputs(2)
    .AllowInplace(kGradOverDc)
    .Apply(BinaryGradientSchema)
    .Doc("Gradient of Sub: dA = dC and dB = -dC, each summed back to its input's dims over the "
         "broadcast. dA or dB may be written in place of dC.");
PARITY_REGISTER_CPU_OPERATOR(SubGradient, BinaryGradientOp<SubGradFn>);

PARITY_OP_SCHEMA(MulGradient)
    .NumInputs(3)
    .NumOutputs(2)
    .AllowInplace(kGradOverDc)
    .Apply(BinaryGradientSchema)
    .Doc("Gradient of Mul: dA = dC * B and dB = dC * A, each summed back to its input's dims "
         "over the broadcast. dA or dB may be written in place of dC.");
PARITY_REGISTER_CPU_OPERATOR(MulGradient, BinaryGradientOp<MulGradFn>);

PARITY_OP_SCHEMA(DivGradient)
    .NumInputs(3, 4)
    .NumOutputs(2)
    .AllowInplace({{0, 0}})
    .Apply(BinaryGradientSchema)
    .InputDoc(3, "C", "The forward output A / B.")
    .Doc("Gradient of Div: dA = dC / B and dB = -dC * C / B, each summed back to its input's "
         "dims over the broadcast. Inputs (dC, A, B, C); the legacy form (B, C, dC) takes A's "
         "dims from C. dA may be written in place of input 0.");
PARITY_REGISTER_CPU_OPERATOR(DivGradient, BinaryGradientOp<DivGradFn>);

PARITY_OP_SCHEMA(ModGradient)
    .NumInputs(4)
    .NumOutputs(2)
    .AllowInplace({{0, 0}})
    .Apply(BinaryGradientSchema)
    .Arg("sign_follow_divisor", ArgType::kInt, int64_t{0},
         "Mod's sign rule (copied; the quotient is read from C, so the kernel needs no rule).")
    .InputDoc(3, "C", "The forward output A mod B.")
    .Doc("Gradient of Mod (two-input form, float/double): dA = dC and dB = -dC * q with q the "
         "integer quotient round((A - C) / B), each summed back to its input's dims over the "
         "broadcast. Away from the jumps at multiples of B. dA may be written in place of dC.");
PARITY_REGISTER_CPU_OPERATOR(ModGradient, BinaryGradientOp<ModGradFn>);

// ---------------------------------------------------------------------------------------------
// PowGradient: (dY, X, E, Y) -> (dX, dE) as a binary gradient; (dY, X, Y) -> dX with the exponent
// argument.

class PowGradientOp final : public Operator {
 public:
  PowGradientOp(const caffe2::OperatorDef& def, Workspace* ws)
      : Operator(def, ws), exponent_(Init(def, args())) {
    if (InputSize() == 4) binary_ = std::make_unique<BinaryGradientOp<PowGradFn>>(def, ws);
  }

  void Run() override {
    if (binary_) {
      binary_->Run();
      return;
    }
    const Tensor& dy = Input(0);
    const Tensor& x = Input(1);
    const Tensor& y = Input(2);
    static const std::vector<std::string> kNames = {"dY", "X", "Y"};
    dtypes_.assign({dy.dtype(), x.dtype(), y.dtype()});
    const DataType dtype = CheckGradientDtypes(
        dtypes_, kNames, [&](size_t i) { return Input(static_cast<int>(i)).DebugString(); },
        label());
    CheckUnaryPowDims(label(), dy.dims(), x.dims(), y.dims());
    if (dtype == DataType::kFloat) {
      Compute<float>();
    } else {
      Compute<double>();
    }
  }

  static void CheckUnaryPowDims(const std::string& label, const std::vector<int64_t>& dy,
                                const std::vector<int64_t>& x, const std::vector<int64_t>& y) {
    PARITY_ENFORCE(SameDims(dy, x) && SameDims(y, x), ErrorKind::kShapeMismatch, label, ": dY ",
                   ShapeString(dy), ", X ", ShapeString(x), " and Y ", ShapeString(y),
                   " must have one shape");
  }

 private:
  static double Init(const caffe2::OperatorDef& def, const ArgumentHelper& args) {
    CheckPowGradientArity(def, args);
    return def.input_size() == 3 ? args.Get<double>("exponent") : 0.0;
  }

  template <typename T>
  void Compute() {
    const int64_t n = Input(1).numel();
    ConstMap<T> dy(Input(0).template data<T>(), n);
    ConstMap<T> x(Input(1).template data<T>(), n);
    T* dx = router_.Prepare<T>(*this, 0, Input(1).dims());
    Map<T> out(dx, n);
    const T e = static_cast<T>(exponent_);
    if (e == T(0)) {
      out.setZero();
    } else if (e == T(1)) {
      out = dy;
    } else if (e == T(2)) {
      out = T(2) * x * dy;
    } else {
      const T e1 = e - T(1);
      out = e * dy * x.unaryExpr([e1](T v) { return std::pow(v, e1); });
    }
    router_.Finish<T>(*this);
  }

  const double exponent_;
  std::unique_ptr<BinaryGradientOp<PowGradFn>> binary_;
  std::vector<DataType> dtypes_;
  OutputRouter router_;
};

PARITY_OP_SCHEMA(PowGradient)
    .NumInputs(3, 4)
    .NumOutputs(1, 2)
    .NumInputsOutputs([](int in, int out) { return (in == 3 && out == 1) || (in == 4 && out == 2); },
                      "(dY, X, Y) -> dX with the 'exponent' argument, or (dY, X, E, Y) -> (dX, dE)")
    .Apply(BroadcastArgsSchema)
    .Arg("exponent", ArgType::kFloat, std::monostate{},
         "The forward exponent when it was an argument (inputs (dY, X, Y)).")
    .AllowInplace({{0, 0}})
    .ShapeInference([](const caffe2::OperatorDef& def, const ArgumentHelper& args,
                       const std::vector<TensorType>& in) {
      if (def.input_size() == 4) return BinaryGradientShape(def, args, in);
      CheckPowGradientArity(def, args);
      CheckGradientDtypes(
          std::vector<DataType>{in[0].dtype, in[1].dtype, in[2].dtype},
          std::vector<std::string>{"dY", "X", "Y"},
          [&](size_t i) { return TensorTypeString(in[i]); }, args.op_label());
      PowGradientOp::CheckUnaryPowDims(args.op_label(), in[0].dims, in[1].dims, in[2].dims);
      return std::vector<TensorType>{in[1]};
    })
    .InputDoc(0, "dY", "Gradient of the forward output Y.")
    .InputDoc(1, "X", "The forward base.")
    .InputDoc(2, "E or Y", "The forward exponent input E (4 inputs), else the forward output Y.")
    .InputDoc(3, "Y", "The forward output (4 inputs).")
    .OutputDoc(0, "dX", "dY * E * X^(E-1), with X's dims (summed over the broadcast).")
    .OutputDoc(1, "dE", "dY * Y * ln X with E's dims (summed over the broadcast); NaN for X <= 0.")
    .Doc("Gradient of Pow (Y = X^E). With the exponent argument: (dY, X, Y) -> dX = dY * e * "
         "X^(e-1) (0 for e = 0). With the exponent input: (dY, X, E, Y) -> (dX, dE), dE = dY * Y "
         "* ln X, each reduced to its input's dims over the broadcast (the forward op's broadcast "
         "arguments). dX may be written in place of dY.");
PARITY_REGISTER_CPU_OPERATOR(PowGradient, PowGradientOp);
}  // namespace
}  // namespace parity
