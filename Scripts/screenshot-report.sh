#!/usr/bin/env bash
# Regenerates Documentation/report.png, the README's picture of the demo report: the demo
# session, its report, and event 43 (consumed) selected, shot by headless chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --product eventtree
tool="$(swift build --show-bin-path)/eventtree"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && "$tool" demo >/dev/null && "$tool" report eventtree-demo.eventtree >/dev/null)
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$work/profile" \
  --window-size=1400,1250 --screenshot="$PWD/Documentation/report.png" \
  "file://$work/eventtree-demo.html#event=43" 2>/dev/null
echo "wrote Documentation/report.png"
