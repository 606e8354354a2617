#!/usr/bin/env bash
# Builds Citus from the vendored source against Debian's PostgreSQL 15 and installs it into that PostgreSQL's
# folders. Once per machine: skipped when this version's citus.so is installed. The compiled files are kept in
# .tools/citus-<version>/stage (make install DESTDIR=…), so a second install on the same checkout only copies.
# The Debian packages it needs are installed when missing (root only; .ci/run runs as root).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
CITUS_VERSION=13.2.2
PG_MAJOR=15
PG_CONFIG=/usr/lib/postgresql/$PG_MAJOR/bin/pg_config
STAGE=$ROOT/.tools/citus-$CITUS_VERSION/stage
MARKER_NAME=citus-$CITUS_VERSION.installed

packages=(build-essential postgresql-$PG_MAJOR postgresql-server-dev-$PG_MAJOR libcurl4-openssl-dev liblz4-dev libzstd-dev
  libkrb5-dev libssl-dev libselinux1-dev libxslt1-dev libpam0g-dev libreadline-dev zlib1g-dev)

installed() {
  [ -x "$PG_CONFIG" ] && [ -f "$($PG_CONFIG --pkglibdir)/citus.so" ] && [ -f "$($PG_CONFIG --pkglibdir)/$MARKER_NAME" ]
}

if installed; then
  echo "› Citus $CITUS_VERSION is installed for PostgreSQL $PG_MAJOR ($($PG_CONFIG --pkglibdir))"
  exit 0
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "Citus needs these Debian packages: apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  echo "› installing ${missing[*]} (apt)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  # Debian's package starts a cluster of its own on port 5432; the project starts its own clusters.
  if command -v pg_ctlcluster >/dev/null 2>&1; then pg_ctlcluster $PG_MAJOR main stop >/dev/null 2>&1 || true; fi
fi

if [ ! -f "$STAGE/.complete" ]; then
  tarball=""
  for candidate in "${CITUS_SOURCE:-}" "$ROOT/../shared/vendor/citus-$CITUS_VERSION.tar.gz" "/work/shared/vendor/citus-$CITUS_VERSION.tar.gz"; do
    if [ -n "$candidate" ] && [ -f "$candidate" ]; then tarball=$candidate; break; fi
  done
  if [ -z "$tarball" ]; then
    echo "Citus $CITUS_VERSION's source is not found: set CITUS_SOURCE to citus-$CITUS_VERSION.tar.gz (../shared/vendor)" >&2
    exit 1
  fi
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  echo "› building Citus $CITUS_VERSION from $tarball (a few minutes, once)"
  tar xzf "$tarball" -C "$work"
  # PostgreSQL 15.20 (Debian's current 15) exports have_createdb_privilege(), which Citus 13.2.2 defines
  # itself as a static function for PostgreSQL 15: the one compile error of this version against it. The
  # server's own function makes the same check, so Citus's copy is dropped when the server declares one.
  compat="$work/citus-$CITUS_VERSION/src/include/pg_version_compat.h"
  if grep -q "extern bool have_createdb_privilege" "$($PG_CONFIG --includedir-server)/commands/dbcommands.h"; then
    perl -0pi -e 's/static inline bool\nhave_createdb_privilege\(void\)\n\{.*?\n\}\n//s' "$compat"
    ! grep -q "^have_createdb_privilege" "$compat" || { echo "could not drop Citus's have_createdb_privilege" >&2; exit 1; }
  fi
  (
    cd "$work/citus-$CITUS_VERSION"
    PG_CONFIG=$PG_CONFIG ./configure --quiet >/dev/null
    # with_llvm=no: no JIT bitcode (a second compile of every file with clang), which the service does not need.
    make -s -j"$(nproc)" with_llvm=no >/dev/null
    rm -rf "$STAGE"
    make -s install with_llvm=no DESTDIR="$STAGE" >/dev/null
  )
  touch "$STAGE/.complete"
fi

if [ "$(id -u)" != 0 ]; then
  echo "Installing Citus into $($PG_CONFIG --pkglibdir) needs root: sudo cp -a $STAGE/usr/. /usr/" >&2
  exit 1
fi
# --remove-destination: a new file in place of each old one, never written into, so a PostgreSQL running with
# the old citus.so loaded keeps its copy instead of crashing.
cp -a --remove-destination "$STAGE/usr/." /usr/
touch "$($PG_CONFIG --pkglibdir)/$MARKER_NAME"
echo "› Citus $CITUS_VERSION installed for PostgreSQL $PG_MAJOR"
