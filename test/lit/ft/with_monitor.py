#!/usr/bin/env python3
"""Runs a command as rank 0 of a job watched by a sluice_monitor on 127.0.0.1.

usage: with_monitor.py [MONITOR_FLAG...] -- COMMAND [ARG...]

Starts sluice_monitor (from PATH) with the flags, waits for its
'listening on' line, runs COMMAND with SLUICE_MONITOR and SLUICE_RANK=0,
then stops the monitor (SIGTERM; it must exit 0). Prints COMMAND's stdout,
then the monitor's. The exit status is COMMAND's, or 1 when the monitor
failed.
"""

import os
import re
import subprocess
import sys


def main():
    args = sys.argv[1:]
    split = args.index("--")
    monitor_flags, command = args[:split], args[split + 1:]
    monitor = subprocess.Popen(
        ["sluice_monitor", "--address=127.0.0.1:0"] + monitor_flags,
        stdout=subprocess.PIPE, text=True)
    try:
        ready = monitor.stdout.readline()
        match = re.search(r"listening on (\S+)", ready)
        if not match:
            print("with_monitor: sluice_monitor did not start: " + ready,
                  file=sys.stderr)
            return 1
        environment = dict(os.environ, SLUICE_MONITOR=match.group(1),
                           SLUICE_RANK="0")
        result = subprocess.run(command, env=environment,
                                stdout=subprocess.PIPE, text=True, timeout=60)
        sys.stdout.write(result.stdout)
    finally:
        monitor.terminate()
        output, _ = monitor.communicate(timeout=20)
    sys.stdout.write(output)
    if monitor.returncode != 0:
        print("with_monitor: sluice_monitor exited with %d" %
              monitor.returncode, file=sys.stderr)
        return 1
    return result.returncode


if __name__ == "__main__":
    sys.exit(main())
