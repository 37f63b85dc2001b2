// --help lists each tool's own options (and, for sluice_opt and
// sluice_translate, MLIR's), never the hundreds of options libLLVM
// registers for its code generators.

// RUN: sluice_run --help > %t.run
// RUN: test $(wc -l < %t.run) -lt 40
// RUN: FileCheck %s --check-prefix=RUNNER --implicit-check-not=x86-asm-syntax --implicit-check-not=amdgpu < %t.run
// RUNNER-DAG: {{^ *}}--args=<FUNCTION:VALUE,VALUE,...> {{.*}}- run FUNCTION, which takes arguments
// RUNNER-DAG: {{^ *}}--kernel_plugin=<path.so> {{.*}}- load the kernels of this shared library
// RUNNER-DAG: {{^ *}}--list_kernels {{.*}}- print every registered kernel
// RUNNER-DAG: {{^ *}}--work_queue_type=<string> {{.*}}- s (single-threaded, the default)
// RUNNER-DAG: {{^ *}}--version {{.*}}- Display the version of this program

// RUN: sluice_worker --help > %t.worker
// RUN: test $(wc -l < %t.worker) -lt 40
// RUN: FileCheck %s --check-prefix=WORKER --implicit-check-not=x86-asm-syntax --implicit-check-not=amdgpu < %t.worker
// WORKER-DAG: {{^ *}}--task_name=<string>
// WORKER-DAG: {{^ *}}--work_queue_type=<string> {{.*}}- mstd (the default)
// WORKER-DAG: {{^ *}}--kernel_plugin=<path.so>
// WORKER-DAG: {{^ *}}--list_kernels
// WORKER-DAG: {{^ *}}--shutdown_grace_s=<number>
// The old spellings still parse, but are not advertised.
// WORKER-NOT: --work_queue=
// WORKER-NOT: --shutdown_grace=
// RUN: sluice_worker --work_queue=mstd:2 --shutdown_grace=1 --list_kernels | FileCheck %s --check-prefix=OLD-SPELLINGS
// OLD-SPELLINGS: tfrt.add.i32: 2 operands -> 1 result

// RUN: sluice_translate --help > %t.translate
// RUN: test $(wc -l < %t.translate) -lt 80
// RUN: FileCheck %s --check-prefix=TRANSLATE --implicit-check-not=x86-asm-syntax --implicit-check-not=amdgpu < %t.translate
// TRANSLATE-DAG: --mlir-to-sbf
// TRANSLATE-DAG: --sbf-to-mlir
// TRANSLATE-DAG: --disable-optional-sections
// TRANSLATE-DAG: --split-input-file
// TRANSLATE-DAG: --verify-diagnostics
// TRANSLATE-DAG: --mlir-print-debuginfo

// RUN: sluice_opt --help > %t.opt
// RUN: test $(wc -l < %t.opt) -lt 150
// RUN: FileCheck %s --check-prefix=OPT --implicit-check-not=x86-asm-syntax --implicit-check-not=amdgpu < %t.opt
// OPT-DAG: --allow-unregistered-dialect
// OPT-DAG: --canonicalize
// OPT-DAG: --inline
// OPT-DAG: --split-input-file
// OPT-DAG: --verify-diagnostics
// OPT-DAG: --mlir-print-debuginfo

// RUN: sluice_launch --help > %t.launch
// RUN: test $(wc -l < %t.launch) -lt 80
// RUN: FileCheck %s --check-prefix=LAUNCH --implicit-check-not=x86-asm-syntax --implicit-check-not=amdgpu < %t.launch
// LAUNCH-DAG: {{^ *}}--nproc=<int>
// LAUNCH-DAG: {{^ *}}--jobs=<string>

// RUN: sluice_lighthouse --help > %t.lighthouse
// RUN: test $(wc -l < %t.lighthouse) -lt 40
// RUN: FileCheck %s --check-prefix=LIGHTHOUSE --implicit-check-not=x86-asm-syntax --implicit-check-not=amdgpu --implicit-check-not=--bind < %t.lighthouse
// LIGHTHOUSE-DAG: {{^ *}}--address=<string> {{.*}}- host:port to listen on
// LIGHTHOUSE-DAG: {{^ *}}--min_replicas=<int>

// RUN: sluice_monitor --help > %t.monitor
// RUN: test $(wc -l < %t.monitor) -lt 40
// RUN: FileCheck %s --check-prefix=MONITOR --implicit-check-not=x86-asm-syntax --implicit-check-not=amdgpu < %t.monitor
// MONITOR-DAG: {{^ *}}--world_size=<int>

// The tools that do not compile MLIR parse their own flags, and know none
// of LLVM's.
// RUN: not sluice_worker -x86-asm-syntax=intel 2>&1 | FileCheck %s --check-prefix=NO-LLVM-OPTIONS
// NO-LLVM-OPTIONS: sluice_worker: unknown flag '-x86-asm-syntax' (try 'sluice_worker --help')
