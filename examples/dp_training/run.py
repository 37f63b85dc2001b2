#!/usr/bin/env python3
"""Runs the data-parallel example: a lighthouse (sluice_lighthouse) and
3 replicas of dp_train under `sluice_launch --restart=rank`, on 127.0.0.1.

    python3 examples/dp_training/run.py [--steps=N]
        [--kill_replica_at=STEP [--kill_replica=R]] [--kills=K]
        [--lighthouses=L [--kill_leader_at=STEP]] [--tls]

With --kill_replica_at, replica R is killed with SIGKILL once it has
committed step STEP (or the first step past it that it reports); with --kills=K, K replicas in turn (0, 1, 2, 0, ...),
each once the one killed before has rejoined. The launcher restarts a
killed replica alone; it heals from a peer and rejoins. run.py copies the
job's output, then prints what it found in it: the time from each kill
to the survivors' next committed step (median and max over the kills),
when the killed replica healed and rejoined, whether every replica held
the same parameter checksum at every committed step, and each replica's
held-out accuracy.

With --lighthouses=L (2 or more), run.py starts a one-member etcd
(/usr/bin/etcd, free ports, a temporary data directory) and L lighthouses
over it, and gives the replicas every lighthouse's address. With
--kill_leader_at=STEP it kills the leading lighthouse (the one whose
status page says is_leader) with SIGKILL once a replica has committed
STEP, and prints the time from that kill to the first step committed in
a later generation (the new leader's quorum). It exits with 0 when the job finished and the
checksums agreed, else 1 (or the launcher's code). Every process it
started is killed when it exits, however it exits. See README.md.

With --partition_after_s=S --partition_target=replica:R|lighthouse[:I]
(and --partition_for_s=D to heal), run.py runs in a network namespace of
its own (needs root and nft) and, S seconds after the first committed
step, cuts the target off the network with nftables: replica R (which
then runs as a fault user) as a host that vanished, or the lighthouse's
port; it prints when the others went on and when the target came back.

With --tls every gRPC connection of the job is mutual TLS: run.py makes a
throwaway CA in a temporary folder with openssl (tls_certificates.py,
shared with the parameter-server example), a certificate for the
lighthouses and the launcher, and one per replica whose common name is its
replica id, which the lighthouse checks the replica's heartbeats against.
"""

import argparse
import ctypes
import json
import os
import re
import shlex
import shutil
import signal
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
# Shared with the parameter-server example.
sys.path.insert(0, os.path.join(ROOT, "examples", "ps_training"))
import network_partition  # noqa: E402
import tls_certificates  # noqa: E402
PR_SET_PDEATHSIG = 1

STEP_LINE = re.compile(
    r"^\[(\d+)\] step (\d+) generation (\d+) quorum (\d+) checksum ([0-9a-f]+)"
    r" loss \S+ accuracy \S+ at ([0-9.]+)$")
PID_LINE = re.compile(r"^\[(\d+)\] replica_\d+: .* pid (\d+),")
HEALED_LINE = re.compile(r"^\[(\d+)\] healed from (\S+) to step (\d+)")
ACCURACY_LINE = re.compile(r"^\[(\d+)\] held-out accuracy ([0-9.]+)")
STATUS_PAGE_LINE = re.compile(r"^status page at (\S+)$")
PARTIAL_LINE = re.compile(r"^\[(\d+)\] step (\d+) kept by partial allreduce")
NOT_COMMITTED_LINE = re.compile(
    r"^\[(\d+)\] step (\d+) of generation (\d+) not committed")
