#!/usr/bin/env bash
# Builds the libFuzzer targets of FuzzTesting/, replays the committed corpus (and the kept
# crash inputs) through each, then fuzzes each for a while and prints, per target:
#
#     fuzz-reader: 4,210 executions, cov 1917, ft 5821, 0 crashes
#
# Usage: Scripts/fuzz.sh [--quick | --seconds N] [TARGET…]
#   --quick       30 seconds per target (what CI runs)
#   --seconds N   N seconds per target (default 120)
#   TARGET…       only these (fuzz-reader, fuzz-verify, fuzz-commands, fuzz-payload)
#
# Exits non-zero when any input crashes, traps, hangs past 10 s, leaks or runs out of memory; the
# input is left in FuzzTesting/.fuzz/artifacts/ (keep it in FuzzTesting/Crashes/TARGET/,
# and reproduce it with FUZZ_TRACE=1 FUZZ_KNOWN_BUGS=crash .build/release/TARGET FILE).
# New inputs go to FuzzTesting/.fuzz/corpus/TARGET, never into the committed corpus.
#
# The first build (AddressSanitizer and coverage on every module, swift-crypto included)
# takes 4 to 6 minutes on 2 cores; later ones only rebuild what changed (about a minute).
set -euo pipefail

seconds=120
targets=()
while (($#)); do
    case "$1" in
        --quick) seconds=30 ;;
        --seconds) seconds="${2:?--seconds needs a number}"; shift ;;
        -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        fuzz-*) targets+=("$1") ;;
        *) echo "fuzz.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
    shift
done
((${#targets[@]})) || targets=(fuzz-reader fuzz-verify fuzz-commands fuzz-payload)

root="$(cd "$(dirname "$0")/.." && pwd)"
package="$root/FuzzTesting"
scratch="$package/.fuzz"
mkdir -p "$scratch/artifacts"

# Coverage and libFuzzer through -Xswiftc -sanitize=fuzzer, not --sanitize=fuzzer (see
# FuzzTesting/Package.swift); lld, because gold fails on these objects.
echo "Building the fuzz targets (release, AddressSanitizer, coverage)…"
build=(swift build -c release --package-path "$package" --scratch-path "$package/.build"
    --sanitize=address -Xswiftc -sanitize=fuzzer -Xswiftc -use-ld=lld)
build_start=$SECONDS
if ! "${build[@]}" > "$scratch/build.log" 2>&1; then
    grep -E 'error:' "$scratch/build.log" | head -n 20 || tail -n 30 "$scratch/build.log"
    echo "fuzz.sh: the build failed (log: $scratch/build.log)" >&2
    exit 1
fi
grep -E '^/.*: warning:' "$scratch/build.log" || true
bin="$("${build[@]}" --show-bin-path)"
for target in "${targets[@]}"; do
    [[ -x "$bin/$target" ]] || { echo "fuzz.sh: the build did not produce $target" >&2; exit 1; }
done
echo "Built in $((SECONDS - build_start)) s."

# libFuzzer reports crashes itself, and leaks: an input that leaks is a failure, but for
# the leaks of others listed in FuzzTesting/lsan-suppressions.txt.
export SWIFT_BACKTRACE=enable=no
export LSAN_OPTIONS="suppressions=$package/lsan-suppressions.txt:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

failed=0
summary=()
for target in "${targets[@]}"; do
    corpus="$package/Corpus/$target"
    crashes="$package/Crashes/$target"
    work="$scratch/corpus/$target"
    log="$scratch/$target.log"
    mkdir -p "$work" "$crashes"
    artifacts_before=$(find "$scratch/artifacts" -name "$target-*" | wc -l)

    echo "== $target: replaying $(find "$corpus" "$crashes" -type f | wc -l) committed inputs"
    if ! "$bin/$target" -runs=0 -timeout=10 -artifact_prefix="$scratch/artifacts/$target-" \
        "$corpus" "$crashes" > "$log.replay" 2>&1; then
        tail -n 40 "$log.replay"
        echo "$target: a committed input fails (log: $log.replay)" >&2
        failed=1
    fi

    echo "== $target: fuzzing for $seconds s"
    status=0
    "$bin/$target" -max_total_time="$seconds" -timeout=10 -print_final_stats=1 \
        -artifact_prefix="$scratch/artifacts/$target-" "$work" "$corpus" > "$log" 2>&1 || status=$?
    crashes_found=$(( $(find "$scratch/artifacts" -name "$target-*" | wc -l) - artifacts_before ))
    final=$(grep -E '^#[0-9]+' "$log" | tail -n 1 || true)
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<< "$final")
    ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<< "$final")
    line="$target: ${runs:-?} executions, cov ${cov:-?}, ft ${ft:-?}, $crashes_found crashes"
    if ((status != 0 || crashes_found > 0)); then
        grep -E 'fuzz target:|ERROR|SUMMARY|Test unit written|Fatal error' "$log" | head -n 20 || true
        line="$line (exit $status; log: $log)"
        failed=1
    fi
    echo "$line"
    summary+=("$line")
done

echo
printf '%s\n' "${summary[@]}"
exit $failed
