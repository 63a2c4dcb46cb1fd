#include "reference/textbook_rnn.h"

#include <cmath>
#include <vector>

#include "core/proto/error.h"
#include "reference/value.h"

namespace parity::reference {
namespace {

// The largest tensor the cells make or read: the interpreter's default cap.
constexpr int64_t kMaxAllocBytes = int64_t{4} << 30;

template <typename T>
T Sigmoid(T x) {
  return T(1) / (T(1) + std::exp(-x));
}

template <typename T>
class TextbookCell {
 public:
  TextbookCell(const CellPromise& promise, const std::map<std::string, caffe2::TensorProto>& inputs)
      : promise_(promise), inputs_(inputs) {}

  std::map<std::string, caffe2::TensorProto> Evaluate() {
    const bool lstm = promise_.cell() == "lstm";
    PARITY_ENFORCE(lstm || promise_.cell() == "gru", ErrorKind::kBadArgument, "cell '",
                   promise_.cell(), "' has no textbook equations (lstm or gru)");
    const size_t want = lstm ? 4 : 8;
    PARITY_ENFORCE(static_cast<size_t>(promise_.parameters_size()) == want,
                   ErrorKind::kBadArgument, "the ", promise_.cell(), " cell takes ", want,
                   " parameters, the promise names ", promise_.parameters_size());
    x_ = Real(promise_.input(), "input");
    PARITY_ENFORCE(x_.dims.size() == 3, ErrorKind::kShapeMismatch, "input '", promise_.input(),
                   "' must be [T, N, D], got ", ShapeString(x_.dims));
    steps_ = x_.dims[0];
    batch_ = x_.dims[1];
    dim_in_ = x_.dims[2];
    // H from the recurrent weight: [4H, H] for the LSTM, W_r [H, H] for the GRU.
    const Value<T> recurrent = Real(promise_.parameters(2), "recurrent weight");
    PARITY_ENFORCE(recurrent.dims.size() == 2, ErrorKind::kShapeMismatch, "recurrent weight '",
                   promise_.parameters(2), "' must be a matrix, got ",
                   ShapeString(recurrent.dims));
    hidden_ = recurrent.dims[1];
    lengths_ = Lengths();
    return lstm ? Lstm() : Gru();
  }

 private:
  Value<T> Real(const std::string& name, const char* what) const {
    auto it = inputs_.find(name);
    PARITY_ENFORCE(it != inputs_.end(), ErrorKind::kMissingBlob, "the ", promise_.cell(),
                   " cell's ", what, " '", name, "' is not an input of the case");
    Value<T> v = FromProto<T>(name, it->second, kMaxAllocBytes);
    PARITY_ENFORCE(v.is_real(), ErrorKind::kShapeMismatch, what, " '", name,
                   "' must be floating, got ", DTypeName(v.dtype));
    return v;
  }

  // A parameter of exactly `dims`.
  Value<T> Parameter(int index, const Dims& dims) const {
    const std::string& name = promise_.parameters(index);
    Value<T> v = Real(name, "parameter");
    PARITY_ENFORCE(v.dims == dims, ErrorKind::kShapeMismatch, "parameter '", name, "' must be ",
                   ShapeString(dims), ", got ", ShapeString(v.dims));
    return v;
  }

  std::vector<int64_t> Lengths() const {
    const std::string& name = promise_.seq_lengths();
    auto it = inputs_.find(name);
    PARITY_ENFORCE(it != inputs_.end(), ErrorKind::kMissingBlob, "the ", promise_.cell(),
                   " cell's seq_lengths '", name, "' is not an input of the case");
    const Value<T> v = FromProto<T>(name, it->second, kMaxAllocBytes);
    PARITY_ENFORCE(v.dtype == DType::kInt32 && v.dims == Dims{batch_}, ErrorKind::kShapeMismatch,
                   "seq_lengths '", name, "' must be int32 [", batch_, "], got ",
                   DTypeName(v.dtype), " ", ShapeString(v.dims));
    return v.i();
  }

