#!/usr/bin/env bash
# bench/inmem.sh - sysbench QPS of strata against MariaDB 10.11 InnoDB with
# the data in memory: same buffer pool, same threads, one run side by side
# (each workload runs on MariaDB, then on strata, alternating).
#
#   bench/inmem.sh [--bp 1G] [--tables 4] [--table-size 100000] [--threads 16]
#                  [--time 30] [--warmup 10] [--workloads "oltp_point_select ..."]
#                  [--profile]   # also take a 20 s CPU profile of strata per workload
#                  [--before REV] # also run strata built at git revision REV (a third
#                                 # server, same settings): before/after in one run
#                  [--ps-mode disable] # sysbench's --db-ps-mode: disable sends text
#                                 # queries, as PyMySQL and most drivers do (default auto:
#                                 # prepared statements)
#                  [--text]       # the same as --ps-mode disable
#
# Needs root for nothing; installs sysbench and mariadb-server from Debian if
# missing. Work files under $BENCH_DIR (default /var/tmp/strata-bench);
# results in $BENCH_DIR/results: one sysbench log per run and summary.md.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
DIR=${BENCH_DIR:-/var/tmp/strata-bench}
BP=1G; TABLES=4; TABLE_SIZE=100000; THREADS=16; TIME=30; WARMUP=10; PROFILE=0; BEFORE=; PS_MODE=auto
WORKLOADS="oltp_point_select oltp_read_only oltp_write_only oltp_read_write"
while [ $# -gt 0 ]; do
	case "$1" in
	--bp) BP=$2; shift 2 ;;
	--tables) TABLES=$2; shift 2 ;;
	--table-size) TABLE_SIZE=$2; shift 2 ;;
	--threads) THREADS=$2; shift 2 ;;
	--time) TIME=$2; shift 2 ;;
	--warmup) WARMUP=$2; shift 2 ;;
	--workloads) WORKLOADS=$2; shift 2 ;;
	--profile) PROFILE=1; shift ;;
	--before) BEFORE=$2; shift 2 ;;
	--ps-mode) PS_MODE=$2; shift 2 ;;
	--text) PS_MODE=disable; shift ;;
	*) echo "unknown option $1" >&2; exit 2 ;;
	esac
done
log() { echo "[$(date +%T)] $*" >&2; }

. "$HERE/lib/servers.sh"
install_servers

RES=$DIR/results
rm -rf "$DIR/mariadb" "$DIR/strata" "$DIR/before"
mkdir -p "$DIR/mariadb/data" "$DIR/strata" "$RES"
MPORT=3307; SPORT=3308; PPORT=9105; BPORT=3309; BPPORT=9106

# ---- MariaDB 10.11 / InnoDB ----
start_mariadb "$DIR/mariadb" $MPORT "$BP"
MPID=$MARIADB_PID
# ---- strata ----
(cd "$ROOT" && go build -o "$DIR/strata/strata" ./cmd/strata)
start_strata "$DIR/strata" $SPORT "$BP" $PPORT
SPID=$STRATA_PID
BPID=""
SYSTEMS="mariadb strata"
PORTS="$MPORT $SPORT"
if [ -n "$BEFORE" ]; then
	mkdir -p "$DIR/before"
	git -C "$ROOT" worktree add --detach "$DIR/before/src" "$BEFORE" >/dev/null 2>&1
	(cd "$DIR/before/src" && go build -o "$DIR/before/strata" ./cmd/strata)
	git -C "$ROOT" worktree remove --force "$DIR/before/src"
	start_strata "$DIR/before" $BPORT "$BP" $BPPORT "$DIR/before/strata"
	BPID=$STRATA_PID
	SYSTEMS="mariadb before strata"
	PORTS="$MPORT $BPORT $SPORT"
	log "before: strata at $(git -C "$ROOT" log -1 --format='%h %s' "$BEFORE")"
