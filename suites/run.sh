#!/usr/bin/env bash
# suites/run.sh: run test suites written by other projects against strata and
# against MariaDB side by side, and report what passes where.
#
#   suites/run.sh [options] gosqldriver      go-sql-driver/mysql's own tests (the version in go.mod)
#   suites/run.sh [options] mariadb-test     MariaDB's mysql-test cases replayed with mariadb-test
#
# Options (before or after the suite name):
#   --out DIR        results directory (default: a new /tmp/strata-suites-out.XXXXXX)
#   --check          regression gate: run only the cases listed in suites/SUITE.pass,
#                    on strata only, and fail if any of them no longer passes
#   --update-pass    after a full run, rewrite suites/SUITE.pass with what passes on strata
#   --strata-only    do not start MariaDB (no side-by-side column)
#   --keep           keep the temporary work directory (server data dirs, logs)
#   --rev COMMIT     build strata from this commit (a clean git archive export)
#                    instead of the working tree, e.g. --rev HEAD
#   --timeout S      per test / per case time limit in seconds (default 30; gosqldriver 120)
#   mariadb-test only:
#   --pattern GLOB   case-name glob (repeatable, or comma separated; default: the DML/DDL/
#                    types/functions/joins/transactions set below)
#   --suite NAME     mysql-test suite directory (default main)
#   --stop-on-error  stop a case at its first failing statement (mtr's way; faster)
#                    instead of running it through (--continue-on-error) to count
#                    the output lines and statements strata gets right
#   --limit N        run at most N cases (after sorting)
#
# Environment: STRATA_BIN (use this binary instead of building ./cmd/strata),
# MTR_DIR (the mysql-test directory; default found through dpkg).
#
# Each suite starts its own servers on free ports in a temporary directory and
# stops them on exit. Results: OUT/SUITE/results.tsv (one row per test or case:
# name, strata status, MariaDB status, ...) and OUT/SUITE/summary.txt (the
# counts side by side, also printed).
set -euo pipefail

SUITES_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SUITES_DIR/.." && pwd)

DEFAULT_PATTERNS='insert*,update*,delete*,select*,join*,type_*,func_*,create*,alter*,commit*,rollback*,trans*,subselect*,group_by*,order_by*,union*,having*,limit*,null*,default*,auto_increment*,replace*,truncate*'

die() { echo "run.sh: $*" >&2; exit 2; }
log() { echo "run.sh: $*" >&2; }

usage() { sed -n '2,/^[^#]/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit "${1:-2}"; }

SUITE=
OUT=
CHECK=0
UPDATE_PASS=0
STRATA_ONLY=0
KEEP=0
TIMEOUT=
PATTERNS=
MTR_SUITE=main
LIMIT=0
STOP_ON_ERROR=0
REV=
while (($#)); do
	case $1 in
	gosqldriver | mariadb-test) [[ -z $SUITE ]] || die "one suite at a time"; SUITE=$1 ;;
	--out) OUT=${2:?--out DIR}; shift ;;
	--out=*) OUT=${1#*=} ;;
	--check) CHECK=1 ;;
	--update-pass) UPDATE_PASS=1 ;;
	--strata-only) STRATA_ONLY=1 ;;
	--keep) KEEP=1 ;;
	--rev) REV=${2:?--rev COMMIT}; shift ;;
	--rev=*) REV=${1#*=} ;;
	--timeout) TIMEOUT=${2:?--timeout S}; shift ;;
	--timeout=*) TIMEOUT=${1#*=} ;;
	--pattern) PATTERNS+=${PATTERNS:+,}${2:?--pattern GLOB}; shift ;;
	--pattern=*) PATTERNS+=${PATTERNS:+,}${1#*=} ;;
	--suite) MTR_SUITE=${2:?--suite NAME}; shift ;;
	--suite=*) MTR_SUITE=${1#*=} ;;
	--stop-on-error) STOP_ON_ERROR=1 ;;
	--limit) LIMIT=${2:?--limit N}; shift ;;
	--limit=*) LIMIT=${1#*=} ;;
	-h | --help) usage 0 ;;
	*) echo "run.sh: unknown argument: $1" >&2; usage ;;
	esac
	shift
done
[[ -n $SUITE ]] || usage
((CHECK && UPDATE_PASS)) && die "--check and --update-pass exclude each other"
((CHECK)) && STRATA_ONLY=1
[[ -n $TIMEOUT ]] || { [[ $SUITE == gosqldriver ]] && TIMEOUT=120 || TIMEOUT=30; }
PASS_FILE=$SUITES_DIR/$SUITE.pass

for t in mariadb timeout perl; do
	command -v $t >/dev/null || die "$t not found (apt-get install mariadb-client coreutils perl)"
done
if ((!STRATA_ONLY)); then
	for t in mariadbd mariadb-install-db; do
		command -v $t >/dev/null || die "$t not found (apt-get install mariadb-server)"
	done
fi

WORK=$(mktemp -d /tmp/strata-suites.XXXXXX)
[[ -n $OUT ]] || OUT=$(mktemp -d /tmp/strata-suites-out.XXXXXX)
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
RES=$OUT/$SUITE
rm -rf "$RES"
mkdir -p "$RES"

declare -A PID=() PORT=()
SERVERS=(strata)
((STRATA_ONLY)) || SERVERS+=(mariadb)

stop_server() { # NAME [GRACE]: SIGTERM, then SIGKILL after GRACE seconds (20)
	local p=${PID[$1]:-} grace=${2:-20}
	[[ -n $p ]] || return 0
	if kill -0 "$p" 2>/dev/null; then
		kill -TERM "$p" 2>/dev/null || true
		for ((i = 0; i < grace * 10; i++)); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -0 "$p" 2>/dev/null && kill -KILL "$p" 2>/dev/null
	fi
	wait "$p" 2>/dev/null || true
	PID[$1]=
}

