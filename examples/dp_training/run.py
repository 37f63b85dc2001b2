#!/usr/bin/env python3
"""Runs the data-parallel example: a lighthouse (sluice_lighthouse) and
3 replicas of dp_train under `sluice_launch --restart=rank`, on 127.0.0.1.

    python3 examples/dp_training/run.py [--steps=N]
        [--kill_replica_at=STEP [--kill_replica=R]] [--kills=K]

With --kill_replica_at, replica R is killed with SIGKILL once it has
committed step STEP; with --kills=K, K replicas in turn (0, 1, 2, 0, ...),
each once the one killed before has rejoined. The launcher restarts a
killed replica alone; it heals from a peer and rejoins. run.py copies the
job's output, then prints what it found in it: the time from each kill
to the survivors' next committed step (median and max over the kills),
when the killed replica healed and rejoined, whether every replica held
the same parameter checksum at every committed step, and each replica's
held-out accuracy. It exits with 0 when the job finished and the
checksums agreed, else 1 (or the launcher's code). Every process it
started is killed when it exits, however it exits. See README.md.
"""

import argparse
import ctypes
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PR_SET_PDEATHSIG = 1

STEP_LINE = re.compile(
    r"^\[(\d+)\] step (\d+) generation (\d+) quorum (\d+) checksum ([0-9a-f]+)"
    r" loss \S+ accuracy \S+ at ([0-9.]+)$")
PID_LINE = re.compile(r"^\[(\d+)\] replica_\d+: .* pid (\d+),")
HEALED_LINE = re.compile(r"^\[(\d+)\] healed from (\S+) to step (\d+)")
ACCURACY_LINE = re.compile(r"^\[(\d+)\] held-out accuracy ([0-9.]+)")


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
    parser.add_argument("--restart_backoff_ms", type=int, default=500,
                        help="sluice_launch's: the wait before a killed "
                        "replica's first restart, doubled for each next one")
    parser.add_argument("--min_replicas", type=int, default=2,
                        help="the lighthouse's --min_replicas")
    parser.add_argument("--lighthouse_flags", default="",
                        help="more flags for sluice_lighthouse, space "
                        "separated")
    parser.add_argument("--timeout", type=float, default=600,
                        help="kill everything after SECONDS (a hang)")
    parser.add_argument("--log", help="also write the job's output here")
    bazel_bin = os.path.join(ROOT, "bazel-bin")
    parser.add_argument("--dp_train", default=os.path.join(
        bazel_bin, "examples/dp_training/dp_train"))
    parser.add_argument("--sluice_launch", default=os.path.join(
        bazel_bin, "tools/sluice_launch/sluice_launch"))
    parser.add_argument("--sluice_lighthouse", default=os.path.join(
        bazel_bin, "tools/sluice_lighthouse/sluice_lighthouse"))
    parser.add_argument("--model", default=os.path.join(HERE, "model.mlir"))
    return parser.parse_args()


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


class Chaos:
    """Reads the job's lines; kills replicas on cue and records what
    followed each kill."""

    def __init__(self, args):
        self.args = args
        self.pids = {}        # replica -> pid of its current process
        self.kills = []       # dicts: replica, step, time, recovery, ...
        self.checksums = {}   # step -> {replica: checksum}
        self.accuracy = {}    # replica -> held-out accuracy
        self.rejoined_at = 0  # the step at which the last killed rejoined
        self.max_step = 0

    def wants_kill(self, replica, step):
        args = self.args
        if args.kill_replica_at is not None:
            return (not self.kills and replica == args.kill_replica and
                    step == args.kill_replica_at)
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

    def read(self, line):
        match = PID_LINE.match(line)
        if match:
            self.pids[int(match.group(1))] = int(match.group(2))
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
        self.checksums.setdefault(step, {})[replica] = match.group(5)
        self.max_step = max(self.max_step, step)
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

    def report(self):
        """Prints the summary; returns whether the checksums agreed."""
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


def main():
    args = parse_args()
    for binary in (args.dp_train, args.sluice_launch, args.sluice_lighthouse):
        if not os.access(binary, os.X_OK):
            sys.exit("%s is missing: bazel build //examples/dp_training:"
                     "dp_train //tools/sluice_launch //tools/sluice_lighthouse"
                     % binary)
    # SIGTERM ends the run as Ctrl-C does, through the finally below.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    port = free_port()
    lighthouse_address = "127.0.0.1:%d" % port
    processes = []
    try:
        lighthouse = subprocess.Popen(
            [args.sluice_lighthouse, "--bind=" + lighthouse_address,
             "--min_replicas=%d" % args.min_replicas] +
            args.lighthouse_flags.split(),
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            preexec_fn=die_with_parent)
        processes.append(lighthouse)
        wait_listening(port, lighthouse, 30)
        print("run.py: lighthouse at %s" % lighthouse_address, flush=True)
        launcher = subprocess.Popen(
            [args.sluice_launch, "--nproc=%d" % args.replicas,
             "--restart=rank", "--finish=first", "--monitor=none",
             "--max_restarts=%d" % max(3, args.kills + 1),
             "--restart_backoff_ms=%d" % args.restart_backoff_ms, "--",
             args.dp_train, "--model=" + args.model,
             "--lighthouse=" + lighthouse_address,
             "--steps=%d" % args.steps],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            preexec_fn=die_with_parent)
        processes.append(launcher)
        timer = threading.Timer(args.timeout, launcher.kill)
        timer.daemon = True
        timer.start()

        def copy_lighthouse():
            for line in lighthouse.stdout:
                sys.stdout.write("[lighthouse] " + line)
                sys.stdout.flush()
        threading.Thread(target=copy_lighthouse, daemon=True).start()

        chaos = Chaos(args)
        log = open(args.log, "w") if args.log else None
        for line in launcher.stdout:
            sys.stdout.write(line)
            sys.stdout.flush()
            if log:
                log.write(line)
            chaos.read(line.rstrip("\n"))
        status = launcher.wait()
        timer.cancel()
        if log:
            log.close()
        agreed = chaos.report()
        if status != 0:
            print("run.py: sluice_launch exited with %d" % status, flush=True)
            return status
        return 0 if agreed else 1
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
        for process in processes:
            process.wait()


if __name__ == "__main__":
    sys.exit(main())
