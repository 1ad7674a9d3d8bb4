#!/usr/bin/env bash
# Runs a command with a throwaway PostgreSQL cluster: initdb into a temporary directory (as the
# unprivileged `postgres` user when run as root, since PostgreSQL refuses to run as root), a free
# port on 127.0.0.1, fsync on, and HERALD_TEST_POSTGRES_URL exported for the command. The cluster
# and its files are removed when the command ends, whatever its exit code (which this script returns).
#
#   scripts/with-postgres.sh swift test
#
# Needs Debian's postgresql package (apt-get install postgresql).
set -euo pipefail

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
  rm -rf "$DATA"
}
trap cleanup EXIT

"${AS[@]}" "$PGBIN/initdb" -D "$DATA/db" -U herald --auth=trust --encoding=UTF8 --locale=C.UTF-8 >"$DATA/initdb.log" 2>&1 \
  || { cat "$DATA/initdb.log" >&2; exit 2; }
OPTIONS="-c listen_addresses=127.0.0.1 -c port=$PORT -c unix_socket_directories=$DATA -c fsync=on -c synchronous_commit=on -c max_connections=1000 -c shared_buffers=256MB"
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
set +e
"$@"
status=$?
set -e
exit $status
