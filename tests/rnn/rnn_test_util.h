// Recurrent cells for the RNN tests: Caffe2's recurrent_network_test cells, built with
// RecurrentNet (core/rnn/recurrent_net.h).
#ifndef PARITY_TESTS_RNN_RNN_TEST_UTIL_H_
#define PARITY_TESTS_RNN_RNN_TEST_UTIL_H_

#include <string>
#include <vector>

#include "core/rnn/recurrent_net.h"
#include "tests/test_util.h"

namespace parity::testing {

// A RecurrentNetwork built by RecurrentNet around a cell of `cell_ops` that reads "input_t" (a row
// of "x" [T, N, D]), "o_prev" (the state, initialised from "o_init") and `references` (op inputs
// of the same names), and writes "o". Outputs "o_all", "o_last".
inline RecurrentNetOutputs AddCellRnn(caffe2::NetDef* net,
                                      const std::vector<caffe2::OperatorDef>& cell_ops,
                                      const std::vector<std::string>& references = {},
                                      std::vector<int64_t> outputs_with_grads = {0},
                                      bool forward_only = false) {
  caffe2::NetDef cell;
  cell.set_name("cell");
  cell.add_external_input("input_t");
  cell.add_external_input("o_prev");
  for (const std::string& ref : references) cell.add_external_input(ref);
  for (const caffe2::OperatorDef& op : cell_ops) *cell.add_op() = op;
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

// test_sum_mul's cell o_t = x_t * (x_t + o_{t-1}) when `sum_first`, test_mul's o_t = x_t * o_{t-1}
// otherwise.
inline RecurrentNetOutputs AddSimpleRnn(caffe2::NetDef* net, bool sum_first,
                                        std::vector<int64_t> outputs_with_grads = {0},
                                        bool forward_only = false) {
  std::vector<caffe2::OperatorDef> ops;
  if (sum_first) {
    ops = {MakeOp("Sum", {"input_t", "o_prev"}, {"s"}), MakeOp("Mul", {"input_t", "s"}, {"o"})};
  } else {
    ops = {MakeOp("Mul", {"input_t", "o_prev"}, {"o"})};
  }
  return AddCellRnn(net, ops, {}, std::move(outputs_with_grads), forward_only);
}

}  // namespace parity::testing

#endif  // PARITY_TESTS_RNN_RNN_TEST_UTIL_H_
