#!/usr/bin/env bash
# bench/atomic.sh - torn-write protection: doublewrite vs atomic page writes
# (issue 5), data larger than the buffer pool on an emulated cloud volume
# whose bandwidth binds, the volume declared atomic for the atomic runs
# (as ESSD / Nitro volumes are).
#
#   bench/atomic.sh [--pool 64M] [--profile gp3] [--mbps 40] [--tables 8] [--table-size 250000]
#                   [--threads 16] [--time 40] [--warmup 20] [--workloads "oltp_write_only oltp_read_write"]
#                   [--xfs [--iops 3000]]
#
# With --xfs the data volume is a real XFS filesystem on a loop device
# throttled by the blkio cgroup (bench/cloudvol.sh: --iops, --mbps), where
# atomic mode writes pages with pwritev2(RWF_ATOMIC); the redo log stays on
# the local disk.
#
# Uses the data set bench/bpe.sh prepares (same options), copied back
# before every run; each workload runs doublewrite, then atomic.
# Results: $BENCH_DIR/results-atomic/*.log and summary.md (QPS, p95, data
# volume write IOPS and MiB/s, bytes written to the data volume per
# transaction).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
DIR=${BENCH_DIR:-/var/tmp/strata-bench}
POOL=64M; PROFILE=gp3; MBPS=40; TABLES=8; TABLE_SIZE=250000; THREADS=16; TIME=40; WARMUP=20
WORKLOADS="oltp_write_only oltp_read_write"
XFS=0; IOPS=3000
while [ $# -gt 0 ]; do
	case "$1" in
	--pool) POOL=$2; shift 2 ;;
	--profile) PROFILE=$2; shift 2 ;;
	--mbps) MBPS=$2; shift 2 ;;
	--tables) TABLES=$2; shift 2 ;;
	--table-size) TABLE_SIZE=$2; shift 2 ;;
	--threads) THREADS=$2; shift 2 ;;
	--time) TIME=$2; shift 2 ;;
	--warmup) WARMUP=$2; shift 2 ;;
	--workloads) WORKLOADS=$2; shift 2 ;;
	--xfs) XFS=1; shift ;;
	--iops) IOPS=$2; shift 2 ;;
	*) echo "unknown option $1" >&2; exit 2 ;;
	esac
done
log() { echo "[$(date +%T)] $*" >&2; }
BASE=$DIR/bpe-base
if [ ! -f "$BASE/.prepared-$TABLES-$TABLE_SIZE" ]; then
	"$HERE/bpe.sh" --tables "$TABLES" --table-size "$TABLE_SIZE" --workloads "" >/dev/null
fi
RES=$DIR/results-atomic; [ $XFS = 1 ] && RES=$DIR/results-atomic-xfs
BIN=$DIR/strata-atomic-bin
PORT=3310
mkdir -p "$RES"
(cd "$ROOT" && go build -o "$BIN" ./cmd/strata)
SPID=""
trap '[ -z "$SPID" ] || kill $SPID 2>/dev/null || true' EXIT
WRAP=()
if [ $XFS = 1 ]; then
	"$HERE/cloudvol.sh" destroy atomicxfs 2>/dev/null || true
	"$HERE/cloudvol.sh" create atomicxfs --fs xfs --size 3G --iops "$IOPS" --mbps "$MBPS"
	MNT=$("$HERE/cloudvol.sh" mnt atomicxfs)
	WRAP=("$HERE/cloudvol.sh" exec atomicxfs --)
	trap '[ -z "$SPID" ] || kill $SPID 2>/dev/null || true; "$HERE/cloudvol.sh" destroy atomicxfs' EXIT
fi
start() {
	local d=$1; shift
	"${WRAP[@]}" "$BIN" --datadir "$d" --port $PORT --metrics-addr "" --log-capacity 512M "$@" >"$d.log" 2>&1 &
	SPID=$!
	for _ in $(seq 1 240); do
		mariadb -h127.0.0.1 -P$PORT -uroot -e 'select 1' >/dev/null 2>&1 && return 0
		kill -0 $SPID 2>/dev/null || { tail "$d.log"; exit 1; }
		sleep 0.5
	done
	exit 1
}
stop() { kill -TERM $SPID; wait $SPID || true; SPID=""; }
SB() { sysbench "$1" --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=$PORT --mysql-user=root \
	--mysql-db=sbtest --tables="$TABLES" --table-size="$TABLE_SIZE" "${@:2}"; }
STATUS() { mariadb -h127.0.0.1 -P$PORT -uroot -N -B -e "SHOW GLOBAL STATUS LIKE 'Strata%'"; }
val() { awk -v k="$1" '$1==k {print $2}' "$2"; }
echo "| workload | protection | QPS | p95 ms | data volume write IOPS | write MiB/s | data bytes written / txn | doublewrite pages / txn |" >"$RES/summary.md"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |" >>"$RES/summary.md"
for w in $WORKLOADS; do
	for mode in doublewrite atomic; do
		RUN=$DIR/atomic-run
		rm -rf "$RUN"; mkdir -p "$RUN"; cp -a "$BASE/d" "$RUN/d"
		if [ $XFS = 1 ]; then
			rm -rf "$MNT/data"; cp -a "$RUN/d/data" "$MNT/data"; rm -rf "$RUN/d/data"; sync
			start "$RUN/d" --buffer-pool-size "$POOL" --data-dir "$MNT/data" --torn-write-protection $mode
		else
			start "$RUN/d" --buffer-pool-size "$POOL" --emulate-volume "$PROFILE" --volume-mbps "$MBPS" \
				--volume-atomic --torn-write-protection $mode
		fi
		grep -o 'torn-write protection[^"]*' "$RUN/d.log" | head -1 >&2 || true
		opts=(--threads="$THREADS" --rand-type=special --rand-spec-pct=15)
		SB "$w" "${opts[@]}" --time="$WARMUP" run >/dev/null
		STATUS >"$RES/$w.$mode.before"
		SB "$w" "${opts[@]}" --time="$TIME" run >"$RES/$w.$mode.log"
		STATUS >"$RES/$w.$mode.after"
		stop
		b=$RES/$w.$mode.before; a=$RES/$w.$mode.after
		d() { echo $(( $(val "$1" "$a") - $(val "$1" "$b") )); }
		wr=$(d Strata_volume_writes_data); wb=$(d Strata_volume_written_bytes_data); tx=$(d Strata_commits); dw=$(d Strata_doublewrite_pages)
		qps=$(grep -oP 'queries:\s+\d+\s+\(\K[0-9.]+' "$RES/$w.$mode.log")
		p95=$(grep -oP '95th percentile:\s+\K[0-9.]+' "$RES/$w.$mode.log")
		row=$(awk -v w="$w" -v m="$mode" -v q="$qps" -v p="$p95" -v wr="$wr" -v wb="$wb" -v tx="$tx" -v dw="$dw" -v t="$TIME" \
			'BEGIN{printf "| %s | %s | %.0f | %s | %.0f | %.1f | %.0f | %.2f |", w, m, q, p, wr/t, wb/t/1048576, (tx>0?wb/tx:0), (tx>0?dw/tx:0)}')
		echo "$row" >>"$RES/summary.md"
		log "$row"
	done
done
cat "$RES/summary.md"
