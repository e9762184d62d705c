package main

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dolthub/vitess/go/mysql"
)

// TestGTIDConsumerModel: a random workload (prepared statements on the
// fast path and text with interpolated values, multi-statement
// transactions, savepoints, rollbacks, duplicate keys, DDL, a kill -9 in
// the middle) runs on strata --log-bin; then a consumer written with the
// wire library's client asks for the log by GTID (COM_BINLOG_DUMP_GTID
// from an empty set, as a MySQL 8 replica or Debezium does), replays
// every row event into a model and ends equal to the tables on the
// server, at the GTID set SHOW MASTER STATUS reports.
func TestGTIDConsumerModel(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	dir := t.TempDir()
	port := freePort(t)
	p := startProc(t, dir, port, "--log-bin")
	mustExec(t, p.db(""), "CREATE DATABASE m", "CREATE TABLE m.t1 (id INT PRIMARY KEY, v INT, s VARCHAR(20))")
	workload := func(p *proc, phase int, d time.Duration, wantDDL bool) {
		var wg sync.WaitGroup
		deadline := time.Now().Add(d)
		for w := 0; w < 4; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				r := rand.New(rand.NewSource(seed + int64(phase*10+w)))
				dsn := fmt.Sprintf("root@tcp(127.0.0.1:%d)/m?interpolateParams=%v", port, w%2 == 0)
				c, err := sql.Open("mysql", dsn)
				if err != nil {
					t.Error(err)
					return
				}
				defer c.Close()
				for i := 0; time.Now().Before(deadline); i++ {
					if wantDDL && w == 0 && i == 20 {
						// A secondary index: the CREATE commits the table, then the
						// index, while the other workers already write to it
						// (backend CAT-7: the event goes with the first).
						if _, err := c.Exec("CREATE TABLE t2 (id INT PRIMARY KEY, v INT, s VARCHAR(20), KEY (v))"); err != nil {
							t.Errorf("DDL: %v", err)
						}
					}
					table := "t1"
					if i > 10 && r.Intn(2) == 0 {
						table = "t2"
					}
					tx, err := c.Begin()
					if err != nil {
						return // the server is gone (kill -9)
					}
					for n := 1 + r.Intn(4); n > 0; n-- {
						id := r.Intn(200)
						var q string
						var args []any
						switch r.Intn(4) {
						case 0, 1:
							q, args = "INSERT INTO "+table+" VALUES (?, ?, ?)", []any{id, r.Intn(1000), fmt.Sprintf("s%d", r.Intn(50))}
						case 2:
							q, args = "UPDATE "+table+" SET v = ?, s = ? WHERE id = ?", []any{r.Intn(1000), fmt.Sprintf("u%d", r.Intn(50)), id}
						default:
							q, args = "DELETE FROM "+table+" WHERE id = ?", []any{id}
						}
						if r.Intn(6) == 0 {
							tx.Exec("SAVEPOINT sp")
							tx.Exec(q, args...) // a duplicate or a missing table: a statement error
							tx.Exec("ROLLBACK TO SAVEPOINT sp")
							continue
						}
						tx.Exec(q, args...)
					}
					if r.Intn(5) == 0 {
						tx.Rollback()
					} else {
						tx.Commit()
					}
				}
			}(w)
		}
		wg.Wait()
	}
	done := make(chan struct{})
	go func() { workload(p, 0, 6*time.Second, true); close(done) }()
	time.Sleep(3 * time.Second)
	p.kill()
	<-done
	p = startProc(t, dir, port, "--log-bin")
	workload(p, 1, 2*time.Second, false)

	_, _, gtids := masterStatus(t, p.db(""))
	want := map[string]map[string]string{}
	for _, tb := range []string{"t1", "t2"} {
		want[tb] = map[string]string{}
		rows, err := p.db("m").Query("SELECT id, v, s FROM " + tb)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var id, v, s sql.NullString
			rows.Scan(&id, &v, &s)
			want[tb][id.String] = nullText(v) + "," + nullText(s)
		}
		rows.Close()
	}
	got, n := consume(t, port, gtids)
	for _, tb := range []string{"t1", "t2"} {
		if fmt.Sprint(sorted(got[tb])) != fmt.Sprint(sorted(want[tb])) {
			var diff []string
			for k, v := range got[tb] {
				if want[tb][k] != v {
					diff = append(diff, fmt.Sprintf("id %s: log %q, server %q; history %v", k, v, want[tb][k], history[tb+"/"+k]))
				}
			}
			for k, v := range want[tb] {
				if _, ok := got[tb][k]; !ok {
					diff = append(diff, fmt.Sprintf("id %s: log none, server %q; history %v", k, v, history[tb+"/"+k]))
				}
			}
			t.Fatalf("%s: the model from the log differs from the server:\n%s", tb, strings.Join(diff, "\n"))
		}
	}
	t.Logf("%d transactions replayed up to %s; t1 %d rows, t2 %d rows", n, gtids, len(want["t1"]), len(want["t2"]))
	p.stop()
}

