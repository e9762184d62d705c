#!/usr/bin/env bash
# bench/bigtxn.sh - transactions larger than the buffer pool and the redo
# log (engine EN-9, EN-10): the time of one INSERT ... SELECT copying a whole
# table and of one UPDATE of every row, strata against MariaDB 10.11 InnoDB
# with the same pool (128M) and log (256M), one statement at a time on each,
# each timed once both servers stopped writing in the background (quiesce).
#
#   bench/bigtxn.sh [--rows 2048000] [--pool 128M] [--log 256M] [--profile] [--keep]
#
# --keep saves both data directories once loaded ($BENCH_DIR/cache-ROWS)
# and starts from that copy on later runs with --keep (loading 2M rows
# takes minutes); delete the directory when the on-disk format changes.
#
# --profile saves a CPU profile of strata during each statement
# ($BENCH_DIR/results/*.pprof; go tool pprof -top to read them).
#
# The table is sysbench's shape (id, k, c CHAR(120), pad CHAR(60), KEY(k));
# 2,048,000 rows take ~450 MB in either engine. Work files under
# $BENCH_DIR (default /var/tmp/strata-bench-bigtxn); results in
# $BENCH_DIR/results/summary.md.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
DIR=${BENCH_DIR:-/var/tmp/strata-bench-bigtxn}
ROWS=2048000
POOL=128M
LOGSZ=256M
PROFILE=
KEEP=
while [ $# -gt 0 ]; do
	case "$1" in
	--rows) ROWS=$2; shift 2 ;;
	--pool) POOL=$2; shift 2 ;;
	--log) LOGSZ=$2; shift 2 ;;
	--profile) PROFILE=1; shift ;;
	--keep) KEEP=1; shift ;;
	*) echo "unknown option $1" >&2; exit 2 ;;
	esac
