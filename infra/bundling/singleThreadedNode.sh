#!/bin/sh
# The exec wrapper of every function that runs the engine (its AWS_LAMBDA_EXEC_WRAPPER, ENGINE_EXEC_WRAPPER
# in infra/constructs/archiveFunction.ts). Lambda starts it with the path of the runtime's Node and every
# argument the runtime starts that Node with; it starts the same Node with the same arguments, V8's work kept
# on the main thread: no collector threads (--single-threaded-gc) and no optimising compiler thread
# (--no-concurrent-recompilation). (--single-threaded, which also stops background parsing, cost 30 ms of
# cold start.) A function's vCPU
# is a CFS quota that every thread of the process spends: while a cold process's compiler and collector
# threads ran beside the walk, the quota ran out early in each 100 ms period and the whole function waited
# for the next one, up to 175 ms between two of a walk's requests (bench/PROFILE.md). Node refuses these
# flags in NODE_OPTIONS, so they are given here.
node="$1"
shift
exec "$node" --single-threaded-gc --no-concurrent-recompilation "$@"