# waitchild: wait for the job just started in the background ($!), so that
# a signal to this script is handled at once rather than after the job.
CHILD=
waitchild() {
	CHILD=$!
	local rc=0
	wait "$CHILD" || rc=$?
	CHILD=
	return $rc
}

cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	[[ -z $CHILD ]] || kill -TERM "$CHILD" 2>/dev/null || true
	for s in "${!PID[@]}"; do stop_server "$s"; done
	if ((KEEP)); then log "work directory kept: $WORK"; else rm -rf "$WORK"; fi
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Ports come from below Linux's ephemeral range (32768-60999 by default), so an
# outgoing connection's local port cannot take one between the probe and the
# server's bind; a server that still meets EADDRINUSE is restarted on another
# port (bound_elsewhere).
free_port() {
	local p
	for ((i = 0; i < 500; i++)); do
		p=$((10000 + RANDOM % 22000))
		[[ " ${PORT[*]} " == *" $p "* ]] && continue
		(exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null && continue
		echo "$p"
		return
	done
	die "no free port"
}

sql() { # NAME SQL...: run statements on a server, tab-separated output without headers
	local s=$1
	shift
	timeout 30 mariadb --no-defaults --protocol=tcp -h127.0.0.1 -P"${PORT[$s]}" -uroot -N -B -e "$*"
}

alive() { [[ -n ${PID[$1]:-} ]] && kill -0 "${PID[$1]}" 2>/dev/null; }

bound_elsewhere() { # NAME LOGLINE: the server's log since LOGLINE says its port was taken
	tail -n +"$2" "$WORK/$1.log" 2>/dev/null | grep -qi 'address already in use'
}

wait_up() { # NAME
	for ((i = 0; i < 600; i++)); do
		alive "$1" || { tail -20 "$WORK/$1.log" >&2; return 1; }
		sql "$1" 'SELECT 1' >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	tail -20 "$WORK/$1.log" >&2
	return 1
}

STRATA_BIN=${STRATA_BIN:-}
if [[ -n $REV ]]; then
	STRATA_COMMIT=$(cd "$REPO" && git rev-parse --short "$REV^{commit}") || die "no commit $REV"
	[[ -z $STRATA_BIN ]] || die "--rev and STRATA_BIN exclude each other"
	log "building strata $STRATA_COMMIT from a clean export"
	mkdir -p "$WORK/src"
	(cd "$REPO" && git archive "$STRATA_COMMIT" | tar -x -C "$WORK/src") || die "git archive failed"
	(cd "$WORK/src" && go build -o "$WORK/strata" ./cmd/strata) || die "go build failed"
	STRATA_BIN=$WORK/strata
else
	STRATA_COMMIT=$(cd "$REPO" && git rev-parse --short HEAD 2>/dev/null || echo unknown)
	if [[ -n $(cd "$REPO" && git status --porcelain --untracked-files=no 2>/dev/null) ]]; then
		STRATA_COMMIT+="+dirty"
	fi
	if [[ -z $STRATA_BIN ]]; then
		log "building strata from the working tree"
		(cd "$REPO" && go build -o "$WORK/strata" ./cmd/strata) || die "go build failed"
		STRATA_BIN=$WORK/strata
	else
		[[ $STRATA_BIN == /* ]] || STRATA_BIN=$PWD/$STRATA_BIN
		STRATA_COMMIT="$STRATA_BIN (binary given; tree at $STRATA_COMMIT)"
	fi
fi

start_strata() {
	local from try
	mkdir -p "$WORK/strata-data" "$STRATA_CWD"
	[[ -n ${PORT[strata]:-} ]] || PORT[strata]=$(free_port)
	for ((try = 0; try < 5; try++)); do
		from=$(($( { wc -l <"$WORK/strata.log"; } 2>/dev/null || echo 0) + 1))
		# Run from a directory of our own: SELECT ... INTO OUTFILE 'x' writes
		# relative to the server's working directory. mariadb-test cases name
		# files relative to the data directory (../../tmp/x), hence var/strata.1/data.
		(cd "$STRATA_CWD" && exec "$STRATA_BIN" --datadir "$WORK/strata-data" --port "${PORT[strata]}" \
			--metrics-addr "" --sync-commit=false "${STRATA_OPTS[@]}") >>"$WORK/strata.log" 2>&1 &
		PID[strata]=$!
		wait_up strata && break
		bound_elsewhere strata "$from" || die "strata did not start (log above)"
		log "strata: port ${PORT[strata]} was taken; trying another"
		PORT[strata]=$(free_port)
	done
	((try < 5)) || die "strata did not start (log above)"
	if [[ -n $STRATA_INIT_SQL ]]; then
		sql strata "$STRATA_INIT_SQL" >/dev/null || log "strata: '$STRATA_INIT_SQL' failed"
	fi
}

# Server settings per suite: those the suite's own CI gives its server
# (MariaDB as options; strata, which takes no such options, as SET GLOBAL).
MARIADB_OPTS=()
STRATA_OPTS=()
STRATA_INIT_SQL=
MARIADB_DATADIR=
STRATA_CWD=$WORK/var/strata.1/data
MARIADB_INIT_FILES=() # SQL files loaded into the mysql schema after the install
start_mariadb() {
	local d=${MARIADB_DATADIR:-$WORK/mariadb-data} f fresh=0
	if [[ ! -d $d ]]; then
		mkdir -p "$d"
		mariadb-install-db --no-defaults --datadir="$d" --user="$(id -un)" \
			--auth-root-authentication-method=normal >"$WORK/mariadb-install.log" 2>&1 ||
			{ tail -20 "$WORK/mariadb-install.log" >&2; die "mariadb-install-db failed"; }
		fresh=1
	fi
	[[ -n ${PORT[mariadb]:-} ]] || PORT[mariadb]=$(free_port)
	local from try
	for ((try = 0; try < 5; try++)); do
		from=$(($( { wc -l <"$WORK/mariadb.log"; } 2>/dev/null || echo 0) + 1))
		mariadbd --no-defaults --datadir="$d" --port="${PORT[mariadb]}" --socket="$d/sock" \
			--bind-address=127.0.0.1 --user="$(id -un)" --pid-file="$d/mariadbd.pid" \
			"${MARIADB_OPTS[@]}" >>"$WORK/mariadb.log" 2>&1 &
		PID[mariadb]=$!
		wait_up mariadb && break
		bound_elsewhere mariadb "$from" || die "mariadbd did not start (log above)"
		log "mariadb: port ${PORT[mariadb]} was taken; trying another"
		PORT[mariadb]=$(free_port)
	done
	((try < 5)) || die "mariadbd did not start (log above)"
	if ((fresh)); then
		for f in "${MARIADB_INIT_FILES[@]}"; do
			timeout 120 mariadb --no-defaults --protocol=tcp -h127.0.0.1 -P"${PORT[mariadb]}" -uroot mysql <"$f" ||
				log "mariadb: loading $f failed"
		done
	fi
}

start() { "start_$1"; }
restart() { # NAME [GRACE]: after a crash or a hang
	log "restarting $1"
	stop_server "$1" "${2:-20}"
	start "$1"
}

# panics FILE [OFFSET]: the panics strata's log reports (recovered by the
# server, the client loses its connection), one line each: message @ first
# non-runtime frame.
panics() {
	tail -c +$((${2:-0} + 1)) "$1" 2>/dev/null | REPO=$REPO perl -ne '
		next unless /caught panic:\\n(.*?)\\n(.*?)"$/; my ($m, $st) = ($1, $2);
		my $at = "";
		for my $f ($st =~ /(\/[^\s()]+\.go:\d+)/g) {
			next if $f =~ m{/usr/local/go/|/runtime/};
			($at = $f) =~ s{^.*/pkg/mod/}{}; $at =~ s{^\Q$ENV{REPO}\E/}{};
			last;
		}
		print "strata panicked: $m @ $at\n";'
}

