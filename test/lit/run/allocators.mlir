// -host_allocator_type: the default leak_check allocator reports memory
// still allocated at exit and fails the run; tfrt_test.memory_leak_one_int32
// leaks 4 bytes on purpose.
// RUN: not %sluice_run %s | FileCheck %s --check-prefix=LEAK
// RUN: not %sluice_run %s -host_allocator_type=leak_check | FileCheck %s --check-prefix=LEAK
// LEAK: --- Running 'leak':
// LEAK-NEXT: --- Running 'no_leak':
// LEAK-NEXT: 'no_leak' returned 1
// LEAK-NEXT: --- Running 'leak_twice':
// LEAK-NEXT: Memory leak detected: 4 alive allocations, 16 alive bytes

// The report comes once, at exit, with the total of all functions.
// RUN: not %sluice_run %s -functions=leak | FileCheck %s --check-prefix=LEAK1
// LEAK1: Memory leak detected: 1 alive allocations, 4 alive bytes
// RUN: not %sluice_run %s -functions=leak_twice | FileCheck %s --check-prefix=LEAK3
// LEAK3: Memory leak detected: 3 alive allocations, 12 alive bytes

// Without a leak the check passes silently.
// RUN: %sluice_run %s -functions=no_leak | FileCheck %s --check-prefix=CLEAN
// CLEAN: 'no_leak' returned 1
// CLEAN-NOT: Memory leak

// The other allocators do not check. (The leak is real: under
// AddressSanitizer, its own leak check is turned off for these runs.)
// RUN: env ASAN_OPTIONS=detect_leaks=0 %sluice_run %s -host_allocator_type=malloc | FileCheck %s --check-prefix=NO-CHECK
// RUN: env ASAN_OPTIONS=detect_leaks=0 %sluice_run %s -host_allocator_type=test_fixed_size_1k | FileCheck %s --check-prefix=NO-CHECK
// RUN: env ASAN_OPTIONS=detect_leaks=0 %sluice_run %s -host_allocator_type=profiled 2> %t.profile | FileCheck %s --check-prefix=NO-CHECK
// NO-CHECK: --- Running 'leak':
// NO-CHECK-NEXT: --- Running 'no_leak':
// NO-CHECK-NEXT: 'no_leak' returned 1
// NO-CHECK-NEXT: --- Running 'leak_twice':
// NO-CHECK-NOT: Memory leak

// The profiling allocator logs its figures when it goes.
// RUN: FileCheck %s --check-prefix=PROFILE < %t.profile
// PROFILE: allocator sluice_run: 4 allocations, 16 bytes in total, peak 16 bytes, largest 4 bytes, 16 bytes still in use

// RUN: not %sluice_run %s -host_allocator_type=bogus 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: sluice_run: unknown host allocator type 'bogus'
// BAD-NOT: Running

func.func @leak() {
  "tfrt_test.memory_leak_one_int32"() : () -> ()
  tfrt.return
}

func.func @no_leak() -> i32 {
  %one = tfrt.constant.i32 1
  tfrt.return %one : i32
}

func.func @leak_twice() {
  %ch0 = tfrt.new.chain
  "tfrt_test.memory_leak_one_int32"(%ch0) : (!tfrt.chain) -> ()
  %two = tfrt.constant.i32 2
  tfrt.repeat.i32 %two {
    "tfrt_test.memory_leak_one_int32"() : () -> ()
    tfrt.return
  }
  tfrt.return
}
