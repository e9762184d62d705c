#!/usr/bin/env bash
# bench/loads.sh - bulk loading on strata against MariaDB 10.11 InnoDB,
# one run side by side (each step on MariaDB, then on strata):
#   1. sysbench prepare of --tables x --table-size rows (multi-row INSERTs,
#      one loader thread per table, then the secondary index k_1);
#   2. a mariadb-dump of one --dump-rows-row sysbench table, taken from
#      MariaDB, restored with the mariadb client into each server;
#   3. CREATE INDEX on the restored table's c column (CHAR(120)).
# Row counts and sums are compared after each step (after prepare only
# counts and lengths: sysbench's values are random per run).
#
#   bench/loads.sh [--tables 8] [--table-size 300000] [--dump-rows 1000000] [--bp 1G]
#                  [--steps "prepare restore index"]
#                  [--rev REV]  # strata built at git revision REV instead of the work tree
#
# Work files under $BENCH_DIR (default /var/tmp/strata-bench-loads); the
# table in $BENCH_DIR/results/loads.md.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
DIR=${BENCH_DIR:-/var/tmp/strata-bench-loads}
TABLES=8; TABLE_SIZE=300000; DUMP_ROWS=1000000; BP=1G; STEPS="prepare restore index"; REV=
while [ $# -gt 0 ]; do
	case "$1" in
	--tables) TABLES=$2; shift 2 ;;
	--table-size) TABLE_SIZE=$2; shift 2 ;;
	--dump-rows) DUMP_ROWS=$2; shift 2 ;;
	--bp) BP=$2; shift 2 ;;
	--steps) STEPS=$2; shift 2 ;;
	--rev) REV=$2; shift 2 ;;
	*) echo "unknown option $1" >&2; exit 2 ;;
	esac
done
. "$HERE/lib/servers.sh"
install_servers
log() { echo "[$(date +%T)] $*" >&2; }
MPORT=3327; SPORT=3328; PPORT=9125
RES=$DIR/results
rm -rf "$DIR/mariadb" "$DIR/strata"
mkdir -p "$RES" "$DIR/strata"
if [ -n "$REV" ]; then
	git -C "$ROOT" worktree add --detach "$DIR/src" "$REV" >/dev/null 2>&1
	(cd "$DIR/src" && go build -o "$DIR/strata/strata" ./cmd/strata)
	git -C "$ROOT" worktree remove --force "$DIR/src"
	log "strata at $(git -C "$ROOT" log -1 --format='%h %s' "$REV")"
else
	(cd "$ROOT" && go build -o "$DIR/strata/strata" ./cmd/strata)
fi
MARIADB_PID=; STRATA_PID=
trap 'kill $MARIADB_PID $STRATA_PID 2>/dev/null || true; wait 2>/dev/null || true' EXIT
start_mariadb "$DIR/mariadb" $MPORT "$BP"
start_strata "$DIR/strata" $SPORT "$BP" $PPORT
wait_port $MPORT
wait_port $SPORT
M() { mariadb -h127.0.0.1 -P"$1" -uroot --skip-ssl "${@:2}"; }
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.1f", b-a}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", a/b}'; }
sums() { M "$1" -N -e "SELECT COUNT(*), SUM(k), SUM(LENGTH(c)), SUM(LENGTH(pad)) FROM $2"; }
echo "| step | MariaDB s | strata s | strata / MariaDB |" >"$RES/loads.md"
echo "| --- | --- | --- | --- |" >>"$RES/loads.md"
row() { # row NAME MARIADB_SECS STRATA_SECS
	echo "| $1 | $2 | $3 | $(ratio "$3" "$2") |" >>"$RES/loads.md"
	log "$1: MariaDB $2 s, strata $3 s"
}
same() { # same QUERY-RESULT-M QUERY-RESULT-S WHAT
	if [ "$1" != "$2" ]; then
		echo "$3 differs: MariaDB '$1', strata '$2'" >&2
		exit 1
	fi
}
for step in $STEPS; do
	case $step in
	prepare)
		declare -A T
		for port in $MPORT $SPORT; do
			M $port -e 'DROP DATABASE IF EXISTS sbtest; CREATE DATABASE sbtest'
			t0=$(now)
			sysbench oltp_read_write --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=$port --mysql-user=root \
				--mysql-db=sbtest --tables="$TABLES" --table-size="$TABLE_SIZE" --threads="$TABLES" prepare >"$RES/prepare.$port.log"
			T[$port]=$(secs "$t0" "$(now)")
		done
		row "sysbench prepare ${TABLES} x ${TABLE_SIZE}" "${T[$MPORT]}" "${T[$SPORT]}"
		# k, c and pad are random per run: rows and lengths only.
		for t in $(seq 1 "$TABLES"); do
			q="SELECT COUNT(*), COUNT(DISTINCT id), SUM(LENGTH(c)), SUM(LENGTH(pad)) FROM sbtest.sbtest$t"
			same "$(M $MPORT -N -e "$q")" "$(M $SPORT -N -e "$q")" "sbtest$t after prepare"
		done
		;;
	restore)
		# The table to dump: sysbench's shape, generated on MariaDB.
		M $MPORT -e 'DROP DATABASE IF EXISTS dumpsrc; CREATE DATABASE dumpsrc'
		sysbench oltp_read_write --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=$MPORT --mysql-user=root \
			--mysql-db=dumpsrc --tables=1 --table-size="$DUMP_ROWS" --threads=1 prepare >"$RES/dumpsrc.log"
		mariadb-dump -h127.0.0.1 -P$MPORT -uroot --skip-ssl dumpsrc sbtest1 >"$DIR/dump.sql"
		log "dump: $(du -h "$DIR/dump.sql" | cut -f1)"
		declare -A T
		for port in $MPORT $SPORT; do
			M $port -e 'DROP DATABASE IF EXISTS restored; CREATE DATABASE restored'
			t0=$(now)
			M $port restored <"$DIR/dump.sql"
			T[$port]=$(secs "$t0" "$(now)")
		done
		row "mariadb-dump restore of ${DUMP_ROWS} rows" "${T[$MPORT]}" "${T[$SPORT]}"
		same "$(sums $MPORT restored.sbtest1)" "$(sums $SPORT restored.sbtest1)" "restored table"
		;;
	index)
		declare -A T
		for port in $MPORT $SPORT; do
			t0=$(now)
			M $port -e 'CREATE INDEX c_1 ON restored.sbtest1 (c)'
			T[$port]=$(secs "$t0" "$(now)")
		done
		row "CREATE INDEX on ${DUMP_ROWS} rows (CHAR(120))" "${T[$MPORT]}" "${T[$SPORT]}"
		same "$(M $MPORT -N -e 'CHECK TABLE restored.sbtest1' | cut -f4)" "$(M $SPORT -N -e 'CHECK TABLE restored.sbtest1' | cut -f4)" "CHECK TABLE after the index"
		;;
	*) echo "unknown step $step" >&2; exit 2 ;;
	esac
done
cat "$RES/loads.md"
