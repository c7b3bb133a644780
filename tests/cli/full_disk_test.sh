#!/usr/bin/env bash
# A full disk is an error with exit code 1 that names the file, never a crash and never a
# success: the per-request HDF5 output used to segfault at exit (139), and output redirected
# from standard output to a full disk exited 0 with a truncated file. Needs a small tmpfs, so
# it runs as root; elsewhere it is reported as skipped (exit 77).
set -uo pipefail
dcsim="$1"
scenario="$2"
mnt=$(mktemp -d)
cleanup() { umount "$mnt" 2> /dev/null; rmdir "$mnt"; }
trap cleanup EXIT
if ! mount -t tmpfs -o size=256k tmpfs "$mnt" 2> /dev/null; then
  echo "full-disk test skipped: cannot mount a tmpfs here (not root?)"
  exit 77
fi

fail() { echo "FAIL: $*"; exit 1; }

# 1. A run whose requests.h5 does not fit.
"$dcsim" run "$scenario" --until 30s --out "$mnt" --quiet 2> "$mnt.err"
code=$?
[ "$code" = 1 ] || fail "run on a full disk: exit code $code, expected 1: $(cat "$mnt.err")"
# The first file to hit the limit is named (requests.h5 or timeseries.csv, whichever flushes
# first); the HDF5 file is open either way, which is what used to crash at exit.
grep -Eq "(requests.h5|timeseries.csv).*No space left on device" "$mnt.err" ||
  fail "message: $(cat "$mnt.err")"
left=$(find "$mnt" -name '*.tmp.*')
[ -z "$left" ] || fail "temporary files left: $left"
rm -f "$mnt.err"

# 2. Standard output redirected to a full disk.
rm -rf "${mnt:?}"/*
dd if=/dev/zero of="$mnt/fill" bs=4k 2> /dev/null
"$dcsim" docs > "$mnt/reference.md" 2> /dev/null
code=$?
[ "$code" = 1 ] || fail "docs > full disk: exit code $code, expected 1"
echo "full disk: ok"