server_version() { sql "$1" 'SELECT VERSION()' 2>/dev/null || echo "?"; }

# ---------------------------------------------------------------------------
# go-sql-driver/mysql

GSD_MOD=github.com/go-sql-driver/mysql

gsd_prepare() {
	local v dir
	v=$(cd "$REPO" && go list -m -f '{{.Version}}' $GSD_MOD) || die "go list -m $GSD_MOD failed"
	(cd "$REPO" && go mod download $GSD_MOD@"$v") || die "go mod download failed"
	dir=$(cd "$REPO" && go list -m -f '{{.Dir}}' $GSD_MOD) || die "no module dir"
	GSD_VERSION=$v
	# The module cache is read-only: test from a copy.
	cp -r "$dir" "$WORK/gsd"
	chmod -R u+w "$WORK/gsd"
	log "compiling the tests of $GSD_MOD $v"
	(cd "$WORK/gsd" && GOWORK=off GOFLAGS=-mod=mod go test -c -o "$WORK/gsd.test" .) || die "go test -c failed"
	TEST2JSON=$WORK/test2json
	(cd "$WORK" && GOWORK=off go build -o "$TEST2JSON" cmd/test2json) || die "go build cmd/test2json failed"
	"$WORK/gsd.test" -test.list '.*' | grep -E '^(Test|Fuzz|Example)' >"$WORK/gsd.tests"
}

# gsd_run LABEL ADDR TESTS-FILE: run each top-level test in its own process (a
# panic or hang then costs one test, not the rest), append test2json output to
# RES/LABEL.json and write RES/LABEL.status (name<TAB>pass|fail|skip|timeout|crash).
gsd_run() {
	local label=$1 addr=$2 list=$3 json=$RES/$1.json rc t
	: >"$json"
	: >"$RES/$label.crashed"
	while read -r t; do
		[[ -n $t ]] || continue
		rc=0
		(cd "$WORK/gsd" && MYSQL_TEST_USER=root MYSQL_TEST_PASS= MYSQL_TEST_PROT=tcp \
			MYSQL_TEST_ADDR=$addr MYSQL_TEST_DBNAME=gotest MYSQL_TEST_CONCURRENT=1 \
			exec timeout -k 5 $((TIMEOUT + 10)) "$TEST2JSON" -t -p $GSD_MOD "$WORK/gsd.test" \
			-test.v=test2json -test.count=1 -test.timeout="${TIMEOUT}s" -test.run="^${t}\$") \
			>>"$json" 2>&1 </dev/null &
		waitchild || rc=$?
		if ((rc == 124 || rc == 137)); then
			printf '%s\ttimeout\n' "$t" >>"$RES/$label.crashed"
		elif ((rc != 0)); then
			printf '%s\tcrash\n' "$t" >>"$RES/$label.crashed"
		fi
		if [[ $label != noserver ]] && ! alive "$label"; then
			log "$label died during $t"
			printf '%s\tserver-died\n' "$t" >>"$RES/$label.crashed"
			restart "$label"
			sql "$label" 'CREATE DATABASE IF NOT EXISTS gotest' || true
		fi
	done <"$list"
	# Final action per test name; a top-level test the process never reported
	# on (panic, time limit) gets the crash/timeout/notrun status.
	perl -e '
		my ($json, $crashed, $list) = @ARGV; my (%st, @order);
		open my $j, "<", $json or die; while (<$j>) {
			next unless /"Action":"(pass|fail|skip)"/; my $a = $1;
			next unless /"Test":"((?:[^"\\]|\\.)*)"/;
			push @order, $1 unless exists $st{$1}; $st{$1} = $a;
		}
		open my $c, "<", $crashed or die; while (<$c>) {
			chomp; my ($t, $s) = split /\t/;
			$st{$t} = $s if !exists $st{$t} || $s eq "timeout" || $st{$t} eq "pass";
		}
		open my $l, "<", $list or die; while (<$l>) { chomp; $st{$_} //= "notrun" if length }
		print "$_\t$st{$_}\n" for sort keys %st;' "$json" "$RES/$label.crashed" "$list" >"$RES/$label.status"
}

