#!/usr/bin/env bash
# bench/soak.sh - robustness soak (issue 20): sysbench oltp_read_write plus
# hostile clients (bench/hostile: garbage and oversized packets, connection
# churn, runaway statements and KILLs of them, a ledger writer) against one
# strata on loopback with a memory budget. Afterwards: the server must be
# alive, its log free of panics, its peak RSS within the budget; then it is
# killed with -9, restarted, and every acknowledged ledger commit must be
# there.
#
#   bench/soak.sh [--duration 30m] [--budget 1G] [--pool 256M] [--threads 8]
#
# Work files under $BENCH_DIR (default /var/tmp/strata-soak); summary on stdout.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
DIR=${BENCH_DIR:-/var/tmp/strata-soak}
DURATION=30m; BUDGET=1G; POOL=256M; THREADS=8
while [ $# -gt 0 ]; do
	case "$1" in
	--duration) DURATION=$2; shift 2 ;;
	--budget) BUDGET=$2; shift 2 ;;
	--pool) POOL=$2; shift 2 ;;
	--threads) THREADS=$2; shift 2 ;;
	*) echo "unknown option $1" >&2; exit 2 ;;
	esac
done
command -v sysbench >/dev/null || { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q sysbench mariadb-client; }
secs() { case "$1" in *h) echo $((${1%h} * 3600)) ;; *m) echo $((${1%m} * 60)) ;; *s) echo "${1%s}" ;; *) echo "$1" ;; esac; }
PORT=3311
rm -rf "$DIR" && mkdir -p "$DIR"
(cd "$ROOT" && go build -o "$DIR/strata" ./cmd/strata && go build -o "$DIR/hostile" ./bench/hostile)
start() {
	"$DIR/strata" --datadir "$DIR/data" --port $PORT --buffer-pool-size "$POOL" --memory-budget "$BUDGET" \
		--log-capacity 256M --metrics-addr "" >>"$DIR/strata.log" 2>&1 &
	SPID=$!
	for _ in $(seq 100); do
		mariadb --no-defaults --skip-ssl --protocol=tcp -h127.0.0.1 -P$PORT -uroot -e "SELECT 1" >/dev/null 2>&1 && return
		sleep 0.2
	done
	echo "strata did not start" >&2; exit 1
}
sql() { mariadb --no-defaults --skip-ssl --protocol=tcp -h127.0.0.1 -P$PORT -uroot -N -B -e "$*"; }
start
trap 'kill -9 $SPID 2>/dev/null || true' EXIT
sql "CREATE DATABASE sbtest; SET GLOBAL max_allowed_packet = 4194304"
sb() {
	sysbench oltp_read_write --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=$PORT --mysql-user=root \
		--mysql-db=sbtest --tables=4 --table-size=20000 --threads="$THREADS" --rand-type=special "$@"
}
sb prepare >/dev/null
T=$(secs "$DURATION")
peak=0
( while kill -0 $SPID 2>/dev/null; do
	r=$(awk '/VmRSS/ {print $2}' /proc/$SPID/status 2>/dev/null || echo 0)
	echo "$(date +%s) $r" >>"$DIR/rss.log"; sleep 5
done ) &
"$DIR/hostile" -addr 127.0.0.1:$PORT -duration "${T}s" -ledger "$DIR/ledger" >"$DIR/hostile.log" 2>&1 &
HPID=$!
sb --time="$T" --report-interval=60 --mysql-ignore-errors=all run >"$DIR/sysbench.log" 2>&1 || true
wait $HPID || true
alive=yes; kill -0 $SPID 2>/dev/null || alive=NO
hwm=$(awk '/VmHWM/ {print $2}' /proc/$SPID/status 2>/dev/null || echo 0)
panics=$(grep -ci "panic" "$DIR/strata.log" || true)
qps=$(awk '/queries:/ {gsub(/\(/,"",$3); print $3}' "$DIR/sysbench.log")
errs=$(awk '/ignored errors:/ {print $3}' "$DIR/sysbench.log")
status=$(sql "SHOW GLOBAL STATUS WHERE Variable_name IN ('Strata_memory_refusals','Strata_memory_peak_bytes','Strata_memory_budget_bytes')" | tr '\n' ' ')
kill -9 $SPID; wait $SPID 2>/dev/null || true
start
verify=$("$DIR/hostile" -addr 127.0.0.1:$PORT -verify -ledger "$DIR/ledger" || true)
cat <<SUMMARY
duration: $DURATION   budget: $BUDGET   pool: $POOL   sysbench threads: $THREADS
server alive at the end: $alive
panic lines in the server log: $panics
peak RSS (VmHWM): $((hwm / 1024)) MiB
status: $status
sysbench oltp_read_write: $qps QPS, ignored errors: $errs
hostile: $(tail -1 "$DIR/hostile.log")
after kill -9 and restart: $verify
SUMMARY
