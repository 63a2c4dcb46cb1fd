// Recurrent cells for the RNN tests: Caffe2's recurrent_network_test cells, built with
// RecurrentNet (core/rnn/recurrent_net.h).
#ifndef PARITY_TESTS_RNN_RNN_TEST_UTIL_H_
#define PARITY_TESTS_RNN_RNN_TEST_UTIL_H_

#include <string>
#include <vector>

#include "core/rnn/recurrent_net.h"
#include "tests/test_util.h"

namespace parity::testing {

// test_sum_mul's cell o_t = x_t * (x_t + o_{t-1}) when `sum_first`, test_mul's o_t = x_t * o_{t-1}
// otherwise. Inputs "x" [T, N, D] and "o_init"; outputs "o_all", "o_last".
inline RecurrentNetOutputs AddSimpleRnn(caffe2::NetDef* net, bool sum_first,
                                        std::vector<int64_t> outputs_with_grads = {0},
                                        bool forward_only = false) {
  caffe2::NetDef cell;
  cell.set_name("cell");
  cell.add_external_input("input_t");
  cell.add_external_input("o_prev");
  if (sum_first) {
    *cell.add_op() = MakeOp("Sum", {"input_t", "o_prev"}, {"s"});
    *cell.add_op() = MakeOp("Mul", {"input_t", "s"}, {"o"});
  } else {
    *cell.add_op() = MakeOp("Mul", {"input_t", "o_prev"}, {"o"});
  }
  cell.add_external_output("o");
  RecurrentNetSpec spec;
  spec.cell_net = cell;
  spec.input = {"input_t", "x"};
  spec.initial_cell_inputs = {{"o_prev", "o_init"}};
  spec.links = {{"o_prev", "o"}};
  spec.scope = "rnn";
  spec.outputs_with_grads = std::move(outputs_with_grads);
  spec.forward_only = forward_only;
  return RecurrentNet(net, spec);
}

}  // namespace parity::testing

#endif  // PARITY_TESTS_RNN_RNN_TEST_UTIL_H_
