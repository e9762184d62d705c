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

// rewrapped is the WithChildren of a wrapper that embeds a go-mysql-server
// expression of type T: the embedded expression with the new children,
// wrapped again while it is still a T.
func rewrapped[T sql.Expression](inner T, children []sql.Expression, wrap func(T) sql.Expression) (sql.Expression, error) {
	n, err := inner.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	if t, ok := n.(T); ok {
		return wrap(t), nil
	}
	return n, nil
}
