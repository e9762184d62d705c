package rules

import "github.com/dolthub/go-mysql-server/sql"

// over is what the rules' single-child wrappers share: the wrapper stands
// for its child in the plan (its text, nullability and resolution); each
// wrapper adds its Type, Eval, WithChildren and DebugString.
type over struct{ child sql.Expression }

func (o over) Resolved() bool             { return o.child.Resolved() }
func (o over) String() string             { return o.child.String() }
func (o over) IsNullable() bool           { return o.child.IsNullable() }
func (o over) Children() []sql.Expression { return []sql.Expression{o.child} }