  // The initial state as [N, H]: [H] is the same for every row, [N, H] and [1, N, H] per row.
  std::vector<T> InitialState(const std::string& name, const char* what) const {
    const Value<T> v = Real(name, what);
    const bool fits = v.dims == Dims{hidden_} || v.dims == Dims{batch_, hidden_} ||
                      v.dims == Dims{1, batch_, hidden_};
    PARITY_ENFORCE(fits, ErrorKind::kShapeMismatch, what, " '", name, "' must be [", hidden_,
                   "], [", batch_, ", ", hidden_, "] or [1, ", batch_, ", ", hidden_, "], got ",
                   ShapeString(v.dims));
    std::vector<T> state(batch_ * hidden_);
    for (int64_t n = 0; n < batch_; ++n) {
      for (int64_t k = 0; k < hidden_; ++k) {
        state[n * hidden_ + k] = v.dims.size() == 1 ? v.r()[k] : v.r()[n * hidden_ + k];
      }
    }
    return state;
  }

  // Row `row` of x_t W^T + b (W is [rows, D]).
  T InputProjection(const Value<T>& w, const Value<T>& b, int64_t t, int64_t n,
                    int64_t row) const {
    T sum = b.r()[row];
    for (int64_t d = 0; d < dim_in_; ++d) {
      sum += x_.r()[(t * batch_ + n) * dim_in_ + d] * w.r()[row * dim_in_ + d];
    }
    return sum;
  }

  // Row `row` of h W^T + b for the state row `h` (W is [rows, H]).
  T StateProjection(const Value<T>& w, const Value<T>& b, const T* h, int64_t row) const {
    T sum = b.r()[row];
    for (int64_t m = 0; m < hidden_; ++m) sum += h[m] * w.r()[row * hidden_ + m];
    return sum;
  }

  bool Valid(int64_t t, int64_t n) const { return t < lengths_[n]; }

  // [T, N, H] of every step's state and [1, N, H] of the last.
  void Store(const std::vector<T>& state, int64_t t, Value<T>* all) const {
    for (int64_t k = 0; k < batch_ * hidden_; ++k) all->r()[t * batch_ * hidden_ + k] = state[k];
  }
  Value<T> Last(const std::vector<T>& state) const {
    Value<T> last = MakeTensor<T>(DType::kReal, {1, batch_, hidden_}, kMaxAllocBytes);
    last.r() = state;
    return last;
  }

  std::map<std::string, caffe2::TensorProto> Lstm() {
    const int64_t h4 = 4 * hidden_;
    const Value<T> w = Parameter(0, {h4, dim_in_}), b = Parameter(1, {h4});
    const Value<T> wh = Parameter(2, {h4, hidden_}), bh = Parameter(3, {h4});
    std::vector<T> h = InitialState(promise_.hidden_init(), "hidden_init");
    std::vector<T> c = InitialState(promise_.cell_init(), "cell_init");
    Value<T> h_all = MakeTensor<T>(DType::kReal, {steps_, batch_, hidden_}, kMaxAllocBytes);
    Value<T> c_all = MakeTensor<T>(DType::kReal, {steps_, batch_, hidden_}, kMaxAllocBytes);
    const T forget_bias = static_cast<T>(promise_.forget_bias());
    std::vector<T> gates(h4);
    for (int64_t t = 0; t < steps_; ++t) {
      std::vector<T> h_next(h.size()), c_next(c.size());
      for (int64_t n = 0; n < batch_; ++n) {
        const int64_t row = n * hidden_;
        if (!Valid(t, n)) {
          for (int64_t k = 0; k < hidden_; ++k) {
            h_next[row + k] = promise_.drop_states() ? T(0) : h[row + k];
            c_next[row + k] = promise_.drop_states() ? T(0) : c[row + k];
          }
          continue;
        }
        for (int64_t j = 0; j < h4; ++j) {
          gates[j] = InputProjection(w, b, t, n, j) + StateProjection(wh, bh, &h[row], j);
        }
        for (int64_t k = 0; k < hidden_; ++k) {
          const T i = Sigmoid(gates[k]);
          const T f = Sigmoid(gates[hidden_ + k] + forget_bias);
          const T o = Sigmoid(gates[2 * hidden_ + k]);
          const T g = std::tanh(gates[3 * hidden_ + k]);
          c_next[row + k] = f * c[row + k] + i * g;
          h_next[row + k] = o * std::tanh(c_next[row + k]);
        }
      }
      h = h_next;
      c = c_next;
      Store(h, t, &h_all);
      Store(c, t, &c_all);
    }
    return {{promise_.hidden_all(), ToProto(promise_.hidden_all(), h_all)},
            {promise_.hidden_last(), ToProto(promise_.hidden_last(), Last(h))},
            {promise_.cell_all(), ToProto(promise_.cell_all(), c_all)},
            {promise_.cell_last(), ToProto(promise_.cell_last(), Last(c))}};
  }

