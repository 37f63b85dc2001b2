// A shared library without SluiceRegisterKernels, for plugin.mlir's error
// case.
extern "C" int NotAKernelPlugin() { return 1; }
