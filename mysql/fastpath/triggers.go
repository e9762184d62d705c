package fastpath

import (
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/vt/sqlparser"
	"github.com/shopspring/decimal"

	"strata/mysql/auth"
	"strata/mysql/backend"
)

// rowTrigger is a trigger definition as FP-12 reads it.
type rowTrigger struct {
	table       string // the table it is on, lower case; "" when unreadable
	time, event string // lower case: before|after, insert|update|delete
	ordered     bool   // FOLLOWS or PRECEDES given
	update      *triggerUpdate
}

// triggerUpdate is a trigger body FP-12 runs: UPDATE table SET col = col
// {+|-} operand [, ...] WHERE key = NEW.newKey.
type triggerUpdate struct {
	table, key, newKey string
	sets               []triggerSet
}

type triggerSet struct {
	col    string
	neg    bool
	newCol string // the operand NEW.newCol, or "" for lit
	lit    int64
}

// triggerDefs caches parsed definitions by their CREATE TRIGGER text
// (immutable for a definition).
var triggerDefs = struct {
	sync.RWMutex
	m map[string]*rowTrigger
}{m: map[string]*rowTrigger{}}

func parsedTrigger(def sql.TriggerDefinition) *rowTrigger {
	triggerDefs.RLock()
	rt, ok := triggerDefs.m[def.CreateStatement]
	triggerDefs.RUnlock()
	if ok {
		return rt
	}
	rt = parseTrigger(def.CreateStatement)
	triggerDefs.Lock()
	if len(triggerDefs.m) >= maxShapes {
		clear(triggerDefs.m)
	}
	triggerDefs.m[def.CreateStatement] = rt
	triggerDefs.Unlock()
	return rt
}

func parseTrigger(text string) *rowTrigger {
	st, err := sqlparser.Parse(text)
	if err != nil {
		return &rowTrigger{}
	}
	ddl, ok := st.(*sqlparser.DDL)
	if !ok || ddl.TriggerSpec == nil {
		return &rowTrigger{}
	}
	spec := ddl.TriggerSpec
	rt := &rowTrigger{
		table:   strings.ToLower(ddl.Table.Name.String()),
		time:    strings.ToLower(spec.Time),
		event:   strings.ToLower(spec.Event),
		ordered: spec.Order != nil,
	}
	rt.update = parseTriggerUpdate(spec.Body)
	return rt
}

func parseTriggerUpdate(body sqlparser.Statement) *triggerUpdate {
	u, ok := body.(*sqlparser.Update)
	if !ok || u.With != nil || u.Ignore != "" || len(u.OrderBy) > 0 || u.Limit != nil || len(u.Returning) > 0 ||
		len(u.TableExprs) != 1 || u.Where == nil || len(u.Exprs) == 0 {
		return nil
	}
	ate, ok := u.TableExprs[0].(*sqlparser.AliasedTableExpr)
	if !ok || !ate.As.IsEmpty() || ate.Hints != nil || ate.AsOf != nil || len(ate.Partitions) > 0 {
		return nil
	}
	tn, ok := ate.Expr.(sqlparser.TableName)
	if !ok || !tn.DbQualifier.IsEmpty() || !tn.SchemaQualifier.IsEmpty() {
		return nil
	}
	tu := &triggerUpdate{table: tn.Name.String()}
	// own names a column of the updated table (unqualified, or by its name).
	own := func(e sqlparser.Expr) (string, bool) {
		c, ok := e.(*sqlparser.ColName)
		if !ok || c.StoredProcVal != nil || !c.Qualifier.DbQualifier.IsEmpty() ||
			!c.Qualifier.Name.IsEmpty() && !strings.EqualFold(c.Qualifier.Name.String(), tu.table) {
			return "", false
		}
		return c.Name.String(), true
	}
	newCol := func(e sqlparser.Expr) (string, bool) {
		c, ok := e.(*sqlparser.ColName)
		if !ok || c.StoredProcVal != nil || !c.Qualifier.DbQualifier.IsEmpty() || !strings.EqualFold(c.Qualifier.Name.String(), "new") {
			return "", false
		}
		return c.Name.String(), true
	}
	cmp, ok := u.Where.Expr.(*sqlparser.ComparisonExpr)
	if !ok || cmp.Operator != sqlparser.EqualStr || cmp.Escape != nil || u.Where.Type != sqlparser.WhereStr {
		return nil
	}
	if k, ok := own(cmp.Left); ok {
		tu.key = k
		if tu.newKey, ok = newCol(cmp.Right); !ok {
			return nil
		}
	} else if k, ok := own(cmp.Right); ok {
		tu.key = k
		if tu.newKey, ok = newCol(cmp.Left); !ok {
			return nil
		}
	} else {
		return nil
	}
	for _, a := range u.Exprs {
		col, ok := own(a.Name)
		if !ok {
			return nil
		}
		b, ok := a.Expr.(*sqlparser.BinaryExpr)
		if !ok || b.Operator != sqlparser.PlusStr && b.Operator != sqlparser.MinusStr {
			return nil
		}
		if src, ok := own(b.Left); !ok || !strings.EqualFold(src, col) {
			return nil
		}
		set := triggerSet{col: col, neg: b.Operator == sqlparser.MinusStr}
		if n, ok := newCol(b.Right); ok {
			set.newCol = n
		} else if v, ok := b.Right.(*sqlparser.SQLVal); ok && v.Type == sqlparser.IntVal {
			x, err := strconv.ParseInt(string(v.Val), 10, 64)
			if err != nil || x == math.MinInt64 {
				return nil
			}
			set.lit = x
		} else {
			return nil
		}
		tu.sets = append(tu.sets, set)
	}
	return tu
}

