// Command queries is the query benchmark of bench/queries.sh: an
// orders/customers/products data set of about a million rows, generated
// deterministically, loaded into every server given, then a fixed list of
// application queries (joins, lookups through secondary indexes, GROUP BY
// reports, derived tables, a trigger-maintained table) timed on the
// servers alternately, after one untimed run each. Every query's rows must be identical on every server;
// a difference fails the run.
//
//	go run ./bench/queries --dsn mariadb=root@tcp(127.0.0.1:3307)/ --dsn strata=root@tcp(127.0.0.1:3308)/
//
// It prints a Markdown table: each query's median time per server (of
// --runs runs) and its ratio to the first server's.
package main

import (
	"database/sql"
	"flag"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	_ "github.com/go-sql-driver/mysql"
)

type dsnList []string

func (d *dsnList) String() string     { return strings.Join(*d, ",") }
func (d *dsnList) Set(v string) error { *d = append(*d, v); return nil }

var (
	dsns      dsnList
	scale     = flag.Int("scale", 50000, "customers; orders are 5x, order lines 15x, products scale/10")
	runs      = flag.Int("runs", 3, "timed runs of each query per server (the median is reported)")
	skipLoad  = flag.Bool("skip-load", false, "use the data already loaded")
	loadOnly  = flag.Bool("load-only", false, "load the data and stop")
	only      = flag.String("only", "", "run only the queries whose names contain one of these (comma-separated)")
	batchRows = 1000
)

// rng is a deterministic generator (a 64-bit LCG): the same data on every
// server and every run.
type rng uint64

func (r *rng) next() uint64 {
	*r = *r*6364136223846793005 + 1442695040888963407
	return uint64(*r >> 17)
}
func (r *rng) intn(n int) int { return int(r.next() % uint64(n)) }

type server struct {
	name string
	db   *sql.DB
}

func main() {
	flag.Var(&dsns, "dsn", "name=go-sql-driver DSN of a server (repeat; the first is the reference)")
	flag.Parse()
	if len(dsns) == 0 {
		fmt.Fprintln(os.Stderr, "queries: at least one --dsn name=DSN")
		os.Exit(2)
	}
	var servers []server
	for _, d := range dsns {
		name, dsn, ok := strings.Cut(d, "=")
		if !ok {
			fatalf("--dsn %q: want name=DSN", d)
		}
		db, err := sql.Open("mysql", dsn)
		if err != nil {
			fatalf("%s: %v", name, err)
		}
		db.SetMaxOpenConns(4)
		servers = append(servers, server{name, db})
	}
	if !*skipLoad {
		for _, s := range servers {
			t0 := time.Now()
			load(s)
			fmt.Fprintf(os.Stderr, "%s: loaded in %.1f s\n", s.name, time.Since(t0).Seconds())
		}
	}
	if *loadOnly {
		return
	}
	for _, s := range servers {
		mustExec(s, "USE qb")
	}
	fmt.Printf("| query | %s |", strings.Join(names(servers), " s | ")+" s")
	for _, s := range servers[1:] {
		fmt.Printf(" %s / %s |", s.name, servers[0].name)
	}
	fmt.Println()
	fmt.Print("| --- |" + strings.Repeat(" --- |", 2*len(servers)-1) + "\n")
	failed := false
	for _, q := range queries {
		if *only != "" && !slices.ContainsFunc(strings.Split(*only, ","), func(o string) bool { return strings.Contains(q.name, o) }) {
			continue
		}
		// One untimed run each (pages and plans warm), then the timed runs
		// alternate between the servers, each round starting with the next
		// one: a machine whose speed drifts over a query's runs drifts for
		// all of them alike.
		// outs[i][r] is server i's rows of run r (0: the untimed one); a
		// query may change the data (trigger-insert), so run r is compared
		// with the reference's run r.
		outs := make([][]string, len(servers))
		ds := make([][]float64, len(servers))
		for i, s := range servers {
			outs[i] = append(outs[i], q.run(s))
		}
		for r := 0; r < *runs; r++ {
			for k := range servers {
				i := (r + k) % len(servers)
				t0 := time.Now()
				outs[i] = append(outs[i], q.run(servers[i]))
				ds[i] = append(ds[i], time.Since(t0).Seconds())
			}
		}
		times := make([]float64, len(servers))
		for i, s := range servers {
			sort.Float64s(ds[i])
			times[i] = ds[i][len(ds[i])/2]
			for r := range outs[i] {
				if i > 0 && outs[i][r] != outs[0][r] {
					failed = true
					fmt.Fprintf(os.Stderr, "%s: %s differs from %s:\n%s: %.400s\n%s: %.400s\n", q.name, s.name, servers[0].name,
						servers[0].name, outs[0][r], s.name, outs[i][r])
					break
				}
			}
		}
		fmt.Printf("| %s |", q.name)
		for _, t := range times {
			fmt.Printf(" %.3f |", t)
		}
		for _, t := range times[1:] {
			fmt.Printf(" %.2f |", t/times[0])
		}
		fmt.Println()
	}
	if failed {
		fatalf("results differ")
	}
}

