// Package infoschema adds to go-mysql-server's information_schema the
// tables it lacks that clients and test tools read.
//
// Rules:
//
//	IS-1 The tables added are MariaDB's and MySQL 5.7's views of the server
//	     variables: SYSTEM_VARIABLES (MariaDB 10.11's columns), and
//	     GLOBAL_VARIABLES / SESSION_VARIABLES (VARIABLE_NAME, VARIABLE_VALUE).
//	     They are computed at each read from go-mysql-server's variable
//	     registry and the reading session, so they never disagree with
//	     SELECT @@var or SHOW VARIABLES.
//	IS-2 Names are upper case and values text, as MariaDB writes them:
//	     booleans ON/OFF, NULL for the session value of a global-only
//	     variable and the global value of a session-only one.
//	IS-3 The wrapped database answers every other name exactly as
//	     go-mysql-server's information_schema does, but ENGINES, which
//	     also lists MariaDB's SEQUENCE engine (seqengine SEQ-3), and
//	     ROUTINES, which also lists stored functions (IS-4).
//	IS-4 ROUTINES' rows are go-mysql-server's (procedures) followed by the
//	     rows of the functions Install's caller lists (routines FN-n).
//	IS-5 STATISTICS' CARDINALITY is the planner's estimate of the distinct
//	     values of the index's first SEQ_IN_INDEX columns (planner
//	     Statistics, backend ST-2), as InnoDB reports its own estimate;
//	     go-mysql-server wrote 0.
//
// Tested by mysql/server's TestInformationSchemaVariables against the
// values SELECT @@var returns, and by mtr's include files in
// suites/run.sh mariadb-test (include/have_innodb.inc reads
// SYSTEM_VARIABLES).
package infoschema

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	is "github.com/dolthub/go-mysql-server/sql/information_schema"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/types"

	"strata/mysql/planner"
)

// Install replaces the catalog's information_schema with one that also
// has the tables of IS-1; functions lists stored functions' ROUTINES rows
// (IS-4; nil: none).
func Install(cat *analyzer.Catalog, functions func(*sql.Context) ([]sql.Row, error)) {
	extra := tables()
	if t, ok, err := cat.InfoSchema.GetTableInsensitive(sql.NewEmptyContext(), "engines"); err == nil && ok {
		extra["engines"] = &is.InformationSchemaTable{TableName: t.Name(), TableSchema: t.Schema(), Reader: enginesRows}
	}
	if t, ok, err := cat.InfoSchema.GetTableInsensitive(sql.NewEmptyContext(), "routines"); err == nil && ok && functions != nil {
		extra["routines"] = &routinesTable{Table: t, functions: functions}
	}
	if t, ok, err := cat.InfoSchema.GetTableInsensitive(sql.NewEmptyContext(), "statistics"); err == nil && ok {
		extra["statistics"] = &statisticsTable{Table: t}
	}
	cat.InfoSchema = &database{Database: cat.InfoSchema, extra: extra}
}

// statisticsTable is go-mysql-server's STATISTICS with CARDINALITY filled
// in (IS-5).
type statisticsTable struct {
	sql.Table
	cat sql.Catalog
}

func (s *statisticsTable) AssignCatalog(cat sql.Catalog) sql.Table {
	t := s.Table
	if ct, ok := t.(sql.CatalogTable); ok {
		t = ct.AssignCatalog(cat)
	}
	return &statisticsTable{Table: t, cat: cat}
}

func (s *statisticsTable) PartitionRows(ctx *sql.Context, p sql.Partition) (sql.RowIter, error) {
	it, err := s.Table.PartitionRows(ctx, p)
	if err != nil {
		return nil, err
	}
	rows, err := sql.RowIterToRows(ctx, it)
	if err != nil {
		return nil, err
	}
	sch := s.Schema()
	col := func(name string) int { return sch.IndexOfColName(name) }
	db, tbl, idx, seq, card := col("TABLE_SCHEMA"), col("TABLE_NAME"), col("INDEX_NAME"), col("SEQ_IN_INDEX"), col("CARDINALITY")
	if s.cat == nil || db < 0 || tbl < 0 || idx < 0 || seq < 0 || card < 0 {
		return sql.RowsToRowIter(rows...), nil
	}
	type key struct{ db, tbl string }
	type source struct {
		st   planner.Statistics
		idxs []sql.Index
	}
	tables := map[key]source{} // each table looked up once
	for _, r := range rows {
		k := key{fmt.Sprint(r[db]), fmt.Sprint(r[tbl])}
		src, seen := tables[k]
		if !seen {
			if d, err := s.cat.Database(ctx, k.db); err == nil {
				if t, ok, err := d.GetTableInsensitive(ctx, k.tbl); err == nil && ok {
					if st, ok := t.(planner.Statistics); ok {
						if idxs, err := st.GetIndexes(ctx); err == nil {
							src = source{st, idxs}
						}
					}
				}
			}
			tables[k] = src
		}
		st, idxs := src.st, src.idxs
		if st == nil {
			continue
		}
		n, _, err := types.Int64.Convert(ctx, r[seq])
		if err != nil {
			continue
		}
		for _, x := range idxs {
			if strings.EqualFold(x.ID(), fmt.Sprint(r[idx])) {
				if v, ok := st.KeyDistinct(ctx, x, int(n.(int64))); ok {
					r[card] = int64(v + 0.5)
				}
				break
			}
		}
	}
	return sql.RowsToRowIter(rows...), nil
}

