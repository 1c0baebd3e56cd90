#!/usr/bin/env bash
# Compiles the README's Swift blocks against the package, the way a user of it would.
#
#   bash Scripts/check-readme.sh [--clean] [README]
#
# Every block fenced ```swift is appended, in order, to the main.swift of an executable target
# (ReadmeProgram) of a scratch package that depends on this package by path: together they are
# one program (top-level code, `try` and `await` included). Every block fenced ```swift-test is
# appended, in order, to one file of a Swift Testing test target (ReadmeTests) that sees the
# program as the app under test (`@testable import ReadmeProgram`), so a test block can use the
# types the program declares. Each target depends on exactly the package's modules its blocks
# import. Both are built with `swift build --build-tests`.
#
# Each block is preceded by a `#sourceLocation` directive, so the compiler names README.md's own
# lines; the script then names the line of the fence of every block that has an error or a
# warning (the README, like the code, builds with zero warnings) and exits 1. It exits 2 when the
# build fails for another reason (the package itself does not build).
#
# The scratch package lives in $TMPDIR (one per clone, reused so that a second run builds only
# the blocks); --clean starts it afresh.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)

clean=false
readme="$repo/README.md"
for arg in "$@"; do
  case "$arg" in
    --clean) clean=true ;;
    -h|--help) sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "usage: bash Scripts/check-readme.sh [--clean] [README]" >&2; exit 2 ;;
    *) readme=$(cd "$(dirname "$arg")" && pwd)/$(basename "$arg") ;;
  esac
done
[ -f "$readme" ] || { echo "error: no README at $readme" >&2; exit 2; }
name=$(basename "$readme")

scratch="${TMPDIR:-/tmp}/eventtree-readme-check-$(printf '%s' "$repo" | cksum | cut -d' ' -f1)"
$clean && rm -rf "$scratch"
mkdir -p "$scratch/Sources/ReadmeProgram" "$scratch/Tests/ReadmeTests"

