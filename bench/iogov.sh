#!/usr/bin/env bash
# bench/iogov.sh - background I/O governance (issue 8), three comparisons on
# the data set bench/bpe.sh prepares (8 x 250k rows, ~460 MB since the B+tree's
# append split; --table-size 450000 gives ~820 MB; 64 MiB pool):
#
#   limiter  oltp_read_write on an emulated gp3 volume: --io-limiter off vs
#            auto; QPS, p99, and p99 per second (chart docs/iogov-latency.png)
#   stripe   oltp_read_write on two striped emulated gp2-1t volumes vs one
#            io1-6k volume (the seed: the pair matches io1 6k IOPS at 40% of
#            the cost)
#   log      oltp_write_only on a real throttled volume (bench/cloudvol.sh:
#            loop device + blkio cgroup, 3000 IOPS / 125 MiB/s) with the redo
#            log on that volume vs on its own (local) volume: commit latency
#
#   bench/iogov.sh [--parts "limiter stripe log"] [--threads 16] [--time 60] [--warmup 20]
#                  [--pool 64M] [--log-capacity 512M] [--table-size 250000] [--tag NAME]
#
# Results: $BENCH_DIR/results-iogov/*.log, summary.md, latency.csv, and the
# chart under docs/. Needs root for the log part (loop device, cgroup).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
DIR=${BENCH_DIR:-/var/tmp/strata-bench}
PARTS="limiter stripe log"; THREADS=16; TIME=60; WARMUP=20; POOL=64M; TABLES=8; TABLE_SIZE=250000
LOGCAP=512M; TAG=
while [ $# -gt 0 ]; do
	case "$1" in
	--parts) PARTS=$2; shift 2 ;;
	--threads) THREADS=$2; shift 2 ;;
	--time) TIME=$2; shift 2 ;;
	--warmup) WARMUP=$2; shift 2 ;;
	--pool) POOL=$2; shift 2 ;;
	--log-capacity) LOGCAP=$2; shift 2 ;;
	--tag) TAG=$2; shift 2 ;;
	--table-size) TABLE_SIZE=$2; shift 2 ;;
	*) echo "unknown option $1" >&2; exit 2 ;;
	esac
done
log() { echo "[$(date +%T)] $*" >&2; }
command -v sysbench >/dev/null || { apt-get update -q && apt-get install -y -q sysbench mariadb-client; }
command -v gnuplot >/dev/null || { apt-get update -q && apt-get install -y -q gnuplot-nox; }
BASE=$DIR/bpe-base
[ -f "$BASE/.prepared-$TABLES-$TABLE_SIZE" ] || "$HERE/bpe.sh" --tables $TABLES --table-size $TABLE_SIZE --workloads "" >/dev/null
RES=$DIR/results-iogov${TAG:+-$TAG}
BIN=$DIR/strata-iogov-bin
PORT=3311
RUN=$DIR/iogov-run
mkdir -p "$RES"
(cd "$ROOT" && go build -o "$BIN" ./cmd/strata)
SPID=""
cleanup() {
	[ -z "$SPID" ] || kill "$SPID" 2>/dev/null || true
	"$HERE/cloudvol.sh" destroy iogovlog >/dev/null 2>&1 || true
}
trap cleanup EXIT
WRAP=()
start() { # start DATADIR ARGS...
	local d=$1; shift
	"${WRAP[@]}" "$BIN" --datadir "$d" --port $PORT --metrics-addr "" --log-capacity "$LOGCAP" "$@" >"$d.log" 2>&1 &
	SPID=$!
	for _ in $(seq 1 240); do
		mariadb -h127.0.0.1 -P$PORT -uroot -e 'select 1' >/dev/null 2>&1 && return 0
		kill -0 $SPID 2>/dev/null || { tail "$d.log"; exit 1; }
		sleep 0.5
	done
	echo "strata did not start" >&2; exit 1
}
stop() { kill -TERM $SPID; wait $SPID || true; SPID=""; }
SB() { sysbench "$1" --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=$PORT --mysql-user=root \
	--mysql-db=sbtest --tables=$TABLES --table-size=$TABLE_SIZE --threads="$THREADS" \
	--rand-type=special --rand-spec-pct=15 "${@:2}"; }
