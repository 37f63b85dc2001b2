"""Runs mlir-tblgen over a dialect's ODS file."""

def mlir_tblgen(name, td_file, td_deps = [], outs = {}):
    """Generates C++ from an ODS file.

    One genrule per output keeps each action's command line readable in
    build logs; the generated files are exposed as textual headers of a
    cc_library named `name`, so a dialect's sources include them as
    "dialects/<dialect>/<file>.inc".

    Args:
      name: the cc_library holding the generated files.
      td_file: the ODS file to run mlir-tblgen on.
      td_deps: the ODS files td_file includes from this workspace.
      outs: map from generated file name to mlir-tblgen's generator flags.

    A dialect's ODS file (one whose outs declare the dialect with
    `-gen-dialect-decls -dialect=NAME`) also gives its reference,
    `NAME.md` from `-gen-dialect-doc`, in the rule `name + "_doc"`: the
    op reference under docs/ops/ is checked against it.
    """
    tblgen = "@llvm//:bin/mlir-tblgen"

    # ODS includes start at this workspace's root, which is external/sluice
    # when another workspace builds Sluice as a dependency.
    repository = native.repository_name()[1:]
    root = "external/" + repository if repository else "."
    generated = []
    docs = {}
    for flags in outs.values():
        words = flags.split(" ")
        if "-gen-dialect-decls" in words:
            for word in words:
                if word.startswith("-dialect="):
                    dialect = word[len("-dialect="):]
                    docs[dialect + ".md"] = "-gen-dialect-doc -dialect=" + dialect
    for out, flags in list(outs.items()) + list(docs.items()):
        rule_name = name + "_" + out.replace(".", "_").replace("/", "_")
        native.genrule(
            name = rule_name,
            srcs = [td_file] + td_deps + ["@llvm//:mlir_td_files"],
            outs = [out],
            tools = [tblgen],
            cmd = " ".join([
                "$(location %s)" % tblgen,
                flags,
                "-I external/llvm/include",
                "-I " + root,
                "$(location %s)" % td_file,
                "-o $@",
            ]),
        )
        if out not in docs:
            generated.append(out)
    native.filegroup(
        name = name + "_doc",
        srcs = list(docs.keys()),
        visibility = ["//docs/ops:__pkg__"],
    )
    native.cc_library(
        name = name,
        textual_hdrs = generated,
    )
