#!/usr/bin/env python3
"""Runs the parameter-server example: 2 ps tasks, 4 workers and the
coordinator (ps_train) on 127.0.0.1, with logs in --workdir/logs and
checkpoints in --workdir/checkpoints, which later runs resume from.

    python3 examples/ps_training/run.py [--fresh] [--chaos]
        [--kill_ps_at=SECONDS] [--kill_coordinator_at=SECONDS]
        [--stop_ps_at=SECONDS [--stop_ps_for=SECONDS]]
        [--partition_after_s=SECONDS --partition_target=ps:I|worker:I
         [--partition_for_s=SECONDS] [--partition_traffic=both|to|from]]
        [--liveness_timeout_ms=MS] [--tls]

Prints the coordinator's output and exits with its exit status: 0 when
training finished, 75 when running the command again, without the flags
that inject the failure or delete the checkpoints, resumes it (a parameter
server or the coordinator was lost); it prints that command. Every process it started
is killed when it exits, however it exits. With --partition_after_s it runs
in a network namespace of its own and cuts the target task's port off
there with nftables (network_partition.py; needs root). With --tls every
connection of the job is mutual TLS, with a throwaway CA and certificate
that it makes in --workdir/tls (tls_certificates.py; needs openssl). See
README.md.
"""

import argparse
import ctypes
import json
import os
import random
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import network_partition  # noqa: E402  (found next to this file)
import tls_certificates  # noqa: E402

RESTARTABLE = 75
# What the command that resumes a run leaves out: the failures it injected
# would strike again, and --fresh would delete the checkpoints.
ONE_OFF_FLAGS = ("--fresh", "--kill_ps_at", "--kill_coordinator_at",
                 "--stop_ps_at", "--stop_ps_for",
                 "--partition_after_s", "--partition_target",
                 "--partition_for_s", "--partition_traffic")
NUM_PS = 2
NUM_WORKERS = 4
PR_SET_PDEATHSIG = 1


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workdir", default="/tmp/sluice_ps_training",
                        help="logs/ and checkpoints/ go here")
    parser.add_argument("--fresh", action="store_true",
                        help="delete the checkpoints first")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--steps_per_epoch", type=int, default=1562,
                        help="1562 steps of 64: one pass over 100k examples")
    parser.add_argument("--chaos", action="store_true",
                        help="kill -9 random workers at random times and "
                        "restart them after a delay")
    parser.add_argument("--seed", type=int, default=1,
                        help="of --chaos's choices")
    parser.add_argument("--kill_ps_at", type=float,
                        help="kill -9 ps task 0 after SECONDS")
    parser.add_argument("--stop_ps_at", type=float,
                        help="SIGSTOP ps task 0 after SECONDS (a hung "
                        "parameter server)")
    parser.add_argument("--stop_ps_for", type=float, default=5,
                        help="SIGCONT it SECONDS later")
    parser.add_argument("--closure_deadline_s", type=float,
                        help="ps_train's --closure_deadline_s (default: "
                        "its own, 10)")
    parser.add_argument("--kill_coordinator_at", type=float,
                        help="kill -9 the coordinator after SECONDS")
    parser.add_argument("--timeout", type=float, default=1200,
                        help="kill everything after SECONDS (a hang)")
    parser.add_argument("--tls", action="store_true",
                        help="run every connection of the job over mutual "
                        "TLS: make a throwaway CA and a certificate for "
                        "127.0.0.1 signed by it in WORKDIR/tls (with the "
                        "openssl tool, afresh each run) and give every "
                        "process SLUICE_TLS_CERT, SLUICE_TLS_KEY and "
                        "SLUICE_TLS_CA (docs/security.md)")
    network_partition.add_arguments(
        parser, "ps:I or worker:I: the task whose port --partition_after_s "
        "cuts off, SECONDS after the coordinator started (every connection "
        "to a ps; a worker's with the coordinator)")
    parser.add_argument("--ps_train",
                        default=os.path.join(ROOT, "bazel-bin/examples/"
                                             "ps_training/ps_train"))
    parser.add_argument("--sluice_worker",
                        default=os.path.join(ROOT, "bazel-bin/tools/"
                                             "sluice_worker/sluice_worker"))
    parser.add_argument("--model",
                        default=os.path.join(ROOT, "bazel-bin/examples/"
                                             "ps_training/model.sbf"),
                        help="model.mlir compiled to SBF")
    args = parser.parse_args()
    network_partition.check_arguments(parser, args)
    if args.partition_target is not None:
        job, _, index = args.partition_target.partition(":")
        count = {"ps": NUM_PS, "worker": NUM_WORKERS}.get(job)
        if count is None or not index.isdigit() or int(index) >= count:
            parser.error("--partition_target must be ps:0 to ps:%d or "
                         "worker:0 to worker:%d, not %r" %
                         (NUM_PS - 1, NUM_WORKERS - 1,
                          args.partition_target))
        args.partition_target = (job, int(index))
    return args


