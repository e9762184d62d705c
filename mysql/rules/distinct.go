package rules

import (
	"encoding/binary"
	"encoding/hex"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function/aggregation"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// collatedDistinct runs SELECT DISTINCT over a string column with a
// non-binary collation as a grouping on every column (RULE-7), which
// compares under the collation and keeps the first row of each group in
// input order; go-mysql-server's DISTINCT hashes the bytes.
func collatedDistinct(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		d, ok := n.(*plan.Distinct)
		if !ok {
			return n, transform.SameTree, nil
		}
		sch := d.Child.Schema()
		collated := false
		for _, c := range sch {
			_, byColl := comparesByCollation(c.Type)
			collated = collated || byColl
		}
		if !collated {
			return n, transform.SameTree, nil
		}
		exprs := make([]sql.Expression, len(sch))
		for i, c := range sch {
			exprs[i] = expression.NewGetFieldWithTable(i, 0, c.Type, c.DatabaseSource, c.Source, c.Name, c.Nullable)
		}
		return plan.NewGroupBy(exprs, exprs, d.Child), transform.NewTree, nil
	})
}

// collatedCountDistinct makes COUNT(DISTINCT s) count s's collation keys
// (RULE-7), not its bytes.
func collatedCountDistinct(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, qFlags *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if qFlags != nil && !qFlags.IsSet(sql.QFlagAggregation) && !qFlags.IsSet(sql.QFlagAnyAgg) {
		return n, transform.SameTree, nil
	}
	return transform.NodeExprs(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		cd, ok := e.(*aggregation.CountDistinct)
		if !ok {
			return e, transform.SameTree, nil
		}
		children := cd.Children()
		nc := make([]sql.Expression, len(children))
		changed := false
		for i, c := range children {
			nc[i] = c
			if coll, ok := comparesByCollation(c.Type()); ok {
				if _, done := c.(*collationKey); !done {
					nc[i], changed = &collationKey{over: over{c}, coll: coll}, true
				}
			}
		}
		if !changed {
			return e, transform.SameTree, nil
		}
		ne, err := cd.WithChildren(nc...)
		if err != nil {
			return nil, transform.SameTree, err
		}
		return ne, transform.NewTree, nil
	})
}

// comparesByCollation reports whether equal values of typ may differ in
// bytes (a text type whose collation is not a binary NO PAD one).
func comparesByCollation(typ sql.Type) (sql.CollationID, bool) {
	st, ok := typ.(sql.StringType)
	if !ok || !types.IsTextOnly(typ) {
		return 0, false
	}
	coll := st.Collation()
	byteEqual := coll == sql.Collation_binary || strings.HasSuffix(coll.Name(), "_bin") && coll.PadAttribute() == "NO PAD"
	return coll, !byteEqual
}

// collationKey is a string's sort key under a collation: equal keys for
// equal strings (trailing spaces dropped under PAD SPACE).
type collationKey struct {
	over
	coll sql.CollationID
}

var _ sql.Expression = (*collationKey)(nil)

func (k *collationKey) Type() sql.Type { return types.LongText }

func (k *collationKey) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(k, len(children), 1)
	}
	return &collationKey{over: over{children[0]}, coll: k.coll}, nil
}

func (k *collationKey) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := k.child.Eval(ctx, row)
	if err != nil || v == nil {
		return v, err
	}
	sv, _, err := types.LongText.Convert(ctx, v)
	if err != nil {
		return nil, err
	}
	s, _ := sv.(string)
	if k.coll.PadAttribute() == "PAD SPACE" {
		s = strings.TrimRight(s, " ")
	}
	weight := k.coll.Sorter()
	out := make([]byte, 0, 4*len(s))
	for _, r := range s {
		out = binary.BigEndian.AppendUint32(out, uint32(weight(r)))
	}
	// As text: COUNT(DISTINCT) converts its arguments to utf8mb4 text.
	return hex.EncodeToString(out), nil
}
