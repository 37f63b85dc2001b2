"""One Bazel test per folder of lit tests and work queue."""

load("@cuda//:defs.bzl", "HAS_CUDA")

def lit_test(name, folder, queue = "s", tools = [], size = "small"):
    native.sh_test(
        name = name,
        size = size,
        srcs = ["run_lit.sh"],
        args = [queue, folder, "1" if HAS_CUDA else "0"] +
               ["$(rootpath %s)" % tool for tool in tools],
        data = [
            "lit.cfg.py",
            "//test/lit/" + folder + ":tests",
        ] + tools,
    )