ETCD = "/usr/bin/etcd"
# With --tls the lighthouses serve their status pages over HTTPS: run.py
# reads them with the job's CA and certificate.
https_context = None


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replicas", type=int, default=3)
    parser.add_argument("--steps", type=int, default=600,
                        help="committed steps of 64 examples per replica")
    parser.add_argument("--kill_replica_at", type=int,
                        help="kill -9 a replica once it committed STEP")
    parser.add_argument("--kill_replica", type=int, default=1,
                        help="the replica --kill_replica_at kills")
    parser.add_argument("--kills", type=int, default=0,
                        help="kill K replicas in turn, each once the one "
                        "before rejoined (and --kill_every steps later)")
    parser.add_argument("--kill_every", type=int, default=20,
                        help="with --kills: committed steps between a "
                        "rejoin and the next kill")
    parser.add_argument("--partial_allreduce", action="store_true",
                        help="dp_train --partial_allreduce: the survivors "
                        "keep a step a replica died in")
    parser.add_argument("--restart_backoff_ms", type=int, default=500,
                        help="sluice_launch's: the wait before a killed "
                        "replica's first restart, doubled for each next one")
    parser.add_argument("--min_replicas", type=int, default=2,
                        help="the lighthouse's --min_replicas")
    parser.add_argument("--lighthouse_flags", default="",
                        help="more flags for sluice_lighthouse, space "
                        "separated")
    parser.add_argument("--lighthouses", type=int, default=1,
                        help="2 or more: that many lighthouses over a "
                        "one-member etcd that run.py starts")
    parser.add_argument("--kill_leader_at", type=int,
                        help="kill -9 the leading lighthouse once a replica "
                        "committed STEP (needs --lighthouses=2 or more)")
    parser.add_argument("--timeout", type=float, default=600,
                        help="kill everything after SECONDS (a hang)")
    parser.add_argument("--tls", action="store_true",
                        help="run every gRPC connection of the job over "
                        "mutual TLS: make a throwaway CA in a temporary "
                        "folder (with the openssl tool; removed at the end), "
                        "a certificate for 127.0.0.1 for the lighthouses and "
                        "the launcher, and one per replica whose common name "
                        "is its replica id (replica_R), and give each "
                        "process its own through SLUICE_TLS_CERT, "
                        "SLUICE_TLS_KEY and SLUICE_TLS_CA (docs/security.md)."
                        " Gloo's allreduce payloads stay plaintext")
    network_partition.add_arguments(
        parser, "replica:R: every connection of replica R (run as a fault "
        "user), as a host that vanished; lighthouse or lighthouse:I: the "
        "lighthouse's port. --partition_after_s counts from the first "
        "committed step")
    parser.add_argument("--log", help="also write the job's output here")
    bazel_bin = os.path.join(ROOT, "bazel-bin")
    parser.add_argument("--dp_train", default=os.path.join(
        bazel_bin, "examples/dp_training/dp_train"))
    parser.add_argument("--sluice_launch", default=os.path.join(
        bazel_bin, "tools/sluice_launch/sluice_launch"))
    parser.add_argument("--sluice_lighthouse", default=os.path.join(
        bazel_bin, "tools/sluice_lighthouse/sluice_lighthouse"))
    parser.add_argument("--model", default=os.path.join(
        bazel_bin, "examples/dp_training/model.sbf"),
        help="model.mlir compiled to SBF")
    args = parser.parse_args()
    if args.lighthouses < 1:
        parser.error("--lighthouses must be at least 1")
    if args.kill_leader_at is not None and args.lighthouses < 2:
        parser.error("--kill_leader_at needs --lighthouses=2 or more")
    network_partition.check_arguments(parser, args)
    if args.partition_target is not None:
        kind, _, index = args.partition_target.partition(":")
        count = {"replica": args.replicas,
                 "lighthouse": args.lighthouses}.get(kind)
        if kind == "lighthouse" and not index:
            index = "0"
        if count is None or not index.isdigit() or int(index) >= count:
            parser.error("--partition_target must be replica:0 to replica:%d "
                         "or lighthouse:0 to lighthouse:%d, not %r" %
                         (args.replicas - 1, args.lighthouses - 1,
                          args.partition_target))
        args.partition_target = (kind, int(index))
    return args


def free_port():
    """A port the kernel hands out now; the socket closes before use, so it
    may be taken again in between (rare on a quiet machine)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def die_with_parent():
    """Runs in the child: SIGKILL when run.py dies, even by SIGKILL."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def wait_listening(port, process, seconds):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if process.poll() is not None:
            sys.exit("sluice_lighthouse exited with %d before listening" %
                     process.returncode)
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.05)
    sys.exit("sluice_lighthouse did not listen on port %d within %d s" %
             (port, seconds))


def get_json(url, timeout):
    context = https_context if url.startswith("https:") else None
    with urllib.request.urlopen(url, timeout=timeout,
                                context=context) as response:
        return json.load(response)


def copy_output(process, prefix, on_line=None):
    """Copies a process's output to ours, each line after PREFIX, from a
    thread; calls ON_LINE with each line first."""
    def copy():
        for line in process.stdout:
            if on_line:
                on_line(line.rstrip("\n"))
            sys.stdout.write(prefix + line)
            sys.stdout.flush()
    threading.Thread(target=copy, daemon=True).start()