gsd_counts() { # STATUS-FILE: "pass fail skip other" for top-level tests, then for subtests
	awk -F'\t' '{ k = ($1 ~ /\//) ? "sub" : "top"; s = $2
		if (s != "pass" && s != "fail" && s != "skip") s = "other"; n[k, s]++ }
		END { printf "%d %d %d %d %d %d %d %d\n", n["top","pass"], n["top","fail"], n["top","skip"], n["top","other"],
			n["sub","pass"], n["sub","fail"], n["sub","skip"], n["sub","other"] }' "$1"
}

suite_gosqldriver() {
	gsd_prepare
	MARIADB_OPTS=(--max-allowed-packet=16M --max-connections=50 --local-infile=1
		--performance-schema=ON --innodb-buffer-pool-size=512M --innodb-log-file-size=256M
		--innodb-flush-log-at-trx-commit=2)
	STRATA_INIT_SQL='SET GLOBAL local_infile = 1'
	# The driver's CI servers speak TLS (TestTLS, TestIssue1567); give MariaDB
	# mtr's test certificates when mariadb-test-data is installed.
	local mtr
	if mtr=$(find_mtr_dir 2>/dev/null) && [[ -f $mtr/std_data/server-cert.pem ]]; then
		MARIADB_OPTS+=(--ssl-ca="$mtr/std_data/cacert.pem" --ssl-cert="$mtr/std_data/server-cert.pem"
			--ssl-key="$mtr/std_data/server-key.pem")
	fi
	local s list=$WORK/gsd.tests
	for s in "${SERVERS[@]}"; do
		start "$s"
		sql "$s" 'CREATE DATABASE IF NOT EXISTS gotest' || die "CREATE DATABASE gotest failed on $s"
	done
	if ((CHECK)); then
		[[ -f $PASS_FILE ]] || die "no $PASS_FILE"
		grep -v '^#' "$PASS_FILE" | sed 's,/.*,,' | sort -u >"$WORK/check.tests"
		list=$WORK/check.tests
	fi
	for s in "${SERVERS[@]}"; do
		log "go-sql-driver tests on $s ($(wc -l <"$list") tests)"
		gsd_run "$s" "127.0.0.1:${PORT[$s]}" "$list"
	done
	if ((CHECK)); then
		gsd_check
		return
	fi
	# Without a server: the tests that pass here do not talk to a server (DSN
	# parsing, packet codec against a mock); the ones that skip are the server tests.
	log "go-sql-driver tests without a server"
	gsd_run noserver "127.0.0.1:$(free_port)" "$list"

	local cols=(strata)
	((STRATA_ONLY)) || cols+=(mariadb)
	cols+=(noserver)
	perl -e '
		my @cols = @ARGV; my (%st, %names);
		for my $c (@cols) {
			open my $f, "<", "'"$RES"'/$c.status" or die;
			while (<$f>) { chomp; my ($t, $s) = split /\t/; $st{$c}{$t} = $s; $names{$t} = 1 }
		}
		print join("\t", "test", @cols), "\n";
		for my $t (sort keys %names) { print join("\t", $t, map { $st{$_}{$t} // "-" } @cols), "\n" }
	' "${cols[@]}" >"$RES/results.tsv"
	gsd_summary "${cols[@]}" | tee "$RES/summary.txt"
	if ((UPDATE_PASS)); then
		{
			echo "# go-sql-driver/mysql $GSD_VERSION tests (top-level and subtests) that pass on strata."
			echo "# suites/run.sh --check gosqldriver fails if one of them stops passing."
			echo "# Regenerate: suites/run.sh --update-pass gosqldriver (strata $STRATA_COMMIT)."
			awk -F'\t' '$2 == "pass" { print $1 }' "$RES/strata.status"
		} >"$PASS_FILE"
		log "wrote $PASS_FILE ($(grep -vc '^#' "$PASS_FILE") names)"
	fi
}

gsd_summary() {
	local c top sub
	echo "go-sql-driver/mysql $GSD_VERSION test suite; strata $STRATA_COMMIT ($(server_version strata))"
	((STRATA_ONLY)) || echo "MariaDB $(server_version mariadb)"
	echo
	printf '%-10s %27s   %27s\n' "" "top-level tests" "subtests"
	printf '%-10s %6s %6s %6s %6s   %6s %6s %6s %6s\n' server pass fail skip other pass fail skip other
	for c in "$@"; do
		# shellcheck disable=SC2046
		printf '%-10s %6s %6s %6s %6s   %6s %6s %6s %6s\n' "$c" $(gsd_counts "$RES/$c.status")
	done
	echo
	local server_tests
	server_tests=$(awk -F'\t' '$1 !~ /\// && $NF == "skip"' "$RES/results.tsv" | wc -l)
	echo "top-level tests that need a server (skip without one): $server_tests"
	awk -F'\t' 'NR > 1 && $1 !~ /\// && $NF == "skip" { n++; s[$2]++ } END {
		printf "  of these, on strata: %d pass, %d fail, %d skip, %d other\n", s["pass"], s["fail"], s["skip"], n - s["pass"] - s["fail"] - s["skip"] }' "$RES/results.tsv"
	if ((!STRATA_ONLY)); then
		awk -F'\t' 'NR > 1 && $1 !~ /\// && $NF == "skip" { n++; s[$3]++ } END {
			printf "  of these, on MariaDB: %d pass, %d fail, %d skip, %d other\n", s["pass"], s["fail"], s["skip"], n - s["pass"] - s["fail"] - s["skip"] }' "$RES/results.tsv"
		echo
		echo "top-level tests passing on MariaDB but not on strata:"
		awk -F'\t' 'NR > 1 && $1 !~ /\// && $3 == "pass" && $2 != "pass" { printf "  %s (%s)\n", $1, $2 }' "$RES/results.tsv"
		echo "top-level tests passing on strata but not on MariaDB:"
		awk -F'\t' 'NR > 1 && $1 !~ /\// && $2 == "pass" && $3 != "pass" { printf "  %s (%s)\n", $1, $3 }' "$RES/results.tsv"
	fi
	echo
	echo "first failure messages on strata (top-level tests not passing on strata):"
	gsd_messages "$RES/strata.json" "$RES/strata.status"
	echo
	echo "panics in strata's log during the run (the client loses its connection):"
	panics "$WORK/strata.log" | sort | uniq -c | sed 's/^/  /'
	echo "  (end)"
	echo
	echo "results: $RES/results.tsv; test output: $RES/<server>.json"
}

# gsd_messages JSON STATUS: up to 3 distinct error lines (t.Error/t.Fatal
# locations, driver log lines, panics) per top-level test that did not pass.
gsd_messages() {
	perl -e '
		my ($json, $status) = @ARGV; my (%bad, %msg, %seen);
		open my $s, "<", $status or die;
		while (<$s>) { chomp; my ($t, $st) = split /\t/; $bad{$t} = $st if $t !~ m{/} && $st ne "pass" }
		open my $j, "<", $json or die;
		while (<$j>) {
			next unless /"Action":"output"/ && /"Test":"((?:[^"\\]|\\.)*)"/; my $t = $1;
			next unless /"Output":"((?:[^"\\]|\\.)*)"/; my $o = $1;
			(my $top = $t) =~ s{/.*}{};
			next unless exists $bad{$top};
			$o =~ s/\\n$//; $o =~ s/\\[tr]/ /g; $o =~ s/\\"/"/g; $o =~ s/\\u003c/</g; $o =~ s/\\u003e/>/g;
			$o =~ s/^\s+//; $o =~ s/^\[mysql\] \S+ \S+ //;
			next unless $o =~ /^\w+\.go:\d+: |^panic: |^packets\.go/;
			next if $o =~ /^testing\.go:/;
			next if $seen{$top}{$o}++ || @{$msg{$top} || []} >= 3;
			push @{$msg{$top}}, substr($o, 0, 240);
		}
		for my $t (sort keys %bad) {
			print "  $t ($bad{$t})\n";
			print "      $_\n" for @{$msg{$t} || []};
		}' "$1" "$2"
}

