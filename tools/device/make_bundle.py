#!/usr/bin/env python3
"""Packs the GPU-relevant half of a `--config=cuda` build into one archive that runs without Bazel.

A machine with a GPU is often one without our toolchain (no Bazel, no protobuf or oneDNN
packages): this takes what a CUDA build made here and what it needs at run time, so
tools/device/run_bundle.sh can run it there.

What goes in:
  - every test binary whose behaviour can depend on a device: those that link gpu/ or run a
    command line that does (their results change where a device is present: the device oracle
    joins the default list, the GPU tests stop skipping), at its Bazel path;
  - the union of those tests' runfiles (the data files and command lines they run), under
    runfiles/parity/ as TEST_SRCDIR expects;
  - the command lines (tools/parity, the mutant catalogue's parity_with_mutants) and the GPU
    benchmarks (bench/gpu_bench with its Python peers);
  - lib/: the Bazel-built shared libraries and the Debian ones the device's image lacks (oneDNN,
    OpenBLAS, protobuf and their own needs). The C and C++ runtimes stay the device's (same ABI,
    newer there), and so do CUDA's libraries: the device has its own, matching its driver.

Usage (after `./parity build` or `bazel build --config=cuda //...`):
  tools/device/make_bundle.py OUT.tar.xz
"""
import lzma
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.join(ROOT, "bazel-bin")

# Shared libraries the device's image provides itself: the C/C++ runtimes (Ubuntu 24.04's are
# newer than Debian 12's, and backward compatible), and CUDA's, which must match its driver.
DEVICE_PROVIDES = ("libc.so", "libm.so", "libstdc++.so", "libgcc_s.so", "ld-linux", "libpthread.so",
                   "libdl.so", "librt.so", "libz.so", "libcuda.so", "libcudart.so", "libcublas.so",
                   "libcublasLt.so", "linux-vdso")

# Command lines and benchmarks that run from the bundle besides the tests.
EXTRA_BINARIES = ["tools/parity", "tests/mutants/parity_with_mutants", "bench/gpu_bench"]
EXTRA_FILES = ["bench/torch_lstm_cuda.py"]


def is_elf(path):
  with open(path, "rb") as f:
    return f.read(4) == b"\x7fELF"


def needed_libraries(path):
  """The resolved shared libraries of `path` (ldd's 'name => path' lines)."""
  out = subprocess.run(["ldd", path], capture_output=True, text=True).stdout
  libraries = {}
  for line in out.splitlines():
    parts = line.split("=>")
    if len(parts) != 2:
      continue
    name = parts[0].strip()
    target = parts[1].strip().split(" (")[0].strip()
    if target and target != "not found":
      libraries[name] = target
    else:
      libraries[name] = None
  return libraries


def links_gpu(path):
  out = subprocess.run(["readelf", "-d", path], capture_output=True, text=True).stdout
  return "libgpu_Slibgpu.so" in out or "libcudart.so" in out


def test_binaries():
  labels = subprocess.run(["bazel", "query", "tests(//...)"], cwd=ROOT, capture_output=True,
                          text=True, check=True).stdout.split()
  paths = []
  for label in labels:
    package, name = label[2:].split(":")
    path = os.path.join(package, name)
    binary = os.path.join(BIN, path)
    if not os.path.exists(binary):
      continue
    # The test links gpu/, or runs a command line that does (tools/parity, parity_with_mutants).
    runs = [binary]
    for directory, _, files in os.walk(binary + ".runfiles", followlinks=True):
      if "_solib" not in directory:
        runs += [os.path.join(directory, name) for name in files]
    if any(is_elf(f) and links_gpu(f) for f in runs if os.path.isfile(f)):
      paths.append(path)
  return sorted(paths)


def copy_file(source, destination):
  os.makedirs(os.path.dirname(destination), exist_ok=True)
  shutil.copyfile(source, destination)
  os.chmod(destination, 0o755)
  # Not stripped: the crash findings name the frames of a crash from the binaries' symbols.