// insertTriggers returns the trigger bodies an INSERT into table fires,
// which FP-12 runs itself; false when the INSERT fires one it cannot run:
// a BEFORE INSERT trigger, several, an ordered one, or another body.
func insertTriggers(defs []sql.TriggerDefinition, table string, exists func(string) bool) (*triggerUpdate, string, bool) {
	var found *triggerUpdate
	var text string
	for _, d := range defs {
		rt := parsedTrigger(d)
		if rt.table == "" || !exists(rt.table) {
			return nil, "", false // unreadable, or on a table renamed since: it may be on this one
		}
		if rt.table != strings.ToLower(table) || rt.event != "insert" {
			continue
		}
		if rt.time != "after" || rt.ordered || rt.update == nil || found != nil ||
			strings.EqualFold(rt.update.table, table) {
			return nil, "", false
		}
		found, text = rt.update, d.CreateStatement
	}
	return found, text, true
}

// firesNone reports whether a statement of event on table fires no
// trigger of defs.
func firesNone(defs []sql.TriggerDefinition, table, event string, exists func(string) bool) bool {
	for _, d := range defs {
		rt := parsedTrigger(d)
		if rt.table == "" || !exists(rt.table) || rt.table == strings.ToLower(table) && rt.event == event {
			return false
		}
	}
	return true
}

// allowTriggers lets ft's statement of kind k run with the triggers of its
// database it fires: none (UPDATE, DELETE), or for an INSERT the one FP-12
// runs, the same when asked again under the metadata lock (FPB-6). It
// returns that trigger's body, or nil.
func allowTriggers(ft *backend.FastTable, table string, k kind) *triggerUpdate {
	defs := ft.Triggers()
	if len(defs) == 0 {
		return nil
	}
	if k != insertValues {
		event := "update"
		if k == deleteByKey {
			event = "delete"
		}
		ft.AllowTriggers(func(defs []sql.TriggerDefinition) bool { return firesNone(defs, table, event, ft.HasTable) })
		return nil
	}
	tu, text, ok := insertTriggers(defs, table, ft.HasTable)
	if !ok {
		return nil // Triggered stays true: the statement falls back
	}
	ft.AllowTriggers(func(defs []sql.TriggerDefinition) bool {
		_, t, ok := insertTriggers(defs, table, ft.HasTable)
		return ok && t == text
	})
	return tu
}

// triggerRun is a trigger body FP-12 runs, resolved once for the INSERT
// statement: its target and the ordinals it reads and writes.
type triggerRun struct {
	target *backend.FastTable
	newKey int // NEW.k's ordinal in the inserted table
	sets   []triggerAssign
}

type triggerAssign struct {
	col    int      // the target's column
	dec    bool     // a DECIMAL column (else an integer one)
	newCol int      // the operand NEW.x's ordinal in the inserted table, or -1: lit
	newTyp sql.Type // NEW.x's type
	lit    int64
	neg    bool
}