func names(ss []server) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.name)
	}
	return out
}

func fatalf(f string, args ...any) {
	fmt.Fprintf(os.Stderr, "queries: "+f+"\n", args...)
	os.Exit(1)
}

func mustExec(s server, q string, args ...any) {
	if _, err := s.db.Exec(q, args...); err != nil {
		fatalf("%s: %.200s: %v", s.name, q, err)
	}
}

var schema = []string{
	"DROP DATABASE IF EXISTS qb",
	"CREATE DATABASE qb",
	"USE qb",
	`CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(40) NOT NULL, country CHAR(9) NOT NULL,
		segment VARCHAR(12) NOT NULL, created DATE NOT NULL, KEY country (country))`,
	`CREATE TABLE products (id INT PRIMARY KEY, name VARCHAR(40) NOT NULL, category INT NOT NULL,
		price DECIMAL(10,2) NOT NULL, KEY category (category))`,
	`CREATE TABLE orders (id INT PRIMARY KEY, customer_id INT NOT NULL, status VARCHAR(10) NOT NULL,
		created DATETIME NOT NULL, total DECIMAL(12,2) NOT NULL, KEY customer (customer_id), KEY created (created))`,
	`CREATE TABLE order_lines (order_id INT NOT NULL, line_no INT NOT NULL, product_id INT NOT NULL,
		qty INT NOT NULL, price DECIMAL(10,2) NOT NULL, PRIMARY KEY (order_id, line_no), KEY product (product_id))`,
	`CREATE TABLE customer_stats (customer_id INT PRIMARY KEY, orders INT NOT NULL, spent DECIMAL(14,2) NOT NULL)`,
}

var statuses = []string{"new", "paid", "shipped", "returned"}
var segments = []string{"consumer", "corporate", "home", "small", "public"}

// batcher sends rows as multi-row INSERTs of batchRows rows.
type batcher struct {
	s    server
	head string
	rows []string
}

func (b *batcher) add(row string) {
	b.rows = append(b.rows, row)
	if len(b.rows) == batchRows {
		b.flush()
	}
}

func (b *batcher) flush() {
	if len(b.rows) > 0 {
		mustExec(b.s, b.head+strings.Join(b.rows, ","))
		b.rows = b.rows[:0]
	}
}

func load(s server) {
	for _, q := range schema {
		mustExec(s, q)
	}
	r := rng(42)
	nc, np := *scale, *scale/10
	b := &batcher{s: s, head: "INSERT INTO customers VALUES "}
	for i := 1; i <= nc; i++ {
		b.add(fmt.Sprintf("(%d,'customer %d','country%02d','%s','%s')", i, i, r.intn(25), segments[r.intn(len(segments))],
			time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, r.intn(1800)).Format("2006-01-02")))
	}
	b.flush()
	b = &batcher{s: s, head: "INSERT INTO products VALUES "}
	prices := make([]int, np+1)
	for i := 1; i <= np; i++ {
		prices[i] = 100 + r.intn(99900)
		b.add(fmt.Sprintf("(%d,'product %d',%d,%d.%02d)", i, i, r.intn(50), prices[i]/100, prices[i]%100))
	}
	b.flush()
	ob := &batcher{s: s, head: "INSERT INTO orders VALUES "}
	lb := &batcher{s: s, head: "INSERT INTO order_lines VALUES "}
	for o := 1; o <= 5*nc; o++ {
		cust := 1 + r.intn(nc)
		if r.intn(4) == 0 {
			cust = 1 + r.intn(nc/20) // some customers order much more
		}
		lines := 1 + r.intn(5)
		total := 0
		for l := 1; l <= lines; l++ {
			p, qty := 1+r.intn(np), 1+r.intn(4)
			total += qty * prices[p]
			lb.add(fmt.Sprintf("(%d,%d,%d,%d,%d.%02d)", o, l, p, qty, prices[p]/100, prices[p]%100))
		}
		created := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(r.intn(730*24*3600)) * time.Second)
		ob.add(fmt.Sprintf("(%d,%d,'%s','%s',%d.%02d)", o, cust, statuses[r.intn(len(statuses))],
			created.Format("2006-01-02 15:04:05"), total/100, total%100))
	}
	ob.flush()
	lb.flush()
	mustExec(s, "INSERT INTO customer_stats SELECT id, 0, 0 FROM customers")
	mustExec(s, `CREATE TRIGGER orders_stats AFTER INSERT ON orders FOR EACH ROW
		UPDATE customer_stats SET orders = orders + 1, spent = spent + NEW.total WHERE customer_id = NEW.customer_id`)
	mustExec(s, "ANALYZE TABLE customers, products, orders, order_lines, customer_stats")
}

// query is one timed step; run returns its rows as text to compare.
type query struct {
	name string
	run  func(server) string
}

