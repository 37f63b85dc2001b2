// compiled_modules.mlir: references into compiled modules that do not
// resolve, and modules the executable cannot carry.
module @kernel attributes {tfrt.compiled} {
  func.func @main() {
    func.return
  }
}

func.func @missing_function() {
  // expected-error @+1 {{function @kernel::@nope not defined}}
  "my_jit.execute"() {kernel = @kernel::@nope} : () -> ()
  tfrt.return
}

// -----

func.func @missing_module() {
  // expected-error @+1 {{function @nowhere::@main not defined}}
  "my_jit.execute"() {kernel = @nowhere::@main} : () -> ()
  tfrt.return
}

// -----

// A module not marked tfrt.compiled is not a compilation unit.
// expected-error @+1 {{'builtin.module' cannot be emitted to SBF files: only func.func ops and modules marked tfrt.compiled may appear at the top level of a module}}
module @plain {
  func.func @main() {
    func.return
  }
}

func.func @unmarked_module() {
  "my_jit.execute"() {kernel = @plain::@main} : () -> ()
  tfrt.return
}

// -----

// expected-error @+1 {{a module marked tfrt.compiled needs a name: ops refer to its functions as @module::@function}}
module attributes {tfrt.compiled} {
}

func.func @main() {
  tfrt.return
}
