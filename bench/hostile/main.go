// Command hostile drives careless and hostile clients against a strata
// server for bench/soak.sh (issue 20): garbage and truncated packets,
// oversized statements, connection churn, runaway statements and KILLs of
// them, beside a ledger writer whose acknowledged commits are checked
// afterwards (hostile -verify).
//
//	hostile -addr 127.0.0.1:3311 -duration 30m -ledger /tmp/ledger
//	hostile -addr 127.0.0.1:3311 -verify -ledger /tmp/ledger
package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	mrand "math/rand"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	_ "github.com/go-sql-driver/mysql"
)

var (
	addr     = flag.String("addr", "127.0.0.1:3311", "server address (loopback only)")
	duration = flag.Duration("duration", 30*time.Minute, "how long to run")
	ledger   = flag.String("ledger", "/tmp/strata-soak-ledger", "file holding the highest acknowledged ledger id")
	verify   = flag.Bool("verify", false, "check that every acknowledged ledger row is present, then exit")
)

type counters struct {
	garbage, huge, churn, runaway, kills, ledger, ledgerErr atomic.Int64
}

func main() {
	flag.Parse()
	host, _, err := net.SplitHostPort(*addr)
	if err != nil || !(host == "127.0.0.1" || host == "::1" || host == "localhost") {
		fmt.Fprintln(os.Stderr, "hostile: loopback addresses only")
		os.Exit(2)
	}
	db, err := sql.Open("mysql", "root@tcp("+*addr+")/")
	if err != nil {
		panic(err)
	}
	if *verify {
		os.Exit(check(db))
	}
	for _, q := range []string{"CREATE DATABASE IF NOT EXISTS soak", "CREATE TABLE IF NOT EXISTS soak.ledger (id BIGINT PRIMARY KEY, v VARCHAR(40))",
		"CREATE TABLE IF NOT EXISTS soak.small (a INT PRIMARY KEY)", "CREATE TABLE IF NOT EXISTS soak.sink (a INT)"} {
		if _, err := db.Exec(q); err != nil {
			panic(fmt.Sprintf("%s: %v", q, err))
		}
	}
	var vals []string
	for i := 0; i < 300; i++ {
		vals = append(vals, fmt.Sprintf("(%d)", i))
	}
	db.Exec("INSERT IGNORE INTO soak.small VALUES " + strings.Join(vals, ","))

	ctx, cancel := context.WithTimeout(context.Background(), *duration)
	defer cancel()
	var c counters
	var wg sync.WaitGroup
	run := func(n int, f func(*rand_)) {
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func(seed int64) {
				defer wg.Done()
				r := &rand_{mrand.New(mrand.NewSource(seed))}
				for ctx.Err() == nil {
					f(r)
				}
			}(int64(i) + time.Now().UnixNano())
		}
	}
	run(2, func(r *rand_) { garbage(r); c.garbage.Add(1) })
	run(1, func(r *rand_) { huge(r); c.huge.Add(1); time.Sleep(200 * time.Millisecond) })
	run(2, func(r *rand_) { churn(); c.churn.Add(1) })
	run(1, func(r *rand_) { runaway(ctx, db, r); c.runaway.Add(1) })
	run(1, func(r *rand_) {
		c.kills.Add(killRunaways(db))
		time.Sleep(time.Duration(500+r.Intn(2000)) * time.Millisecond)
	})
	wg.Add(1)
	go func() { defer wg.Done(); ledgerWriter(ctx, db, &c) }()
	tick := time.NewTicker(time.Minute)
	defer tick.Stop()
	for done := false; !done; {
		select {
		case <-ctx.Done():
			done = true
		case <-tick.C:
		}
		fmt.Printf("%s garbage=%d huge=%d churn=%d runaway=%d kills=%d ledger=%d ledger_errors=%d\n", time.Now().Format("15:04:05"),
			c.garbage.Load(), c.huge.Load(), c.churn.Load(), c.runaway.Load(), c.kills.Load(), c.ledger.Load(), c.ledgerErr.Load())
	}
	wg.Wait()
}

type rand_ struct{ *mrand.Rand }

