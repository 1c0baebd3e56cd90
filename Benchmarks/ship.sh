#!/usr/bin/env bash
# eventtree ship against psql's \copy of the same rows from CSV, in one run, on a throwaway
# PostgreSQL server (Scripts/postgres.sh). Rounds alternate the two (A B A B …) into fresh
# databases; the ratio is taken round by round, so the machine's noise mostly cancels. Each
# round also loads the same rows as multi-row INSERTs (pg_dump --rows-per-insert=1000, run by
# psql): the other bulk-load strategy, which ship does not use.
#
#   bash Benchmarks/ship.sh [--events N] [--rounds R]
#
# The journal is `eventtree demo --events N` (default 200,000 raises, about 1.2 million
# rows over the six views). The release tool is built with the PostgreSQL trait into
# .build-pg-release (3 to 5 minutes the first time).
set -euo pipefail
cd "$(dirname "$0")/.."

events=200000
rounds=3
while [ $# -gt 0 ]; do
  case "$1" in
    --events) events=${2:?}; shift 2 ;;
    --rounds) rounds=${2:?}; shift 2 ;;
    *) echo "usage: bash Benchmarks/ship.sh [--events N] [--rounds R]" >&2; exit 2 ;;
  esac
done

swift build -c release --traits PostgreSQL --scratch-path .build-pg-release --product eventtree >/dev/null
tool=$(swift build -c release --traits PostgreSQL --scratch-path .build-pg-release --show-bin-path)/eventtree
export EVENTTREE_POSTGRES_PORT=54339
eval "$(bash Scripts/postgres.sh start)"
trap 'bash Scripts/postgres.sh stop; rm -rf "$work"' EXIT
work=$(mktemp -d)
journal=$work/fleet.eventtree
"$tool" demo --events "$events" --journal "$journal" >/dev/null
server=${EVENTTREE_POSTGRES_URL%/*}
export PGPASSWORD=eventtree PGOPTIONS="-c client_min_messages=warning"
psql_at() { psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$EVENTTREE_POSTGRES_PORT" -U eventtree -d "$1" "${@:2}"; }

# The same rows as CSV, journal_id first (not timed); the journal's own rows (journal_rows,
# for reading back) are taken from the first round's ship, below.
id=$(sqlite3 "$journal" "SELECT journal_id FROM journal_identity")
views=(delivery_history event_history tree_changes handler_registrations sessions journal_trouble)
rows=0
for view in "${views[@]}"; do
  sqlite3 -csv "$journal" "SELECT '$id', * FROM $view" >"$work/$view.csv"
  rows=$((rows + $(wc -l <"$work/$view.csv")))
done
steps=$(wc -l <"$work/delivery_history.csv")
echo "journal: $events raises, $rows rows in the six views ($steps in delivery_history), $(du -h "$journal" | cut -f1)"

now() { date +%s.%N; }
ratios=()
for round in $(seq 1 "$rounds"); do
  psql_at postgres -c "DROP DATABASE IF EXISTS ship_a" -c "DROP DATABASE IF EXISTS ship_b" -c "CREATE DATABASE ship_a" -c "CREATE DATABASE ship_b" >/dev/null
  # The copy's tables: the fleet schema, made by an empty ship and emptied.
  "$tool" ship "$journal" --to "$server/ship_b" >/dev/null
  if [ ! -f "$work/journal_rows.csv" ]; then
    psql_at ship_b -c "\\copy (SELECT journal_id, table_name, seq, image FROM journal_rows) TO '$work/journal_rows.csv' CSV" >/dev/null
    table_rows=$(wc -l <"$work/journal_rows.csv")
    rows=$((rows + table_rows))
    echo "with the journal's $table_rows table rows (journal_rows): $rows rows shipped"
    pg_dump -h 127.0.0.1 -p "$EVENTTREE_POSTGRES_PORT" -U eventtree --data-only --inserts --rows-per-insert=1000 \
      $(printf -- '-t %s ' "${views[@]}" journal_rows) ship_b >"$work/inserts.sql"
  fi
  psql_at ship_b -c "TRUNCATE delivery_history, event_history, tree_changes, handler_registrations, sessions, journal_trouble, journal_rows" >/dev/null
  start=$(now)
  "$tool" ship "$journal" --to "$server/ship_a" >/dev/null
  ship=$(echo "$(now) - $start" | bc)
  start=$(now)
  for view in "${views[@]}" journal_rows; do psql_at ship_b -c "\\copy $view FROM '$work/$view.csv' CSV" >/dev/null; done
  copy=$(echo "$(now) - $start" | bc)
  psql_at ship_b -c "TRUNCATE delivery_history, event_history, tree_changes, handler_registrations, sessions, journal_trouble, journal_rows" >/dev/null
  start=$(now)
  psql_at ship_b -f "$work/inserts.sql" >/dev/null
  inserts=$(echo "$(now) - $start" | bc)
  ratio=$(echo "scale=3; $copy / $ship" | bc)
  ratios+=("$ratio")
  printf 'round %d: ship %.0f rows/s (%.2f s, verify included), psql \\copy %.0f rows/s (%.2f s): %.2fx; multi-row INSERTs %.0f rows/s (%.2f s)\n' \
    "$round" "$(echo "$rows / $ship" | bc)" "$ship" "$(echo "$rows / $copy" | bc)" "$copy" "$ratio" "$(echo "$rows / $inserts" | bc)" "$inserts"
done
median=$(printf '%s\n' "${ratios[@]}" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
echo "ship vs psql \\copy, median of $rounds rounds: ${median}x (target >= 0.5x)"
