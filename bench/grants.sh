#!/usr/bin/env bash
# bench/grants.sh - sysbench as an application user holding table grants
# against the same run as root, on one strata (data in memory): the
# privilege checks of the general path and the fast path (auth AUTH-5)
# must not cost throughput. Runs alternate root / user, ROUNDS times each.
#
#   bench/grants.sh [--tables 4] [--table-size 50000] [--threads 8] [--time 20]
#                   [--rounds 3] [--workloads "oltp_read_write oltp_point_select"]
#
# Prints per run the QPS and how many statements the fast path took
# (Strata_fast_path_selects + _writes), then the user / root QPS ratio.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
DIR=${BENCH_DIR:-/var/tmp/strata-bench-grants}
TABLES=4; TABLE_SIZE=50000; THREADS=8; TIME=20; ROUNDS=3
WORKLOADS="oltp_read_write oltp_point_select"
while [ $# -gt 0 ]; do
	case "$1" in
	--tables) TABLES=$2; shift 2 ;;
	--table-size) TABLE_SIZE=$2; shift 2 ;;
	--threads) THREADS=$2; shift 2 ;;
	--time) TIME=$2; shift 2 ;;
	--rounds) ROUNDS=$2; shift 2 ;;
	--workloads) WORKLOADS=$2; shift 2 ;;
	*) echo "unknown option $1" >&2; exit 2 ;;
	esac
done
command -v sysbench >/dev/null || { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q sysbench mariadb-client; }
PORT=3310
rm -rf "$DIR" && mkdir -p "$DIR"
(cd "$ROOT" && go build -o "$DIR/strata" ./cmd/strata)
"$DIR/strata" --datadir "$DIR/data" --port $PORT --buffer-pool-size 1G --log-capacity 256M --metrics-addr "" >"$DIR/strata.log" 2>&1 &
SPID=$!
trap 'kill $SPID 2>/dev/null; wait $SPID 2>/dev/null' EXIT
sql() { mariadb --no-defaults --skip-ssl --protocol=tcp -h127.0.0.1 -P$PORT -uroot -N -B -e "$*"; }
for _ in $(seq 100); do sql "SELECT 1" >/dev/null 2>&1 && break; sleep 0.2; done
sql "CREATE DATABASE sbtest"
sb() { # USER PASSWORD WORKLOAD PHASE
	sysbench "$3" --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=$PORT --mysql-user="$1" --mysql-password="$2" \
		--mysql-db=sbtest --tables=$TABLES --table-size=$TABLE_SIZE --threads=$THREADS --time=$TIME \
		--rand-type=special --report-interval=0 "$4"
}
sb root "" oltp_read_write prepare >/dev/null
grants="CREATE USER sb@'%' IDENTIFIED BY 'sbpw';"
for i in $(seq "$TABLES"); do grants+="GRANT SELECT, INSERT, UPDATE, DELETE ON sbtest.sbtest$i TO sb@'%';"; done
sql "$grants"
fast() { sql "SHOW GLOBAL STATUS WHERE Variable_name IN ('Strata_fast_path_selects','Strata_fast_path_writes')" | awk '{s+=$2} END {print s}'; }
echo "| workload | round | user | QPS | fast-path statements |"
echo "| --- | --- | --- | --- | --- |"
declare -A total
for w in $WORKLOADS; do
	total[$w.root]=0; total[$w.sb]=0
	for r in $(seq "$ROUNDS"); do
		for u in root sb; do
			pw=""; [ $u = sb ] && pw=sbpw
			f0=$(fast)
			q=$(sb $u "$pw" "$w" run | awk '/queries:/ {gsub(/\(/,"",$3); print $3}')
			f1=$(fast)
			echo "| $w | $r | $u | $q | $((f1 - f0)) |"
			total[$w.$u]=$(echo "${total[$w.$u]} + $q" | bc)
		done
	done
	echo
	echo "$w: user / root QPS = $(echo "scale=3; ${total[$w.sb]} / ${total[$w.root]}" | bc)"
	echo
done