# Extract the blocks. blocks.tsv gets one line per block: kind, fence line, last line.
# Only fences at the start of a line count; inside any fence, only a closing fence does.
awk -v file="$readme" -v main="$scratch/main.swift.new" -v test="$scratch/test.swift.new" \
    -v index_="$scratch/blocks.tsv" '
  BEGIN { kind = ""; printf "" > main; printf "" > test; printf "" > index_ }
  kind == "" && /^```/ {
    info = $0; sub(/^```[ \t]*/, "", info); sub(/[ \t]+$/, "", info)
    if (info == "swift") kind = "swift"; else if (info == "swift-test") kind = "swift-test"; else kind = "other"
    start = NR
    if (kind != "other") {
      out = (kind == "swift") ? main : test
      printf "#sourceLocation(file: \"%s\", line: %d)\n", file, NR + 1 >> out
    }
    next
  }
  kind != "" && /^```[ \t]*$/ {
    if (kind != "other") { print "#sourceLocation()" >> out; printf "%s\t%d\t%d\n", kind, start, NR >> index_ }
    kind = ""; next
  }
  kind == "swift" && /(#expect|#require|@Test|@Suite)/ && !flagged[start]++ {
    printf "test\t%d\t%d\n", start, NR >> index_
  }
  kind == "swift" || kind == "swift-test" { print >> out }
  END { if (kind != "" && kind != "other") { printf "unclosed\t%d\t%d\n", start, NR >> index_ } }
' "$readme"

if grep -q '^unclosed' "$scratch/blocks.tsv"; then
  line=$(grep '^unclosed' "$scratch/blocks.tsv" | cut -f2)
  echo "error: $name:$line: the block fenced here is never closed" >&2
  exit 1
fi
if grep -q '^test' "$scratch/blocks.tsv"; then
  grep '^test' "$scratch/blocks.tsv" | while IFS=$'\t' read -r _ fence line; do
    echo "error: $name:$line: the \`\`\`swift block fenced at line $fence uses Swift Testing (#expect, @Test): fence it \`\`\`swift-test, so that it is compiled as a test" >&2
  done
  exit 1
fi
programs=$(grep -c '^swift	' "$scratch/blocks.tsv" || true)
tests=$(grep -c '^swift-test	' "$scratch/blocks.tsv" || true)
if [ "$programs" -eq 0 ] && [ "$tests" -eq 0 ]; then
  echo "$name has no \`\`\`swift or \`\`\`swift-test blocks: nothing to check"
  exit 0
fi

# The package's modules a file imports, as product dependencies.
products() {
  grep -oE '^[[:space:]]*(@testable[[:space:]]+)?import[[:space:]]+EventTree[A-Za-z]*' "$1" | awk '{ print $NF }' |
    sort -u | while read -r module; do printf '.product(name: "%s", package: "EventTree"), ' "$module"; done
}

# Rewrite a file only when it changed, so that a second run rebuilds only what did.
place() {
  if cmp -s "$1" "$2"; then rm "$1"; else mv "$1" "$2"; fi
}

test_target=""
if [ "$tests" -gt 0 ]; then
  { echo "@testable import ReadmeProgram"; cat "$scratch/test.swift.new"; } > "$scratch/test.swift.tmp"
  mv "$scratch/test.swift.tmp" "$scratch/test.swift.new"
  test_target=".testTarget(name: \"ReadmeTests\", dependencies: [\"ReadmeProgram\", $(products "$scratch/test.swift.new")]),"
  place "$scratch/test.swift.new" "$scratch/Tests/ReadmeTests/ReadmeTests.swift"
else
  rm -rf "$scratch/Tests/ReadmeTests" "$scratch/test.swift.new"
fi
place "$scratch/main.swift.new" "$scratch/Sources/ReadmeProgram/main.swift"

cat > "$scratch/Package.swift.new" <<EOF
// swift-tools-version: 6.1
// Generated by Scripts/check-readme.sh from $readme: do not edit.
import PackageDescription

let package = Package(
    name: "ReadmeCheck",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    dependencies: [.package(name: "EventTree", path: "$repo")],
    targets: [
        .executableTarget(name: "ReadmeProgram", dependencies: [$(products "$scratch/Sources/ReadmeProgram/main.swift")]),
        $test_target
    ],
    swiftLanguageModes: [.v6]
)
EOF
place "$scratch/Package.swift.new" "$scratch/Package.swift"

echo "== $name: $programs \`\`\`swift blocks as one program, $tests \`\`\`swift-test blocks as tests (in $scratch)"
log="$scratch/build.log"
status=0
# The classic diagnostic style quotes the README's own line under each message.
(cd "$scratch" && swift build --build-tests -Xswiftc -diagnostic-style -Xswiftc llvm) > "$log" 2>&1 || status=$?

# Diagnostics on README lines: name each block's fence line, then show what the compiler said
# (each message once, in README order, with the quoted line and caret that follow it).
diagnostics=$(awk -v file="$readme" -v name="$name" '
  index($0, file ":") == 1 && $0 ~ /: (error|warning|note): / {
    split(substr($0, length(file) + 2), at, ":")
    key = $0; text = name substr($0, length(file) + 1); quoting = 2
    if (!(key in seen)) { seen[key] = 1; order[++n] = key; line[key] = at[1] + 0; col[key] = at[2] + 0; body[key] = text }
    else quoting = 0
    next
  }
  quoting > 0 && $0 !~ /^\[[0-9]+\/[0-9]+\]/ && index($0, "/") != 1 { body[key] = body[key] "\n" $0; quoting--; next }
  { quoting = 0 }
  END {
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
      if (line[order[j]] < line[order[i]] || (line[order[j]] == line[order[i]] && col[order[j]] < col[order[i]])) {
        t = order[i]; order[i] = order[j]; order[j] = t }
    for (i = 1; i <= n; i++) print body[order[i]]
  }' "$log")
if grep -q -E "^$name:[0-9]+:[0-9]+: (error|warning):" <<<"$diagnostics"; then
  echo "error: $name has Swift blocks that do not compile cleanly (errors and warnings both count):" >&2
  grep -E "^$name:[0-9]+:[0-9]+: (error|warning):" <<<"$diagnostics" | cut -d: -f2 | sort -un | while read -r line; do
    awk -F'\t' -v l="$line" -v name="$name" '
      $2 < l && l < $3 { printf "  %s:%d: the ```%s block fenced at line %d\n", name, $2, $1, $2 }' "$scratch/blocks.tsv"
  done | uniq >&2
  echo >&2
  echo "$diagnostics" >&2
  exit 1
fi
if [ "$status" -ne 0 ]; then
  echo "error: the build failed outside $name's blocks (the package itself, or the scratch package):" >&2
  grep -E ': error:|^error:' "$log" | sort -u | head -40 >&2
  echo "(the whole log: $log)" >&2
  exit 2
fi
echo "$name: every Swift block compiles ($programs program blocks, $tests test blocks)"
