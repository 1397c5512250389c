#!/usr/bin/env bash
# Makes a hot standby of the local PostgreSQL cluster (the one
# scripts/postgres/ensure.sh prepares) and prints the address of its test
# database, for HOLOMEM_TEST_POSTGRES_STANDBY. The standby is a second
# cluster "standby" on port 5433 (STANDBY_PORT), loopback only, streaming
# from the primary on 127.0.0.1:5432 (PRIMARY_PORT) after a pg_basebackup.
# Run as root on a throwaway machine (CI); safe to run again: a running
# standby is kept.
set -euo pipefail

log() { echo "standby: $*" >&2; }

ver=$(ls /etc/postgresql | sort -n | tail -1)
primary_port=${PRIMARY_PORT:-5432}
port=${STANDBY_PORT:-5433}
name=standby
data=/var/lib/postgresql/$ver/$name
addr="postgres://postgres@127.0.0.1:$port/test?sslmode=disable"

if pg_lsclusters -h | awk -v v="$ver" -v n="$name" '$1 == v && $2 == n && $4 ~ /online/ { ok = 1 } END { exit !ok }'; then
  echo "$addr"
  exit 0
fi

# The primary must accept replication connections from 127.0.0.1.
hba=/etc/postgresql/$ver/main/pg_hba.conf
if ! grep -q '^host replication all 127.0.0.1/32 trust' "$hba"; then
  log "allowing replication from 127.0.0.1 in $hba"
  sed -i '1i host replication all 127.0.0.1/32 trust' "$hba"
  pg_ctlcluster --skip-systemctl-redirect "$ver" main reload >&2
fi

if pg_lsclusters -h | awk -v v="$ver" -v n="$name" '$1 == v && $2 == n { ok = 1 } END { exit !ok }'; then
  pg_dropcluster --stop "$ver" "$name" >&2 || true
fi
log "creating cluster $ver/$name on port $port"
pg_createcluster "$ver" "$name" -p "$port" -- --auth=trust >/dev/null
conf=/etc/postgresql/$ver/$name/postgresql.conf
echo "listen_addresses = '127.0.0.1'" >>"$conf"
echo "hot_standby = on" >>"$conf"
echo "hot_standby_feedback = off" >>"$conf"
# The standby answers only on loopback, with trust like the primary here.
printf 'local all all trust\nhost all all 127.0.0.1/32 trust\n' >/etc/postgresql/$ver/$name/pg_hba.conf

log "pg_basebackup from 127.0.0.1:$primary_port"
rm -rf "$data"
install -d -o postgres -g postgres -m 700 "$data"
su postgres -c "pg_basebackup -h 127.0.0.1 -p $primary_port -U postgres -D '$data' -R -X stream -c fast" >&2
pg_ctlcluster --skip-systemctl-redirect "$ver" "$name" start >&2

for _ in $(seq 1 60); do
  if [ "$(psql -h 127.0.0.1 -p "$port" -U postgres -d postgres -Atc 'SELECT pg_is_in_recovery()' 2>/dev/null)" = t ]; then
    echo "$addr"
    exit 0
  fi
  sleep 0.5
done
log "the standby on port $port did not start in recovery; see /var/log/postgresql/postgresql-$ver-$name.log"
exit 1