// prepareTrigger resolves tu for an INSERT into ft (FP-12), false when it
// cannot run whatever the row (asked before the INSERT, which would
// otherwise be written and undone for every statement): no table with a
// one-column integer primary key named as the body's key, columns it
// does not have or cannot add to, or no UPDATE and SELECT privilege for
// the client.
func (fp *Path) prepareTrigger(ctx *sql.Context, s *backend.Session, ft *backend.FastTable, tu *triggerUpdate) (*triggerRun, bool) {
	target, ok := s.FastTable(tu.table)
	if !ok || !target.SingleKey() || !target.IsKey(tu.key) ||
		!types.IsInteger(target.Column(target.KeyOrdinal()).Type) {
		return nil, false
	}
	if !auth.FastPathAllowed(ctx, fp.grants, s.GetCurrentDatabase(), tu.table, true, auth.Update, auth.Select) {
		return nil, false // never less than the general path asks (AUTH-5)
	}
	table := tu.table
	target.AllowTriggers(func(defs []sql.TriggerDefinition) bool { return firesNone(defs, table, "update", target.HasTable) })
	r := &triggerRun{target: target, newKey: ft.Ordinal(tu.newKey), sets: make([]triggerAssign, len(tu.sets))}
	if r.newKey < 0 || !types.IsInteger(ft.Column(r.newKey).Type) {
		return nil, false
	}
	for i, set := range tu.sets {
		a := triggerAssign{col: target.Ordinal(set.col), newCol: -1, lit: set.lit, neg: set.neg}
		if a.col < 0 || a.col == target.KeyOrdinal() {
			return nil, false
		}
		ctyp := target.Column(a.col).Type
		a.dec = types.IsDecimal(ctyp)
		if !a.dec && !(types.IsInteger(ctyp) && !types.IsYear(ctyp)) {
			return nil, false
		}
		if set.newCol != "" {
			if a.newCol = ft.Ordinal(set.newCol); a.newCol < 0 {
				return nil, false
			}
			a.newTyp = ft.Column(a.newCol).Type
		}
		r.sets[i] = a
	}
	return r, true
}

// run is FP-12's run of the trigger for the inserted row: the UPDATE of
// the target's row by key, in the INSERT's statement. ErrFallback for
// anything it does not run exactly as the general path would.
func (r *triggerRun) run(ctx *sql.Context, row sql.Row) error {
	if row[r.newKey] == nil {
		return backend.ErrFallback
	}
	ops := make([]any, len(r.sets)) // int64 or decimal.Decimal
	for i, a := range r.sets {
		var op any = a.lit
		if a.newCol >= 0 {
			var ok bool
			if op, ok = operand(row[a.newCol], a.newTyp); !ok {
				return backend.ErrFallback
			}
		}
		switch x := op.(type) {
		case int64:
			if a.neg {
				x = -x
			}
			if a.dec {
				ops[i] = decimal.NewFromInt(x)
			} else {
				ops[i] = x
			}
		case decimal.Decimal:
			if !a.dec {
				return backend.ErrFallback // an integer column rounds the sum
			}
			if a.neg {
				x = x.Neg()
			}
			ops[i] = x
		}
	}
	target := r.target
	_, _, err := target.UpdateByKeyWithin(ctx, row[r.newKey], func(u sql.Row) error {
		// Assignments apply left to right, each seeing the earlier ones.
		for i, a := range r.sets {
			var v any
			var ok bool
			switch x := ops[i].(type) {
			case int64:
				if v, ok = target.AddInt(ctx, a.col, u[a.col], x); ok {
					v, ok = target.Convert(ctx, a.col, v)
				}
			case decimal.Decimal:
				v, ok = target.AddDecimal(ctx, a.col, u[a.col], x)
			}
			if !ok {
				return backend.ErrFallback // NULL, overflow, inexact: the general path's answer
			}
			u[a.col] = v
		}
		return nil
	})
	return err
}

// operand is a NEW value as FP-12 adds it: a signed integer (an unsigned
// operand makes MySQL's arithmetic unsigned) or a DECIMAL; false for NULL
// and anything else.
func operand(v any, t sql.Type) (any, bool) {
	if types.IsUnsigned(t) {
		return nil, false
	}
	switch x := v.(type) {
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		if x == math.MinInt64 {
			return nil, false
		}
		return x, true
	case decimal.Decimal:
		if types.IsDecimal(t) {
			return x, true
		}
	}
	return nil, false
}
