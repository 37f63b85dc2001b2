// Numeric flags out of range, nan and the infinities are refused while the
// command line is parsed, before a tool starts anything: one line naming the
// flag, the value and the range, and exit status 1 (2 on sluice_launch,
// whose flag errors all exit with 2), never an abort. Addresses whose port
// is past 65535 are refused, not wrapped.

// sluice_launch: a rank count past what one host forks used to abort.
// RUN: sluice_launch --nproc=2147483647 -- true 2> %t.launch; test $? -eq 2
// RUN: sluice_launch --nproc=0 -- true 2>> %t.launch; test $? -eq 2
// RUN: sluice_launch --nproc=2 --grace_period_s=nan -- true 2>> %t.launch; test $? -eq 2
// RUN: sluice_launch --nproc=2 --rendezvous_timeout_s=inf -- true 2>> %t.launch; test $? -eq 2
// RUN: sluice_launch --nproc=2 --max_restarts=-1 -- true 2>> %t.launch; test $? -eq 2
// RUN: sluice_launch --nproc=2 --poll_interval_ms=0 -- true 2>> %t.launch; test $? -eq 2
// RUN: sluice_launch --jobs=ps:4000,worker:4000 -- true 2>> %t.launch; test $? -eq 2
// RUN: sluice_launch --nnodes=32 --nproc=4096 --rendezvous=127.0.0.1:1 -- true 2>> %t.launch; test $? -eq 2
// RUN: sluice_launch --nnodes=2 --nproc=1 --rendezvous=127.0.0.1:99999 -- true 2>> %t.launch; test $? -eq 2
// RUN: sluice_launch --nproc=1 --monitor=127.0.0.1:99999 -- true 2>> %t.launch; test $? -eq 2
// The monitor's flags, passed on as written, are checked as the monitor
// checks them.
// RUN: sluice_launch --nproc=1 --stuck_timeout_s=nan -- true 2>> %t.launch; test $? -eq 2
// RUN: sluice_launch --nproc=1 --silent_timeout_s=0 -- true 2>> %t.launch; test $? -eq 2
// RUN: sluice_launch --nproc=1 --step_kind=first:inf -- true 2>> %t.launch; test $? -eq 2
// RUN: FileCheck %s --check-prefix=LAUNCH --match-full-lines < %t.launch
// LAUNCH: sluice_launch: --nproc=2147483647 is out of range: expected 1 to 4096
// LAUNCH-NEXT: sluice_launch: --nproc=0 is out of range: expected 1 to 4096
// LAUNCH-NEXT: sluice_launch: --grace_period_s=nan is not a number: expected 0 to 604800
// LAUNCH-NEXT: sluice_launch: --rendezvous_timeout_s=inf is out of range: expected 0.001 to 604800
// LAUNCH-NEXT: sluice_launch: --max_restarts=-1 is out of range: expected 0 to 1000000
// LAUNCH-NEXT: sluice_launch: --poll_interval_ms=0 is out of range: expected 1 to 60000
// LAUNCH-NEXT: sluice_launch: --jobs=ps:4000,worker:4000 asks for 8000 ranks: expected 1 to 4096 in all
// LAUNCH-NEXT: sluice_launch: --nnodes=32 x --nproc=4096 is 131072 ranks: expected at most 65536 in all
// LAUNCH-NEXT: sluice_launch: --rendezvous=127.0.0.1:99999: port 99999 is out of range 0..65535
// LAUNCH-NEXT: sluice_launch: --monitor=127.0.0.1:99999: port 99999 is out of range 0..65535
// LAUNCH-NEXT: sluice_launch: --stuck_timeout_s=nan is not a number: expected 0.001 to 604800
// LAUNCH-NEXT: sluice_launch: --silent_timeout_s=0 is out of range: expected 0.001 to 604800
// LAUNCH-NEXT: sluice_launch: --step_kind=first:inf is out of range: expected 0.001 to 604800

// sluice_monitor: a world size past any job used to abort, a nan timeout
// disabled its verdict, and port 99999 listened on 34463.
// RUN: sluice_monitor --world_size=2147483647 2> %t.monitor; test $? -eq 1
// RUN: sluice_monitor --silent_timeout_s=nan 2>> %t.monitor; test $? -eq 1
// RUN: sluice_monitor --stuck_timeout_s=-inf 2>> %t.monitor; test $? -eq 1
// RUN: sluice_monitor --step_kind=first:nan 2>> %t.monitor; test $? -eq 1
// RUN: sluice_monitor --step_kind=first 2>> %t.monitor; test $? -eq 1
// RUN: sluice_monitor --address=127.0.0.1:99999 2>> %t.monitor; test $? -eq 1
// RUN: FileCheck %s --check-prefix=MONITOR --match-full-lines < %t.monitor
// MONITOR: sluice_monitor: --world_size=2147483647 is out of range: expected 1 to 65536
// MONITOR-NEXT: sluice_monitor: --silent_timeout_s=nan is not a number: expected 0.001 to 604800
// MONITOR-NEXT: sluice_monitor: --stuck_timeout_s=-inf is out of range: expected 0.001 to 604800
// MONITOR-NEXT: sluice_monitor: --step_kind=first:nan is not a number: expected 0.001 to 604800
// MONITOR-NEXT: sluice_monitor: --step_kind=first: expected KIND:SECONDS, SECONDS 0.001 to 604800
// MONITOR-NEXT: sluice_monitor: monitor: cannot listen on '127.0.0.1:99999': port 99999 is out of range 0..65535

