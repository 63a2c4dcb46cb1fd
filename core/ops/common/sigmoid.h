// Sigmoid for Eigen arrays, accurate to 3 ulp in float without cancellation or overflow: the
// kernel of the Sigmoid op (core/ops/unary) and of the RNN cells' gates (core/ops/rnn_unit).
//
//   y = x.unaryExpr(parity::SigmoidScalarOp<float>());  // vectorized through Eigen's packets
#ifndef PARITY_CORE_OPS_COMMON_SIGMOID_H_
#define PARITY_CORE_OPS_COMMON_SIGMOID_H_

#include <Eigen/Core>
#include <type_traits>

namespace parity {

// exp(a) for float packets with a <= 0 (Cephes' expf: 2^k * e^r, |r| <= ln2 / 2, degree-6
// polynomial), within 1 ulp; 0 below ln(FLT_MIN). Written on Eigen's packet primitives because
// Eigen's own pexp is close to scalar speed without SSE4.1 (its pfloor is emulated) and this one
// needs no floor: k is rounded with the 1.5 * 2^23 trick, exact since |k| <= 126.
template <typename Packet>
Packet ExpNonPositive(const Packet& a) {
  using namespace Eigen::internal;  // NOLINT: packet primitives
  const Packet lo = pset1<Packet>(-87.3365478515625f);
  const Packet x = pmax(a, lo);
  const Packet magic = pset1<Packet>(12582912.0f);
  const Packet k = psub(pmadd(x, pset1<Packet>(1.44269504088896341f), magic), magic);
  Packet r = psub(x, pmul(k, pset1<Packet>(0.693359375f)));  // Cody-Waite: ln 2 = hi + lo
  r = psub(r, pmul(k, pset1<Packet>(-2.12194440e-4f)));
  const Packet r2 = pmul(r, r);
  Packet y = pset1<Packet>(1.9875691500e-4f);
  y = pmadd(y, r, pset1<Packet>(1.3981999507e-3f));
  y = pmadd(y, r, pset1<Packet>(8.3334519073e-3f));
  y = pmadd(y, r, pset1<Packet>(4.1665795894e-2f));
  y = pmadd(y, r, pset1<Packet>(1.6666665459e-1f));
  y = pmadd(y, r, pset1<Packet>(5.0000001201e-1f));
  y = pmadd(y, r2, padd(r, pset1<Packet>(1.0f)));
  // 2^k for k in [-126, 0], built from its exponent bits.
  using PacketI = typename unpacket_traits<Packet>::integer_packet;
  const PacketI bits =
      plogical_shift_left<23>(padd(pcast<Packet, PacketI>(k), pset1<PacketI>(127)));
  return pand(pmul(y, preinterpret<Packet>(bits)), pcmp_le(lo, a));
}

// Sigmoid without cancellation or overflow: with e = exp(-|x|) in (0, 1], sigma(x) = 1 / (1 + e)
// for x >= 0 and e / (1 + e) below; within 3 ulp of the exact value for float. (Eigen's
// logistic() is faster but thousands of ulp off for x in [-10, -4].) The scalar path runs the
// packet code on a broadcast packet, so tails and bodies of an array round identically.
template <typename T>
struct SigmoidScalarOp {
  template <typename Packet>
  Packet packetOp(const Packet& x) const {
    using namespace Eigen::internal;  // NOLINT: packet primitives
    const Packet one = pset1<Packet>(T(1));
    const Packet neg_abs = pnegate(pabs(x));
    Packet e;
    if constexpr (std::is_same_v<T, float>) {
      e = ExpNonPositive(neg_abs);
    } else {
      e = pexp(neg_abs);
    }
    const Packet r = pdiv(one, padd(one, e));
    const Packet sigma = pselect(pcmp_le(pzero(x), x), r, pmul(e, r));
    return pselect(pcmp_eq(x, x), sigma, x);  // NaN stays NaN
  }
  T operator()(const T& x) const {
    using Packet = typename Eigen::internal::packet_traits<T>::type;
    return Eigen::internal::pfirst(packetOp(Eigen::internal::pset1<Packet>(x)));
  }
};

}  // namespace parity

namespace Eigen::internal {
template <typename T>
struct functor_traits<parity::SigmoidScalarOp<T>> {
  enum { Cost = 30, PacketAccess = packet_traits<T>::HasExp && packet_traits<T>::HasDiv };
};
}  // namespace Eigen::internal

#endif  // PARITY_CORE_OPS_COMMON_SIGMOID_H_
