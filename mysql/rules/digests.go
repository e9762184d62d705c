package rules

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"hash"
	"hash/crc32"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// binaryDigests implements RULE-44: MD5, SHA1 (SHA), SHA2 and CRC32 digest
// the bytes of their argument, binary strings included, as MySQL does.
// go-mysql-server converted the argument to utf8mb4 text first, so
// SHA2(x'ff', 224) failed with "invalid string for charset utf8mb4" (392
// statements of MariaDB's func_digest).
func binaryDigests(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeExprs(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		switch f := e.(type) {
		case *function.MD5:
			return &digest{Expression: f, kind: "md5"}, transform.NewTree, nil
		case *function.SHA1:
			return &digest{Expression: f, kind: "sha1"}, transform.NewTree, nil
		case *function.SHA2:
			return &digest{Expression: f, kind: "sha2"}, transform.NewTree, nil
		case *function.Crc32:
			return &digest{Expression: f, kind: "crc32"}, transform.NewTree, nil
		}
		return e, transform.SameTree, nil
	})
}

// digest is one of the digest functions over its argument's bytes.
type digest struct {
	sql.Expression // the go-mysql-server function: type, name, children
	kind           string
}

func (d *digest) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	e, err := d.Expression.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	return &digest{Expression: e, kind: d.kind}, nil
}

func (d *digest) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	args := d.Children()
	v, err := args[0].Eval(ctx, row)
	if err != nil || v == nil {
		return nil, err
	}
	var b []byte
	switch x := v.(type) {
	case []byte:
		b = x
	case string:
		b = []byte(x)
	default:
		s, _, err := types.LongText.Convert(ctx, v)
		if err != nil {
			return nil, err
		}
		b = []byte(s.(string))
	}
	var h hash.Hash
	switch d.kind {
	case "md5":
		h = md5.New()
	case "sha1":
		h = sha1.New()
	case "crc32":
		return uint64(crc32.ChecksumIEEE(b)), nil
	case "sha2":
		lv, err := args[1].Eval(ctx, row)
		if err != nil || lv == nil {
			return nil, err
		}
		l, _, err := types.Int64.Convert(ctx, lv)
		if err != nil {
			return nil, nil
		}
		switch l.(int64) {
		case 0, 256:
			h = sha256.New()
		case 224:
			h = sha256.New224()
		case 384:
			h = sha512.New384()
		case 512:
			h = sha512.New()
		default:
			return nil, nil // MySQL: NULL for other lengths
		}
	}
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil)), nil
}
