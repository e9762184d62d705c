#!/usr/bin/env bash
# bench/queries.sh - application queries on strata against MariaDB 10.11
# InnoDB, same data in memory, one run side by side: an orders / customers
# / products data set (--scale customers, 5x orders, 15x order lines: about
# 1M rows at the default 50,000), generated deterministically and loaded
# with 1,000-row INSERTs (the load time of each is reported), then joins,
# lookups through secondary indexes, GROUP BY reports, derived tables and
# a trigger-maintained table (bench/queries/main.go), each timed on both
# (median of --runs) with identical results required.
#
#   bench/queries.sh [--scale 50000] [--runs 3] [--bp 1G] [--only NAME]
#                    [--profile NAME]  # CPU profile of strata over query NAME
#                    [--before REV]    # also strata built at git revision REV, same data
#
# Work files under $BENCH_DIR (default /var/tmp/strata-bench-queries);
# the table in $BENCH_DIR/results/queries.md.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
DIR=${BENCH_DIR:-/var/tmp/strata-bench-queries}
SCALE=50000; RUNS=3; BP=1G; ONLY=; PROFILE=; BEFORE=
while [ $# -gt 0 ]; do
	case "$1" in
	--scale) SCALE=$2; shift 2 ;;
	--runs) RUNS=$2; shift 2 ;;
	--bp) BP=$2; shift 2 ;;
	--only) ONLY=$2; shift 2 ;;
	--profile) PROFILE=$2; shift 2 ;;
	--before) BEFORE=$2; shift 2 ;;
	*) echo "unknown option $1" >&2; exit 2 ;;
	esac
done
. "$HERE/lib/servers.sh"
install_servers
MPORT=3317; SPORT=3318; PPORT=9115; BPORT=3319
RES=$DIR/results
rm -rf "$DIR/mariadb" "$DIR/strata" "$DIR/strata-before"
mkdir -p "$RES" "$DIR/strata"
(cd "$ROOT" && go build -o "$DIR/strata/strata" ./cmd/strata && go build -o "$DIR/queries" ./bench/queries)
if [ -n "$BEFORE" ]; then
	mkdir -p "$DIR/strata-before"
	git -C "$ROOT" worktree add --detach "$DIR/src" "$BEFORE" >/dev/null
	(cd "$DIR/src" && go build -o "$DIR/strata-before/strata" ./cmd/strata)
	git -C "$ROOT" worktree remove --force "$DIR/src"
	echo "strata-before: $(git -C "$ROOT" log -1 --format='%h %s' "$BEFORE" | cut -c1-100)" >&2
fi
MARIADB_PID=; STRATA_PID=; BEFORE_PID=
trap 'kill $MARIADB_PID $STRATA_PID $BEFORE_PID 2>/dev/null || true; wait 2>/dev/null || true' EXIT
start_mariadb "$DIR/mariadb" $MPORT "$BP"
start_strata "$DIR/strata" $SPORT "$BP" $PPORT
args=(--scale "$SCALE" --runs "$RUNS" --dsn "mariadb=root@tcp(127.0.0.1:$MPORT)/" --dsn "strata=root@tcp(127.0.0.1:$SPORT)/")
if [ -n "$BEFORE" ]; then
	main_pid=$STRATA_PID
	start_strata "$DIR/strata-before" $BPORT "$BP" $((PPORT + 1))
	BEFORE_PID=$STRATA_PID; STRATA_PID=$main_pid
	wait_port $BPORT
	args+=(--dsn "strata-before=root@tcp(127.0.0.1:$BPORT)/")
fi
wait_port $MPORT
wait_port $SPORT
"$DIR/queries" "${args[@]}" --load-only
if [ -n "$PROFILE" ]; then
	curl -s -o "$RES/$PROFILE.cpu.pprof" "http://127.0.0.1:$PPORT/debug/pprof/profile?seconds=30" &
	prof=$!
	"$DIR/queries" --scale "$SCALE" --skip-load --runs 1000 --only "$PROFILE" --dsn "strata=root@tcp(127.0.0.1:$SPORT)/" >/dev/null 2>&1 &
	loop=$!
	wait $prof
	kill $loop 2>/dev/null || true
	echo "profile: $RES/$PROFILE.cpu.pprof" >&2
fi
"$DIR/queries" "${args[@]}" --skip-load ${ONLY:+--only "$ONLY"} | tee "$RES/queries.md"
