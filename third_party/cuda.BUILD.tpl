# The CUDA runtime and NCCL from the toolkit at %{cuda_path}, found there
# by cuda_configure.bzl (CUDA 13 with NCCL 2.28 is what Sluice is tested
# with). Sluice calls them from host C++ only, so no CUDA compiler or Bazel
# CUDA toolchain is involved. Both link the shared libraries: the runtime
# must be the one the installed driver (when there is one) works with, and
# the rpath lets binaries find them without LD_LIBRARY_PATH.
package(default_visibility = ["//visibility:public"])

cc_library(
    name = "cudart",
    hdrs = glob([
        "include/*.h",
        "include/*.hpp",
        "include/crt/**",
    ]),
    includes = ["include"],
    linkopts = [
        "-L%{cudart_lib_dir}",
        "-Wl,-rpath,%{cudart_lib_dir}",
        "-lcudart",
        "-ldl",
        "-lpthread",
    ],
)

cc_library(
    name = "nccl",
    linkopts = [
        "-L%{nccl_lib_dir}",
        "-Wl,-rpath,%{nccl_lib_dir}",
        "-lnccl",
    ],
    deps = [":cudart"],
)
