package rules

import (
	"io"

	"github.com/dolthub/go-mysql-server/sql"
)

// SafeStats wraps go-mysql-server's statistics provider so ANALYZE TABLE
// of an empty table succeeds with nothing to record (RULE-21): its
// histogram builder divides by the number of sampled rows and panicked
// (`CREATE TABLE t0(c0 INT UNIQUE); ANALYZE TABLE t0`).
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
	return s.StatsProvider.AnalyzeTable(ctx, table, db)
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
