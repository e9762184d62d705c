# bench/lib/servers.sh - start MariaDB 10.11 and strata side by side for a
# benchmark (sourced). Both get the same buffer pool; MariaDB with
# doublewrite and durable commits, strata with its defaults.
#
#   start_mariadb DIR PORT BP    # data in DIR/data, pid in MARIADB_PID
#   start_strata DIR PORT BP METRICS_PORT [BINARY]  # pid in STRATA_PID
#   wait_port PORT               # until the server answers
#
# Needs sysbench, mariadb-server and mariadb-client (install_servers).

install_servers() {
	local need=()
	command -v sysbench >/dev/null || need+=(sysbench)
	command -v mariadbd >/dev/null || need+=(mariadb-server)
	command -v mariadb >/dev/null || need+=(mariadb-client)
	if ((${#need[@]})); then
		apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}"
	fi
}

start_mariadb() {
	local dir=$1 port=$2 bp=$3
	mkdir -p "$dir/data"
	cat >"$dir/my.cnf" <<EOF
[mariadbd]
datadir = $dir/data
socket = $dir/mysqld.sock
port = $port
bind-address = 127.0.0.1
user = root
skip-log-bin
skip-name-resolve
performance_schema = OFF
max_connections = 200
innodb_buffer_pool_size = $bp
innodb_flush_method = O_DIRECT
innodb_log_file_size = 256M
innodb_flush_log_at_trx_commit = 1
innodb_doublewrite = ON
innodb_buffer_pool_dump_at_shutdown = OFF
innodb_buffer_pool_load_at_startup = OFF
${MARIADB_CNF:-}
EOF
	mariadb-install-db --defaults-file="$dir/my.cnf" --auth-root-authentication-method=normal \
		--skip-test-db >"$dir/install.log" 2>&1
	mariadbd --defaults-file="$dir/my.cnf" >"$dir/err.log" 2>&1 &
	MARIADB_PID=$!
}

start_strata() {
	local dir=$1 port=$2 bp=$3 mport=$4
	local bin=${5:-$1/strata}
	mkdir -p "$dir"
	"$bin" --datadir "$dir/data" --port "$port" --buffer-pool-size "$bp" \
		--log-capacity 256M --metrics-addr "127.0.0.1:$mport" ${STRATA_ARGS:-} >"$dir/strata.log" 2>&1 &
	STRATA_PID=$!
}

wait_port() {
	for _ in $(seq 1 120); do
		mariadb -h127.0.0.1 -P"$1" -uroot --skip-ssl -e 'select 1' >/dev/null 2>&1 && return 0
		sleep 0.5
	done
	echo "server on port $1 did not start" >&2
	return 1
}