func rowsText(s server, q string, args ...any) string {
	rows, err := s.db.Query(q, args...)
	if err != nil {
		fatalf("%s: %.200s: %v", s.name, q, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var b strings.Builder
	vals := make([]sql.RawBytes, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			fatalf("%s: %v", s.name, err)
		}
		for i, v := range vals {
			if i > 0 {
				b.WriteByte('\t')
			}
			if v == nil {
				b.WriteString("NULL")
			} else {
				b.Write(v)
			}
		}
		b.WriteByte('\n')
	}
	if err := rows.Err(); err != nil {
		fatalf("%s: %.200s: %v", s.name, q, err)
	}
	return b.String()
}

func one(sqlText string) func(server) string {
	return func(s server) string { return rowsText(s, sqlText) }
}

var queries = []query{
	{"join3-country-revenue", one(`SELECT p.category, COUNT(*), SUM(l.qty * l.price) FROM customers c
		JOIN orders o ON o.customer_id = c.id JOIN order_lines l ON l.order_id = o.id JOIN products p ON p.id = l.product_id
		WHERE c.country = 'country07' GROUP BY p.category ORDER BY p.category`)},
	{"join-100-customers", one(`SELECT c.id, c.name, COUNT(o.id), SUM(o.total) FROM customers c JOIN orders o ON o.customer_id = c.id
		WHERE c.id BETWEEN 1000 AND 1099 GROUP BY c.id, c.name ORDER BY c.id`)},
	{"lookup-orders-by-customer x500", func(s server) string {
		var b strings.Builder
		for i := 0; i < 500; i++ {
			b.WriteString(rowsText(s, fmt.Sprintf("SELECT id, status, total FROM orders WHERE customer_id = %d ORDER BY id", 1+i*97%*scale)))
		}
		return b.String()
	}},
	{"derived-top5-spenders", one(`SELECT t.customer_id, t.spent FROM (SELECT customer_id, SUM(total) AS spent FROM orders
		GROUP BY customer_id) t ORDER BY t.spent DESC, t.customer_id LIMIT 5`)},
	{"report-by-day-status", one(`SELECT DATE(created) AS d, status, COUNT(*), SUM(total) FROM orders
		WHERE created >= '2025-10-01' GROUP BY d, status ORDER BY d DESC, status LIMIT 40`)},
	{"count-orders", one(`SELECT COUNT(*) FROM orders`)},
	{"best-sellers", one(`SELECT l.product_id, p.name, SUM(l.qty) AS q FROM order_lines l JOIN products p ON p.id = l.product_id
		GROUP BY l.product_id, p.name ORDER BY q DESC, l.product_id LIMIT 10`)},
	{"exists-returned", one(`SELECT COUNT(*) FROM customers c WHERE EXISTS
		(SELECT 1 FROM orders o WHERE o.customer_id = c.id AND o.status = 'returned')`)},
	{"customers-without-orders", one(`SELECT COUNT(*) FROM customers c LEFT JOIN orders o ON o.customer_id = c.id WHERE o.id IS NULL`)},
	{"segment-country-report", one(`SELECT c.segment, c.country, COUNT(DISTINCT c.id), SUM(o.total) FROM customers c
		JOIN orders o ON o.customer_id = c.id WHERE o.status = 'paid' AND c.segment = 'corporate'
		GROUP BY c.segment, c.country ORDER BY c.country`)},
	{"orders-in-amount-range", one(`SELECT COUNT(*), SUM(total) FROM orders WHERE total BETWEEN 100 AND 200`)},
	{"top10-orders-by-total", one(`SELECT id, customer_id, total FROM orders ORDER BY total DESC, id LIMIT 10`)},
	{"line-value-filter", one(`SELECT COUNT(*) FROM order_lines WHERE qty * price > 500`)},
	{"min-max-total-by-status", one(`SELECT status, MIN(total), MAX(total) FROM orders GROUP BY status ORDER BY status`)},
	{"orders-above-average", one(`SELECT COUNT(*) FROM orders WHERE total > (SELECT AVG(total) FROM orders)`)},
	{"orders-per-customer-top3", one(`SELECT customer_id, COUNT(*) AS n FROM orders GROUP BY customer_id ORDER BY n DESC, customer_id LIMIT 3`)},
	{"trigger-insert x500", func(s server) string {
		// 500 single-row INSERTs, each firing the trigger; the orders
		// are removed again (the trigger counts them once per run).
		base := 10 * *scale
		mustExec(s, "DELETE FROM orders WHERE id >= ?", base) // left by an interrupted run (--profile)
		for i := 0; i < 500; i++ {
			mustExec(s, fmt.Sprintf("INSERT INTO orders VALUES (%d, %d, 'new', '2026-01-01 00:00:00', %d.50)", base+i, 1+i*13%*scale, i))
		}
		out := rowsText(s, "SELECT SUM(orders), SUM(spent) FROM customer_stats")
		mustExec(s, "DELETE FROM orders WHERE id >= ?", base)
		return out
	}},
}
