# lit configuration for Sluice's .mlir tests. Run through //test/lit:* Bazel
# targets (run_lit.sh), which put the tools on PATH and pass the queue type
# and whether the tools were built with CUDA.
import os

import lit.formats

config.name = "sluice"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.excludes = ["Inputs"]

# Scratch files (`%t`, the RUN scripts, lit's timing file) go to the test's
# temporary folder, never next to the sources: the run folder is checked by
# two Bazel targets at once, which would otherwise share one Output/ folder.
_scratch = os.environ.get("TEST_TMPDIR")
if _scratch:
    config.test_exec_root = os.path.join(_scratch, "lit")

# Tools come only from the directory the runner made, then the system.
config.environment["PATH"] = os.pathsep.join(
    [lit_config.params["tools_dir"], "/usr/bin", "/bin"])
for name in ("TEST_TMPDIR", "HOME"):
    if name in os.environ:
        config.environment[name] = os.environ[name]

# `%sluice_run` runs programs on the work queue this lit run was given, so
# the suite runs once single-threaded and once multi-threaded.
queue = lit_config.params.get("queue", "s")
config.substitutions.append(
    ("%sluice_run", "sluice_run -work_queue_type=" + queue))
config.available_features.add("queue-" + queue.split(":")[0])

# `%tools_dir`: where the tools (and the kernel plugins built for the
# tests) are.
config.substitutions.append(("%tools_dir", lit_config.params["tools_dir"]))

# `cuda-build`: the tools were built with CUDA, not against the stand-in
# that a machine without it gets (docs/gpu.md, "Building").
# `cuda-device`: that, and the machine has an NVIDIA GPU, so tests of
# test/lit/gpu that need one run and the one that checks the no-device error
# does not. A build without CUDA sees no device even on a GPU machine.
if lit_config.params.get("cuda") == "1":
    config.available_features.add("cuda-build")
    if os.path.exists("/dev/nvidia0"):
        config.available_features.add("cuda-device")

# `%with_workers N [options] --`: runs the rest of the line against N
# sluice_worker processes (dist/with_workers.py).
config.substitutions.append(
    ("%with_workers",
     "python3 " + os.path.join(config.test_source_root, "dist",
                               "with_workers.py")))