def start_etcd(data_dir, processes, seconds=30):
    """Starts a one-member etcd on free ports of 127.0.0.1 with its data
    under DATA_DIR; returns its client URL once /health says so."""
    for attempt in range(3):
        client = "http://127.0.0.1:%d" % free_port()
        peer = "http://127.0.0.1:%d" % free_port()
        etcd = subprocess.Popen(
            [ETCD, "--name=dp", "--data-dir=%s/data%d" % (data_dir, attempt),
             "--listen-client-urls=" + client,
             "--advertise-client-urls=" + client,
             "--listen-peer-urls=" + peer,
             "--initial-advertise-peer-urls=" + peer,
             "--initial-cluster=dp=" + peer, "--log-level=warn"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            preexec_fn=die_with_parent)
        processes.append(etcd)
        copy_output(etcd, "[etcd] ")
        deadline = time.time() + seconds
        # A picked port taken by someone else before etcd bound it makes
        # etcd exit: try again with others.
        while time.time() < deadline and etcd.poll() is None:
            try:
                if get_json(client + "/health", 1).get("health") == "true":
                    print("run.py: etcd at %s" % client, flush=True)
                    return client
            except (OSError, ValueError):
                pass
            time.sleep(0.1)
        if etcd.poll() is None:
            sys.exit("etcd at %s was not healthy within %d s" %
                     (client, seconds))
    sys.exit("etcd exited before it was healthy, 3 times")


class Lighthouse:
    """One sluice_lighthouse that run.py started; with etcd, its status
    page tells whether it leads."""

    def __init__(self, args, processes, etcd=None):
        self.port = free_port()
        self.address = "127.0.0.1:%d" % self.port
        self.status_page = None
        self.page_known = threading.Event()
        flags = ["--address=" + self.address,
                 "--min_replicas=%d" % args.min_replicas]
        if etcd:
            flags += ["--etcd=" + etcd, "--http_port=0"]
        self.process = subprocess.Popen(
            [args.sluice_lighthouse] + flags + args.lighthouse_flags.split(),
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            preexec_fn=die_with_parent)
        processes.append(self.process)
        prefix = "[lighthouse %s] " % self.address if etcd else "[lighthouse] "
        copy_output(self.process, prefix, self.read)
        wait_listening(self.port, self.process, 30)
        if etcd and not self.page_known.wait(30):
            sys.exit("lighthouse %s printed no status page" % self.address)

    def read(self, line):
        match = STATUS_PAGE_LINE.match(line)
        if match:
            self.status_page = match.group(1)
            self.page_known.set()

    def is_leader(self):
        if self.process.poll() is not None:
            return False
        try:
            return get_json(self.status_page + "status.json", 2).get(
                "is_leader") is True
        except (OSError, ValueError):
            return False


class Chaos:
    """Reads the job's lines; kills replicas on cue and records what
    followed each kill."""

    def __init__(self, args, lighthouses):
        self.args = args
        self.lighthouses = lighthouses
        self.leader_kill = None  # address, step, time, generation, ...
        self.max_generation = 0  # over the steps before the leader's kill
        self.pids = {}        # replica -> pid of its current process
        self.kills = []       # dicts: replica, step, time, recovery, ...
        self.checksums = {}   # step -> {replica: checksum}
        self.accuracy = {}    # replica -> held-out accuracy
        self.rejoined_at = 0  # the step at which the last killed rejoined
        self.max_step = 0
        self.partition = None  # network_partition.Partition, scheduled
        self.partition_replica = None  # the replica it cuts off, if one
        self.stop = None  # set when the job ends: no partition after
        self.partition_events = {}  # what followed the cut and the heal
        self.kept_steps = set()  # steps kept by a partial allreduce
        self.dropped_steps = set()  # (step, generation) not committed

    def watch_partition(self, replica, step, quorum, at):
        """Starts the partition's clock at the first committed step; then
        records the first step the others committed without the target
        after the cut, and the first step the target (anyone, for a
        lighthouse) committed with every replica after the heal."""
        partition = self.partition
        if partition is None:
            return
        if partition.cut_at is None and not self.partition_events:
            self.partition_events["scheduled"] = True
            partition.schedule(self.stop)
            return
        events = self.partition_events
        cut_at, healed_at = partition.cut_at, partition.healed_at
        target = self.partition_replica
        if (cut_at is not None and "without" not in events and
                target is not None and replica != target and
                quorum < self.args.replicas and at > cut_at):
            events["without"] = (replica, step, quorum, at - cut_at)
        if (healed_at is not None and "back" not in events and
                at > healed_at and quorum == self.args.replicas and
                (target is None or replica == target)):
            events["back"] = (replica, step, quorum, at - healed_at)

    def report_partition(self):
        partition, events = self.partition, self.partition_events
        if partition is None or partition.cut_at is None:
            if partition is not None:
                print("run.py: the partition never happened: the job ended "
                      "first", flush=True)
            return
        line = "run.py: partition of %s:" % partition.target
        if "without" in events:
            line += (" replica %d committed step %d with quorum %d %.3f s "
                     "after the cut;" % events["without"])
        elif self.partition_replica is not None:
            line += " the others committed nothing without it;"
        if partition.healed_at is None:
            line += " never healed"
        elif "back" in events:
            line += (" after the heal replica %d committed step %d with "
                     "quorum %d %.3f s after it" % events["back"])
        else:
            line += " nothing committed after the heal"
        print(line, flush=True)

    def wants_kill(self, replica, step):
        args = self.args
        if args.kill_replica_at is not None:
            # At or past: a replica healing in the background at its
            # start reports no steps until its state has arrived.
            return (not self.kills and replica == args.kill_replica and
                    step >= args.kill_replica_at)
        if len(self.kills) >= args.kills:
            return False
        if self.kills and "rejoined" not in self.kills[-1]:
            return False
        return (replica == len(self.kills) % args.replicas and
                step >= self.rejoined_at + args.kill_every)

    def kill(self, replica, step):
        pid = self.pids.pop(replica, None)
        if pid is None:
            return
        os.kill(pid, signal.SIGKILL)
        now = time.time()
        self.kills.append({"replica": replica, "step": step, "time": now})
        print("run.py: kill -9 replica %d (pid %d) after its step %d" %
              (replica, pid, step), flush=True)

    def kill_leader(self, step):
        """Kills the leading lighthouse, if exactly one says it leads."""
        leaders = [each for each in self.lighthouses if each.is_leader()]
        if len(leaders) != 1:
            return
        leader = leaders[0]
        leader.process.kill()
        self.leader_kill = {"address": leader.address, "step": step,
                            "time": time.time(),
                            "generation": self.max_generation}
        print("run.py: kill -9 the leading lighthouse %s (pid %d) after "
              "step %d (generation %d)" % (leader.address, leader.process.pid,
                                           step, self.max_generation),
              flush=True)

    def read(self, line):
        match = PID_LINE.match(line)
        if match:
            self.pids[int(match.group(1))] = int(match.group(2))
            return
        match = PARTIAL_LINE.match(line)
        if match:
            self.kept_steps.add(int(match.group(2)))
            return
        match = NOT_COMMITTED_LINE.match(line)
        if match:
            self.dropped_steps.add((int(match.group(2)), int(match.group(3))))
            return
        match = HEALED_LINE.match(line)
        if match and self.kills:
            kill = self.kills[-1]
            if int(match.group(1)) == kill["replica"]:
                kill["healed"] = (match.group(2), int(match.group(3)))
            return
        match = ACCURACY_LINE.match(line)
        if match:
            self.accuracy[int(match.group(1))] = float(match.group(2))
            return
        match = STEP_LINE.match(line)
        if not match:
            return
        replica, step, generation, quorum = map(int, match.group(1, 2, 3, 4))
        at = float(match.group(6))
        self.watch_partition(replica, step, quorum, at)
        self.checksums.setdefault(step, {})[replica] = match.group(5)
        self.max_step = max(self.max_step, step)
        kill = self.leader_kill
        if kill is None:
            self.max_generation = max(self.max_generation, generation)
            if (self.args.kill_leader_at is not None and
                    step >= self.args.kill_leader_at):
                self.kill_leader(step)
        elif ("recovery" not in kill and generation > kill["generation"] and
              at > kill["time"]):
            # Steps of the old leader's quorum may still commit after the
            # kill; the new leader's quorum has a higher generation.
            kill["recovery"] = at - kill["time"]
            kill["recovered"] = (replica, step, generation)
        if self.kills:
            kill = self.kills[-1]
            # The survivors may still commit the step the killed replica
            # had committed; the next one is taken without it.
            if ("recovery" not in kill and replica != kill["replica"] and
                    step > kill["step"] and at > kill["time"]):
                kill["recovery"] = at - kill["time"]
                kill["recovered"] = (replica, step, quorum)
            if ("rejoined" not in kill and replica == kill["replica"] and
                    quorum == self.args.replicas):
                kill["rejoined"] = (step, generation, at - kill["time"])
                self.rejoined_at = step
        if self.wants_kill(replica, step):
            self.kill(replica, step)

    def report_leader_kill(self):
        kill = self.leader_kill
        line = "run.py: lighthouse %s (leader) killed after step %d:" % (
            kill["address"], kill["step"])
        if "recovery" in kill:
            line += (" replica %d committed step %d in generation %d %.3f s "
                     "after the kill;" % (kill["recovered"] +
                                          (kill["recovery"],)))
        else:
            line += " no step committed in a later generation;"
        finished = sorted(self.checksums.get(self.args.steps, {}))
        line += " replicas %s committed the last step (%d)" % (
            ",".join(map(str, finished)) or "none", self.args.steps)
        print(line, flush=True)

    def report(self):
        """Prints the summary; returns whether the checksums agreed."""
        if self.leader_kill:
            self.report_leader_kill()
        self.report_partition()
        for kill in self.kills:
            line = "run.py: replica %d killed after step %d:" % (
                kill["replica"], kill["step"])
            if "recovery" in kill:
                replica, step, quorum = kill["recovered"]
                line += (" replica %d committed step %d with quorum %d "
                         "%.3f s after the kill;" % (replica, step, quorum,
                                                     kill["recovery"]))
            else:
                line += " no survivor committed again;"
            if "healed" in kill:
                line += " it healed from %s to step %d;" % kill["healed"]
            if "rejoined" in kill:
                line += (" rejoined at step %d (generation %d) %.3f s after "
                         "the kill" % kill["rejoined"])
            else:
                line += " it did not rejoin"
            print(line, flush=True)
        if self.kills:
            print("run.py: over %d kill(s), %d step(s) kept by partial "
                  "allreduce, %d step attempt(s) not committed" %
                  (len(self.kills), len(self.kept_steps),
                   len(self.dropped_steps)), flush=True)
        recoveries = [k["recovery"] for k in self.kills if "recovery" in k]
        if recoveries:
            print("run.py: recovery time over %d kill(s): median %.3f s, "
                  "max %.3f s" % (len(recoveries),
                                  statistics.median(recoveries),
                                  max(recoveries)), flush=True)
        differing = [step for step, by_replica in sorted(self.checksums.items())
                     if len(set(by_replica.values())) > 1]
        if differing:
            step = differing[0]
            print("run.py: checksums differ at %d step(s), first at step %d: "
                  "%s" % (len(differing), step, self.checksums[step]),
                  flush=True)
        else:
            print("run.py: every replica that committed a step held the same "
                  "checksum, at each of %d steps" % len(self.checksums),
                  flush=True)
        for replica, accuracy in sorted(self.accuracy.items()):
            print("run.py: replica %d held-out accuracy %.4f" %
                  (replica, accuracy), flush=True)
        return not differing


def use_tls(args, directory):
    """Makes the job's certificates in DIRECTORY; every process run.py
    starts takes the job's certificate from the environment, and each
    replica its own (replica_command_with_tls)."""
    global https_context
    names = ["job"] + ["replica_%d" % rank for rank in range(args.replicas)]
    certificates = tls_certificates.make(directory, names)
    os.environ.update(certificates.environment("job"))
    https_context = ssl.create_default_context(cafile=certificates.ca)
    https_context.load_cert_chain(certificates.cert("job"),
                                  certificates.key("job"))
    print("run.py: the job runs over mutual TLS: CA at %s" % certificates.ca,
          flush=True)
    return certificates


def replica_command_with_tls(certificates, command):
    """COMMAND with the certificate of the replica's own id in place of the
    job's: the launcher gives every rank its environment, and only the
    shell it starts knows the rank."""
    # dp_train's replica id is replica_$SLUICE_RANK, as the names in
    # use_tls, unless --replica_id says otherwise.
    in_dir = shlex.quote(certificates.directory) + "/replica_$SLUICE_RANK"
    return ["/bin/sh", "-c",
            "export SLUICE_TLS_CERT=%s.pem SLUICE_TLS_KEY=%s.key; "
            'exec "$@"' % (in_dir, in_dir), "dp_train"] + command


def main():
    args = parse_args()
    build = ("bazel build //examples/dp_training:dp_train "
             "//examples/dp_training:model_sbf //tools/sluice_launch "
             "//tools/sluice_lighthouse")
    for binary in (args.dp_train, args.sluice_launch, args.sluice_lighthouse):
        if not os.access(binary, os.X_OK):
            sys.exit("%s is missing: %s" % (binary, build))
    if not os.path.isfile(args.model):
        sys.exit("%s is missing: %s" % (args.model, build))
    # Runs run.py again in a network namespace of its own when a partition
    # is asked for, before anything starts.
    network_partition.enter_namespace(args)
    network_partition.export_liveness(args)
    # SIGTERM ends the run as Ctrl-C does, through the finally below.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    processes = []
    etcd_dir = None
    tls_dir = None
    stop = threading.Event()
    try:
        certificates = None
        if args.tls:
            tls_dir = tempfile.mkdtemp(prefix="dp_tls.",
                                       dir=os.environ.get("TEST_TMPDIR"))
            certificates = use_tls(args, tls_dir)
        etcd = None
        if args.lighthouses > 1:
            etcd_dir = tempfile.mkdtemp(prefix="dp_etcd.",
                                        dir=os.environ.get("TEST_TMPDIR"))
            etcd = start_etcd(etcd_dir, processes)
        lighthouses = [Lighthouse(args, processes, etcd)
                       for _ in range(args.lighthouses)]
        lighthouse_address = ",".join(each.address for each in lighthouses)
        print("run.py: lighthouse%s at %s" % (
            "s" if len(lighthouses) > 1 else "", lighthouse_address),
            flush=True)
        replica_command = [args.dp_train, "--model=" + args.model,
                           "--lighthouse=" + lighthouse_address,
                           "--steps=%d" % args.steps]
        if args.partial_allreduce:
            replica_command.append("--partial_allreduce")
        if certificates is not None:
            replica_command = replica_command_with_tls(certificates,
                                                       replica_command)
        partition = None
        partition_replica = None
        if args.partition_target is not None:
            kind, index = args.partition_target
            if kind == "replica":
                # Every connection of that replica's, whatever its ports
                # (Gloo's are picked at run time), is its user's.
                partition = network_partition.Partition(
                    args, "replica %d" % index, user=True)
                partition_replica = index
                replica_command = [
                    "/bin/sh", "-c",
                    'if [ "$SLUICE_RANK" = %d ]; then exec %s "$@"; fi; '
                    'exec "$@"' % (index, " ".join(
                        map(shlex.quote,
                            network_partition.run_as_fault_user([])))),
                    "dp_train"] + replica_command
            else:
                partition = network_partition.Partition(
                    args, "lighthouse %s" % lighthouses[index].address,
                    ports=[lighthouses[index].port])
        launcher = subprocess.Popen(
            [args.sluice_launch, "--nproc=%d" % args.replicas,
             "--restart=rank", "--finish=first", "--monitor=none",
             "--max_restarts=%d" % max(3, args.kills + 1),
             "--restart_backoff_ms=%d" % args.restart_backoff_ms, "--"] +
            replica_command,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            preexec_fn=die_with_parent)
        processes.append(launcher)
        timer = threading.Timer(args.timeout, launcher.kill)
        timer.daemon = True
        timer.start()

        chaos = Chaos(args, lighthouses)
        chaos.partition = partition
        chaos.partition_replica = partition_replica
        chaos.stop = stop
        log = open(args.log, "w") if args.log else None
        for line in launcher.stdout:
            sys.stdout.write(line)
            sys.stdout.flush()
            if log:
                log.write(line)
            chaos.read(line.rstrip("\n"))
        status = launcher.wait()
        stop.set()
        timer.cancel()
        if log:
            log.close()
        agreed = chaos.report()
        if status != 0:
            print("run.py: sluice_launch exited with %d" % status, flush=True)
            return status
        if args.kill_leader_at is not None and chaos.leader_kill is None:
            print("run.py: no lighthouse was killed: none led alone when a "
                  "replica committed step %d or after" % args.kill_leader_at,
                  flush=True)
            return 1
        return 0 if agreed else 1
    finally:
        stop.set()
        for process in processes:
            if process.poll() is None:
                process.kill()
        for process in processes:
            process.wait()
        if etcd_dir:
            shutil.rmtree(etcd_dir, ignore_errors=True)
        if tls_dir:
            shutil.rmtree(tls_dir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
