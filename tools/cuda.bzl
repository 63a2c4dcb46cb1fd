"""cuda_library: .cu files compiled by nvcc into a static library, only under --config=cuda.

Bazel 4.2 has no CUDA rules and Debian ships none, so a genrule runs nvcc on each .cu file and
archives the objects as an alwayslink library (".lo": kernels and anything registering at
static-init time stay linked). The .cu files include their own headers and CUDA's, never
protobuf-generated ones, so nvcc needs only the source tree (-I.). Without --config=cuda (a
machine with no nvcc) the target is an empty cc_library, so everything that depends on it builds.
"""

load("@rules_cc//cc:defs.bzl", "cc_library")

NVCC = "/usr/local/cuda/bin/nvcc"

# The GPUs users have: A100 (sm_80) and H100 (sm_90) machine code, plus sm_90 PTX so newer GPUs
# JIT-compile it instead of failing to load.
CUDA_ARCH_FLAGS = [
    "-gencode=arch=compute_80,code=sm_80",
    "-gencode=arch=compute_90,code=[sm_90,compute_90]",
]

NVCC_FLAGS = [
    "-std=c++17",
    "-O2",
    "-Xcompiler=-fPIC",
    "-Xcompiler=-Wall",
    # No fast-math: the device oracle compares with the CPU under the same IEEE rules (division,
    # sqrt and denormals as on the host), so differences come from the kernels, not flags.
    "-I.",
] + CUDA_ARCH_FLAGS

def cuda_library(name, srcs, hdrs = [], deps = [], **kwargs):
    """A cc_library of nvcc-compiled `srcs` (.cu) under --define=parity_cuda=1, else empty.

    `hdrs` are the headers the .cu files include; nvcc sees them, but they are not exported: the
    code calling the kernels lists them among its own srcs, so that editing a kernel header
    recompiles that code and not every target above it.
    """
    archive = "lib%s_nvcc.lo" % name
    objects = []
    commands = []
    for src in srcs:
        obj = "%s_nvcc/%s.o" % (name, src.replace("/", "_")[:-3])
        objects.append(obj)
        commands.append("%s %s -c $(location %s) -o $(@D)/%s" % (
            NVCC,
            " ".join(NVCC_FLAGS),
            src,
            obj,
        ))
    native.genrule(
        name = name + "_nvcc",
        srcs = srcs + hdrs,
        outs = [archive],
        cmd = " && ".join(
            ["mkdir -p $(@D)/%s_nvcc" % name] + commands +
            ["rm -f $@ && ar rcs $@ " + " ".join(["$(@D)/" + o for o in objects])],
        ),
        message = "nvcc " + name,
        # Built only through the cc_library below: a plain `bazel build //...` on a machine
        # without nvcc must not run it.
        tags = ["manual", "no-remote"],
        visibility = ["//visibility:private"],
    )
    cc_library(
        name = name,
        srcs = select({
            "//gpu:cuda_build": [":" + archive],
            "//conditions:default": [],
        }),
        deps = select({
            "//gpu:cuda_build": deps + ["//third_party:cuda"],
            "//conditions:default": deps,
        }),
        alwayslink = 1,
        **kwargs
    )
