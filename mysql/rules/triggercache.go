package rules

import (
	"fmt"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// RULE-85 A session's top-level INSERT, UPDATE or DELETE of one table
// finds the triggers it fires, parsed
// and analyzed, in a cache, instead of go-mysql-server's applyTriggers
// parsing every trigger of the database (twice each for the table's) and
// analyzing the bodies for every statement: 39% of the CPU of
// single-row INSERTs into a table with one AFTER INSERT trigger, and a
// parse of every trigger for an INSERT into a table with none.
//
//   - What is cached is what applyTriggers did to the statement: the
//     trigger executors it put around it (AFTER) and around its source
//     (BEFORE: an INSERT's rows, an UPDATE's or DELETE's child), each
//     with its analyzed body, learned from its own answer
//     the first time, kept only if putting them back on that same INSERT
//     gives its answer exactly (the plan's text), and put back on the next
//     INSERT of the same key. No triggers is an answer too.
//   - The key: the session, its current database, user, privilege-set
//     counter (go-mysql-server's, moved by any GRANT/REVOKE) and sql_mode,
//     the target database and table, and the text and sql_mode of every
//     trigger of the database (read at each statement: CREATE/DROP
//     TRIGGER changes the key).
//   - An entry holds the identity of every table its bodies and NEW read
//     (backend: the catalog object an ALTER, CREATE INDEX, DROP or RENAME
//     replaces); it is used only while each name still resolves to that
//     same object, else learned again.
//   - Bodies holding state across executions are never cached: subquery
//     expressions (their results may be cached), CALLs, derived tables.
//   - Only statements analyzed at the top (no outer scope: not inside a
//     trigger or routine); an UPDATE or DELETE of a join still goes
//     through applyTriggers.
func cachedTriggers(orig analyzer.RuleFunc) analyzer.RuleFunc {
	return func(ctx *sql.Context, a *analyzer.Analyzer, n sql.Node, scope *plan.Scope, sel analyzer.RuleSelector, qFlags *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
		ins, ok := dmlOf(ctx, n)
		if !ok || !qFlags.DmlIsSet() || scope != nil && !scope.IsEmpty() {
			return orig(ctx, a, n, scope, sel, qFlags)
		}
		key, ok := triggerKey(ctx, a, ins)
		if !ok {
			return orig(ctx, a, n, scope, sel, qFlags)
		}
		if e := triggerPlans.get(key); e != nil && e.current(ctx, a) {
			triggerPlans.hits.Add(1)
			return e.apply(ins, qFlags)
		}
		res, same, err := orig(ctx, a, n, scope, sel, qFlags)
		if err != nil {
			return res, same, err
		}
		if e := learnTriggers(ins, res); e != nil {
			triggerPlans.put(key, e)
		}
		return res, same, err
	}
}

// dml is the statement RULE-85 caches triggers for: its node, target
// table and database, and its source (where BEFORE executors go).
type dml struct {
	n      sql.Node
	target *plan.ResolvedTable
	db     string
}

// dmlOf returns n as RULE-85's statement; ok false for another node, an
// UPDATE or DELETE of a join, or a target that is not a table.
func dmlOf(ctx *sql.Context, n sql.Node) (dml, bool) {
	d := dml{n: n, db: ctx.GetCurrentDatabase()}
	var search sql.Node
	switch x := n.(type) {
	case *plan.InsertInto:
		if x.Database() != nil && x.Database().Name() != "" {
			d.db = x.Database().Name()
		}
		search = x.Destination
	case *plan.Update:
		if x.IsJoin {
			return d, false
		}
		if _, join := x.Child.(*plan.UpdateJoin); join {
			return d, false
		}
		if x.Database() != "" {
			d.db = x.Database()
		}
		search = x.Child
	case *plan.DeleteFrom:
		if x.HasExplicitTargets() {
			return d, false
		}
		if x.Database() != "" {
			d.db = x.Database()
		}
		search = x.Child
	default:
		return d, false
	}
	// The table as go-mysql-server's applyTriggers finds it: the first.
	transform.Inspect(search, func(n sql.Node) bool {
		switch x := n.(type) {
		case *plan.ResolvedTable:
			d.target = x
		case *plan.IndexedTableAccess:
			d.target, _ = x.TableNode.(*plan.ResolvedTable)
		case *plan.JoinNode:
			d.target = nil
			return false
		default:
			return true
		}
		return false
	})
	return d, d.target != nil
}

// source is the node BEFORE executors wrap.
func (d dml) source(n sql.Node) sql.Node {
	switch x := n.(type) {
	case *plan.InsertInto:
		return x.Source
	case *plan.Update:
		return x.Child
	case *plan.DeleteFrom:
		return x.Child
	}
	return nil
}

// withSource is n with its source replaced.
func (d dml) withSource(n, src sql.Node) (sql.Node, error) {
	if ins, ok := n.(*plan.InsertInto); ok {
		return ins.WithSource(src), nil
	}
	return n.WithChildren(src)
}

// triggerKey is RULE-85's key for ins; ok false when its database keeps no
// triggers this way.
func triggerKey(ctx *sql.Context, a *analyzer.Analyzer, ins dml) (string, bool) {
	db, rt := ins.db, ins.target
	database, err := a.Catalog.Database(ctx, db)
	if err != nil {
		return "", false
	}
	tdb, ok := database.(sql.TriggerDatabase)
	if !ok {
		return "", false
	}
	triggers, err := tdb.GetTriggers(ctx)
	if err != nil {
		return "", false
	}
	mode, err := ctx.GetSessionVariable(ctx, "sql_mode")
	if err != nil {
		return "", false
	}
	_, privs := ctx.Session.GetPrivilegeSet()
	client := ctx.Session.Client()
	var b strings.Builder
	fmt.Fprintf(&b, "%T\x00%d\x00%s\x00%s@%s\x00%d\x00%v\x00%s\x00%s", ins.n, ctx.Session.ID(), ctx.GetCurrentDatabase(),
		client.User, client.Address, privs, mode, strings.ToLower(db), strings.ToLower(rt.Name()))
	for _, t := range triggers {
		fmt.Fprintf(&b, "\x00%s\x00%s", t.SqlMode, t.CreateStatement)
	}
	return b.String(), true
}

// catalogIdentity is implemented by tables whose catalog object changes
// identity with their definition (backend Table).
type catalogIdentity interface {
	CatalogIdentity() any
}

// tableUse is a table a cached entry depends on, and the identity it had.
type tableUse struct {
	db, name string
	id       any
}

// triggerEntry is what applyTriggers did to a statement (RULE-85).
type triggerEntry struct {
	after, before []*plan.TriggerExecutor // innermost first
	tables        []tableUse
}

// current reports whether every table the entry depends on still
// resolves to the object it did.
func (e *triggerEntry) current(ctx *sql.Context, a *analyzer.Analyzer) bool {
	for _, u := range e.tables {
		t, _, err := a.Catalog.Table(ctx, u.db, u.name)
		if err != nil {
			return false
		}
		ci, ok := t.(catalogIdentity)
		if !ok || ci.CatalogIdentity() != u.id {
			return false
		}
	}
	return true
}

// apply puts the entry's trigger executors on ins.
func (e *triggerEntry) apply(ins dml, qFlags *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if len(e.after)+len(e.before) == 0 {
		return ins.n, transform.SameTree, nil
	}
	// What applyTriggers sets when it applies a trigger.
	qFlags.Set(sql.QFlagRelSubquery)
	qFlags.Set(sql.QFlagTrigger)
	n := ins.n
	if len(e.before) > 0 {
		src := ins.source(n)
		for _, te := range e.before {
			src = plan.NewTriggerExecutor(src, te.Right(), te.TriggerEvent, te.TriggerTime, te.TriggerDefinition)
		}
		var err error
		if n, err = ins.withSource(n, src); err != nil {
			return nil, transform.SameTree, err
		}
	}
	for _, te := range e.after {
		n = plan.NewTriggerExecutor(n, te.Right(), te.TriggerEvent, te.TriggerTime, te.TriggerDefinition)
	}
	return n, transform.NewTree, nil
}

// learnTriggers reads what applyTriggers made of ins (res); nil when it
// is not only trigger executors around ins and its source, or a body
// must not be cached.
func learnTriggers(ins dml, res sql.Node) *triggerEntry {
	e := &triggerEntry{}
	n := res
	for {
		te, ok := n.(*plan.TriggerExecutor)
		if !ok {
			break
		}
		e.after = append([]*plan.TriggerExecutor{te}, e.after...)
		n = te.Left()
	}
	if reflect.TypeOf(n) != reflect.TypeOf(ins.n) {
		return nil
	}
	src := ins.source(n)
	for {
		te, ok := src.(*plan.TriggerExecutor)
		if !ok {
			break
		}
		e.before = append([]*plan.TriggerExecutor{te}, e.before...)
		src = te.Left()
	}
	// The tables: the INSERT's own (NEW's columns) and every table the
	// bodies read or write.
	if !e.use(ins.db, ins.target) {
		return nil
	}
	for _, te := range append(append([]*plan.TriggerExecutor{}, e.after...), e.before...) {
		if !e.usesOf(te.Right()) {
			return nil
		}
	}
	// Put back on ins, the entry must give applyTriggers' answer.
	again, _, err := e.apply(ins, nil)
	if err != nil || sql.DebugString(again) != sql.DebugString(res) {
		return nil
	}
	return e
}

// use records rt's identity; false when it has none.
func (e *triggerEntry) use(db string, rt *plan.ResolvedTable) bool {
	ci, ok := rt.UnderlyingTable().(catalogIdentity)
	if !ok {
		return false
	}
	if rt.Database() != nil && rt.Database().Name() != "" {
		db = rt.Database().Name()
	}
	e.tables = append(e.tables, tableUse{db: db, name: rt.Name(), id: ci.CatalogIdentity()})
	return true
}

// usesOf records the tables of a trigger body; false when the body holds
// state across executions or a table without identity.
func (e *triggerEntry) usesOf(body sql.Node) bool {
	ok := true
	transform.Inspect(body, func(n sql.Node) bool {
		switch x := n.(type) {
		case *plan.ResolvedTable:
			ok = ok && e.use("", x)
		case *plan.IndexedTableAccess:
			rt, isRT := x.TableNode.(*plan.ResolvedTable)
			ok = ok && isRT && e.use("", rt)
		case *plan.Call, *plan.SubqueryAlias, *plan.CachedResults, *plan.RecursiveCte, *plan.RecursiveTable, sql.OpaqueNode:
			ok = false
		}
		if ex, isEx := n.(sql.Expressioner); isEx && ok {
			for _, x := range ex.Expressions() {
				transform.InspectExpr(x, func(x sql.Expression) bool {
					if _, sub := x.(*plan.Subquery); sub {
						ok = false
					}
					return !ok
				})
			}
		}
		return ok
	})
	return ok
}

// triggerCache holds RULE-85's entries; full, it starts over.
type triggerCache struct {
	mu      sync.Mutex
	entries map[string]*triggerEntry
	hits    atomic.Int64
}

const maxTriggerEntries = 4096

var triggerPlans = &triggerCache{entries: map[string]*triggerEntry{}}

func (c *triggerCache) get(key string) *triggerEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.entries[key]
}

