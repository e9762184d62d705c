package rules

import (
	"io"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// SafeStats wraps go-mysql-server's statistics provider so ANALYZE TABLE
// of an empty table succeeds with nothing to record (RULE-21): its
// histogram builder divides by the number of sampled rows and panicked
// (`CREATE TABLE t0(c0 INT UNIQUE); ANALYZE TABLE t0`). It also compares
// sampled key values with ==, which panicked on binary strings and JSON,
// and its join estimates panicked on NULL bucket bounds: the table it
// samples hands binary strings and JSON over as their text and NULL as
// the type's zero.
func SafeStats(sp sql.StatsProvider) sql.StatsProvider { return safeStats{sp} }

type safeStats struct{ sql.StatsProvider }

func (s safeStats) AnalyzeTable(ctx *sql.Context, table sql.Table, db string) error {
	empty, err := isEmpty(ctx, table)
	if err != nil {
		return err
	}
	if empty {
		return nil
	}
	if a, ok := table.(interface{ AnalyzeKeys(*sql.Context) error }); ok { // backend ST-2
		if err := a.AnalyzeKeys(ctx); err != nil {
			return err
		}
	}
	if iat, ok := table.(sql.IndexAddressableTable); ok {
		table = comparableSample{iat}
	}
	return s.StatsProvider.AnalyzeTable(ctx, table, db)
}

// comparableSample is a table whose rows hold only values == can compare:
// binary strings and JSON documents become strings.
type comparableSample struct{ sql.IndexAddressableTable }

func (c comparableSample) RowCount(ctx *sql.Context) (uint64, bool, error) {
	if st, ok := c.IndexAddressableTable.(sql.StatisticsTable); ok {
		return st.RowCount(ctx)
	}
	return 0, false, nil
}

func (c comparableSample) DataLength(ctx *sql.Context) (uint64, error) {
	if st, ok := c.IndexAddressableTable.(sql.StatisticsTable); ok {
		return st.DataLength(ctx)
	}
	return 0, nil
}

func (c comparableSample) PartitionRows(ctx *sql.Context, p sql.Partition) (sql.RowIter, error) {
	it, err := c.IndexAddressableTable.PartitionRows(ctx, p)
	if err != nil {
		return nil, err
	}
	return comparableRows{RowIter: it, sch: c.Schema()}, nil
}

type comparableRows struct {
	sql.RowIter
	sch sql.Schema
}

func (r comparableRows) Next(ctx *sql.Context) (sql.Row, error) {
	row, err := r.RowIter.Next(ctx)
	if err != nil {
		return row, err
	}
	for i, v := range row {
		switch x := v.(type) {
		case nil:
			// go-mysql-server's join estimates read bucket bounds as
			// numbers and panicked on a NULL one: the sample counts a
			// NULL as the type's zero.
			if i < len(r.sch) {
				row[i] = r.sch[i].Type.Zero()
			}
		case []byte:
			row[i] = string(x)
		case sql.JSONWrapper:
			if s, err := types.JsonToMySqlString(x); err == nil {
				row[i] = s
			} else {
				row[i] = nil
			}
		}
	}
	return row, nil
}

// isEmpty reads until it finds one row of table.
func isEmpty(ctx *sql.Context, table sql.Table) (bool, error) {
	parts, err := table.Partitions(ctx)
	if err != nil {
		return false, err
	}
	defer parts.Close(ctx)
	for {
		p, err := parts.Next(ctx)
		if err == io.EOF {
			return true, nil
		}
		if err != nil {
			return false, err
		}
		rows, err := table.PartitionRows(ctx, p)
		if err != nil {
			return false, err
		}
		_, err = rows.Next(ctx)
		rows.Close(ctx)
		if err == nil {
			return false, nil
		}
		if err != io.EOF {
			return false, err
		}
	}
}
