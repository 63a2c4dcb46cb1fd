"""Debian system libraries whose headers live outside the compiler's default search path."""

def parity_system_repositories():
    cuda_repository(name = "cuda")

    # Eigen 3.4 from Debian's libeigen3-dev: headers under /usr/include/eigen3.
    native.new_local_repository(
        name = "eigen",
        path = "/usr/include/eigen3",
        build_file_content = """
load("@rules_cc//cc:defs.bzl", "cc_library")
cc_library(
    name = "eigen",
    hdrs = glob(["Eigen/**", "unsupported/Eigen/**"]),
    includes = ["."],
    defines = ["EIGEN_MPL2_ONLY"],
    visibility = ["//visibility:public"],
)
""",
    )

    # ONNX's schema from Debian's libonnx-dev (the only .proto it ships): //onnx generates C++
    # from it. onnx-ml.proto (python3-onnx) is a superset in the same package; never both.
    native.new_local_repository(
        name = "onnx_proto",
        path = "/usr/include/onnx",
        build_file_content = """
exports_files(["onnx.proto"], visibility = ["//visibility:public"])
""",
    )

# CUDA (nvcc, cudart, cuBLAS) from /usr/local/cuda, or $PARITY_CUDA_PATH. Where it is missing the
# repository still exists with an empty `cuda` target, so a machine without CUDA loads every BUILD
# file; the GPU targets only use it under --config=cuda (gpu/BUILD).
def _cuda_repository_impl(ctx):
    root = ctx.os.environ.get("PARITY_CUDA_PATH", "/usr/local/cuda")
    present = ctx.path(root + "/include/cuda_runtime.h").exists
    if present:
        ctx.symlink(root + "/include", "include")
        lib = root + "/lib64"
        if not ctx.path(lib).exists:
            lib = root + "/lib"
        build = """
load("@rules_cc//cc:defs.bzl", "cc_library")
# Host headers only (the device-side headers are nvcc's business, tools/cuda.bzl).
cc_library(
    name = "cuda",
    # CUDA 13 keeps <nv/target> (included by cuda_fp16.h) under include/cccl, which nvcc adds to
    # its own search path and g++ needs told.
    hdrs = glob(["include/*.h", "include/*.hpp", "include/crt/**", "include/cccl/nv/**"]),
    includes = ["include", "include/cccl"],
    # Shared cudart and cuBLAS with an rpath: the static cuBLAS is hundreds of MB per test binary.
    linkopts = ["-L{lib}", "-Wl,-rpath,{lib}", "-lcublas", "-lcudart", "-ldl", "-lpthread"],
    visibility = ["//visibility:public"],
)
""".format(lib = lib)
    else:
        build = """
load("@rules_cc//cc:defs.bzl", "cc_library")
# No CUDA at {root}: nothing to link (gpu/ builds its no-CUDA stub).
cc_library(name = "cuda", visibility = ["//visibility:public"])
""".format(root = root)
    ctx.file("BUILD", build)

cuda_repository = repository_rule(
    implementation = _cuda_repository_impl,
    environ = ["PARITY_CUDA_PATH"],
    local = True,
)
