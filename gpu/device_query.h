// The device count asked in a forked child process. cudaGetDeviceCount initializes the CUDA
// driver in the process that calls it, and a process that forks after that hands its children a
// driver state they cannot use (every CUDA call in a forked child of an initialized parent fails
// with cudaErrorInitializationError). The campaign parent asks "is there a device?" (the default
// oracles) and then forks its sandbox workers, which run the device oracle; so the parent must
// learn the answer without touching CUDA itself. Plain C++ (fork, a pipe, waitpid): the query is
// passed in, so tests run the protocol with a fake query on machines without CUDA.
#ifndef PARITY_GPU_DEVICE_QUERY_H_
#define PARITY_GPU_DEVICE_QUERY_H_

#include <string>

namespace parity::gpu {

struct DeviceCountAnswer {
  int count = 0;
  std::string reason;  // why count is 0; "" when there are devices
};

// Runs `query` in a forked child and returns its answer, read back through a pipe. A child that
// dies, exits without a whole answer or takes longer than `timeout_seconds` is "no device", with
// a reason saying what happened (the child is killed on a timeout). When fork itself fails, the
// query runs in this process (the answer is still right; only forking after it may suffer).
DeviceCountAnswer QueryDeviceCountInChild(DeviceCountAnswer (*query)(),
                                          double timeout_seconds = 60.0);

}  // namespace parity::gpu

#endif  // PARITY_GPU_DEVICE_QUERY_H_
