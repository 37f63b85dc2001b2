#!/bin/sh
echo "coverage collection through bazel is not supported in this offline workspace" >&2
exit 1
