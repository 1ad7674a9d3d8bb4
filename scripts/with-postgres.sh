#!/usr/bin/env bash
# Runs a command with a throwaway PostgreSQL cluster: initdb into a temporary directory (as the
# unprivileged `postgres` user when run as root, since PostgreSQL refuses to run as root), a free
# port on 127.0.0.1, fsync on, and HERALD_TEST_POSTGRES_URL exported for the command. The cluster
# and its files are removed when the command ends, whatever its exit code (which this script returns).
#
#   scripts/with-postgres.sh swift test
#
# With --standby, a second cluster streams from the first (made with `pg_basebackup -R`), with synchronous
# replication (a commit returns once the standby has it on disk, so a failover loses no acknowledged write),
# and the command also gets:
#   HERALD_TEST_POSTGRES_PAIR_URL  postgres://herald@127.0.0.1:P1,127.0.0.1:P2/postgres (both hosts)
#   HERALD_TEST_POSTGRES_PAIR_CTL  a script: `failover` stops the primary with -m immediate and promotes the
#       standby; `rejoin` brings the old primary back as a standby of the new one (pg_rewind), with synchronous
#       replication again; `demote` makes the primary's sessions read-only as a standby's are
#       (default_transaction_read_only: writes answer SQLSTATE 25006) and `undemote` undoes it; `primary`
#       prints the primary's port.
#
# Needs Debian's postgresql package (apt-get install postgresql).
set -euo pipefail

STANDBY=0
if [ "${1:-}" = "--standby" ]; then STANDBY=1; shift; fi

PGBIN="${PGBIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}"
if [ -z "$PGBIN" ] || [ ! -x "$PGBIN/initdb" ]; then
  echo "with-postgres: PostgreSQL server binaries not found; apt-get install postgresql" >&2
  exit 2
fi

DATA="$(mktemp -d /tmp/herald-pg.XXXXXX)"
PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
AS=()
if [ "$(id -u)" -eq 0 ]; then
  id postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres
  chown postgres "$DATA"
  AS=(runuser -u postgres --)
fi

cleanup() {
  "${AS[@]}" "$PGBIN/pg_ctl" -D "$DATA/db" -m immediate stop >/dev/null 2>&1 || true
  "${AS[@]}" "$PGBIN/pg_ctl" -D "$DATA/db2" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$DATA"
}
trap cleanup EXIT

"${AS[@]}" "$PGBIN/initdb" -D "$DATA/db" -U herald --auth=trust --encoding=UTF8 --locale=C.UTF-8 >"$DATA/initdb.log" 2>&1 \
  || { cat "$DATA/initdb.log" >&2; exit 2; }
OPTIONS="-c listen_addresses=127.0.0.1 -c unix_socket_directories=$DATA -c fsync=on -c synchronous_commit=on -c max_connections=1000 -c shared_buffers=256MB"
# pg_rewind (the standby mode's `rejoin`) needs hint bits in the WAL, also in the single-user run it makes
# to finish the stopped server's crash recovery: so in the configuration file, not on the command line.
if [ "$STANDBY" = 1 ]; then
  printf 'wal_log_hints = on\nwal_keep_size = 256MB\n' >>"$DATA/db/postgresql.conf"
fi
OPTIONS="$OPTIONS -c port=$PORT"
"${AS[@]}" "$PGBIN/pg_ctl" -D "$DATA/db" -l "$DATA/server.log" -w -t 60 start -o "$OPTIONS" \
  >/dev/null || { cat "$DATA/server.log" >&2; exit 2; }

export HERALD_TEST_POSTGRES_URL="postgres://herald@127.0.0.1:$PORT/postgres?sslmode=disable"
# For the tests that take the server away mid-run: `$HERALD_TEST_POSTGRES_CTL stop|start`.
cat >"$DATA/ctl.sh" <<CTL
#!/usr/bin/env bash
set -euo pipefail
# The server must not inherit the caller's descriptors (a test runner's pipes would stay open in it).
for fd in /proc/\$\$/fd/*; do n=\${fd##*/}; if [ "\$n" -gt 2 ] 2>/dev/null; then eval "exec \$n>&-" 2>/dev/null || true; fi; done
exec </dev/null >/dev/null 2>&1
case "\$1" in
  stop) ${AS[*]} "$PGBIN/pg_ctl" -D "$DATA/db" -m fast -w stop >/dev/null ;;
  start) ${AS[*]} "$PGBIN/pg_ctl" -D "$DATA/db" -l "$DATA/server.log" -w -t 60 start -o "$OPTIONS" >/dev/null ;;
  *) echo "usage: \$0 stop|start" >&2; exit 2 ;;
esac
CTL
chmod +x "$DATA/ctl.sh"
export HERALD_TEST_POSTGRES_CTL="$DATA/ctl.sh"
echo "with-postgres: PostgreSQL $("$PGBIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$PORT (data in $DATA)" >&2

