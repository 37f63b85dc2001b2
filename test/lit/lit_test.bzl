"""One Bazel test per folder of lit tests and work queue."""

def lit_test(name, folder, queue = "s", tools = [], size = "small"):
    native.sh_test(
        name = name,
        size = size,
        srcs = ["run_lit.sh"],
        args = [queue, folder] + ["$(rootpath %s)" % tool for tool in tools],
        data = [
            "lit.cfg.py",
            "//test/lit/" + folder + ":tests",
        ] + tools,
    )
