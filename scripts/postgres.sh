#!/usr/bin/env bash
# A throwaway PostgreSQL server for the integration tests: `start DIR` prints the URL,
# `stop DIR` stops it. Installs PostgreSQL from Debian's packages when it is missing;
# runs as the `postgres` user because initdb refuses to run as root.
set -euo pipefail
action=${1:?start|stop}
dir=${2:?data folder}

find_bin() {
  command -v initdb >/dev/null 2>&1 && { dirname "$(readlink -f "$(command -v initdb)")"; return; }
  ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1
}

bin=$(find_bin || true)
if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
  apt-get update -qq >/dev/null && apt-get install -y -qq postgresql >/dev/null
  bin=$(find_bin)
fi

as_postgres() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "$action" in
  start)
    if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
      useradd --system --no-create-home postgres
    fi
    mkdir -p "$dir"
    [ "$(id -u)" = 0 ] && chown postgres "$dir"
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    as_postgres "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 >"$dir/initdb.log"
    as_postgres "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
      -o "-p $port -k $dir -c listen_addresses=127.0.0.1" start >/dev/null
    echo "postgresql://postgres@127.0.0.1:$port/postgres"
    ;;
  stop)
    as_postgres "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null || true
    ;;
esac
