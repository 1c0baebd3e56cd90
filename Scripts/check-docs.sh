#!/usr/bin/env bash
# Generates the DocC documentation of every library target (swift-docc-plugin) and fails on
# any DocC warning: a broken symbol link, an undocumented parameter, a missing article.
#
#   bash Scripts/check-docs.sh [--scratch-path PATH]
#
# The targets are those of the package's library products, read from `swift package
# dump-package`. The build goes to .build-docs (or PATH) so that it never disturbs .build;
# the archives land in PATH/plugins/Swift-DocC/outputs/TARGET.doccarchive. To browse one:
# `swift package --disable-sandbox preview-documentation --target TARGET`.
set -euo pipefail
cd "$(dirname "$0")/.."

scratch=.build-docs
while [ $# -gt 0 ]; do
  case "$1" in
    --scratch-path) scratch=${2:?--scratch-path needs a path}; shift 2 ;;
    -h|--help) sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "usage: bash Scripts/check-docs.sh [--scratch-path PATH]" >&2; exit 2 ;;
  esac
done

targets=$(swift package --scratch-path "$scratch" dump-package | python3 -c '
import json, sys
package = json.load(sys.stdin)
seen = []
for product in package["products"]:
    if "library" in product["type"]:
        seen += [t for t in product["targets"] if t not in seen]
print(" ".join(seen))')
[ -n "$targets" ] || { echo "error: the package has no library targets" >&2; exit 2; }
args=()
for target in $targets; do args+=(--target "$target"); done

echo "== DocC for $targets"
log=$(mktemp)
status=0
swift package --scratch-path "$scratch" generate-documentation "${args[@]}" >"$log" 2>&1 || status=$?
if [ "$status" -ne 0 ]; then
  cat "$log" >&2
  echo "error: generate-documentation failed (status $status)" >&2
  exit 2
fi
# DocC's diagnostics start a line with `warning:` or `error:` and quote the source below.
# SwiftPM's notes about a dependency's unhandled files (its CMakeLists.txt, say) are not
# ours to fix: dropped when the file named below lies in a checkout.
awk '/^warning: .* which are unhandled/ { held = $0; next }
     held != "" { if ($0 !~ /\/checkouts\//) print held; held = "" }
     { print }' "$log" >"$log.ours" && mv "$log.ours" "$log"
if grep -q -E '^(warning|error):' "$log"; then
  awk '/^(warning|error):/ { show = 1 } /^(Building|Finished|Generat|Extract|Converting)/ { show = 0 } show' "$log" >&2
  echo "error: DocC reported $(grep -c -E '^(warning|error):' "$log") problem(s), above; fix them (zero warnings)" >&2
  exit 1
fi
grep -E '\.doccarchive$' "$log" | sed 's/^ */  /'
echo "DocC: no warnings in $(wc -w <<<"$targets") targets"
rm -f "$log"
