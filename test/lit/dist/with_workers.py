#!/usr/bin/env python3
"""Runs a command against a cluster of sluice_worker processes on 127.0.0.1.

usage: with_workers.py N [options] -- COMMAND [ARG...]

Starts tasks /job:worker/task:0 .. N-1 (and, with --ps=P, parameter servers
/job:ps/task:0 .. P-1) on free ports, waits until each says it is
listening, runs COMMAND with SLUICE_CLUSTER naming them, and always stops
the workers afterwards (SIGTERM; they must exit 0). What COMMAND
writes to stdout is printed once it is done; its stderr passes through.

The exit status is COMMAND's, or 1 when a worker failed (did not start,
crashed, did not exit 0 on SIGTERM), or 124 when COMMAND ran past
--timeout. With --expect-exit=CODE it is 0 exactly when COMMAND exited with
CODE and every worker behaved: `not` would hide a worker's failure.

Options (I is the index of a task of the worker job):
  --timeout=SECONDS       kill COMMAND after this long (default 60)
  --expect-exit=CODE      succeed when COMMAND exits with CODE
  --dead=I                give task I a port nobody listens on
  --start-late=I:SECONDS  start task I this long after COMMAND
  --kill-on-output=I:TEXT SIGKILL task I once COMMAND prints a line holding
                          TEXT
  --merge-output          interleave the workers' stdout with COMMAND's, in
                          the order the lines were written
  --worker-logs           after COMMAND's output, print each worker's stdout
                          and stderr under `--- task I stdout:` and
                          `--- task I stderr:`
  --cluster-file=PATH     write the cluster's JSON to PATH and leave
                          SLUICE_CLUSTER unset (for `--cluster=@PATH`)
  --ps=P                  also start P parameter servers, /job:ps/task:0 ..
                          P-1 (sluice_worker processes too), with the
                          workers
  --worker=PATH           the sluice_worker binary (default: from PATH)
"""

import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

READY_TIMEOUT_SECONDS = 60
STOP_TIMEOUT_SECONDS = 20
POLL_SECONDS = 0.02
READY_LINE = re.compile(rb"^sluice_worker (\S+) listening on \S+$")


def task_name(index, job="worker"):
    return "/job:%s/task:%d" % (job, index)


def parse_indexed(value, what):
    """Splits `I:REST` into (I, REST)."""
    index, sep, rest = value.partition(":")
    if not sep or not index.isdigit():
        raise argparse.ArgumentTypeError("%s: expected I:%s, got %r" %
                                         (what, what.upper(), value))
    return int(index), rest


def parse_args(argv):
    if "--" not in argv:
        sys.exit("with_workers: usage: with_workers.py N [options] -- COMMAND")
    split = argv.index("--")
    own, command = argv[:split], argv[split + 1:]
    if not command:
        sys.exit("with_workers: no command after --")
    parser = argparse.ArgumentParser(prog="with_workers")
    parser.add_argument("num_tasks", type=int)
    parser.add_argument("--timeout", type=float, default=60)
    parser.add_argument("--expect-exit", type=int)
    parser.add_argument("--dead", type=int, action="append", default=[])
    parser.add_argument("--start-late", action="append", default=[],
                        type=lambda v: parse_indexed(v, "seconds"))
    parser.add_argument("--kill-on-output", action="append", default=[],
                        type=lambda v: parse_indexed(v, "text"))
    parser.add_argument("--merge-output", action="store_true")
    parser.add_argument("--worker-logs", action="store_true")
    parser.add_argument("--cluster-file")
    parser.add_argument("--ps", type=int, default=0)
    parser.add_argument("--worker", default=shutil.which("sluice_worker"))
    args = parser.parse_args(own)
    if args.worker is None:
        sys.exit("with_workers: sluice_worker is not on PATH")
    args.start_late = {i: float(s) for i, s in args.start_late}
    named = set(args.dead) | set(args.start_late) | {
        i for i, _ in args.kill_on_output}
    for index in named:
        if not 0 <= index < args.num_tasks:
            sys.exit("with_workers: there is no task %d of %d" %
                     (index, args.num_tasks))
    return args, command


