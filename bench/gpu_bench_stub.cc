// bench/gpu_bench.cc's stand-in in a build without --config=cuda (bench/BUILD): there is no
// device code to time, so it says so and succeeds, keeping `bazel build //...` green.
#include <cstdio>

int main() {
  std::printf("no CUDA build: skipped\n");
  return 0;
}