if [ "$STANDBY" = 1 ]; then
  PORT2="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  BASE_OPTIONS="${OPTIONS% -c port=*}"
  "${AS[@]}" "$PGBIN/pg_basebackup" -h 127.0.0.1 -p "$PORT" -U herald -D "$DATA/db2" -R -X stream -c fast \
    >"$DATA/basebackup.log" 2>&1 || { cat "$DATA/basebackup.log" >&2; exit 2; }
  "${AS[@]}" "$PGBIN/pg_ctl" -D "$DATA/db2" -l "$DATA/server2.log" -w -t 60 start -o "$BASE_OPTIONS -c port=$PORT2" \
    >/dev/null || { cat "$DATA/server2.log" >&2; exit 2; }
  # Synchronous from here on: set on the primary only (after the base backup, so the standby does not copy it).
  "${AS[@]}" "$PGBIN/psql" -h 127.0.0.1 -p "$PORT" -U herald -d postgres -qAt \
    -c "ALTER SYSTEM SET synchronous_standby_names = '*'" -c "SELECT pg_reload_conf()" >/dev/null
  echo "db $PORT" >"$DATA/primary"
  echo "db2 $PORT2" >"$DATA/standby"
  chmod a+rw "$DATA/primary" "$DATA/standby"
  cat >"$DATA/pair.sh" <<PAIR
#!/usr/bin/env bash
set -euo pipefail
read -r PDIR PPORT <"$DATA/primary"
read -r SDIR SPORT <"$DATA/standby"
if [ "\$1" = primary ]; then echo "\$PPORT"; exit 0; fi
# The servers must not inherit the caller's descriptors (a test runner's pipes would stay open in them).
for fd in /proc/\$\$/fd/*; do n=\${fd##*/}; if [ "\$n" -gt 2 ] 2>/dev/null; then eval "exec \$n>&-" 2>/dev/null || true; fi; done
exec </dev/null 2>>"$DATA/pair.log" >>"$DATA/pair.log"
pgctl() { ${AS[*]} "$PGBIN/pg_ctl" "\$@"; }
sql() { ${AS[*]} "$PGBIN/psql" -h 127.0.0.1 -p "\$1" -U herald -d postgres -qAt -c "\$2"; }
case "\$1" in
  failover)
    pgctl -D "$DATA/\$PDIR" -m immediate -w stop
    pgctl -D "$DATA/\$SDIR" -w promote
    echo "\$SDIR \$SPORT" >"$DATA/primary"; echo "\$PDIR \$PPORT" >"$DATA/standby" ;;
  rejoin)
    # The old primary (stopped) follows the new one: rewound to where they parted, then streaming. The
    # checkpoint puts the promotion's new timeline in the new primary's control file, where pg_rewind reads it.
    sql "\$PPORT" "CHECKPOINT"
    ${AS[*]} "$PGBIN/pg_rewind" -D "$DATA/\$SDIR" --source-server="host=127.0.0.1 port=\$PPORT user=herald dbname=postgres"
    touch "$DATA/\$SDIR/standby.signal"
    echo "primary_conninfo = 'host=127.0.0.1 port=\$PPORT user=herald'" >>"$DATA/\$SDIR/postgresql.auto.conf"
    sed -i '/synchronous_standby_names/d' "$DATA/\$SDIR/postgresql.auto.conf"
    pgctl -D "$DATA/\$SDIR" -l "$DATA/server-\$SDIR.log" -w -t 60 start -o "$BASE_OPTIONS -c port=\$SPORT"
    sql "\$PPORT" "ALTER SYSTEM SET synchronous_standby_names = '*'"; sql "\$PPORT" "SELECT pg_reload_conf()" ;;
  demote)
    # The primary restarted read-only in place (as a standby that follows no one): writes answer 25006.
    sql "\$PPORT" "ALTER SYSTEM SET default_transaction_read_only = on"; sql "\$PPORT" "SELECT pg_reload_conf()" ;;
  undemote)
    sql "\$PPORT" "ALTER SYSTEM RESET default_transaction_read_only"; sql "\$PPORT" "SELECT pg_reload_conf()" ;;
  *) echo "usage: \$0 primary|failover|rejoin|demote|undemote" >&2; exit 2 ;;
esac
PAIR
  chmod +x "$DATA/pair.sh"
  export HERALD_TEST_POSTGRES_PAIR_URL="postgres://herald@127.0.0.1:$PORT,127.0.0.1:$PORT2/postgres?sslmode=disable"
  export HERALD_TEST_POSTGRES_PAIR_CTL="$DATA/pair.sh"
  echo "with-postgres: a synchronous standby on 127.0.0.1:$PORT2 (HERALD_TEST_POSTGRES_PAIR_URL)" >&2
fi
set +e
"$@"
status=$?
set -e
exit $status