// sluice_lighthouse: --http_port=-1 given on purpose served nothing, and
// 95177 printed 95177 while serving on 29641.
// RUN: sluice_lighthouse --address=127.0.0.1:0 --http_port=-1 2> %t.lighthouse; test $? -eq 1
// RUN: sluice_lighthouse --address=127.0.0.1:0 --http_port=95177 2>> %t.lighthouse; test $? -eq 1
// RUN: sluice_lighthouse --address=127.0.0.1:0 --min_replicas=0 2>> %t.lighthouse; test $? -eq 1
// RUN: sluice_lighthouse --address=127.0.0.1:0 --heartbeat_timeout_ms=2147483647 2>> %t.lighthouse; test $? -eq 1
// RUN: sluice_lighthouse --address=127.0.0.1:0 --etcd_lease_ttl_ms=999 2>> %t.lighthouse; test $? -eq 1
// RUN: sluice_lighthouse --address=127.0.0.1:99999 2>> %t.lighthouse; test $? -eq 1
// RUN: sluice_lighthouse --address=127.0.0.1:0 --advertise=127.0.0.1:65536 2>> %t.lighthouse; test $? -eq 1
// RUN: FileCheck %s --check-prefix=LIGHTHOUSE --match-full-lines < %t.lighthouse
// LIGHTHOUSE: sluice_lighthouse: --http_port=-1 is out of range: expected 0 to 65535
// LIGHTHOUSE-NEXT: sluice_lighthouse: --http_port=95177 is out of range: expected 0 to 65535
// LIGHTHOUSE-NEXT: sluice_lighthouse: --min_replicas=0 is out of range: expected 1 to 65536
// LIGHTHOUSE-NEXT: sluice_lighthouse: --heartbeat_timeout_ms=2147483647 is out of range: expected 1 to 604800000
// LIGHTHOUSE-NEXT: sluice_lighthouse: --etcd_lease_ttl_ms=999 is out of range: expected 1000 to 604800000
// LIGHTHOUSE-NEXT: sluice_lighthouse: --address=127.0.0.1:99999: port 99999 is out of range 0..65535
// LIGHTHOUSE-NEXT: sluice_lighthouse: --advertise=127.0.0.1:65536: port 65536 is out of range 0..65535

// sluice_worker and sluice_run.
// RUN: sluice_worker --task_name=/job:w/task:0 --address=127.0.0.1:0 --max_programs=0 2> %t.others; test $? -eq 1
// RUN: sluice_worker --task_name=/job:w/task:0 --address=127.0.0.1:0 --shutdown_grace_s=nan 2>> %t.others; test $? -eq 1
// RUN: sluice_worker --task_name=/job:w/task:0 --address=127.0.0.1:0 --max_message_bytes=-1 2>> %t.others; test $? -eq 1
// RUN: sluice_run --timeout=nan %S/../../../examples/programs/hello.mlir 2>> %t.others; test $? -eq 1
// RUN: sluice_run --timeout=-1 %S/../../../examples/programs/hello.mlir 2>> %t.others; test $? -eq 1
// RUN: FileCheck %s --check-prefix=OTHERS --match-full-lines < %t.others
// OTHERS: sluice_worker: --max_programs=0 is out of range: expected 1 to 65536
// OTHERS-NEXT: sluice_worker: --shutdown_grace_s=nan is not a number: expected 0 to 604800
// OTHERS-NEXT: sluice_worker: --max_message_bytes=-1 is out of range: expected 1024 to 2147483647
// OTHERS-NEXT: sluice_run: --timeout=nan is not a number: expected 0 to 604800
// OTHERS-NEXT: sluice_run: --timeout=-1 is out of range: expected 0 to 604800

// --help states the ranges.
// RUN: sluice_launch --help | FileCheck %s --check-prefix=HELP-LAUNCH
// HELP-LAUNCH-DAG: {{^ *}}--nproc=<int> {{.*}} (1 to 4096){{$}}
// HELP-LAUNCH-DAG: {{^ *}}--stuck_timeout_s=<string> {{.*}} (0.001 to 604800){{$}}
// RUN: sluice_lighthouse --help | FileCheck %s --check-prefix=HELP-LIGHTHOUSE
// HELP-LIGHTHOUSE: {{^ *}}--http_port=<int> {{.*}} (0 to 65535){{$}}
// RUN: sluice_monitor --help | FileCheck %s --check-prefix=HELP-MONITOR
// HELP-MONITOR: {{^ *}}--world_size=<int> {{.*}} (1 to 65536){{$}}
