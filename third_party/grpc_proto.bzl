"""cc_grpc_library: C++ messages and gRPC stubs of one .proto file, generated
with the system's protoc and grpc_cpp_plugin (protobuf-compiler-grpc)."""

def cc_grpc_library(name, src, deps = [], imports = [], visibility = None):
    """Generates <src>.pb.{h,cc} and <src>.grpc.pb.{h,cc} and compiles them.

    Generated headers are included by their workspace path, e.g.
    "lib/distributed/worker_service.pb.h". `imports` are the .proto files
    `src` imports (by their workspace path); `deps` must hold the
    cc_grpc_library of each.
    """
    stem = src[:-len(".proto")]
    outs = [stem + suffix for suffix in [".pb.h", ".pb.cc", ".grpc.pb.h", ".grpc.pb.cc"]]

    # Import paths start at this workspace's root, which is external/sluice
    # when another workspace builds Sluice as a dependency.
    repository = native.repository_name()[1:]
    root = "external/" + repository if repository else "."
    native.genrule(
        name = name + "_generate",
        srcs = [src] + imports,
        outs = outs,
        cmd = " ".join([
            "/usr/bin/protoc",
            "--proto_path=" + root,
            "--cpp_out=$(GENDIR)/" + root,
            "--grpc_out=$(GENDIR)/" + root,
            "--plugin=protoc-gen-grpc=/usr/bin/grpc_cpp_plugin",
            "$(location %s)" % src,
        ]),
    )
    native.cc_library(
        name = name,
        srcs = [o for o in outs if o.endswith(".cc")],
        hdrs = [o for o in outs if o.endswith(".h")],
        # Generated code is not ours to warn about.
        copts = ["-w"],
        deps = deps + ["@system//:grpc"],
        visibility = visibility,
    )
