#!/usr/bin/env bash
# bench/bpe.sh - sysbench QPS with the buffer pool extension on vs off, data
# larger than the buffer pool on an emulated cloud data volume (issue 4).
#
#   bench/bpe.sh [--pool 64M] [--bpe 1G] [--profile gp3] [--tables 8] [--table-size 250000]
#                [--threads 16] [--time 40] [--warmup 20] [--workloads "oltp_read_only ..."]
#                [--configs "off on on-second"]
#
# The data set is prepared once (no emulation, large pool) and copied back
# before every run; each workload runs BPE off, then BPE on. The BPE file
# lives under $BENCH_DIR on the local disk; it is deleted before each run (a
# restored data directory must never meet a BPE from another run).
# Results: $BENCH_DIR/results-bpe/*.log and summary.md.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
DIR=${BENCH_DIR:-/var/tmp/strata-bench}
POOL=64M; BPE=1G; PROFILE=gp3; TABLES=8; TABLE_SIZE=250000; THREADS=16; TIME=40; WARMUP=20
WORKLOADS="oltp_read_only oltp_write_only oltp_read_write"
CONFIGS="off on"   # off, on (admission all), on-second (admission on second eviction)
while [ $# -gt 0 ]; do
	case "$1" in
	--pool) POOL=$2; shift 2 ;;
	--bpe) BPE=$2; shift 2 ;;
	--profile) PROFILE=$2; shift 2 ;;
	--tables) TABLES=$2; shift 2 ;;
	--table-size) TABLE_SIZE=$2; shift 2 ;;
	--threads) THREADS=$2; shift 2 ;;
	--time) TIME=$2; shift 2 ;;
	--warmup) WARMUP=$2; shift 2 ;;
	--workloads) WORKLOADS=$2; shift 2 ;;
	--configs) CONFIGS=$2; shift 2 ;;
	*) echo "unknown option $1" >&2; exit 2 ;;
	esac
done
log() { echo "[$(date +%T)] $*" >&2; }
command -v sysbench >/dev/null || { apt-get update -q && apt-get install -y -q sysbench mariadb-client; }

RES=$DIR/results-bpe
BIN=$DIR/strata-bpe-bin
PORT=3309
mkdir -p "$DIR" "$RES"
(cd "$ROOT" && go build -o "$BIN" ./cmd/strata)

SPID=""
start() { # start DATADIR ARGS...
	local d=$1; shift
	"$BIN" --datadir "$d" --port $PORT --metrics-addr "" --log-capacity 512M "$@" >"$d.log" 2>&1 &
	SPID=$!
	for _ in $(seq 1 240); do
		mariadb -h127.0.0.1 -P$PORT -uroot -e 'select 1' >/dev/null 2>&1 && return 0
		kill -0 $SPID 2>/dev/null || { tail "$d.log"; exit 1; }
		sleep 0.5
	done
	echo "strata did not start" >&2; exit 1
}
stop() { kill -TERM $SPID; wait $SPID || true; SPID=""; }
trap '[ -z "$SPID" ] || kill $SPID 2>/dev/null || true' EXIT
SB() { sysbench "$1" --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=$PORT --mysql-user=root \
	--mysql-db=sbtest --tables="$TABLES" --table-size="$TABLE_SIZE" "${@:2}"; }
STATUS() { mariadb -h127.0.0.1 -P$PORT -uroot -N -B -e "SHOW GLOBAL STATUS LIKE 'Strata%'"; }

BASE=$DIR/bpe-base
if [ ! -f "$BASE/.prepared-$TABLES-$TABLE_SIZE" ]; then
	rm -rf "$BASE"; mkdir -p "$BASE"
	start "$BASE/d" --buffer-pool-size 2G
	mariadb -h127.0.0.1 -P$PORT -uroot -e 'CREATE DATABASE sbtest'
	t0=$SECONDS
	SB oltp_read_write --threads="$TABLES" prepare >"$RES/prepare.log"
	stop
	touch "$BASE/.prepared-$TABLES-$TABLE_SIZE"
	log "prepared $TABLES x $TABLE_SIZE rows in $((SECONDS - t0)) s: $(du -sh "$BASE/d/data" | cut -f1) of data"
fi

val() { awk -v k="$1" '$1==k {print $2}' "$2"; }
echo "| workload | BPE | QPS | p95 ms | pool hit ratio | BPE hit ratio | data volume read IOPS | write IOPS |" >"$RES/summary.md"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |" >>"$RES/summary.md"
for w in $WORKLOADS; do
	for bpe in $CONFIGS; do
		RUN=$DIR/bpe-run
		rm -rf "$RUN" "$DIR/bpe.cache" "$DIR/bpe.cache.index"
		mkdir -p "$RUN"; cp -a "$BASE/d" "$RUN/d"
		size=0; [ $bpe != off ] && size=$BPE
		adm=all; [ $bpe = on-second ] && adm=second
		start "$RUN/d" --buffer-pool-size "$POOL" --emulate-volume "$PROFILE" --bpe-path "$DIR/bpe.cache" \
			--bpe-size "$size" --bpe-admission $adm
		opts=(--threads="$THREADS" --rand-type=special --rand-spec-pct=15)
		SB "$w" "${opts[@]}" --time="$WARMUP" run >/dev/null
		STATUS >"$RES/$w.$bpe.before"
		SB "$w" "${opts[@]}" --time="$TIME" run >"$RES/$w.$bpe.log"
		STATUS >"$RES/$w.$bpe.after"
		stop
		b=$RES/$w.$bpe.before; a=$RES/$w.$bpe.after
		d() { echo $(( $(val "$1" "$a") - $(val "$1" "$b") )); }
		ph=$(d Strata_pool_hits); pm=$(d Strata_pool_misses); bh=$(d Strata_bpe_hits); bm=$(d Strata_bpe_misses)
		rd=$(d Strata_volume_reads_data); wr=$(d Strata_volume_writes_data)
		qps=$(grep -oP 'queries:\s+\d+\s+\(\K[0-9.]+' "$a/../$w.$bpe.log" 2>/dev/null || grep -oP 'queries:\s+\d+\s+\(\K[0-9.]+' "$RES/$w.$bpe.log")
		p95=$(grep -oP '95th percentile:\s+\K[0-9.]+' "$RES/$w.$bpe.log")
		row=$(awk -v w="$w" -v bpe="$bpe" -v q="$qps" -v p="$p95" -v ph="$ph" -v pm="$pm" -v bh="$bh" -v bm="$bm" -v rd="$rd" -v wr="$wr" -v t="$TIME" \
			'BEGIN{pr=(ph+pm)>0?ph/(ph+pm):0; br=(bh+bm)>0?bh/(bh+bm):0; printf "| %s | %s | %.0f | %s | %.3f | %.3f | %.0f | %.0f |", w, bpe, q, p, pr, br, rd/t, wr/t}')
		echo "$row" >>"$RES/summary.md"
		log "$row"
	done
done
cat "$RES/summary.md"
