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
// PL-3 Cost counts row reads and B+tree descents: a row read in key order
// costs 1, a descent 3, so a row through a secondary index costs 4 (its
// entry and the primary-key lookup), or 1 when the index covers the
// columns read (backend IX-3). A hash join pays to build its right
// side and probe with its left; a merge join reads both indexes whole (or
// their static ranges); a nested loop reads its right side once per left
// row; a lookup join descends once per left row and reads the rows per key
// (rows / distinct key prefixes).
// PL-4 A source group (a table, or a table with its static index scan) is
// not costed by the memo: the operator above it pays for reading it
// through the access the memo chose for it.
// PL-5 Whatever the planner does not model (set operations, recursive
// CTEs, table functions) keeps go-mysql-server's estimate.
// PL-6 A hash join on a string key is never chosen unless the key's
// collation equals by bytes (binary, utf8mb4_0900_bin): go-mysql-server's
// hash join hashes the bytes, and under a case- or pad-insensitive
// collation it lost matches ('b' = 'B  ').
//
// Tested by TestJoinPlans (mysql/server: the plan and rows read of a
// 4-table join, its result computed independently), the compat suite's
// joins against MariaDB (PL-6 came from it), go-mysql-server's enginetests
// (results under every plan this coster picks) and bench/queries.sh.
package planner