gsd_check() {
	local want=$WORK/check.want failed=$WORK/check.failed t
	grep -v '^#' "$PASS_FILE" | sed '/^$/d' | sort -u >"$want"
	awk -F'\t' 'FNR == NR { st[$1] = $2; next } st[$1] != "pass" { print $1 }' \
		"$RES/strata.status" "$want" >"$failed"
	if [[ -s $failed ]]; then
		# One retry of the failed top-level tests, in case of a timing flake.
		sed 's,/.*,,' "$failed" | sort -u >"$WORK/retry.tests"
		log "retrying $(wc -l <"$WORK/retry.tests") test(s) once"
		mv "$RES/strata.json" "$RES/strata.first.json"
		gsd_run strata "127.0.0.1:${PORT[strata]}" "$WORK/retry.tests"
		awk -F'\t' 'FNR == NR { st[$1] = $2; next } st[$1] != "pass" { print $1 }' \
			"$RES/strata.status" "$failed" >"$failed.2"
		mv "$failed.2" "$failed"
	fi
	if [[ -s $failed ]]; then
		echo "go-sql-driver: $(wc -l <"$failed") of $(wc -l <"$want") expected-to-pass tests no longer pass on strata:"
		awk -F'\t' 'FNR == NR { st[$1] = $2; next } { printf "  %s (%s)\n", $1, st[$1] ? st[$1] : "notrun" }' \
			"$RES/strata.status" "$failed"
		echo "test output: $RES/strata.json"
		exit 1
	fi
	echo "go-sql-driver: all $(wc -l <"$want") expected-to-pass tests pass on strata $STRATA_COMMIT"
}

# ---------------------------------------------------------------------------
# mariadb-test

find_mtr_dir() {
	if [[ -n ${MTR_DIR:-} ]]; then echo "$MTR_DIR"; return; fi
	local f
	f=$(dpkg -L mariadb-test-data 2>/dev/null | grep -m1 '/main/1st\.test$' || true)
	if [[ -n $f ]]; then dirname "$(dirname "$f")"; return; fi
	for d in /usr/share/mysql/mysql-test /usr/share/mariadb/mariadb-test /usr/share/mariadb/mysql-test; do
		[[ -f $d/main/1st.test ]] && { echo "$d"; return; }
	done
	die "mysql-test directory not found (apt-get install mariadb-test mariadb-test-data, or set MTR_DIR)"
}

mt_list_cases() { # prints the case names (without .test) to run
	local dir=$1 p
	if ((CHECK)); then
		[[ -f $PASS_FILE ]] || die "no $PASS_FILE"
		grep -v '^#' "$PASS_FILE" | sed '/^$/d' | sort -u
		return
	fi
	IFS=, read -r -a pats <<<"${PATTERNS:-$DEFAULT_PATTERNS}"
	(
		shopt -s nullglob
		cd "$dir"
		for p in "${pats[@]}"; do
			for f in $p.test; do echo "${f%.test}"; done
		done
	) | sort -u | { if ((LIMIT > 0)); then head -n "$LIMIT"; else cat; fi; }
}

