// --version: every tool prints its name, the same Sluice version, and the
// LLVM/MLIR version it was built with.
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
// CHECK-NEXT: {{^}}  built with LLVM and MLIR [[LLVM]]{{$}}
// CHECK-NEXT: {{^}}sluice_translate (Sluice) [[VERSION]]{{$}}
// CHECK-NEXT: {{^}}  built with LLVM and MLIR [[LLVM]]{{$}}
// CHECK-NEXT: {{^}}sluice_opt (Sluice) [[VERSION]]{{$}}
// CHECK-NEXT: {{^}}  built with LLVM and MLIR [[LLVM]]{{$}}
// CHECK-NEXT: {{^}}sluice_launch (Sluice) [[VERSION]]{{$}}
// CHECK-NEXT: {{^}}  built with LLVM and MLIR [[LLVM]]{{$}}
// CHECK-NEXT: {{^}}sluice_lighthouse (Sluice) [[VERSION]]{{$}}
// CHECK-NEXT: {{^}}  built with LLVM and MLIR [[LLVM]]{{$}}
// CHECK-NEXT: {{^}}sluice_monitor (Sluice) [[VERSION]]{{$}}
// CHECK-NEXT: {{^}}  built with LLVM and MLIR [[LLVM]]{{$}}
// A runner of one's own carries its own name and Sluice's version.
// CHECK-NEXT: {{^}}my_run (Sluice) [[VERSION]]{{$}}