fi
trap 'kill $MPID $SPID $BPID 2>/dev/null || true; wait 2>/dev/null || true' EXIT
for port in $PORTS; do
	for _ in $(seq 1 120); do
		mariadb -h127.0.0.1 -P$port -uroot -e 'select 1' >/dev/null 2>&1 && break
		sleep 0.5
	done
done

SB() { # SB PORT WORKLOAD ARGS...
	local port=$1 w=$2; shift 2
	sysbench "$w" --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$port" --mysql-user=root \
		--mysql-db=sbtest --tables="$TABLES" --table-size="$TABLE_SIZE" --db-ps-mode="$PS_MODE" "$@"
}
for port in $PORTS; do
	mariadb -h127.0.0.1 -P$port -uroot -e 'CREATE DATABASE sbtest'
	t0=$SECONDS
	SB $port oltp_read_write --threads="$TABLES" prepare >"$RES/prepare.$port.log"
	log "prepare on port $port: $((SECONDS - t0)) s"
done

qps() { grep -oP 'queries:\s+\d+\s+\(\K[0-9.]+' "$1"; }
p95() { grep -oP '95th percentile:\s+\K[0-9.]+' "$1"; }
errs() { grep -oP 'ignored errors:\s+\K\d+' "$1"; }
if [ -n "$BEFORE" ]; then
	echo "| workload | MariaDB QPS | strata before QPS | strata QPS | before / MariaDB | strata / MariaDB | strata / before | MariaDB p95 ms | before p95 ms | strata p95 ms | strata errors |" >"$RES/summary.md"
	echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |" >>"$RES/summary.md"
else
	echo "| workload | MariaDB QPS | strata QPS | strata / MariaDB | MariaDB p95 ms | strata p95 ms | strata errors |" >"$RES/summary.md"
	echo "| --- | --- | --- | --- | --- | --- | --- |" >>"$RES/summary.md"
fi
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", a/b}'; }
for w in $WORKLOADS; do
	opts=(--threads="$THREADS" --rand-type=special --rand-spec-pct=15)
	for sys in $SYSTEMS; do
		port=$MPORT; pport=""
		[ $sys = strata ] && port=$SPORT && pport=$PPORT
		[ $sys = before ] && port=$BPORT && pport=$BPPORT
		SB $port "$w" "${opts[@]}" --time="$WARMUP" run >/dev/null
		prof=""
		if [ -n "$pport" ] && [ $PROFILE = 1 ]; then
			curl -s -o "$RES/$w.$sys.cpu.pprof" "http://127.0.0.1:$pport/debug/pprof/profile?seconds=20" &
			prof=$!
		fi
		SB $port "$w" "${opts[@]}" --time="$TIME" run >"$RES/$w.$sys.log"
		[ -z "$prof" ] || wait "$prof"
		log "$w $sys: $(qps "$RES/$w.$sys.log") QPS, p95 $(p95 "$RES/$w.$sys.log") ms, errors $(errs "$RES/$w.$sys.log")"
	done
	m=$(qps "$RES/$w.mariadb.log"); s=$(qps "$RES/$w.strata.log")
	if [ -n "$BEFORE" ]; then
		b=$(qps "$RES/$w.before.log")
		echo "| $w | $m | $b | $s | $(ratio "$b" "$m") | $(ratio "$s" "$m") | $(ratio "$s" "$b") | $(p95 "$RES/$w.mariadb.log") | $(p95 "$RES/$w.before.log") | $(p95 "$RES/$w.strata.log") | $(errs "$RES/$w.strata.log") |" >>"$RES/summary.md"
	else
		echo "| $w | $m | $s | $(ratio "$s" "$m") | $(p95 "$RES/$w.mariadb.log") | $(p95 "$RES/$w.strata.log") | $(errs "$RES/$w.strata.log") |" >>"$RES/summary.md"
	fi
done
cat "$RES/summary.md"
