#!/usr/bin/env bash
# bench/cputxn.sh - server CPU and redo bytes per sysbench transaction, for
# MariaDB 10.11, strata, and optionally strata at an older revision, in
# alternating rounds (each round starts every server fresh, prepares the
# tables, runs the workload once). CPU is the server process's user+system
# time from /proc/<pid>/stat around the run; on a machine whose cores the
# client shares, CPU per transaction is steadier than QPS between runs.
# Redo bytes are strata's strata_log_append_bytes_total around the run.
#
#   bench/cputxn.sh [--workload oltp_write_only] [--text] [--before REV]
#                   [--rounds 3] [--time 12] [--tables 2] [--table-size 50000]
#                   [--threads 8] [--bp 1G]
#
# Work files under $BENCH_DIR (default /var/tmp/strata-bench-cputxn); the
# table in $BENCH_DIR/results/cputxn.md (medians over the rounds).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
DIR=${BENCH_DIR:-/var/tmp/strata-bench-cputxn}
WORKLOAD=oltp_write_only; PS_MODE=auto; BEFORE=; ROUNDS=3; TIME=12; TABLES=2; TABLE_SIZE=50000; THREADS=8; BP=1G
while [ $# -gt 0 ]; do
	case "$1" in
	--workload) WORKLOAD=$2; shift 2 ;;
	--text) PS_MODE=disable; shift ;;
	--before) BEFORE=$2; shift 2 ;;
	--rounds) ROUNDS=$2; shift 2 ;;
	--time) TIME=$2; shift 2 ;;
	--tables) TABLES=$2; shift 2 ;;
	--table-size) TABLE_SIZE=$2; shift 2 ;;
	--threads) THREADS=$2; shift 2 ;;
	--bp) BP=$2; shift 2 ;;
	*) echo "unknown option $1" >&2; exit 2 ;;
	esac
done
. "$HERE/lib/servers.sh"
install_servers
log() { echo "[$(date +%T)] $*" >&2; }
RES=$DIR/results
rm -rf "$DIR"
mkdir -p "$RES" "$DIR/bin"
(cd "$ROOT" && go build -o "$DIR/bin/strata" ./cmd/strata)
SIDES="mariadb strata"
if [ -n "$BEFORE" ]; then
	git -C "$ROOT" worktree add --detach "$DIR/src" "$BEFORE" >/dev/null 2>&1
	(cd "$DIR/src" && go build -o "$DIR/bin/before" ./cmd/strata)
	git -C "$ROOT" worktree remove --force "$DIR/src"
	SIDES="mariadb before strata"
fi
PORT=3341; MPORT=9141
PID=
trap 'kill $PID 2>/dev/null || true; wait 2>/dev/null || true' EXIT
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; } # clock ticks
redo() { curl -s "http://127.0.0.1:$MPORT/metrics" | awk '/^strata_log_append_bytes_total/ {printf "%d", $2}'; }
for round in $(seq 1 "$ROUNDS"); do
	for side in $SIDES; do
		rm -rf "$DIR/$side"
		if [ "$side" = mariadb ]; then
			start_mariadb "$DIR/$side" $PORT "$BP"
			PID=$MARIADB_PID
		else
			start_strata "$DIR/$side" $PORT "$BP" $MPORT "$DIR/bin/$side"
			PID=$STRATA_PID
		fi
		wait_port $PORT
		mariadb -h127.0.0.1 -P$PORT -uroot --skip-ssl -e 'CREATE DATABASE sbtest'
		sb() {
			sysbench "$WORKLOAD" --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=$PORT --mysql-user=root \
				--mysql-db=sbtest --tables="$TABLES" --table-size="$TABLE_SIZE" --db-ps-mode="$PS_MODE" "$@"
		}
		sb prepare >/dev/null
		c0=$(cpu $PID); r0=0
		[ "$side" != mariadb ] && r0=$(redo)
		tx=$(sb --threads="$THREADS" --time="$TIME" run | awk '/transactions:/ {print $2}')
		c1=$(cpu $PID); r1=0
		[ "$side" != mariadb ] && r1=$(redo)
		tps=$((tx / TIME))
		us=$(((c1 - c0) * 1000000 / $(getconf CLK_TCK) / tx))
		rb=$(((r1 - r0) / tx))
		echo "$side $tps $us $rb" >>"$RES/rounds.txt"
		log "round $round $side: $tps transactions/s, $us us CPU per transaction, redo $rb bytes per transaction"
		kill $PID
		wait $PID 2>/dev/null || true
		PID=
	done
done
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
{
	echo "| server | transactions/s | server CPU us per transaction | redo bytes per transaction |"
	echo "| --- | --- | --- | --- |"
	for side in $SIDES; do
		t=$(awk -v s=$side '$1 == s {print $2}' "$RES/rounds.txt" | median)
		u=$(awk -v s=$side '$1 == s {print $3}' "$RES/rounds.txt" | median)
		r=$(awk -v s=$side '$1 == s {print $4}' "$RES/rounds.txt" | median)
		[ "$side" = mariadb ] && r="-"
		echo "| $side | $t | $u | $r |"
	done
} >"$RES/cputxn.md"
cat "$RES/cputxn.md"