# reset_db NAME: drop every database a case may have left behind, recreate test.
mt_reset() {
	local s=$1 dbs d stmt=
	dbs=$(sql "$s" 'SHOW DATABASES' 2>/dev/null) || return 1
	for d in $dbs; do
		case $d in information_schema | mysql | performance_schema | sys | mtr) ;; *) stmt+="DROP DATABASE IF EXISTS \`$d\`; " ;; esac
	done
	sql "$s" "$stmt CREATE DATABASE test" >/dev/null 2>&1
}

# mt_setup NAME: what mtr installs in every server that cases call: the mtr
# schema's add_suppression procedure (include/mtr_warnings.sql, minus FLUSH).
mt_setup() {
	sql "$1" "CREATE DATABASE IF NOT EXISTS mtr" &&
		sql "$1" "CREATE TABLE IF NOT EXISTS mtr.test_suppressions (pattern VARCHAR(255))" &&
		sql "$1" "DROP PROCEDURE IF EXISTS mtr.add_suppression" &&
		sql "$1" "CREATE PROCEDURE mtr.add_suppression(pattern VARCHAR(255)) INSERT INTO mtr.test_suppressions (pattern) VALUES (pattern)" ||
		log "$1: could not create mtr.add_suppression"
}

# mt_run_case SERVER CASE: sets CASE_STATUS (pass fail skip timeout crash); not
# to be called in a subshell (it may restart the server).
mt_run_case() {
	local s=$1 c=$2 logf=$RES/logs/$1/$2.log rc=0 coe=--continue-on-error
	((STOP_ON_ERROR)) && coe=
	CASE_STATUS=fail
	rm -f "$WORK/var/log/$c.log"
	local logsize
	logsize=$(stat -c %s "$WORK/$s.log" 2>/dev/null || echo 0)
	if ! mt_reset "$s"; then
		log "$s: reset failed before $c"
		restart "$s"
		mt_reset "$s" || { echo "run.sh: could not reset the databases" >"$logf"; return; }
	fi
	(
		cd "$MTR"
		export MYSQL_TEST_DIR=$MTR MYSQLTEST_VARDIR=$WORK/var MYSQLTEST_REAL_VARDIR=$WORK/var
		export MYSQL_TMP_DIR=$WORK/var/tmp MTR_SUITE_DIR=$SUITE_DIR LC_ALL=C
		export MASTER_MYPORT=${PORT[$s]} MASTER_MYSOCK=/nonexistent
		cli="--no-defaults --protocol=tcp -h127.0.0.1 -P${PORT[$s]} -uroot"
		export MYSQL="mariadb $cli" MYSQL_DUMP="mariadb-dump $cli" MYSQLADMIN="mariadb-admin $cli"
		export MYSQL_CHECK="mariadb-check $cli" MYSQL_IMPORT="mariadb-import $cli" MYSQL_SHOW="mariadb-show $cli"
		exec timeout -k 5 "$TIMEOUT" mariadb-test --no-defaults --protocol=tcp --host=127.0.0.1 --port="${PORT[$s]}" \
			--user=root --database=test --basedir="$MTR/" --tmpdir="$WORK/var/tmp" \
			--logdir="$WORK/var/log" --silent --tail-lines=20 $coe \
			--test-file="$SUITE_REL/$c.test" --result-file="$SUITE_REL/$c.result"
	) >"$logf" 2>&1 </dev/null &
	waitchild || rc=$?
	case $rc in
	0) CASE_STATUS=pass ;;
	62) CASE_STATUS=skip ;;
	124 | 137)
		echo "run.sh: time limit (${TIMEOUT}s); last output: $(grep -v '^\s*$' "$WORK/var/log/$c.log" 2>/dev/null | tail -1 | cut -c1-200)" >>"$logf"
		CASE_STATUS=timeout
		;;
	*) CASE_STATUS=fail ;;
	esac
	if ! alive "$s"; then
		echo "run.sh: the server died during this case" >>"$logf"
		CASE_STATUS=died
		restart "$s"
	elif [[ $CASE_STATUS == timeout ]]; then
		# a statement still running may hold locks the next case's DROP
		# DATABASE would wait for (and would hold up a clean shutdown)
		restart "$s" 3
	fi
	[[ $s == strata ]] && panics "$WORK/strata.log" "$logsize" | sed 's/^/run.sh: /' >>"$logf"
	CASE_INFO=$'0\t0\t0\t'
	CASE_MODULO=0
	if [[ $CASE_STATUS == fail ]] && perl "$SUITES_DIR/mtr-log.pl" same "$logf" "$SUITE_DIR/$c.result" "$WORK/var/log/$c.log"; then
		CASE_MODULO=1 # failed on presentation differences only (mtr-log.pl present)
	fi
	if [[ $CASE_STATUS != pass ]]; then
		CASE_INFO=$(perl "$SUITES_DIR/mtr-log.pl" summary "$logf" "$SUITE_DIR/$c.result" "$WORK/var/log/$c.log")
		perl "$SUITES_DIR/mtr-log.pl" causes "$c" "$logf" >>"$RES/causes.$s.tsv"
	else
		CASE_INFO=$(wc -l <"$SUITE_DIR/$c.result")$'\t0\t0\t'
	fi
}