def free_ports(count):
    """Ports the kernel just handed out; all held until all are picked, so
    no two tasks get the same one."""
    sockets = []
    try:
        for _ in range(count):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            sockets.append(s)
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def read(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        return b""


def without_ready_lines(data):
    return b"".join(line for line in data.splitlines(keepends=True)
                    if not READY_LINE.match(line.rstrip(b"\n")))


class Worker:

    def __init__(self, index, port, scratch, output_path, binary, env,
                 job="worker"):
        self.index = index
        self.env = env
        self.name = task_name(index, job)
        # "task 1", "ps task 0": what the logs call it.
        self.label = ("task %d" if job == "worker" else job + " task %d") % index
        self.port = port
        self.binary = binary
        # Merged: the command's output file, which is printed anyway.
        self.merged = output_path is not None
        self.stdout_path = output_path or os.path.join(
            scratch, "%s%d.stdout" % (job, index))
        self.stderr_path = os.path.join(scratch, "%s%d.stderr" % (job, index))
        self.process = None
        self.killed = False  # by the harness, on purpose

    def start(self):
        with open(self.stdout_path, "ab") as out, \
                open(self.stderr_path, "ab") as err:
            self.process = subprocess.Popen(
                [self.binary, "--task_name=" + self.name,
                 "--address=127.0.0.1:%d" % self.port,
                 # The programs under test use tfrt_test kernels.
                 "--enable_test_kernels"],
                stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                env=self.env, start_new_session=True)

    def is_ready(self):
        for line in read(self.stdout_path).splitlines():
            match = READY_LINE.match(line)
            if match and match.group(1).decode() == self.name:
                return True
        return False

    def kill(self):
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.killed = True

    def stop(self):
        """Stops the worker; returns what went wrong, or None."""
        if self.process is None or self.killed:
            return None
        if self.process.poll() is not None:
            return "%s exited on its own with status %d" % (
                self.name, self.process.returncode)
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(STOP_TIMEOUT_SECONDS)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            return "%s did not exit within %d s of SIGTERM" % (
                self.name, STOP_TIMEOUT_SECONDS)
        if self.process.returncode != 0:
            return "%s exited with status %d on SIGTERM" % (
                self.name, self.process.returncode)
        return None


def write_stdout(data):
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


def print_logs(workers, stream):
    for worker in workers:
        if worker.process is None:
            continue
        if not worker.merged:
            stream.buffer.write(b"--- %s stdout:\n" % worker.label.encode())
            stream.buffer.write(without_ready_lines(read(worker.stdout_path)))
        stream.buffer.write(b"--- %s stderr:\n" % worker.label.encode())
        stream.buffer.write(read(worker.stderr_path))
        stream.buffer.flush()


def run(args, command, scratch):
    output_path = os.path.join(scratch, "output")
    open(output_path, "wb").close()
    ports = free_ports(args.num_tasks + args.ps)
    jobs = {"worker": ["127.0.0.1:%d" % port for port in ports[:args.num_tasks]]}
    if args.ps:
        jobs["ps"] = ["127.0.0.1:%d" % port for port in ports[args.num_tasks:]]
    cluster = json.dumps(jobs)
    # Workers know the cluster too, so that their functions can call other
    # tasks.
    worker_env = dict(os.environ, SLUICE_CLUSTER=cluster)
    workers = [
        Worker(i, ports[i], scratch,
               output_path if args.merge_output else None, args.worker,
               worker_env)
        for i in range(args.num_tasks)
    ]
    parameter_servers = [
        Worker(i, ports[args.num_tasks + i], scratch,
               output_path if args.merge_output else None, args.worker,
               worker_env, job="ps")
        for i in range(args.ps)
    ]
    problems = []
    process = None
    try:
        # Started now: every task but the dead and the late ones.
        early = [w for w in workers
                 if w.index not in args.dead and w.index not in args.start_late]
        early += parameter_servers
        for worker in early:
            worker.start()
        deadline = time.monotonic() + READY_TIMEOUT_SECONDS
        waiting = list(early)
        while waiting:
            for worker in list(waiting):
                if worker.is_ready():
                    waiting.remove(worker)
                elif worker.process.poll() is not None:
                    problems.append("%s exited with status %d before listening"
                                    % (worker.name, worker.process.returncode))
                    return 1, problems, workers + parameter_servers
            if time.monotonic() > deadline:
                problems.append("%s did not listen within %d s" %
                                (", ".join(w.name for w in waiting),
                                 READY_TIMEOUT_SECONDS))
                return 1, problems, workers + parameter_servers
            time.sleep(POLL_SECONDS)

        env = dict(os.environ)
        if args.cluster_file:
            with open(args.cluster_file, "w") as f:
                f.write(cluster)
            env.pop("SLUICE_CLUSTER", None)
        else:
            env["SLUICE_CLUSTER"] = cluster

        with open(output_path, "ab") as out:
            process = subprocess.Popen(command, stdin=subprocess.DEVNULL,
                                       stdout=out, env=env,
                                       start_new_session=True)
        started = time.monotonic()
        late = dict(args.start_late)
        kills = list(args.kill_on_output)
        seen = 0
        pending_line = b""
        while True:
            finished = process.poll() is not None
            now = time.monotonic()
            for index, delay in list(late.items()):
                if now - started >= delay:
                    workers[index].start()
                    del late[index]
            if kills:
                data = read(output_path)
                lines = (pending_line + data[seen:]).split(b"\n")
                seen = len(data)
                pending_line = lines.pop()
                for line in lines:
                    for index, text in list(kills):
                        if text.encode() in line:
                            workers[index].kill()
                            kills.remove((index, text))
            if finished:
                break
            if now - started > args.timeout:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
                problems.append("command timed out after %g s" % args.timeout)
                write_stdout(without_ready_lines(read(output_path)))
                return 124, problems, workers + parameter_servers
            time.sleep(POLL_SECONDS)
        for index, text in kills:
            problems.append("the command never printed %r, so %s was not "
                            "killed" % (text, task_name(index)))
        code = process.returncode
    finally:
        # Interrupted (SIGTERM, Ctrl-C): the command goes too.
        if process is not None and process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        for worker in workers + parameter_servers:
            problem = worker.stop()
            if problem:
                problems.append(problem)

    output = read(output_path)
    write_stdout(without_ready_lines(output) if args.merge_output else output)
    if args.worker_logs:
        print_logs(workers + parameter_servers, sys.stdout)
    return code, problems, workers + parameter_servers


def main():
    args, command = parse_args(sys.argv[1:])
    # A lit timeout or Ctrl-C still stops the workers (run's finally).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    scratch = tempfile.mkdtemp(prefix="with_workers.",
                               dir=os.environ.get("TEST_TMPDIR"))
    try:
        code, problems, workers = run(args, command, scratch)
        for problem in problems:
            sys.stderr.write("with_workers: %s\n" % problem)
        if problems:
            print_logs(workers, sys.stderr)
        if args.expect_exit is not None:
            if code != args.expect_exit:
                sys.stderr.write("with_workers: the command exited with %d, "
                                 "expected %d\n" % (code, args.expect_exit))
                return 1
            return 1 if problems else 0
        if problems and code == 0:
            return 1
        return code
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