  std::map<std::string, caffe2::TensorProto> Gru() {
    const int64_t hh = hidden_;
    const Value<T> w = Parameter(0, {3 * hh, dim_in_}), b = Parameter(1, {3 * hh});
    const Value<T> w_r = Parameter(2, {hh, hh}), b_r = Parameter(3, {hh});
    const Value<T> w_z = Parameter(4, {hh, hh}), b_z = Parameter(5, {hh});
    const Value<T> w_n = Parameter(6, {hh, hh}), b_n = Parameter(7, {hh});
    std::vector<T> h = InitialState(promise_.hidden_init(), "hidden_init");
    Value<T> h_all = MakeTensor<T>(DType::kReal, {steps_, batch_, hh}, kMaxAllocBytes);
    std::vector<T> reset(hh), reset_h(hh);
    for (int64_t t = 0; t < steps_; ++t) {
      std::vector<T> h_next(h.size());
      for (int64_t n = 0; n < batch_; ++n) {
        const T* prev = &h[n * hh];
        if (!Valid(t, n)) {
          for (int64_t k = 0; k < hh; ++k) h_next[n * hh + k] = promise_.drop_states() ? T(0) : prev[k];
          continue;
        }
        for (int64_t k = 0; k < hh; ++k) {
          reset[k] = Sigmoid(InputProjection(w, b, t, n, k) + StateProjection(w_r, b_r, prev, k));
          reset_h[k] = reset[k] * prev[k];
        }
        for (int64_t k = 0; k < hh; ++k) {
          const T z =
              Sigmoid(InputProjection(w, b, t, n, hh + k) + StateProjection(w_z, b_z, prev, k));
          // The candidate: the reset gate scales the previous state before its projection, or
          // (linear_before_reset, cuDNN's form) the projection itself.
          const T recurrent = promise_.linear_before_reset()
                                  ? reset[k] * StateProjection(w_n, b_n, prev, k)
                                  : StateProjection(w_n, b_n, reset_h.data(), k);
          const T candidate = std::tanh(InputProjection(w, b, t, n, 2 * hh + k) + recurrent);
          h_next[n * hh + k] = z * prev[k] + (T(1) - z) * candidate;
        }
      }
      h = h_next;
      Store(h, t, &h_all);
    }
    return {{promise_.hidden_all(), ToProto(promise_.hidden_all(), h_all)},
            {promise_.hidden_last(), ToProto(promise_.hidden_last(), Last(h))}};
  }

  const CellPromise& promise_;
  const std::map<std::string, caffe2::TensorProto>& inputs_;
  Value<T> x_;
  int64_t steps_ = 0, batch_ = 0, dim_in_ = 0, hidden_ = 0;
  std::vector<int64_t> lengths_;
};

}  // namespace

std::map<std::string, caffe2::TensorProto> EvaluateCell(
    const CellPromise& promise, const std::map<std::string, caffe2::TensorProto>& inputs,
    Precision precision) {
  if (precision == Precision::kF64) return TextbookCell<double>(promise, inputs).Evaluate();
  return TextbookCell<float>(promise, inputs).Evaluate();
}

}  // namespace parity::reference
