// sluice_lighthouse listens on --address, as the other servers do; --bind,
// the flag's first spelling, still sets it and says it is deprecated.

// The lighthouse serves on the address it was given until SIGTERM, then
// exits with status 0. The wait for its first line is bounded (30 s).
// RUN: sluice_lighthouse --address=127.0.0.1:0 > %t.serving 2>&1 & pid=$!; for i in $(seq 300); do grep -q 'listening on' %t.serving && break; sleep 0.1; done; kill -TERM $pid; wait $pid
// RUN: FileCheck %s --check-prefix=SERVING < %t.serving
// SERVING: {{^}}lighthouse listening on 127.0.0.1:{{[1-9][0-9]*$}}

// With --etcd a port picked at random is refused before etcd is dialed:
// the refusal shows that the flag set the address (the default,
// 127.0.0.1:29510, has a fixed port).
// RUN: not sluice_lighthouse --address=127.0.0.1:0 --etcd=http://127.0.0.1:1 2>&1 | FileCheck %s --check-prefix=ADDRESS --implicit-check-not=deprecated
// ADDRESS: {{^}}sluice_lighthouse: --etcd needs a fixed port in --address or --advertise

// RUN: not sluice_lighthouse --bind=127.0.0.1:0 --etcd=http://127.0.0.1:1 2>&1 | FileCheck %s --check-prefix=BIND
// BIND: {{^}}sluice_lighthouse: --bind is deprecated; use --address{{$}}
// BIND-NEXT: {{^}}sluice_lighthouse: --etcd needs a fixed port in --address or --advertise
