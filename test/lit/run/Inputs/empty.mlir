// A program with no functions (runner_flags.mlir).