func (c *triggerCache) put(key string, e *triggerEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= maxTriggerEntries {
		c.entries = map[string]*triggerEntry{}
	}
	c.entries[key] = e
}

// TriggerPlanHits is how many INSERTs took their triggers from RULE-85's
// cache (for tests).
func TriggerPlanHits() int64 { return triggerPlans.hits.Load() }

// RULE-101 A write's triggers are parsed and resolved in the written
// table's database, which is theirs (MySQL runs a trigger's body in its
// schema): go-mysql-server's applyTriggers read them from that database
// but parsed them in the session's current one, so every INSERT, UPDATE
// or DELETE of a table in a database with triggers failed without a
// current database ("no database selected") or from another one ("Table
// 'src' doesn't exist"), whichever table the triggers were on. Its
// processTruncate, which makes a DELETE without WHERE a TRUNCATE unless
// the table has a DELETE trigger, looked the table and its triggers up in
// the current database: `DELETE FROM db.t` failed without one (1049
// "database not found"), and from another database missed t's DELETE
// triggers. The current database is the written table's while those two
// rules (and RULE-85's cache) run, and restored after.

// inWrittenDatabase runs rule with the database of the table n writes as
// the current one (RULE-101).
func inWrittenDatabase(rule analyzer.RuleFunc) analyzer.RuleFunc {
	return func(ctx *sql.Context, a *analyzer.Analyzer, n sql.Node, scope *plan.Scope, sel analyzer.RuleSelector, qFlags *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
		if db := triggerDatabase(ctx, n); db != "" && !strings.EqualFold(db, ctx.GetCurrentDatabase()) {
			cur := ctx.GetCurrentDatabase()
			ctx.SetCurrentDatabase(db)
			defer ctx.SetCurrentDatabase(cur)
		}
		return rule(ctx, a, n, scope, sel, qFlags)
	}
}

