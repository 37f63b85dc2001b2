// --version: every tool prints its name and the same Sluice version; the
// tools that link MLIR (sluice_run, sluice_translate, sluice_opt and runners
// of one's own) also print the LLVM/MLIR version they were built with.
// RUN: sluice_run --version > %t
// RUN: sluice_worker --version >> %t
// RUN: sluice_translate --version >> %t
// RUN: sluice_opt --version >> %t
// RUN: sluice_launch --version >> %t
// RUN: sluice_lighthouse --version >> %t
// RUN: sluice_monitor --version >> %t
// RUN: my_run --version >> %t
// RUN: FileCheck %s < %t
// CHECK: {{^}}sluice_run (Sluice) [[VERSION:[0-9]+\.[0-9]+\.[0-9]+]]{{$}}
// CHECK-NEXT: {{^}}  built with LLVM and MLIR [[LLVM:[0-9]+\.[0-9]+\.[0-9]+]]{{$}}
// CHECK-NEXT: {{^}}sluice_worker (Sluice) [[VERSION]]{{$}}
// CHECK-NEXT: {{^}}sluice_translate (Sluice) [[VERSION]]{{$}}
// CHECK-NEXT: {{^}}  built with LLVM and MLIR [[LLVM]]{{$}}
// CHECK-NEXT: {{^}}sluice_opt (Sluice) [[VERSION]]{{$}}
// CHECK-NEXT: {{^}}  built with LLVM and MLIR [[LLVM]]{{$}}
// CHECK-NEXT: {{^}}sluice_launch (Sluice) [[VERSION]]{{$}}
// CHECK-NEXT: {{^}}sluice_lighthouse (Sluice) [[VERSION]]{{$}}
// CHECK-NEXT: {{^}}sluice_monitor (Sluice) [[VERSION]]{{$}}
// A runner of one's own carries its own name and Sluice's version.
// CHECK-NEXT: {{^}}my_run (Sluice) [[VERSION]]{{$}}