func nullText(v sql.NullString) string {
	if !v.Valid {
		return "NULL"
	}
	return v.String
}

func sorted(m map[string]string) []string {
	var out []string
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

var history = map[string][]string{}

// consume reads the log by GTID until it has the transactions of upTo
// and replays the row events into tables of id -> "v,s".
func consume(t *testing.T, port int, upTo string) (map[string]map[string]string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := mysql.Connect(ctx, &mysql.ConnParams{Host: "127.0.0.1", Port: port, Uname: "root"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.ExecuteFetch("SET @master_binlog_checksum = 'CRC32'", 0, false); err != nil {
		t.Fatal(err)
	}
	target, err := mysql.ParseMysql56GTIDSet(upTo[strings.IndexByte(upTo, ':')-36:])
	if err != nil {
		t.Fatal(err)
	}
	empty := mysql.Mysql56GTIDSet{}
	if err := c.WriteComBinlogDumpGTID(99, "", 4, mysql.BinlogThroughGTID, empty.SIDBlock()); err != nil {
		t.Fatal(err)
	}
	model := map[string]map[string]string{}
	seen := mysql.Mysql56GTIDSet{}
	var f mysql.BinlogFormat
	tables := map[uint64]*mysql.TableMap{}
	txns := 0
	var current mysql.GTID
	go func() { <-ctx.Done(); c.Close() }()
	for !seen.Contains(target) {
		ev, err := c.ReadBinlogEvent()
		if err != nil {
			t.Fatalf("after %d transactions (have %s): %v", txns, seen, err)
		}
		if ev.IsFormatDescription() {
			if f, err = ev.Format(); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if f.IsZero() {
			continue // the fake Rotate
		}
		if ev, _, err = ev.StripChecksum(f); err != nil {
			t.Fatal(err)
		}
		switch {
		case ev.IsGTID():
			if current, _, err = ev.GTID(f); err != nil {
				t.Fatal(err)
			}
			txns++
		case ev.IsXID():
			seen = seen.AddGTID(current).(mysql.Mysql56GTIDSet) // the transaction is whole
		case ev.IsQuery():
			q, err := ev.Query(f)
			if err != nil {
				t.Fatal(err)
			}
			if q.SQL == "BEGIN" {
				continue
			}
			if strings.HasPrefix(q.SQL, "CREATE TABLE ") {
				name := strings.Fields(q.SQL)[2]
				name = name[strings.LastIndexByte(name, '.')+1:]
				model[name] = map[string]string{}
			}
			seen = seen.AddGTID(current).(mysql.Mysql56GTIDSet) // DDL: a transaction of one event
		case ev.IsTableMap():
			tm, err := ev.TableMap(f)
			if err != nil {
				t.Fatal(err)
			}
			tables[ev.TableID(f)] = tm
		case ev.IsWriteRows(), ev.IsUpdateRows(), ev.IsDeleteRows():
			tm := tables[ev.TableID(f)]
			rows, err := ev.Rows(f, tm)
			if err != nil {
				t.Fatal(err)
			}
			m := model[tm.Name]
			if m == nil {
				t.Fatalf("rows of %s before its CREATE TABLE in the log", tm.Name)
			}
			for i := range rows.Rows {
				if !ev.IsWriteRows() {
					before, _ := rows.StringIdentifiesForTests(tm, i)
					if _, ok := m[before[0]]; !ok {
						t.Fatalf("%s: row %v changed or deleted before it was inserted", tm.Name, before)
					}
					delete(m, before[0])
					history[tm.Name+"/"+before[0]] = append(history[tm.Name+"/"+before[0]], fmt.Sprintf("gtid#%d del/upd %v", txns, before))
				}
				if !ev.IsDeleteRows() {
					after, _ := rows.StringValuesForTests(tm, i)
					if _, ok := m[after[0]]; ok {
						t.Fatalf("%s: row %v inserted twice", tm.Name, after)
					}
					m[after[0]] = after[1] + "," + after[2]
					history[tm.Name+"/"+after[0]] = append(history[tm.Name+"/"+after[0]], fmt.Sprintf("gtid#%d ins/upd %v", txns, after))
				}
			}
		}
	}
	return model, txns
}
