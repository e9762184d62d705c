// Package planner owns Strata's cost-based choice among the join plans
// go-mysql-server's memo enumerates: a memo.Coster (installed as the
// analyzer's Coster) that estimates each plan's rows and work from the
// storage engine's own statistics instead of go-mysql-server's, whose
// estimates were wrong by orders of magnitude (join3 of bench/queries ran
// 130x MariaDB's time: a nested loop over every order line from the
// products side, where MariaDB starts from the 2,000 customers of one
// country).
//
// It depends on go-mysql-server only; a table gives it statistics by
// implementing Statistics (mysql/backend's Table does: rules ST-1..3).
//
// Rules:
//
// PL-1 Rows are estimated per memo group from its logical form, never from
// go-mysql-server's histograms: a table's row count; a filtered table's
// rows from its static index range (records in range, ST-3) times the
// selectivity of the filters the range does not cover; a join's rows from
// its inputs and the distinct counts of its key columns (ST-2). A column's
// distinct count is that of an index the column leads; a column with none
// counts as unique.
// PL-2 Selectivities without statistics are MySQL's guesses: 0.1 for
// equality, 1/3 for a range, 0.5 for anything else.
// PL-3 Cost counts row reads: a row read in key order costs 1, the
// primary-key lookup behind a secondary-index entry 2 more (none when the
// index covers the columns read, backend IX-3), and a lookup join's probe
// 6.5 (go-mysql-server builds an index iterator for every outer row; in
// a profile of exists-returned, 36,000 probes took ~47 ms, 1.3 us each,
// against ~200 ns per row of a scan; at 5 it kept that query's lookup
// join, 109-111 ms, where a hash join takes 93-95). A hash join pays 2
// per row to build its right side (its key, a map insert, the bucket's
// append; at 1.5, tied with the probe, segment-country-report built on
// 62,000 orders rather than 10,000 customers: 111-114 ms, 98 ms at 2)
// and 1.5 per probe with its left (2.5 while go-mysql-server built an
// iterator over the matches per outer row; rules RULE-87 hands out the
// bucket itself: join3 96 -> 80 ms, segment-country 120 -> 110 ms as
// hash joins replace lookups); a merge join reads both indexes whole (or their static
// ranges); a nested loop reads its right side once per left row; a lookup
// join probes once per left row and reads the rows per key (rows /
// distinct key prefixes).
// PL-4 A source group (a table, or a table with its static index scan) is
// not costed by the memo: the operator above it pays for reading it
// through the access the memo chose for it.
// PL-5 Whatever the planner does not model (set operations, recursive
// CTEs, table functions) keeps go-mysql-server's estimate.
// PL-6 A hash join on a string key is never chosen unless the key's
// collation equals by bytes (binary, utf8mb4_0900_bin): go-mysql-server's
// hash join hashes the bytes, and under a case- or pad-insensitive
// collation it lost matches ('b' = 'B  ').
// PL-7 The joins of an UPDATE or DELETE statement keep go-mysql-server's
// plan: its multi-table UPDATE finds the tables to change by name in the
// planned join, and with another join order `UPDATE t JOIN (SELECT 1
// FROM t) tt ...` found the subquery's projected t and refused it as
// keyless (an enginetest script).
// PL-8 A merge anti-join is never chosen: its first condition drives the
// merge, so rules RULE-88 cannot make its NULL comparisons mean "no
// match" (NOT EXISTS); RULE-88 turns one it still meets (PL-7's plans,
// hints) into a nested-loop anti-join.
// PL-10 A merge join is never chosen on keys of different types (INT and
// INT UNSIGNED, DECIMAL and an integer), nor as an inner join standing
// for a semi-join whose sides are not made distinct: go-mysql-server's
// memo offered one for `EXISTS (SELECT 1 FROM b WHERE a.k = b.k)`, which
// returned a row once per match (compat TestRandomJoinsMatchMariaDB found
// both).
//
// PL-9 A single table's filter that go-mysql-server answers through a
// static range of a secondary index is read by a scan of the table under
// the whole filter when the range holds more than a fifth of the table's
// rows (ST-3) and the index does not cover the columns read: a row
// behind an index entry (the entry, then its primary-key lookup) cost
// 5.4-6.7 scanned rows in bench/queries (`created > '2025-01-01' AND
// total > 0`: 142 ms through the index, 76 ms scanned). go-mysql-server's
// costedIndexScans took any index that applies, whatever its range held
// (fullscan.go wraps its optimizeJoins). A join's inputs keep their
// access (a merge join reads an index scan for its order; a merge join
// over a reverted scan lost rows). A locking statement keeps the
// range (a scan would lock every row), and UPDATE and DELETE keep
// go-mysql-server's plan (PL-7).
//
// Tested by TestWideRangesScanTheTable (mysql/server: plans, rows read
// and results of wide and narrow ranges, aliases, a covering index and a
// locking read), TestJoinPlans (mysql/server: the plan and rows read of a
// 4-table join, its result computed independently), the compat suite's
// joins against MariaDB (PL-6 came from it), go-mysql-server's enginetests
// (results under every plan this coster picks) and bench/queries.sh.
package planner