STATUS() { mariadb -h127.0.0.1 -P$PORT -uroot -N -B -e "SHOW GLOBAL STATUS LIKE 'Strata%'"; }
val() { awk -v k="$1" '$1==k {print $2}' "$2"; }
qps() { grep -oP 'queries:\s+\d+\s+\(\K[0-9.]+' "$1"; }
pct() { grep -oP '99th percentile:\s+\K[0-9.]+' "$1"; }
avg() { grep -oP '^\s+avg:\s+\K[0-9.]+' "$1"; }

# measure TAG WORKLOAD: warm up, then a timed run with per-second p99.
measure() {
	local tag=$1 w=$2
	SB "$w" --time="$WARMUP" run >/dev/null
	STATUS >"$RES/$tag.before"
	SB "$w" --time="$TIME" --report-interval=1 --percentile=99 run >"$RES/$tag.log"
	STATUS >"$RES/$tag.after"
}
delta() { echo $(( $(val "$1" "$RES/$2.after") - $(val "$1" "$RES/$2.before") )); }
restore() { # restore [striped]
	rm -rf "$RUN"; mkdir -p "$RUN"
	if [ "${1:-}" = striped ]; then
		# Lay the single data file out as two stripe members (256 KiB unit,
		# engine/options.go default): unit i goes to member i mod 2.
		mkdir -p "$RUN/d/log" "$RUN/m0" "$RUN/m1"
		cp -a "$BASE/d/log/." "$RUN/d/log/"
		python3 - "$BASE/d/data/data.strata" "$RUN/m0/data.strata" "$RUN/m1/data.strata" <<'EOF'
import sys
unit = 256 << 10
src, outs = open(sys.argv[1], 'rb'), [open(p, 'wb') for p in sys.argv[2:]]
i = 0
while True:
    b = src.read(unit)
    if not b:
        break
    outs[i % len(outs)].write(b)
    i += 1
size = max(o.tell() for o in outs)
for o in outs:
    o.truncate(size)
    o.close()
EOF
	else
		cp -a "$BASE/d" "$RUN/d"
	fi
}

# The redo log's capacity is fixed when it is created: another capacity
# needs its own prepared data set.
if [ "$LOGCAP" != 512M ]; then
	BASE=$DIR/iogov-base-$LOGCAP
	if [ ! -f "$BASE/.prepared-$TABLES-$TABLE_SIZE" ]; then
		rm -rf "$BASE"; mkdir -p "$BASE"
		start "$BASE/d" --buffer-pool-size 2G
		mariadb -h127.0.0.1 -P$PORT -uroot -e 'CREATE DATABASE sbtest'
		t0=$SECONDS
		sysbench oltp_read_write --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=$PORT --mysql-user=root \
			--mysql-db=sbtest --tables=$TABLES --table-size=$TABLE_SIZE --threads=$TABLES prepare >"$RES/prepare.log"
		stop
		touch "$BASE/.prepared-$TABLES-$TABLE_SIZE"
		log "prepared $TABLES x $TABLE_SIZE rows with a $LOGCAP log in $((SECONDS - t0)) s"
	fi
fi

echo "| part | configuration | workload | QPS | avg ms | p99 ms | data read IOPS | data write IOPS | log-space waits | urgent pages |" >"$RES/summary.md"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |" >>"$RES/summary.md"
row() { # row PART CONFIG WORKLOAD TAG
	local t=$4
	local rd wr
	rd=$(delta Strata_volume_reads_data "$t"); wr=$(delta Strata_volume_writes_data "$t")
	local r
	r=$(printf "| %s | %s | %s | %.0f | %s | %s | %.0f | %.0f | %s | %s |" "$1" "$2" "$3" "$(qps "$RES/$t.log")" \
		"$(avg "$RES/$t.log")" "$(pct "$RES/$t.log")" "$(echo "$rd / $TIME" | bc -l)" "$(echo "$wr / $TIME" | bc -l)" \
		"$(delta Strata_log_space_waits "$t")" "$(delta Strata_io_urgent_pages "$t")")
	echo "$r" >>"$RES/summary.md"
	log "$r"
}

