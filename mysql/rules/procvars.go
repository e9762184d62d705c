package rules

import (
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/procedures"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// procedureAssignments implements RULE-32: a value stored in a variable
// or parameter of a stored procedure (by SET, SELECT ... INTO and FETCH
// ... INTO) is converted to the variable's declared type as it is stored,
// as MySQL's assignment does. go-mysql-server's interpreter stores the
// value as the expression produced it and later formats it by the
// declared type: `SET v = 100` of a DOUBLE v (an int8) panicked on a
// float64 assertion, `SET i = 2.5` of an INT i (a DECIMAL) became the text
// "{824634 -1}", `SET s = 5` of a VARCHAR s "%!s(int8=5)".
func procedureAssignments(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	transform.Inspect(n, func(n sql.Node) bool {
		if call, ok := n.(*plan.Call); ok && call.Procedure != nil {
			castAssignments(call.Procedure)
		}
		return true
	})
	return n, transform.SameTree, nil
}

// castAssignments wraps, in place, the values assigned to the procedure's
// variables in the CAST of their types. A name declared in two scopes
// with different types is left as it is (the interpreter resolves scopes
// at run time; this rule does not).
func castAssignments(p *plan.Procedure) {
	casts := map[string]string{} // name -> target type; "" when unknown
	note := func(name string, t sql.Type) {
		name = strings.ToLower(name)
		c := castTarget(t)
		if prev, seen := casts[name]; seen && prev != c {
			c = ""
		}
		casts[name] = c
	}
	for _, param := range p.Params {
		note(param.Name, param.Type)
	}
	cursors := map[string]ast.SelectStatement{}
	for _, op := range p.Ops {
		d, ok := op.PrimaryData.(*ast.Declare)
		if op.OpCode != procedures.OpCode_Declare || !ok {
			continue
		}
		if d.Variables != nil {
			t, err := types.ColumnTypeToType(&d.Variables.VarType)
			if err != nil {
				t = nil
			}
			for _, name := range d.Variables.Names {
				note(name.String(), t)
			}
		}
		if d.Cursor != nil {
			cursors[strings.ToLower(d.Cursor.Name)] = d.Cursor.SelectStmt
		}
	}
	// castSelected wraps the i-th selected value of sel in the cast of
	// targets[i].
	castSelected := func(sel ast.SelectStatement, targets []string) {
		s, ok := sel.(*ast.Select)
		if !ok || len(s.SelectExprs) != len(targets) {
			return
		}
		for i, target := range targets {
			if ae, ok := s.SelectExprs[i].(*ast.AliasedExpr); ok {
				ae.Expr = castTo(ae.Expr, casts[strings.ToLower(target)])
			}
		}
	}
	for _, op := range p.Ops {
		switch op.OpCode {
		case procedures.OpCode_Set:
			castSelected(op.PrimaryData.(ast.SelectStatement), []string{op.Target})
		case procedures.OpCode_Select:
			if s, ok := op.PrimaryData.(*ast.Select); ok && s.Into != nil {
				targets := make([]string, len(s.Into.Variables))
				for i, v := range s.Into.Variables {
					targets[i] = v.String()
				}
				castSelected(s, targets)
			}
		case procedures.OpCode_Fetch:
			if f, ok := op.PrimaryData.(*ast.FetchCursor); ok {
				castSelected(cursors[strings.ToLower(f.Name)], f.Variables)
			}
		}
	}
}

// castTarget is the CAST type that gives a value of t in the form the
// interpreter formats t's values: numbers as Go numbers, everything else
// as text ("" for types left alone: ENUM, SET, JSON, BIT, YEAR, spatial).
func castTarget(t sql.Type) string {
	switch {
	case t == nil:
		return ""
	case types.IsFloat(t):
		return "double"
	case types.IsUnsigned(t):
		return "unsigned"
	case types.IsInteger(t):
		return "signed"
	case types.IsDecimal(t):
		d := t.(sql.DecimalType)
		return fmt.Sprintf("decimal(%d,%d)", d.Precision(), d.Scale())
	case types.IsBinaryType(t):
		return "binary"
	case types.IsText(t):
		return "char"
	case types.IsDateType(t):
		return "date"
	case types.IsTime(t):
		return "datetime(6)"
	case types.IsTimespan(t):
		return "time(6)"
	}
	return ""
}

// castTo is CAST(e AS target), once; a temporal or DECIMAL value is cast
// on to CHAR, since the interpreter writes a Go time.Time as text with its
// zone and a DECIMAL without its trailing zeros.
func castTo(e ast.Expr, target string) ast.Expr {
	if target == "" {
		return e
	}
	if c, ok := e.(*ast.ConvertExpr); ok && c.Name == castMarker {
		return e
	}
	typ := &ast.ConvertType{Type: target}
	if i := strings.IndexByte(target, '('); i > 0 {
		typ.Type = target[:i]
		args := strings.Split(strings.TrimSuffix(target[i+1:], ")"), ",")
		typ.Length = ast.NewIntVal([]byte(args[0]))
		if len(args) > 1 {
			typ.Scale = ast.NewIntVal([]byte(args[1]))
		}
	}
	cast := &ast.ConvertExpr{Name: "CAST", Expr: e, Type: typ}
	switch typ.Type {
	case "date", "datetime", "time", "decimal":
		cast = &ast.ConvertExpr{Name: "CAST", Expr: cast, Type: &ast.ConvertType{Type: "char"}}
	}
	cast.Name = castMarker
	return cast
}

// castMarker names the outer CAST this rule adds, so that a second
// analysis of the same procedure does not add another. The planner does
// not read the name (the parser keeps the keyword as written there).
const castMarker = "strata_cast"