// triggerDatabase is the database applyTriggers reads the triggers of n
// from (its own rule: the last INSERT, UPDATE or DELETE target naming
// one), or "" for a block of statements, which it takes one by one.
func triggerDatabase(ctx *sql.Context, n sql.Node) string {
	switch n.(type) {
	case *plan.TriggerBeginEndBlock, *plan.BeginEndBlock, *plan.Block, *plan.CreateTrigger:
		return ""
	}
	db := ""
	transform.Inspect(n, func(n sql.Node) bool {
		switch x := n.(type) {
		case *plan.InsertInto:
			if x.Database() != nil && x.Database().Name() != "" {
				db = x.Database().Name()
			}
		case *plan.Update:
			if x.Database() != "" {
				db = x.Database()
			}
		case *plan.DeleteFrom:
			if x.Database() != "" {
				db = x.Database()
				break
			}
			// A DELETE whose first source names no database (its
			// Database() looks there only): its targets name it.
			for _, t := range x.GetDeleteTargets() {
				transform.Inspect(t, func(n sql.Node) bool {
					if r, ok := n.(*plan.ResolvedTable); ok && r.SqlDatabase != nil && r.SqlDatabase.Name() != "" {
						db = r.SqlDatabase.Name()
					}
					return true
				})
			}
		}
		return true
	})
	return db
}

// crossDatabaseDeletes keeps a DELETE without WHERE of a table outside the
// current database from go-mysql-server's TRUNCATE conversion (RULE-101):
// its simpleDelete batch runs processTruncate directly (not the rule list
// inWrittenDatabase wraps), which looks the table and its DELETE triggers
// up in the current database: `DELETE FROM db.t` failed with 1049 without
// one, and from another database could miss t's DELETE triggers. A
// filter of TRUE in between makes it the row-by-row DELETE MySQL runs
// (which fires the triggers and keeps AUTO_INCREMENT, as MySQL's does).
func crossDatabaseDeletes(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	d, ok := n.(*plan.DeleteFrom)
	if !ok || d.HasExplicitTargets() {
		return n, transform.SameTree, nil
	}
	rt, ok := d.Child.(*plan.ResolvedTable)
	if !ok || rt.SqlDatabase == nil || strings.EqualFold(rt.SqlDatabase.Name(), ctx.GetCurrentDatabase()) {
		return n, transform.SameTree, nil
	}
	nn, err := d.WithChildren(plan.NewFilter(expression.NewLiteral(true, types.Boolean), rt))
	if err != nil {
		return n, transform.SameTree, err
	}
	return nn, transform.NewTree, nil
}
