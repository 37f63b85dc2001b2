#!/bin/sh
# sluice_worker with the kernel plugin named by $KERNEL_PLUGIN, for
# `%with_workers --worker=...` (remote_plugin.mlir).
exec sluice_worker --kernel_plugin="${KERNEL_PLUGIN:?}" "$@"