done
log() { echo "[$(date +%T)] $*" >&2; }
need=()
command -v mariadbd >/dev/null || need+=(mariadb-server)
command -v mariadb >/dev/null || need+=(mariadb-client)
if ((${#need[@]})); then
	apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}"
fi
RES=$DIR/results
rm -rf "$DIR/mariadb" "$DIR/strata"
mkdir -p "$DIR/mariadb/data" "$DIR/strata" "$RES"
MPORT=3317; SPORT=3318; METRICS=127.0.0.1:3319
cat >"$DIR/mariadb/my.cnf" <<EOF
[mariadbd]
datadir = $DIR/mariadb/data
socket = $DIR/mariadb/mysqld.sock
port = $MPORT
bind-address = 127.0.0.1
user = root
skip-log-bin
performance_schema = OFF
innodb_buffer_pool_size = $POOL
innodb_log_file_size = $LOGSZ
innodb_flush_method = O_DIRECT
innodb_flush_log_at_trx_commit = 1
innodb_doublewrite = ON
EOF
CACHE=$DIR/cache-$ROWS
LOADED=
if [ -n "$KEEP" ] && [ -d "$CACHE/strata" ] && [ -d "$CACHE/mariadb" ]; then
	cp -a "$CACHE/mariadb/." "$DIR/mariadb/data/"
	mkdir -p "$DIR/strata/data" && cp -a "$CACHE/strata/." "$DIR/strata/data/"
	LOADED=1
else
	mariadb-install-db --defaults-file="$DIR/mariadb/my.cnf" --auth-root-authentication-method=normal \
		--skip-test-db >"$DIR/mariadb/install.log" 2>&1
fi
(cd "$ROOT" && go build -o "$DIR/strata/strata" ./cmd/strata)
MPID= SPID=
start() {
	mariadbd --defaults-file="$DIR/mariadb/my.cnf" >>"$DIR/mariadb/err.log" 2>&1 &
	MPID=$!
	"$DIR/strata/strata" --datadir "$DIR/strata/data" --port $SPORT --buffer-pool-size $POOL \
		--log-capacity $LOGSZ --metrics-addr "${PROFILE:+$METRICS}" >>"$DIR/strata/strata.log" 2>&1 &
	SPID=$!
	for port in $MPORT $SPORT; do
		for _ in $(seq 1 120); do
			mariadb -h127.0.0.1 -P$port -uroot --skip-ssl -e 'select 1' >/dev/null 2>&1 && break
			sleep 0.5
		done
	done
}
trap 'kill $MPID $SPID 2>/dev/null || true; wait 2>/dev/null || true' EXIT
start
Q() { mariadb -h127.0.0.1 -P"$1" -uroot --skip-ssl -N big -e "$2"; }
# The source table: 1,000 rows, doubled by INSERT ... SELECT from a copy
# until it holds ROWS (each doubling is itself a large transaction).
for port in $MPORT $SPORT; do
	[ -n "$LOADED" ] && break
	mariadb -h127.0.0.1 -P$port -uroot --skip-ssl -e 'CREATE DATABASE big'
	Q $port "CREATE TABLE src (id INT AUTO_INCREMENT PRIMARY KEY, k INT NOT NULL, c CHAR(120) NOT NULL, pad CHAR(60) NOT NULL, KEY k_1 (k))"
	Q $port "CREATE TABLE tmp LIKE src"
	Q $port "INSERT INTO src (k, c, pad) SELECT a.n * 40 + b.n, REPEAT(CHAR(65 + (a.n + b.n) % 26), 119), REPEAT('p', 59) FROM
		(WITH RECURSIVE s(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM s WHERE n < 39) SELECT n FROM s) a,
		(WITH RECURSIVE s(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM s WHERE n < 24) SELECT n FROM s) b"
	t0=$SECONDS
	while [ "$(Q $port 'SELECT COUNT(*) FROM src')" -lt "$ROWS" ]; do
		Q $port "DELETE FROM tmp"
		Q $port "INSERT INTO tmp (k, c, pad) SELECT (k * 7 + id) % 50000, c, pad FROM src LIMIT $ROWS"
		Q $port "INSERT INTO src (k, c, pad) SELECT k, c, pad FROM tmp LIMIT $(( ROWS - $(Q $port 'SELECT COUNT(*) FROM src') ))"
	done
	Q $port "DROP TABLE tmp"
	Q $port "CREATE TABLE dst LIKE src"
	log "port $port: $(Q $port 'SELECT COUNT(*) FROM src') rows loaded in $((SECONDS - t0)) s"
done
if [ -n "$KEEP" ] && [ -z "$LOADED" ]; then # stop both cleanly, save the data, start again
	kill $MPID $SPID
	wait $MPID $SPID 2>/dev/null || true
	rm -rf "$CACHE" && mkdir -p "$CACHE"
	cp -a "$DIR/mariadb/data" "$CACHE/mariadb"
	cp -a "$DIR/strata/data" "$CACHE/strata"
	start
fi
timed() { # timed PORT SQL: seconds
	local s e
	s=$(date +%s.%N)
	if ! Q "$1" "$2" >/dev/null; then
		echo failed
		return
	fi
	e=$(date +%s.%N)
	awk -v s="$s" -v e="$e" 'BEGIN{printf "%.1f", e - s}'
}
# quiesce: each statement is timed on an idle machine. Wait until both
# servers stopped writing pages in the background (their flushed-page
# counters unchanged for 3 s; at most 90 s): MariaDB's page cleaner and
# purge after its statement, strata's cleaner and run frees after its own.
flushed() { # flushed PORT: the server's count of pages written so far
	mariadb -h127.0.0.1 -P"$1" -uroot --skip-ssl -N -e \
		"SHOW GLOBAL STATUS WHERE Variable_name IN ('Innodb_buffer_pool_pages_flushed', 'Strata_pool_pages_flushed')" |
		awk '{s += $2} END {print s + 0}'
}
quiesce() {
	local m s pm=-1 ps=-1 still=0
	for _ in $(seq 1 90); do
		m=$(flushed $MPORT); s=$(flushed $SPORT)
		if [ "$m" = "$pm" ] && [ "$s" = "$ps" ]; then
			still=$((still + 1))
			[ $still -ge 3 ] && return
		else
			still=0
		fi
		pm=$m ps=$s
		sleep 1
	done
	log "quiesce: still writing after 90 s"
}
{
	echo "| statement ($ROWS rows) | MariaDB s | strata s | strata / MariaDB |"
	echo "| --- | --- | --- | --- |"
} >"$RES/summary.md"
for stmt in "INSERT INTO dst SELECT * FROM src" "UPDATE src SET k = k + 1, c = REPLACE(c, 'A', 'B')"; do
	quiesce
	m=$(timed $MPORT "$stmt")
	quiesce
	if [ -n "$PROFILE" ]; then # 5-second profiles while the statement runs, merged after
		name=$(echo "$stmt" | cut -d' ' -f1)
		touch "$RES/.profiling"
		(i=0; while [ -e "$RES/.profiling" ]; do
			curl -s -o "$RES/$name.part$((i++)).pprof" "http://$METRICS/debug/pprof/profile?seconds=5"
		done) &
		PROF=$!
	fi
	s=$(timed $SPORT "$stmt")
	if [ -n "$PROFILE" ]; then
		rm -f "$RES/.profiling"
		wait $PROF || true
		go tool pprof -proto "$RES/$name".part*.pprof >"$RES/$name.pprof" 2>/dev/null && rm -f "$RES/$name".part*.pprof
	fi
	echo "| \`$stmt\` | $m | $s | $(awk -v a="$s" -v b="$m" 'BEGIN{if (a+0 > 0 && b+0 > 0) printf "%.2f", a/b; else print "-"}') |" >>"$RES/summary.md"
	log "$stmt: MariaDB $m s, strata $s s"
done
for port in $MPORT $SPORT; do
	echo "port $port: dst $(Q $port 'SELECT COUNT(*) FROM dst') rows, src SUM(k) via index $(Q $port 'SELECT SUM(k) FROM src FORCE INDEX (k_1) WHERE k >= 0') = via table $(Q $port 'SELECT SUM(k) FROM src')" >>"$RES/summary.md"
done
grep -E "Strata_(txn_spills|staged_commits|lock_escalations)" <(mariadb -h127.0.0.1 -P$SPORT -uroot --skip-ssl -N -e 'SHOW GLOBAL STATUS') >>"$RES/summary.md" || true
cat "$RES/summary.md"