for part in $PARTS; do
	case $part in
	limiter)
		for mode in off auto; do
			restore
			start "$RUN/d" --buffer-pool-size $POOL --emulate-volume gp3 --io-limiter $mode
			measure limiter.$mode oltp_read_write
			stop
			row limiter "gp3, --io-limiter $mode" oltp_read_write limiter.$mode
		done
		# p99 per second: "[ 12s ] thds: 16 tps: ... lat (ms,99%): 45.79 ..."
		for mode in off auto; do
			grep -oP '^\[ \K[0-9]+s \].*lat \(ms,99%\): [0-9.]+' "$RES/limiter.$mode.log" |
				sed -E 's/^([0-9]+)s \].*: ([0-9.]+)$/\1 \2/' >"$RES/limiter.$mode.p99"
		done
		gnuplot <<EOF
set terminal pngcairo size 900,420 font ",10" noenhanced
set output "$ROOT/docs/iogov-latency${TAG:+-$TAG}.png"
set title "sysbench oltp_read_write, $POOL pool, $LOGCAP redo log, $TABLES x $TABLE_SIZE rows, emulated gp3, $THREADS threads: p99 latency per second"
set xlabel "seconds"
set ylabel "p99 latency (ms)"
set key top left
set grid
plot "$RES/limiter.off.p99" using 1:2 with lines lw 2 title "--io-limiter off (bursts)", \
     "$RES/limiter.auto.p99" using 1:2 with lines lw 2 title "--io-limiter auto"
EOF
		;;
	stripe)
		restore striped
		start "$RUN/d" --data-dir "$RUN/m0" --data-dir "$RUN/m1" --buffer-pool-size $POOL --emulate-volume gp2-1t
		measure stripe.gp2x2 oltp_read_write
		for i in 0 1; do echo "member $i: reads $(delta Strata_volume_reads_data$i stripe.gp2x2)" >>"$RES/stripe.members"; done
		stop
		row stripe "2 x gp2-1t striped" oltp_read_write stripe.gp2x2
		restore
		start "$RUN/d" --buffer-pool-size $POOL --emulate-volume io1-6k
		measure stripe.io1 oltp_read_write
		stop
		row stripe "1 x io1-6k" oltp_read_write stripe.io1
		;;
	log)
		"$HERE/cloudvol.sh" destroy iogovlog >/dev/null 2>&1 || true
		"$HERE/cloudvol.sh" create iogovlog --fs xfs --size 4G --iops 3000 --mbps 125 >/dev/null
		MNT=$("$HERE/cloudvol.sh" mnt iogovlog)
		WRAP=("$HERE/cloudvol.sh" exec iogovlog --)
		for where in shared own; do
			rm -rf "$MNT/d" "$RUN"; mkdir -p "$RUN"
			cp -a "$BASE/d" "$MNT/d"
			logdir="$MNT/d/log"
			if [ $where = own ]; then
				logdir=$RUN/log; cp -a "$BASE/d/log" "$logdir"
			fi
			start "$MNT/d" --log-dir "$logdir" --buffer-pool-size $POOL --torn-write-protection doublewrite
			measure log.$where oltp_write_only
			stop
			row log "log $( [ $where = shared ] && echo "on the data volume" || echo "on its own volume")" oltp_write_only log.$where
		done
		WRAP=()
		"$HERE/cloudvol.sh" destroy iogovlog >/dev/null
		;;
	*) echo "unknown part $part" >&2; exit 2 ;;
	esac
done
cat "$RES/summary.md"
