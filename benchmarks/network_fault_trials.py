#!/usr/bin/env python3
"""Detection times of the network-fault tests over many trials.

Each network-fault test prints, per scenario it times, lines such as

    detected after 1.79s: ...
    worker 1 rejoined after 820ms (served a closure)

(detected, recovered, resumed or rejoined after an absl duration:
1.79s, 850ms, 1m2s). This runs the given test binaries
(built by `bazel build`, run as root as the tests need) with
--gtest_repeat=N and prints, per test case, the median and the maximum of
what it printed, and the number of trials that passed. Every trial must
pass: a failed one is reported and the script exits 1.

    bazel build //test/integration:liveness_test
    python3 benchmarks/network_fault_trials.py --trials=10 \\
        bazel-bin/test/integration/liveness_test
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

DURATION = re.compile(r"(\d+(?:\.\d+)?)\s?(h|ms|us|ns|m|s)\b")
UNIT_SECONDS = {"h": 3600, "m": 60, "s": 1, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}
TIMED = re.compile(r"\b(detected|recovered|rejoined|resumed) after "
                   r"((?:\d+(?:\.\d+)?\s?(?:h|ms|us|ns|m|s)\b)+)")
RUN = re.compile(r"^\[ RUN      \] (\S+)")
DONE = re.compile(r"^\[  (?:     OK|FAILED ) \] (\S+)")


def seconds(text):
    """An absl duration's text in seconds."""
    total = 0.0
    for number, unit in DURATION.findall(text):
        total += float(number) * UNIT_SECONDS[unit]
    return total


def run(binary, trials, test_filter, log):
    binary = os.path.abspath(binary)
    command = [binary, f"--gtest_repeat={trials}"]
    if test_filter:
        command.append(f"--gtest_filter={test_filter}")
    # As `bazel test` would: the tests find their helper binaries (workers,
    # replicas) in their runfiles.
    environment = dict(os.environ)
    environment.setdefault("TEST_SRCDIR", os.path.abspath(binary + ".runfiles"))
    environment.setdefault("TEST_WORKSPACE", "sluice")
    environment.setdefault("TEST_TMPDIR", tempfile.mkdtemp(prefix="trials."))
    completed = subprocess.run(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env=environment,
        cwd=os.path.join(environment["TEST_SRCDIR"],
                         environment["TEST_WORKSPACE"]))
    if log:
        with open(log, "a") as out:
            out.write(completed.stdout)
    times = {}     # (test, what) -> [seconds]
    failed = []
    current = None
    for line in completed.stdout.splitlines():
        started = RUN.match(line)
        if started:
            current = started.group(1)
            continue
        if line.startswith("[  FAILED  ]") and DONE.match(line):
            failed.append(DONE.match(line).group(1))
        for timed in TIMED.finditer(line):
            if current:
                times.setdefault((current, timed.group(1)), []).append(
                    seconds(timed.group(2)))
    return times, failed, completed.returncode


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("binaries", nargs="+", help="test binaries to run")
    parser.add_argument("--trials", type=int, default=10)
    parser.add_argument("--filter", default="", help="a --gtest_filter")
    parser.add_argument("--log", default="",
                        help="append the tests' own output to this file")
    args = parser.parse_args()
    ok = True
    print(f"{'test':70} {'what':9} {'trials':>6} {'median':>8} {'max':>8}")
    for binary in args.binaries:
        times, failed, code = run(binary, args.trials, args.filter, args.log)
        for (test, what), values in sorted(times.items()):
            print(f"{test:70} {what:9} {len(values):>6} "
                  f"{statistics.median(values):>7.2f}s {max(values):>7.2f}s",
                  flush=True)
        if failed or code != 0:
            ok = False
            print(f"{binary}: {len(failed)} failed trials: {sorted(set(failed))}"
                  f" (exit {code})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
