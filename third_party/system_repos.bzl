"""Debian system libraries whose headers live outside the compiler's default search path."""

def parity_system_repositories():
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
