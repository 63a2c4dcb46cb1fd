// LSTMUnit, GRUUnit and their gradients (Caffe2 semantics, shared/docs/caffe2-semantics.md §4).
//
// LSTMUnit(H_prev [1,N,D], C_prev [1,N,D], G [1,N,4D], [seq_lengths int32 [N]], timestep)
//   -> (H [1,N,D], C [1,N,D]); gates per row are [i, f, o, g]:
//   i = s(G_i), f = s(G_f + forget_bias), o = s(G_o), g = tanh(G_g),
//   C = f*C_prev + i*g, H = o*tanh(C). A row n with t >= seq_lengths[n] copies H_prev/C_prev
//   (or writes 0 with drop_states).
// GRUUnit(H_prev [1,N,D], G [1,N,3D], [seq_lengths], timestep) -> H: gates per row are
//   [r, z, h~] with the reset gate already applied outside the unit: z = s(G_z),
//   H = H_prev*z + tanh(G_h)*(1-z); invalid rows as in LSTMUnit.
// `seq_lengths` is an input exactly when sequence_lengths=1 (the default).
#include <cmath>

#include "reference/ops/util.h"

namespace parity::reference {
namespace {

struct UnitShape {
  int64_t n = 0, d = 0, t = 0;
  std::vector<int64_t> seq;  // empty: every row valid
  bool Valid(int64_t row) const { return seq.empty() || t < seq[row]; }
};

// Reads H_prev-like input `state` ([1, N, D]), gates input `gates` ([1, N, k*D]), and the
// optional seq_lengths and timestep that follow `gates`.
template <typename T>
UnitShape ReadUnit(const OpContext<T>& c, int state, int gates, int k, int n_fixed_inputs) {
  const bool use_seq = c.args.Bool("sequence_lengths");
  PARITY_ENFORCE(c.InputSize() == n_fixed_inputs + (use_seq ? 1 : 0), ErrorKind::kBadArgument,
                 c.InputSize(), " inputs, expected ", n_fixed_inputs + (use_seq ? 1 : 0),
                 " with sequence_lengths=", use_seq);
  const Value<T>& h = c.RealInput(state);
  PARITY_ENFORCE(h.dims.size() == 3 && h.dims[0] == 1, ErrorKind::kShapeMismatch,
                 Describe(c, state), " must be [1, N, D]");
  UnitShape s;
  s.n = h.dims[1];
  s.d = h.dims[2];
  RequireShape(c, c.RealInput(gates), gates, {1, s.n, k * s.d});
  int next = gates + 1;
  if (use_seq) {
    const Value<T>& seq = c.Input(next);
    PARITY_ENFORCE(seq.dtype == DType::kInt32 && seq.size() == s.n, ErrorKind::kShapeMismatch,
                   Describe(c, next), " must be int32 [", s.n, "]");
    s.seq = seq.i();
    ++next;
  }
  const std::vector<int64_t> t = IntValues(c, next);
  PARITY_ENFORCE(t.size() == 1, ErrorKind::kShapeMismatch, Describe(c, next),
                 " must hold one timestep");
  s.t = t[0];
  return s;
}

template <typename T>
void LSTMUnit(OpContext<T>& c) {
  const UnitShape s = ReadUnit(c, 1, 2, 4, 4);
  const Value<T>& hp = c.RealInput(0);
  const Value<T>& cp = c.RealInput(1);
  RequireShape(c, hp, 0, cp.dims);
  const Value<T>& g = c.Input(2);
  const T forget_bias = static_cast<T>(c.args.Float("forget_bias"));
  const bool drop = c.args.Bool("drop_states");
  Value<T> h = c.NewReal(cp.dims), cell = c.NewReal(cp.dims);
  for (int64_t n = 0; n < s.n; ++n) {
    for (int64_t d = 0; d < s.d; ++d) {
      const int64_t k = n * s.d + d;
      const T* gr = &g.r()[n * 4 * s.d];
      if (!s.Valid(n)) {
        h.r()[k] = drop ? T(0) : hp.r()[k];
        cell.r()[k] = drop ? T(0) : cp.r()[k];
        continue;
      }
      const T i = Sigmoid(gr[d]), f = Sigmoid(gr[s.d + d] + forget_bias);
      const T o = Sigmoid(gr[2 * s.d + d]), gg = std::tanh(gr[3 * s.d + d]);
      const T cv = f * cp.r()[k] + i * gg;
      cell.r()[k] = cv;
      h.r()[k] = o * std::tanh(cv);
    }
  }
  c.SetOutput(0, std::move(h));
  c.SetOutput(1, std::move(cell));
}

// LSTMUnitGradient(H_prev, C_prev, G, [seq_lengths,] timestep, H, C, dH, dC)
//   -> (dH_prev, dC_prev, dG); formulas in interpreter.h.
template <typename T>
void LSTMUnitGradient(OpContext<T>& c) {
  const bool use_seq = c.args.Bool("sequence_lengths");
  const int base = use_seq ? 5 : 4;  // index of H
  PARITY_ENFORCE(c.InputSize() == base + 4, ErrorKind::kBadArgument, c.InputSize(),
                 " inputs, expected ", base + 4, " with sequence_lengths=", use_seq);
  // Validate the forward inputs as LSTMUnit does (ignoring the trailing H, C, dH, dC).
  const Value<T>& cp = c.RealInput(1);
  const Value<T>& g = c.RealInput(2);
  PARITY_ENFORCE(cp.dims.size() == 3 && cp.dims[0] == 1, ErrorKind::kShapeMismatch, Describe(c, 1),
                 " must be [1, N, D]");
  UnitShape s;
  s.n = cp.dims[1];
  s.d = cp.dims[2];
  RequireShape(c, g, 2, {1, s.n, 4 * s.d});
  if (use_seq) {
    const Value<T>& seq = c.Input(3);
    PARITY_ENFORCE(seq.dtype == DType::kInt32 && seq.size() == s.n, ErrorKind::kShapeMismatch,
                   Describe(c, 3), " must be int32 [", s.n, "]");
    s.seq = seq.i();
  }
  const std::vector<int64_t> t = IntValues(c, base - 1);
  PARITY_ENFORCE(t.size() == 1, ErrorKind::kShapeMismatch, "timestep must hold one value");
  s.t = t[0];
  for (int i = 0; i < 4; ++i) RequireShape(c, c.RealInput(base + i), base + i, cp.dims);
  const Value<T>& cell = c.Input(base + 1);
  const Value<T>& dh = c.Input(base + 2);
  const Value<T>& dc = c.Input(base + 3);
  const T forget_bias = static_cast<T>(c.args.Float("forget_bias"));
  const bool drop = c.args.Bool("drop_states");
  Value<T> dhp = c.NewReal(cp.dims), dcp = c.NewReal(cp.dims), dg = c.NewReal(g.dims);
  for (int64_t n = 0; n < s.n; ++n) {
    for (int64_t d = 0; d < s.d; ++d) {
      const int64_t k = n * s.d + d;
      const T* gr = &g.r()[n * 4 * s.d];
      T* dgr = &dg.r()[n * 4 * s.d];
      if (!s.Valid(n)) {
        dhp.r()[k] = drop ? T(0) : dh.r()[k];
        dcp.r()[k] = drop ? T(0) : dc.r()[k];
        continue;
      }
      const T i = Sigmoid(gr[d]), f = Sigmoid(gr[s.d + d] + forget_bias);
      const T o = Sigmoid(gr[2 * s.d + d]), gg = std::tanh(gr[3 * s.d + d]);
      const T tc = std::tanh(cell.r()[k]);
      const T dct = dc.r()[k] + dh.r()[k] * o * (T(1) - tc * tc);
      dcp.r()[k] = dct * f;
      dhp.r()[k] = 0;
      dgr[d] = dct * gg * i * (T(1) - i);
      dgr[s.d + d] = dct * cp.r()[k] * f * (T(1) - f);
      dgr[2 * s.d + d] = dh.r()[k] * tc * o * (T(1) - o);
      dgr[3 * s.d + d] = dct * i * (T(1) - gg * gg);
    }
  }
  c.SetOutput(0, std::move(dhp));
  c.SetOutput(1, std::move(dcp));
  c.SetOutput(2, std::move(dg));
}

template <typename T>
void GRUUnit(OpContext<T>& c) {
  const UnitShape s = ReadUnit(c, 0, 1, 3, 3);
  const Value<T>& hp = c.Input(0);
  const Value<T>& g = c.Input(1);
  const bool drop = c.args.Bool("drop_states");
  Value<T> h = c.NewReal(hp.dims);
  for (int64_t n = 0; n < s.n; ++n) {
    for (int64_t d = 0; d < s.d; ++d) {
      const int64_t k = n * s.d + d;
      if (!s.Valid(n)) {
        h.r()[k] = drop ? T(0) : hp.r()[k];
        continue;
      }
      const T* gr = &g.r()[n * 3 * s.d];
      const T z = Sigmoid(gr[s.d + d]);
      h.r()[k] = hp.r()[k] * z + std::tanh(gr[2 * s.d + d]) * (T(1) - z);
    }
  }
  c.SetOutput(0, std::move(h));
}

// GRUUnitGradient(H_prev, G, [seq_lengths,] timestep, H, dH) -> (dH_prev, dG):
// dH_prev = dH*z; dG_r = 0; dG_z = dH*(H_prev - tanh(G_h))*z(1-z);
// dG_h = dH*(1-z)*(1-tanh(G_h)^2); invalid rows: dG = 0, dH_prev = dH (0 with drop_states).
template <typename T>
void GRUUnitGradient(OpContext<T>& c) {
  const bool use_seq = c.args.Bool("sequence_lengths");
  const int n_fixed = 5;  // H_prev, G, timestep, H, dH
  PARITY_ENFORCE(c.InputSize() == n_fixed + (use_seq ? 1 : 0), ErrorKind::kBadArgument,
                 c.InputSize(), " inputs, expected ", n_fixed + (use_seq ? 1 : 0),
                 " with sequence_lengths=", use_seq);
  const Value<T>& hp = c.RealInput(0);
  PARITY_ENFORCE(hp.dims.size() == 3 && hp.dims[0] == 1, ErrorKind::kShapeMismatch, Describe(c, 0),
                 " must be [1, N, D]");
  UnitShape s;
  s.n = hp.dims[1];
  s.d = hp.dims[2];
  const Value<T>& g = c.RealInput(1);
  RequireShape(c, g, 1, {1, s.n, 3 * s.d});
  int next = 2;
  if (use_seq) {
    const Value<T>& seq = c.Input(next);
    PARITY_ENFORCE(seq.dtype == DType::kInt32 && seq.size() == s.n, ErrorKind::kShapeMismatch,
                   Describe(c, next), " must be int32 [", s.n, "]");
    s.seq = seq.i();
    ++next;
  }
  const std::vector<int64_t> t = IntValues(c, next);
  PARITY_ENFORCE(t.size() == 1, ErrorKind::kShapeMismatch, "timestep must hold one value");
  s.t = t[0];
  const Value<T>& dh = c.RealInput(next + 2);
  RequireShape(c, dh, next + 2, hp.dims);
  const bool drop = c.args.Bool("drop_states");
  Value<T> dhp = c.NewReal(hp.dims), dg = c.NewReal(g.dims);
  for (int64_t n = 0; n < s.n; ++n) {
    for (int64_t d = 0; d < s.d; ++d) {
      const int64_t k = n * s.d + d;
      if (!s.Valid(n)) {
        dhp.r()[k] = drop ? T(0) : dh.r()[k];
        continue;
      }
      const T* gr = &g.r()[n * 3 * s.d];
      T* dgr = &dg.r()[n * 3 * s.d];
      const T z = Sigmoid(gr[s.d + d]), hc = std::tanh(gr[2 * s.d + d]);
      dhp.r()[k] = dh.r()[k] * z;
      dgr[s.d + d] = dh.r()[k] * (hp.r()[k] - hc) * z * (T(1) - z);
      dgr[2 * s.d + d] = dh.r()[k] * (T(1) - z) * (T(1) - hc * hc);
    }
  }
  c.SetOutput(0, std::move(dhp));
  c.SetOutput(1, std::move(dg));
}

}  // namespace

void RegisterRnnUnitOps(Registry* r) {
  const ArgTable lstm = {{"forget_bias", "0.0"}, {"drop_states", "0"}, {"sequence_lengths", "1"}};
  const ArgTable gru = {{"drop_states", "0"}, {"sequence_lengths", "1"}};
  r->Add({"LSTMUnit", 4, 5, 2, 2, lstm, PARITY_REF_KERNEL(LSTMUnit)});
  r->Add({"LSTMUnitGradient", 8, 9, 3, 3, lstm, PARITY_REF_KERNEL(LSTMUnitGradient)});
  r->Add({"GRUUnit", 3, 4, 1, 1, gru, PARITY_REF_KERNEL(GRUUnit)});
  r->Add({"GRUUnitGradient", 5, 6, 2, 2, gru, PARITY_REF_KERNEL(GRUUnitGradient)});
}

PARITY_REFERENCE_FAMILY(RegisterRnnUnitOps);

}  // namespace parity::reference
