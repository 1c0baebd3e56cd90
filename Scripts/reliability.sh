#!/usr/bin/env bash
# The reliability harnesses: kill -9 loops, power cuts, injected I/O faults, a real full
# disk, and readers beside a writer. Each harness prints "NAME: N passed, N failed"; this
# script prints the total and exits non-zero when any trial failed.
#
#   bash Scripts/reliability.sh [--quick|--release]
#
# --quick (what CI runs): the trial counts the project promises in CI, a debug build.
# --release: a release build and larger counts.
set -uo pipefail
cd "$(dirname "$0")/.."

mode=quick
case "${1:-}" in
  --release) mode=release ;;
  --quick|"") mode=quick ;;
  *) echo "usage: bash Scripts/reliability.sh [--quick|--release]" >&2; exit 2 ;;
esac

config=debug
[ "$mode" = release ] && config=release
swift build -c "$config" --product eventtree-harness >/dev/null && swift build -c "$config" --product eventtree >/dev/null || {
  echo "error: the harness did not build" >&2; exit 2; }
bin=$(swift build -c "$config" --show-bin-path)
harness="$bin/eventtree-harness"

if [ "$mode" = quick ]; then
  kill_trials=200; power_trials=500; buffered_power_trials=50; fault_raises=4; full_trials=3; reader_seconds=15
else
  kill_trials=1000; power_trials=2000; buffered_power_trials=300; fault_raises=12; full_trials=10; reader_seconds=60
fi

log=$(mktemp)
run() {
  echo "== $*"
  "$harness" "$@" 2>&1 | tee -a "$log" | grep -v '^$'
}

run kill --mode durable --trials "$kill_trials"
run kill --mode buffered --trials "$kill_trials"
run power --mode durable --trials "$power_trials"
run power --mode buffered --trials "$buffered_power_trials"
run faults --raises "$fault_raises"

# A real full filesystem: a small tmpfs (needs root, or sudo without a password).
full=$(mktemp -d)
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo -n"
if $sudo mount -t tmpfs -o size=4m,mode=1777 tmpfs "$full" 2>/dev/null; then
  run diskfull --dir "$full" --trials "$full_trials" --headroom-kb 900
  $sudo umount "$full"
else
  echo "disk full: 0 passed, 1 failed (cannot mount a tmpfs: run as root or with passwordless sudo)" | tee -a "$log"
fi
rmdir "$full" 2>/dev/null

run readers --seconds "$reader_seconds" --tool "$bin/eventtree"

totals=$(grep -E '^[^:]+: [0-9]+ passed, [0-9]+ failed$' "$log" \
  | awk '{ p += $(NF-3); f += $(NF-1) } END { print p + 0, f + 0 }')
passed=${totals% *}
failed=${totals#* }
rm -f "$log"
echo "reliability ($mode): $passed passed, $failed failed"
[ "$failed" -eq 0 ]
