#!/usr/bin/env bash
# A throwaway PostgreSQL server for the ship tests: a new cluster in a temporary folder, on a
# loopback port, password authentication over TCP (so that wrong credentials are refused).
#
#   eval "$(bash Scripts/postgres.sh start)"   # exports EVENTTREE_POSTGRES_URL, _CA and _DIR
#   bash Scripts/postgres.sh stop              # stops it and removes the folder
#
# The URL names a superuser `eventtree` (password `eventtree`) and its database `fleet`;
# tests create databases of their own beside it. The server speaks TLS too (a self-signed
# certificate for 127.0.0.1, EVENTTREE_POSTGRES_CA), and database `fleet_tls` takes TLS only. Run as root, the server runs as the
# `postgres` user (PostgreSQL refuses root). Debian's `postgresql` package provides initdb.
set -euo pipefail

port=${EVENTTREE_POSTGRES_PORT:-54329}
dir=${EVENTTREE_POSTGRES_DIR:-/tmp/eventtree-postgres-$port}
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -n "$bin" ] && [ -x "$bin/initdb" ] || { echo "error: no PostgreSQL server (install Debian's postgresql)" >&2; exit 2; }

as_server() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "${1:-}" in
  start)
    if [ -f "$dir/data/postmaster.pid" ]; then as_server "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true; fi
    rm -rf "$dir"
    mkdir -p "$dir"
    [ "$(id -u)" -ne 0 ] || chown postgres: "$dir"
    as_server bash -c "echo eventtree > '$dir/password'"
    as_server "$bin/initdb" -D "$dir/data" -U eventtree --pwfile="$dir/password" \
      --auth-local=trust --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
      || { cat "$dir/initdb.log" >&2; exit 2; }
    # TLS with a self-signed certificate for 127.0.0.1 (its own authority, ca.crt); the
    # database fleet_tls takes TLS connections only.
    as_server openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=127.0.0.1" \
      -addext "subjectAltName=IP:127.0.0.1" -keyout "$dir/server.key" -out "$dir/server.crt" >/dev/null 2>&1 \
      || { echo "error: openssl could not make a certificate" >&2; exit 2; }
    as_server chmod 600 "$dir/server.key"
    as_server cp "$dir/server.crt" "$dir/ca.crt"
    as_server bash -c "printf '%s\n' 'local all all trust' \
      'hostnossl fleet_tls all 127.0.0.1/32 reject' \
      'host all all 127.0.0.1/32 scram-sha-256' > '$dir/data/pg_hba.conf'"
    # A test server: no fsync (nothing here outlives the run), sockets in its own folder.
    as_server "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
      -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c ssl=on -c ssl_cert_file=$dir/server.crt -c ssl_key_file=$dir/server.key" \
      start >/dev/null || { cat "$dir/server.log" >&2; exit 2; }
    PGPASSWORD=eventtree "$bin/psql" -q -h 127.0.0.1 -p "$port" -U eventtree -d postgres \
      -c "CREATE DATABASE fleet" -c "CREATE DATABASE fleet_tls" >/dev/null
    echo "export EVENTTREE_POSTGRES_URL=postgresql://eventtree:eventtree@127.0.0.1:$port/fleet"
    echo "export EVENTTREE_POSTGRES_CA=$dir/ca.crt"
    echo "export EVENTTREE_POSTGRES_DIR=$dir"
    ;;
  stop)
    if [ -d "$dir/data" ]; then as_server "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true; fi
    rm -rf "$dir"
    ;;
  *)
    echo "usage: bash Scripts/postgres.sh start|stop" >&2
    exit 2
    ;;
esac