// garbage sends random bytes, sometimes as the handshake response,
// sometimes after a login-sized prefix, then drops the connection.
func garbage(r *rand_) {
	c, err := net.DialTimeout("tcp", *addr, time.Second)
	if err != nil {
		return
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(500 * time.Millisecond))
	if r.Intn(2) == 0 {
		io.ReadFull(c, make([]byte, 4)) // part of the greeting
	}
	b := make([]byte, 1+r.Intn(4096))
	rand.Read(b)
	if len(b) >= 4 && r.Intn(3) == 0 { // a packet header claiming far more than is sent
		binary.LittleEndian.PutUint32(b, uint32(r.Intn(1<<24))|uint32(r.Intn(256))<<24)
	}
	c.Write(b)
	io.Copy(io.Discard, io.LimitReader(c, 1<<16))
}

// huge sends a statement larger than max_allowed_packet (4 MiB here).
func huge(r *rand_) {
	db, err := sql.Open("mysql", "root@tcp("+*addr+")/?maxAllowedPacket=0")
	if err != nil {
		return
	}
	defer db.Close()
	db.Exec("SELECT '" + strings.Repeat("x", 5<<20+r.Intn(1<<20)) + "'")
}

// churn opens and closes connections, some without a word.
func churn() {
	for i := 0; i < 50; i++ {
		c, err := net.DialTimeout("tcp", *addr, time.Second)
		if err == nil {
			c.Close()
		}
	}
	db, err := sql.Open("mysql", "root@tcp("+*addr+")/")
	if err == nil {
		db.Ping()
		db.Close()
	}
}

var runaways = []string{
	"INSERT INTO soak.sink SELECT A.a FROM soak.small A, soak.small B, soak.small C",
	"SELECT A.a, B.a, C.a, COUNT(*) FROM soak.small A, soak.small B, soak.small C, soak.small D GROUP BY A.a, B.a, C.a",
	"SELECT A.a, B.a, C.a FROM soak.small A, soak.small B, soak.small C ORDER BY A.a * 7 + B.a * 3 + C.a",
	"INSERT INTO soak.small SELECT A.a + 1000 * B.a + 1000000 * C.a + 100000000 FROM soak.small A, soak.small B, soak.small C",
}

func runaway(ctx context.Context, db *sql.DB, r *rand_) {
	q := runaways[r.Intn(len(runaways))]
	rows, err := db.QueryContext(ctx, "/* runaway */ "+q)
	if err == nil {
		for rows.Next() {
		}
		rows.Close()
	}
}

// killRunaways KILLs the queries of runaway statements.
func killRunaways(db *sql.DB) int64 {
	rows, err := db.Query("SELECT ID FROM information_schema.PROCESSLIST WHERE INFO LIKE '/* runaway */%'")
	if err != nil {
		return 0
	}
	var ids []int64
	for rows.Next() {
		var id int64
		rows.Scan(&id)
		ids = append(ids, id)
	}
	rows.Close()
	for _, id := range ids {
		db.Exec(fmt.Sprintf("KILL QUERY %d", id))
	}
	return int64(len(ids))
}

// ledgerWriter commits numbered rows one per transaction and records the
// highest acknowledged id (written to -ledger after each commit).
func ledgerWriter(ctx context.Context, db *sql.DB, c *counters) {
	var next int64 = 1
	db.QueryRow("SELECT COALESCE(MAX(id), 0) + 1 FROM soak.ledger").Scan(&next)
	for ctx.Err() == nil {
		tx, err := db.Begin()
		if err == nil {
			_, err = tx.Exec("INSERT INTO soak.ledger VALUES (?, ?)", next, fmt.Sprint("row ", next))
			if err == nil {
				err = tx.Commit()
			} else {
				tx.Rollback()
			}
		}
		if err != nil {
			c.ledgerErr.Add(1)
			time.Sleep(10 * time.Millisecond)
			continue
		}
		os.WriteFile(*ledger, []byte(strconv.FormatInt(next, 10)), 0o644)
		c.ledger.Add(1)
		next++
	}
}

func check(db *sql.DB) int {
	b, err := os.ReadFile(*ledger)
	if err != nil {
		fmt.Println("verify: no ledger file:", err)
		return 1
	}
	acked, _ := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	var n, max int64
	if err := db.QueryRow("SELECT COUNT(*), COALESCE(MAX(id), 0) FROM soak.ledger WHERE id <= ?", acked).Scan(&n, &max); err != nil {
		fmt.Println("verify:", err)
		return 1
	}
	fmt.Printf("verify: %d acknowledged ledger rows, %d present (max id %d)\n", acked, n, max)
	if n != acked {
		return 1
	}
	return 0
}