// routinesTable is go-mysql-server's ROUTINES (procedures, which its
// analyzer assigns) with the stored functions' rows after them (IS-4).
type routinesTable struct {
	sql.Table
	functions func(*sql.Context) ([]sql.Row, error)
}

func (r *routinesTable) AssignCatalog(cat sql.Catalog) sql.Table {
	if ct, ok := r.Table.(sql.CatalogTable); ok {
		return &routinesTable{Table: ct.AssignCatalog(cat), functions: r.functions}
	}
	return r
}

func (r *routinesTable) AssignProcedures(p map[string][]*plan.Procedure) sql.Table {
	if rt, ok := r.Table.(analyzer.RoutineTable); ok {
		return &routinesTable{Table: rt.AssignProcedures(p), functions: r.functions}
	}
	return r
}

// PartitionRows: go-mysql-server's one partition of ROUTINES, then the
// functions.
func (r *routinesTable) PartitionRows(ctx *sql.Context, p sql.Partition) (sql.RowIter, error) {
	it, err := r.Table.PartitionRows(ctx, p)
	if err != nil {
		return nil, err
	}
	rows, err := sql.RowIterToRows(ctx, it)
	if err != nil {
		return nil, err
	}
	more, err := r.functions(ctx)
	if err != nil {
		return nil, err
	}
	return sql.RowsToRowIter(append(rows, more...)...), nil
}

// enginesRows are go-mysql-server's engines and SEQUENCE (SEQ-3).
func enginesRows(ctx *sql.Context, _ sql.Catalog) (sql.RowIter, error) {
	var rows []sql.Row
	for _, e := range sql.SupportedEngines {
		rows = append(rows, sql.Row{e.String(), e.Support(), e.Comment(), e.Transactions(), e.XA(), e.Savepoints()})
	}
	rows = append(rows, sql.Row{"SEQUENCE", "YES", "Generated tables filled with sequential values", "YES", "NO", "YES"})
	return sql.RowsToRowIter(rows...), nil
}

type database struct {
	sql.Database
	extra map[string]sql.Table // lower-case name -> table
}

// GetTableInsensitive implements sql.Database (IS-3).
func (d *database) GetTableInsensitive(ctx *sql.Context, name string) (sql.Table, bool, error) {
	if t, ok := d.extra[strings.ToLower(name)]; ok {
		return t, true, nil
	}
	return d.Database.GetTableInsensitive(ctx, name)
}

// GetTableNames implements sql.Database.
func (d *database) GetTableNames(ctx *sql.Context) ([]string, error) {
	names, err := d.Database.GetTableNames(ctx)
	if err != nil {
		return nil, err
	}
	for k, t := range d.extra {
		if k != "engines" {
			names = append(names, t.Name())
		}
	}
	return names, nil
}

func varchar(n int64) sql.Type {
	return types.MustCreateString(types.Text.Type(), n, sql.Collation_utf8mb3_general_ci)
}

func col(table, name string, typ sql.Type, nullable bool) *sql.Column {
	return &sql.Column{Name: name, Type: typ, Nullable: nullable, Source: table, DatabaseSource: sql.InformationSchemaDatabaseName}
}

func tables() map[string]sql.Table {
	const sysName = "SYSTEM_VARIABLES"
	sysSchema := sql.Schema{
		col(sysName, "VARIABLE_NAME", varchar(64), false),
		col(sysName, "SESSION_VALUE", varchar(2048), true),
		col(sysName, "GLOBAL_VALUE", varchar(2048), true),
		col(sysName, "GLOBAL_VALUE_ORIGIN", varchar(64), false),
		col(sysName, "DEFAULT_VALUE", varchar(2048), true),
		col(sysName, "VARIABLE_SCOPE", varchar(64), false),
		col(sysName, "VARIABLE_TYPE", varchar(64), false),
		col(sysName, "VARIABLE_COMMENT", varchar(2048), false),
		col(sysName, "NUMERIC_MIN_VALUE", varchar(21), true),
		col(sysName, "NUMERIC_MAX_VALUE", varchar(21), true),
		col(sysName, "NUMERIC_BLOCK_SIZE", varchar(21), true),
		col(sysName, "ENUM_VALUE_LIST", types.LongText, true),
		col(sysName, "READ_ONLY", varchar(3), false),
		col(sysName, "COMMAND_LINE_ARGUMENT", varchar(64), true),
		col(sysName, "GLOBAL_VALUE_PATH", varchar(2048), true),
	}
	pair := func(name string) sql.Schema {
		return sql.Schema{col(name, "VARIABLE_NAME", varchar(64), false), col(name, "VARIABLE_VALUE", varchar(2048), false)}
	}
	out := map[string]sql.Table{}
	add := func(name string, schema sql.Schema, reader func(*sql.Context, sql.Catalog) (sql.RowIter, error)) {
		out[strings.ToLower(name)] = &is.InformationSchemaTable{TableName: name, TableSchema: schema, Reader: reader}
	}
	add(sysName, sysSchema, systemVariablesRows)
	add("GLOBAL_VARIABLES", pair("GLOBAL_VARIABLES"), func(ctx *sql.Context, _ sql.Catalog) (sql.RowIter, error) {
		return pairRows(sql.SystemVariables.GetAllGlobalVariables()), nil
	})
	add("SESSION_VARIABLES", pair("SESSION_VARIABLES"), func(ctx *sql.Context, _ sql.Catalog) (sql.RowIter, error) {
		return pairRows(ctx.GetAllSessionVariables()), nil
	})
	return out
}