def resume_command(argv):
    """This run's command line without ONE_OFF_FLAGS, for the shell."""
    kept = []
    skip_value = False
    for arg in argv[1:]:
        if skip_value:
            skip_value = False
            continue
        name = arg.split("=", 1)[0]
        if name in ONE_OFF_FLAGS:
            skip_value = "=" not in arg and name != "--fresh"
            continue
        kept.append(arg)
    return " ".join(shlex.quote(arg)
                    for arg in ["python3", argv[0]] + kept)


def free_ports(count):
    """Ports the kernel hands out now; the sockets close before use, so a
    port may be taken again in between (rare on a quiet machine)."""
    sockets = [socket.socket() for _ in range(count)]
    for s in sockets:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in sockets]
    for s in sockets:
        s.close()
    return ports


def die_with_parent():
    """Runs in the child: SIGKILL when run.py dies, even by SIGKILL."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


class Job:
    """The processes of one run, and their logs."""

    def __init__(self, args):
        self.args = args
        self.logs = os.path.join(args.workdir, "logs")
        os.makedirs(self.logs, exist_ok=True)
        ports = free_ports(NUM_PS + NUM_WORKERS)
        self.addresses = {
            "ps": ["127.0.0.1:%d" % p for p in ports[:NUM_PS]],
            "worker": ["127.0.0.1:%d" % p for p in ports[NUM_PS:]],
        }
        self.cluster = json.dumps(self.addresses)
        self.tasks = {}  # (job, index) -> Popen
        self.coordinator = None
        self.lock = threading.Lock()

    def start_task(self, job, index):
        name = "/job:%s/task:%d" % (job, index)
        log_path = os.path.join(self.logs, "%s%d.log" % (job, index))
        with open(log_path, "a") as log:
            process = subprocess.Popen(
                [self.args.sluice_worker, "--task_name=" + name,
                 "--address=" + self.addresses[job][index],
                 "--cluster=" + self.cluster, "--work_queue_type=mstd:2"],
                stdout=log, stderr=subprocess.STDOUT,
                # The tfrt_dist kernels find the ps tasks through it.
                env=dict(os.environ, SLUICE_CLUSTER=self.cluster),
                preexec_fn=die_with_parent)
        with self.lock:
            self.tasks[(job, index)] = process
        return log_path

    def wait_listening(self, log_path, process, since):
        deadline = time.time() + 30
        while time.time() < deadline:
            with open(log_path) as log:
                log.seek(since)
                if "listening on" in log.read():
                    return
            if process.poll() is not None:
                sys.exit("%s exited with %d before listening; see %s" %
                         (os.path.basename(log_path), process.returncode,
                          log_path))
            time.sleep(0.05)
        sys.exit("%s did not start listening in 30 s" % log_path)

    def start_cluster(self):
        for job, count in (("ps", NUM_PS), ("worker", NUM_WORKERS)):
            for index in range(count):
                self.restart(job, index)

    def restart(self, job, index):
        log_path = os.path.join(self.logs, "%s%d.log" % (job, index))
        since = os.path.getsize(log_path) if os.path.exists(log_path) else 0
        self.start_task(job, index)
        self.wait_listening(log_path, self.tasks[(job, index)], since)

    def signal_task(self, job, index, signal_number):
        with self.lock:
            process = self.tasks[(job, index)]
        process.send_signal(signal_number)

    def kill_task(self, job, index):
        with self.lock:
            process = self.tasks[(job, index)]
        process.kill()
        process.wait()

    def start_coordinator(self):
        checkpoints = os.path.join(self.args.workdir, "checkpoints")
        self.coordinator = subprocess.Popen(
            [self.args.ps_train, "--model=" + self.args.model,
             "--cluster=" + self.cluster,
             "--checkpoint_dir=" + checkpoints,
             "--epochs=%d" % self.args.epochs,
             "--steps_per_epoch=%d" % self.args.steps_per_epoch] +
            (["--closure_deadline_s=%g" % self.args.closure_deadline_s]
             if self.args.closure_deadline_s is not None else []),
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            preexec_fn=die_with_parent)

    def stop_all(self):
        with self.lock:
            processes = list(self.tasks.values())
        if self.coordinator is not None:
            processes.append(self.coordinator)
        for process in processes:
            if process.poll() is None:
                process.kill()
        for process in processes:
            process.wait()


def chaos(job, rng, stop):
    """Kills a random worker every 1 to 4 s and restarts it 0.5 to 2 s
    later, until `stop` is set."""
    while not stop.wait(rng.uniform(1.0, 4.0)):
        index = rng.randrange(NUM_WORKERS)
        print("chaos: kill -9 worker %d" % index, flush=True)
        job.kill_task("worker", index)
        if stop.wait(rng.uniform(0.5, 2.0)):
            return
        job.restart("worker", index)
        print("chaos: worker %d restarted" % index, flush=True)


def after(seconds, stop, action):
    def run():
        if not stop.wait(seconds):
            action()
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def main():
    args = parse_args()
    build = ("bazel build //examples/ps_training:ps_train "
             "//examples/ps_training:model_sbf //tools/sluice_worker")
    for binary in (args.ps_train, args.sluice_worker):
        if not os.access(binary, os.X_OK):
            sys.exit("%s is missing: %s" % (binary, build))
    if not os.path.isfile(args.model):
        sys.exit("%s is missing: %s" % (args.model, build))
    # Runs run.py again in a network namespace of its own when a partition
    # is asked for, before anything starts.
    network_partition.enter_namespace(args)
    network_partition.export_liveness(args)
    if args.fresh:
        shutil.rmtree(os.path.join(args.workdir, "checkpoints"),
                      ignore_errors=True)
        shutil.rmtree(os.path.join(args.workdir, "logs"), ignore_errors=True)
    if args.tls:
        # Through the environment, every process gets it: the tasks, the
        # coordinator, and whatever they start in turn.
        certificates = tls_certificates.make(
            os.path.join(args.workdir, "tls"), ["job"])
        os.environ.update(certificates.environment("job"))
        print("the job runs over mutual TLS: CA at %s" % certificates.ca,
              flush=True)
    # SIGTERM ends the run as Ctrl-C does, through the finally below.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))

    job = Job(args)
    stop = threading.Event()
    coordinator_killed = threading.Event()
    threads = []
    partition = None
    try:
        job.start_cluster()
        print("cluster: %s (logs in %s)" % (job.cluster, job.logs),
              flush=True)
        job.start_coordinator()
        if args.chaos:
            thread = threading.Thread(
                target=chaos, args=(job, random.Random(args.seed), stop),
                daemon=True)
            thread.start()
            threads.append(thread)
        if args.kill_ps_at is not None:
            def kill_ps():
                print("kill -9 ps 0", flush=True)
                job.kill_task("ps", 0)
            threads.append(after(args.kill_ps_at, stop, kill_ps))
        if args.stop_ps_at is not None:
            def stop_ps():
                print("SIGSTOP ps 0 for %g s" % args.stop_ps_for, flush=True)
                job.signal_task("ps", 0, signal.SIGSTOP)
                stop.wait(args.stop_ps_for)
                job.signal_task("ps", 0, signal.SIGCONT)
                print("SIGCONT ps 0", flush=True)
            threads.append(after(args.stop_ps_at, stop, stop_ps))
        if args.kill_coordinator_at is not None:
            def kill_coordinator():
                print("kill -9 the coordinator", flush=True)
                coordinator_killed.set()
                job.coordinator.kill()
            threads.append(after(args.kill_coordinator_at, stop,
                                 kill_coordinator))
        partition_scheduled = False
        if args.partition_target is not None:
            job_name, index = args.partition_target
            address = job.addresses[job_name][index]
            partition = network_partition.Partition(
                args, "%s %d (%s)" % (job_name, index, address),
                ports=[int(address.rsplit(":", 1)[1])])
        threads.append(after(args.timeout, stop, job.coordinator.kill))

        with open(os.path.join(job.logs, "coordinator.log"), "a") as log:
            for line in job.coordinator.stdout:
                # The partition's clock starts at the first epoch's end,
                # when there is a checkpoint to resume from, however slow
                # the build.
                if (partition is not None and not partition_scheduled and
                        line.startswith("epoch ")):
                    partition_scheduled = True
                    threads.append(partition.schedule(stop))
                sys.stdout.write(line)
                sys.stdout.flush()
                log.write(line)
        status = job.coordinator.wait()
        since_cut = partition.since_cut() if partition else None
        stop.set()
        if since_cut is not None:
            print("run.py: the coordinator exited with %d %.3f s after the "
                  "partition" % (status, since_cut), flush=True)
        for thread in threads:
            thread.join()
        if coordinator_killed.is_set():
            status = RESTARTABLE
        if status == RESTARTABLE:
            print("exit %d: resume from the last checkpoint with: %s" %
                  (status, resume_command(sys.argv)), flush=True)
        elif status != 0:
            print("the coordinator exited with %d; logs in %s" %
                  (status, job.logs), flush=True)
        return status
    finally:
        stop.set()
        job.stop_all()


if __name__ == "__main__":
    sys.exit(main())
