#!/bin/sh
# The first start on an empty volume creates the cluster, the user (POSTGRES_USER, password
# POSTGRES_PASSWORD, over TCP by scram-sha-256) and the database POSTGRES_DB, as the public image
# does; every start then runs the server in the foreground, as PID 1.
set -eu
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  password_file=$(mktemp)
  printf '%s' "$POSTGRES_PASSWORD" > "$password_file"
  initdb --username="$POSTGRES_USER" --pwfile="$password_file" --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$password_file"
  echo 'host all all all scram-sha-256' >> "$PGDATA/pg_hba.conf"
  pg_ctl --wait --options="-c listen_addresses=''" start >/dev/null
  if [ "$POSTGRES_DB" != postgres ]; then
    # From stdin: psql quotes the name (:"db") only there, not in -c.
    echo 'CREATE DATABASE :"db";' | psql --username="$POSTGRES_USER" --dbname=postgres --set=ON_ERROR_STOP=1 --set=db="$POSTGRES_DB" >/dev/null
  fi
  pg_ctl --wait --mode=fast stop >/dev/null
fi
exec postgres -c listen_addresses='*'