// text renders a variable's value as MariaDB's information_schema does
// (IS-2).
func text(typ sql.Type, v any) any {
	if v == nil {
		return nil
	}
	if _, ok := typ.(types.SystemBoolType); ok {
		switch b := v.(type) {
		case int8:
			return onOff(b != 0)
		case int64:
			return onOff(b != 0)
		case bool:
			return onOff(b)
		}
	}
	switch b := v.(type) {
	case []byte:
		return string(b)
	case string:
		return b
	}
	return fmt.Sprint(v)
}

func onOff(b bool) string {
	if b {
		return "ON"
	}
	return "OFF"
}

func sortedNames(m map[string]any) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

func pairRows(vals map[string]any) sql.RowIter {
	rows := make([]sql.Row, 0, len(vals))
	for _, name := range sortedNames(vals) {
		v := vals[name]
		var typ sql.Type
		if sv, _, ok := sql.SystemVariables.GetGlobal(name); ok {
			typ = sv.GetType()
		}
		s := text(typ, v)
		if s == nil {
			s = ""
		}
		rows = append(rows, sql.NewRow(strings.ToUpper(name), s))
	}
	return sql.RowsToRowIter(rows...)
}

// variableType names a variable's type the way MariaDB's VARIABLE_TYPE
// column does.
func variableType(t sql.Type) string {
	if _, ok := t.(types.SystemBoolType); ok {
		return "BOOLEAN"
	}
	name := fmt.Sprintf("%T", t)
	switch {
	case strings.HasSuffix(name, "systemEnumType"):
		return "ENUM"
	case strings.HasSuffix(name, "systemSetType"):
		return "SET"
	case strings.HasSuffix(name, "systemIntType"):
		return "BIGINT"
	case strings.HasSuffix(name, "systemUintType"):
		return "BIGINT UNSIGNED"
	case strings.HasSuffix(name, "systemDoubleType"):
		return "DOUBLE"
	}
	return "VARCHAR"
}

func systemVariablesRows(ctx *sql.Context, _ sql.Catalog) (sql.RowIter, error) {
	globals := sql.SystemVariables.GetAllGlobalVariables()
	session := ctx.GetAllSessionVariables()
	rows := make([]sql.Row, 0, len(globals))
	for _, name := range sortedNames(globals) {
		sv, gv, ok := sql.SystemVariables.GetGlobal(name)
		if !ok {
			continue
		}
		typ := sv.GetType()
		scope := "SESSION"
		var sessionValue, globalValue any
		mv, _ := sv.(*sql.MysqlSystemVariable)
		switch {
		case mv != nil && mv.Scope != nil && mv.Scope.Type == sql.SystemVariableScope_Global:
			scope = "GLOBAL"
			globalValue = text(typ, gv)
		case mv != nil && mv.Scope != nil && mv.Scope.Type == sql.SystemVariableScope_Session:
			scope = "SESSION ONLY"
			sessionValue = text(typ, session[name])
		default:
			globalValue = text(typ, gv)
			sessionValue = text(typ, session[name])
		}
		readOnly := "NO"
		if mv != nil && !mv.Dynamic {
			readOnly = "YES"
		}
		var enumList any
		if et, ok := typ.(sql.EnumType); ok {
			enumList = strings.Join(et.Values(), ",")
		} else if st, ok := typ.(sql.SetType); ok {
			enumList = strings.Join(st.Values(), ",")
		} else if variableType(typ) == "BOOLEAN" {
			enumList = "OFF,ON"
		}
		rows = append(rows, sql.NewRow(
			strings.ToUpper(name), sessionValue, globalValue, "COMPILE-TIME",
			text(typ, sv.GetDefault()), scope, variableType(typ), "",
			nil, nil, nil, enumList, readOnly, nil, nil,
		))
	}
	return sql.RowsToRowIter(rows...), nil
}
