#!/usr/bin/env bash
# bench/binlog.sh - the cost of the binary log: sysbench QPS of strata with
# and without --log-bin, and of MariaDB 10.11 with and without log-bin
# (binlog_format=ROW, sync_binlog=1: crash-safe, as strata's log is by
# construction), data in memory, one run: each workload runs on the four
# servers in turn. Besides QPS, each server's CPU per transaction (its
# process's user+system time from /proc around the run): on this 2-core
# machine, where sysbench shares the cores, steadier than QPS.
#
#   bench/binlog.sh [--bp 1G] [--tables 2] [--table-size 50000] [--threads 8]
#                   [--time 20] [--warmup 5] [--workloads "oltp_write_only oltp_read_write"]
#                   [--rounds 1]   # repeat the four-server rotation
#
# Work files under $BENCH_DIR (default /var/tmp/strata-bench-binlog);
# results in $BENCH_DIR/results/summary.md.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
DIR=${BENCH_DIR:-/var/tmp/strata-bench-binlog}
BP=1G; TABLES=2; TABLE_SIZE=50000; THREADS=8; TIME=20; WARMUP=5; ROUNDS=1
WORKLOADS="oltp_write_only oltp_read_write"
while [ $# -gt 0 ]; do
	case "$1" in
	--bp) BP=$2; shift 2 ;;
	--tables) TABLES=$2; shift 2 ;;
	--table-size) TABLE_SIZE=$2; shift 2 ;;
	--threads) THREADS=$2; shift 2 ;;
	--time) TIME=$2; shift 2 ;;
	--warmup) WARMUP=$2; shift 2 ;;
	--workloads) WORKLOADS=$2; shift 2 ;;
	--rounds) ROUNDS=$2; shift 2 ;;
	*) echo "unknown option $1" >&2; exit 2 ;;
	esac
done
log() { echo "[$(date +%T)] $*" >&2; }

. "$HERE/lib/servers.sh"
install_servers

RES=$DIR/results
rm -rf "$DIR"/{mariadb,mariadb-bin,strata,strata-bin}
mkdir -p "$DIR/strata" "$RES"
(cd "$ROOT" && go build -o "$DIR/strata/strata" ./cmd/strata)
PIDS=""
declare -A PID=()
trap 'kill $PIDS 2>/dev/null || true; wait 2>/dev/null || true' EXIT
start_mariadb "$DIR/mariadb" 3327 "$BP"; PIDS="$PIDS $MARIADB_PID"; PID[mariadb]=$MARIADB_PID
MARIADB_CNF=$'log-bin = mysql-bin\nserver-id = 1\nbinlog_format = ROW\nsync_binlog = 1' \
	start_mariadb "$DIR/mariadb-bin" 3328 "$BP"; PIDS="$PIDS $MARIADB_PID"; PID[mariadb-bin]=$MARIADB_PID
start_strata "$DIR/strata" 3329 "$BP" 9127; PIDS="$PIDS $STRATA_PID"; PID[strata]=$STRATA_PID
STRATA_ARGS="--log-bin" start_strata "$DIR/strata-bin" 3330 "$BP" 9128 "$DIR/strata/strata"; PIDS="$PIDS $STRATA_PID"; PID[strata-bin]=$STRATA_PID
SYSTEMS="mariadb:3327 mariadb-bin:3328 strata:3329 strata-bin:3330"
for sp in $SYSTEMS; do wait_port "${sp#*:}"; done
for sp in $SYSTEMS; do
	on=$(mariadb -h127.0.0.1 -P"${sp#*:}" -uroot --skip-ssl -N -e 'SELECT @@log_bin')
	log "${sp%%:*}: log_bin=$on"
done

SB() { # SB PORT WORKLOAD ARGS...
	local port=$1 w=$2; shift 2
	sysbench "$w" --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$port" --mysql-user=root \
		--mysql-db=sbtest --tables="$TABLES" --table-size="$TABLE_SIZE" "$@"
}
for sp in $SYSTEMS; do
	port=${sp#*:}
	mariadb -h127.0.0.1 -P"$port" -uroot --skip-ssl -e 'CREATE DATABASE sbtest'
	SB "$port" oltp_read_write --threads="$TABLES" prepare >"$RES/prepare.${sp%%:*}.log"
done

qps() { grep -oP 'queries:\s+\d+\s+\(\K[0-9.]+' "$1"; }
txns() { grep -oP 'transactions:\s+\K\d+' "$1"; }
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; } # clock ticks
HZ=$(getconf CLK_TCK)
us_per_txn() { awk -v t="$1" -v n="$2" -v hz="$HZ" 'BEGIN{printf "%.0f", t * 1e6 / hz / n}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", a/b}'; }
echo "| workload | round | MariaDB QPS | MariaDB log-bin QPS | strata QPS | strata --log-bin QPS | MariaDB log-bin / off | strata log-bin / off | strata log-bin / MariaDB log-bin | CPU us/txn MariaDB, log-bin | CPU us/txn strata, --log-bin |" >"$RES/summary.md"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |" >>"$RES/summary.md"
for w in $WORKLOADS; do
	for r in $(seq 1 "$ROUNDS"); do
		declare -A q=() u=()
		for sp in $SYSTEMS; do
			sys=${sp%%:*}; port=${sp#*:}
			SB "$port" "$w" --threads="$THREADS" --rand-type=special --rand-spec-pct=15 --time="$WARMUP" run >/dev/null
			c0=$(cpu "${PID[$sys]}")
			SB "$port" "$w" --threads="$THREADS" --rand-type=special --rand-spec-pct=15 --time="$TIME" run >"$RES/$w.$sys.$r.log"
			c1=$(cpu "${PID[$sys]}")
			q[$sys]=$(qps "$RES/$w.$sys.$r.log")
			u[$sys]=$(us_per_txn $((c1 - c0)) "$(txns "$RES/$w.$sys.$r.log")")
			log "$w round $r $sys: ${q[$sys]} QPS, ${u[$sys]} us CPU per transaction"
		done
		echo "| $w | $r | ${q[mariadb]} | ${q[mariadb-bin]} | ${q[strata]} | ${q[strata-bin]} | $(ratio "${q[mariadb-bin]}" "${q[mariadb]}") | $(ratio "${q[strata-bin]}" "${q[strata]}") | $(ratio "${q[strata-bin]}" "${q[mariadb-bin]}") | ${u[mariadb]}, ${u[mariadb-bin]} | ${u[strata]}, ${u[strata-bin]} |" >>"$RES/summary.md"
	done
done
cat "$RES/summary.md"
