#!/usr/bin/env bash
# Makes a local PostgreSQL ready for holomem's tests and prints the address
# of its test database (for HOLOMEM_TEST_POSTGRES). Installs PostgreSQL
# with apt when it is missing, starts the cluster when it is down, waits
# until it accepts connections, and creates the database "test" when it
# does not exist. Used by .ci/run; safe to run again.
set -euo pipefail

log() { echo "postgres: $*" >&2; }

if ! command -v pg_lsclusters >/dev/null; then
  log "installing postgresql (apt)"
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
fi

ver=$(ls /etc/postgresql | sort -n | tail -1)
if ! pg_lsclusters -h | awk -v v="$ver" '$1 == v && $2 == "main" && $4 == "online" { ok = 1 } END { exit !ok }'; then
  log "starting cluster $ver/main"
  pg_ctlcluster --skip-systemctl-redirect "$ver" main start >&2
fi

# Local connections as the superuser: trust on CI machines; a fresh apt
# install only has peer authentication, so add trust for the socket and
# 127.0.0.1 there (a throwaway CI machine, never a shared server).
hba=/etc/postgresql/$ver/main/pg_hba.conf
if ! psql -h 127.0.0.1 -U postgres -d postgres -Atc 'SELECT 1' >/dev/null 2>&1; then
  if [ -w "$hba" ] && ! grep -q '^host all all 127.0.0.1/32 trust' "$hba"; then
    log "adding trust authentication for 127.0.0.1 to $hba"
    sed -i '1i host all all 127.0.0.1/32 trust\nlocal all all trust' "$hba"
    pg_ctlcluster --skip-systemctl-redirect "$ver" main reload >&2
  fi
fi

for _ in $(seq 1 60); do
  if psql -h 127.0.0.1 -U postgres -d postgres -Atc 'SELECT 1' >/dev/null 2>&1; then
    break
  fi
  sleep 0.5
done
psql -h 127.0.0.1 -U postgres -d postgres -Atc 'SELECT 1' >/dev/null

if [ "$(psql -h 127.0.0.1 -U postgres -d postgres -Atc "SELECT count(*) FROM pg_database WHERE datname = 'test'")" = 0 ]; then
  log "creating database test"
  psql -h 127.0.0.1 -U postgres -d postgres -qc 'CREATE DATABASE test' >&2
fi

echo "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