suite_mariadb_test() {
	command -v mariadb-test >/dev/null || die "mariadb-test not found (apt-get install mariadb-test)"
	MTR=$(find_mtr_dir)
	if [[ $MTR_SUITE == main ]]; then SUITE_REL=main; else SUITE_REL=suite/$MTR_SUITE; fi
	SUITE_DIR=$MTR/$SUITE_REL
	[[ -d $SUITE_DIR ]] || die "no suite directory $SUITE_DIR"
	mkdir -p "$WORK/var/tmp" "$WORK/var/log" "$RES/logs/strata" "$RES/logs/mariadb"
	# mtr's layout: std_data copied into the var directory, the server's data
	# directory inside it (cases reach files as ../../std_data/ from the data
	# directory, and mysqltest only copies or removes files under var).
	cp -r "$MTR/std_data" "$WORK/var/std_data"
	MARIADB_DATADIR=$WORK/var/mysqld.1/data
	local tzdata
	for tzdata in /usr/share/mysql/mysql_test_data_timezone.sql /usr/share/mariadb/mysql_test_data_timezone.sql; do
		[[ -f $tzdata ]] && { MARIADB_INIT_FILES=("$tzdata"); break; }
	done
	# The server options mtr gives every server (include/default_mysqld.cnf)
	# where they change results: latin1, MyISAM by default, small buffers.
	MARIADB_OPTS=(--character-set-server=latin1 --default-storage-engine=MyISAM --local-infile
		--tmpdir="$WORK/var/tmp" --plugin-maturity=unknown
		--secure-file-priv="$WORK/var" --log-bin-trust-function-creators=1 --key-buffer-size=1M
		--sort-buffer-size=256K --max-heap-table-size=1M --use-stat-tables=preferably
		--histogram-type=json_hb --open-files-limit=1024 --innodb-buffer-pool-size=64M
		--innodb-log-file-size=64M --innodb-flush-log-at-trx-commit=2 --log-basename=mysqld
		--max-connections=200)
	# strata starts as mtr starts MariaDB: latin1, and MariaDB's default
	# sql_mode, which the cases were written for (MySQL 8's adds
	# ONLY_FULL_GROUP_BY, NO_ZERO_DATE and NO_ZERO_IN_DATE).
	STRATA_OPTS=(--secure-file-priv "$WORK/var" --character-set-server=latin1
		--sql-mode=STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION)
	local cases=() c s
	mapfile -t cases < <(mt_list_cases "$SUITE_DIR")
	((${#cases[@]})) || die "no cases match"
	for s in "${SERVERS[@]}"; do
		start "$s"
		mt_setup "$s"
		: >"$RES/causes.$s.tsv"
	done
	log "mariadb-test: ${#cases[@]} cases from $SUITE_DIR on ${SERVERS[*]} (limit ${TIMEOUT}s each)"
	local -A st=() info=() modulo=()
	local n=0 t0=$SECONDS
	for c in "${cases[@]}"; do
		n=$((n + 1))
		if [[ ! -f $SUITE_DIR/$c.test || ! -f $SUITE_DIR/$c.result ]]; then
			for s in "${SERVERS[@]}"; do st[$s,$c]=noresult info[$s,$c]=$'0\t0\t0\tno .test or .result file'; done
			continue
		fi
		for s in "${SERVERS[@]}"; do
			mt_run_case "$s" "$c"
			st[$s,$c]=$CASE_STATUS info[$s,$c]=$CASE_INFO modulo[$s,$c]=$CASE_MODULO
		done
		printf '[%d/%d %ds] %s: %s\n' "$n" "${#cases[@]}" $((SECONDS - t0)) "$c" \
			"$(for s in "${SERVERS[@]}"; do printf '%s=%s ' "$s" "${st[$s,$c]}"; done)" >&2
	done
	if ((CHECK)); then
		local failed=()
		for c in "${cases[@]}"; do
			[[ ${st[strata,$c]} == pass ]] && continue
			log "retrying $c once"
			mt_run_case strata "$c"
			st[strata,$c]=$CASE_STATUS info[strata,$c]=$CASE_INFO
			[[ ${st[strata,$c]} == pass ]] || failed+=("$c")
		done
		if ((${#failed[@]})); then
			echo "mariadb-test: ${#failed[@]} of ${#cases[@]} expected-to-pass cases no longer pass on strata:"
			for c in "${failed[@]}"; do
				printf '  %s (%s): %s\n' "$c" "${st[strata,$c]}" "$(cut -f4 <<<"${info[strata,$c]}")"
			done
			echo "logs: $RES/logs/strata/"
			exit 1
		fi
		echo "mariadb-test: all ${#cases[@]} expected-to-pass cases pass on strata $STRATA_COMMIT"
		return
	fi
	# results.tsv: per case the status on each server; expected = lines of the
	# .result file, missing = expected lines a server did not reproduce,
	# errors = statements that failed (or failed differently than expected).
	{
		printf 'case\tstrata\tmariadb\tnotes\texpected\tstrata_missing\tstrata_errors\tmariadb_missing\tmariadb_errors\tstrata_reason\tmariadb_reason\tstrata_modulo_presentation\n'
		for c in "${cases[@]}"; do
			local notes=() is im=$'-\t-\t-\t'
			[[ -f $SUITE_DIR/$c.opt || -f $SUITE_DIR/$c-master.opt ]] && notes+=(server-options)
			[[ -f $SUITE_DIR/$c.combinations ]] && notes+=(combinations)
			is=${info[strata,$c]}
			((STRATA_ONLY)) || im=${info[mariadb,$c]}
			IFS=$'\t' read -r e1 m1 n1 r1 <<<"$is"
			IFS=$'\t' read -r e2 m2 n2 r2 <<<"$im"
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$c" "${st[strata,$c]}" "${st[mariadb,$c]:--}" \
				"$(IFS=,; echo "${notes[*]}")" "$e1" "$m1" "$n1" "$m2" "$n2" "$r1" "$r2" \
				"$( ((${modulo[strata,$c]:-0})) && echo pass || echo -)"
		done
	} >"$RES/results.tsv"
	mt_summary | tee "$RES/summary.txt"
	if ((UPDATE_PASS)); then
		{
			echo "# mariadb-test cases (from $SUITE_REL) that pass on strata."
			echo "# suites/run.sh --check mariadb-test fails if one of them stops passing."
			echo "# Regenerate: suites/run.sh --update-pass mariadb-test (strata $STRATA_COMMIT)."
			awk -F'\t' 'NR > 1 && $2 == "pass" { print $1 }' "$RES/results.tsv"
		} >"$PASS_FILE"
		log "wrote $PASS_FILE ($(grep -vc '^#' "$PASS_FILE") cases)"
	fi
}

mt_summary() {
	local r=$RES/results.tsv ref='$3 == "pass"' scope="cases that pass on MariaDB"
	if ((STRATA_ONLY)); then ref=1 scope="all cases"; fi
	echo "mariadb-test replay of $SUITE_REL ($(awk 'NR > 1' "$r" | wc -l) cases, patterns ${PATTERNS:-default}$( ((LIMIT)) && echo ", limit $LIMIT")); strata $STRATA_COMMIT"
	((STRATA_ONLY)) || echo "MariaDB $(server_version mariadb)"
	echo
	printf '%-8s %6s %6s %6s %8s %6s\n' server pass fail skip timeout died
	awk -F'\t' 'NR > 1 { for (i = 2; i <= 3; i++) n[i, $i]++ } END {
		split("strata mariadb", nm, " ")
		for (i = 2; i <= 3; i++) if (n[i, "-"] == 0)
			printf "%-8s %6d %6d %6d %8d %6d\n", nm[i - 1], n[i, "pass"], n[i, "fail"], n[i, "skip"], n[i, "timeout"], n[i, "died"] }' "$r"
	if ((!STRATA_ONLY)); then
		echo
		awk -F'\t' 'NR > 1 { s = $2 == "pass"; m = $3 == "pass"; n[s, m]++ } END {
			printf "pass on both: %d, only MariaDB: %d, only strata: %d, neither: %d\n", n[1,1], n[0,1], n[1,0], n[0,0] }' "$r"
	fi
	echo
	awk -F'\t' "NR > 1 && $ref"' && $12 == "pass" { n++; l = l " " $1 } END {
		printf "failing on strata only on presentation (mtr-log.pl present: engine name, display widths, quoted numeric defaults, EXPLAIN rows): %d%s\n", n, n ? ":" l : "" }' "$r"
	echo
	echo "On the $scope:"
	awk -F'\t' "NR > 1 && $ref"' { e += $5; m += $6; err += $7 } END {
		printf "  strata reproduces %d of %d expected output lines (%.1f%%); %d statements fail on strata or fail differently\n",
			e - m, e, e ? 100 * (e - m) / e : 0, err }' "$r"
	echo
	echo "What stops strata first, per case ($scope, grouped; count, examples):"
	awk -F'\t' "NR > 1 && $ref"' && $2 != "pass" { print $1 "\t" $2 "\t" $10 }' "$r" | mt_group_first
	echo
	echo "All statements failing on strata in those cases, grouped by error (cases, statements, examples):"
	awk -F'\t' 'FNR == NR { if (FNR > 1 && ('"$ref"')) ok[$1] = 1; next } ($1 in ok)' "$r" "$RES/causes.strata.tsv" |
		mt_group_all 60
	echo
	echo "results: $r; logs: $RES/logs/; failing statements: $RES/causes.strata.tsv"
}

# stdin: case<TAB>status<TAB>reason; groups by the reason without its statement
mt_group_first() {
	perl -F'\t' -lane '
		my ($c, $st, $r) = @F;
		my $k = $st eq "fail" || $r =~ /^skipped: / ? $r : "$st: $r";
		$k =~ s/ \| query .*//;
		$k =~ s/^timeout: .*/time limit (hang or slow; results.tsv has the last statement)/;
		$k =~ s/^result differs: .*/result differs (no statement failed; see the diff in the log)/;
		$n{$k}++; push @{$ex{$k}}, $c if @{$ex{$k} || []} < 5;
		END { for (sort { $n{$b} <=> $n{$a} || $a cmp $b } keys %n) {
			printf "  %3d  %s\n       e.g. %s\n", $n{$_}, $_, join(", ", @{$ex{$_}}) } }'
}

# stdin: causes lines (case kind cause statement); groups by kind+cause
mt_group_all() {
	perl -F'\t' -lane '
		BEGIN { $max = shift @ARGV }
		my ($c, $kind, $cause, $stmt) = @F;
		my $k = $kind eq "result" ? "[result] $cause" : $cause;
		$k =~ s/^\[[^\]]*\] // unless $kind eq "result";
		$stmts{$k}++; $cases{$k}{$c} = 1;
		push @{$ex{$k}}, ($stmt ne "" ? "$c: " . substr($stmt, 0, 120) : $c) if !$excase{$k}{$c}++ && @{$ex{$k} || []} < 3;
		END {
			my @k = sort { keys %{$cases{$b}} <=> keys %{$cases{$a}} || $stmts{$b} <=> $stmts{$a} || $a cmp $b } keys %stmts;
			my $i = 0;
			for (@k) {
				last if ++$i > $max;
				printf "  %3d %4d  %s\n", scalar(keys %{$cases{$_}}), $stmts{$_}, $_;
				print "            e.g. $_" for @{$ex{$_}};
			}
			printf "  ... %d more causes (see the causes file)\n", @k - $max if @k > $max;
		}' "$1"
}

case $SUITE in
gosqldriver) suite_gosqldriver ;;
mariadb-test) suite_mariadb_test ;;
esac