def main():
  if len(sys.argv) != 2:
    sys.exit(__doc__)
  archive = os.path.abspath(sys.argv[1])
  staging = tempfile.mkdtemp(prefix="parity-bundle.")
  bundle = os.path.join(staging, "bundle")
  tests = test_binaries()
  if not tests:
    sys.exit("make_bundle: no test binary links gpu/: build with --config=cuda first")
  elves = []
  for path in tests + [p for p in EXTRA_BINARIES if os.path.exists(os.path.join(BIN, p))]:
    copy_file(os.path.join(BIN, path), os.path.join(bundle, path))
    elves.append(os.path.join(BIN, path))
  for path in EXTRA_FILES:
    if os.path.exists(os.path.join(ROOT, path)):
      copy_file(os.path.join(ROOT, path), os.path.join(bundle, path))
  # The union of the tests' runfiles: data files and the command lines they start.
  runfiles = os.path.join(bundle, "runfiles", "parity")
  for path in tests:
    tree = os.path.join(BIN, path + ".runfiles", "parity")
    for directory, _, files in os.walk(tree, followlinks=True):
      relative_dir = os.path.relpath(directory, tree)
      if relative_dir.startswith("_solib"):
        continue
      for name in files:
        relative = os.path.normpath(os.path.join(relative_dir, name))
        if relative == path:
          continue  # the test itself
        destination = os.path.join(runfiles, relative)
        if not os.path.exists(destination):
          source = os.path.realpath(os.path.join(directory, name))
          copy_file(source, destination)
          if is_elf(source):
            elves.append(source)
  # Shared libraries, closed over their own needs.
  lib = os.path.join(bundle, "lib")
  os.makedirs(lib)
  pending, seen, missing = list(elves), set(), set()
  while pending:
    for name, target in needed_libraries(pending.pop()).items():
      if any(name.startswith(prefix) for prefix in DEVICE_PROVIDES) or name in seen:
        continue
      seen.add(name)
      if target is None:
        missing.add(name)
        continue
      copy_file(os.path.realpath(target), os.path.join(lib, name))
      pending.append(os.path.realpath(target))
  # Graphviz finds its plugins at run time (net drawings in reports, SVG): the core and dot
  # layout plugins travel with a config of their own (`dot -c` in their folder; the full set
  # would bring cairo, pango and X11), and run_bundle.sh points GVBINDIR at them.
  plugins = "/usr/lib/x86_64-linux-gnu/graphviz"
  graphviz = os.path.join(lib, "graphviz")
  os.makedirs(graphviz)
  for plugin in ("libgvplugin_core.so.6", "libgvplugin_dot_layout.so.6"):
    copy_file(os.path.realpath(os.path.join(plugins, plugin)), os.path.join(graphviz, plugin))
    pending.append(os.path.realpath(os.path.join(plugins, plugin)))
  subprocess.run(["dot", "-c"], env=dict(os.environ, GVBINDIR=graphviz), check=True)
  while pending:
    for name, target in needed_libraries(pending.pop()).items():
      if any(name.startswith(p) for p in DEVICE_PROVIDES) or name in seen or target is None:
        continue
      seen.add(name)
      copy_file(os.path.realpath(target), os.path.join(lib, name))
      pending.append(os.path.realpath(target))
  if missing:
    sys.exit("make_bundle: not found here: " + ", ".join(sorted(missing)))
  with open(os.path.join(bundle, "TESTS"), "w") as f:
    f.write("\n".join(tests) + "\n")
  shutil.copyfile(os.path.join(ROOT, "tools", "device", "run_bundle.sh"),
                  os.path.join(bundle, "run_bundle.sh"))
  os.chmod(os.path.join(bundle, "run_bundle.sh"), 0o755)
  # One xz stream with a dictionary over the whole tar: the CUDA kernels every test links (the
  # same fatbin in each binary) are stored once.
  os.makedirs(os.path.dirname(archive), exist_ok=True)
  temporary = archive + ".tmp"
  with tarfile.open(temporary, "w:xz", preset=9) as tar:
    tar.add(bundle, arcname="bundle")
  os.replace(temporary, archive)
  shutil.rmtree(staging)
  print("make_bundle: %d tests, %d libraries, %.1f MiB: %s" %
        (len(tests), len(seen), os.path.getsize(archive) / 2**20, archive))


if __name__ == "__main__":
  main()
