#!/bin/sh
# usage: signal_while_running.sh SIGNAL MARK COMMAND...
# Runs COMMAND with its stdout and stderr in temporary files, sends SIGNAL
# to it 0.3 s after its stdout shows a line holding MARK, waits for it to
# exit, and prints its stderr. Fails if MARK never shows within 30 s.
set -u
signal="$1"
mark="$2"
shift 2
out="$(mktemp)"
err="$(mktemp)"
"$@" >"$out" 2>"$err" &
pid=$!
tries=0
until grep -q "$mark" "$out"; do
  tries=$((tries + 1))
  if [ "$tries" -gt 3000 ]; then
    echo "signal_while_running: '$mark' never showed" >&2
    kill -9 "$pid"
    exit 1
  fi
  sleep 0.01
done
sleep 0.3
kill "-$signal" "$pid"
wait "$pid"
status=$?
cat "$err"
rm -f "$out" "$err"
exit "$status"
