package rules

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// loadFiles implements RULE-33: LOAD_FILE(name) reads the file when it
// lies in secure_file_priv (when that is set) and is no larger than
// max_allowed_packet; otherwise, and for a NULL name or any read error,
// it is NULL, as in MySQL. A name that is not a string is read as its
// text. go-mysql-server's LOAD_FILE asserted a string name (LOAD_FILE(NULL)
// panicked, as did an INSERT filling a DEFAULT LOAD_FILE(a) from a NULL),
// asserted an int64 max_allowed_packet (every readable file panicked), and
// returned open errors to the client.
func loadFiles(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	wrap := func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		if lf, ok := e.(*function.LoadFile); ok {
			return &loadFile{LoadFile: lf}, transform.NewTree, nil
		}
		return e, transform.SameTree, nil
	}
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		n, same, err := transform.OneNodeExpressions(n, wrap)
		if err != nil {
			return nil, same, err
		}
		// An INSERT's source (its VALUES and the column defaults filling
		// what they leave out) is not one of its children.
		if ii, ok := n.(*plan.InsertInto); ok && ii.Source != nil {
			src, srcSame, err := transform.NodeExprs(ii.Source, wrap)
			if err != nil {
				return nil, same, err
			}
			if srcSame == transform.NewTree {
				return ii.WithSource(src), transform.NewTree, nil
			}
		}
		return n, same, nil
	})
}

type loadFile struct{ *function.LoadFile }

func (l *loadFile) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	name, err := l.Children()[0].Eval(ctx, row)
	if err != nil || name == nil {
		return nil, err
	}
	s, _, err := types.LongText.Convert(ctx, name)
	if err != nil {
		return nil, nil
	}
	path, err := filepath.Abs(s.(string))
	if err != nil {
		return nil, nil
	}
	if dir, err := ctx.Session.GetSessionVariable(ctx, "secure_file_priv"); err == nil {
		if d, _ := dir.(string); d != "" && !within(path, d) {
			return nil, nil
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, nil
	}
	if limit, err := ctx.Session.GetSessionVariable(ctx, "max_allowed_packet"); err == nil {
		if n, err := strconv.ParseInt(fmt.Sprint(limit), 10, 64); err == nil && fi.Size() > n {
			return nil, nil
		}
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, nil
	}
	return data, nil
}

// within reports whether path (absolute) lies in dir or below it, with
// symbolic links resolved on both.
func within(path, dir string) bool {
	d, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return false
	}
	if d, err = filepath.Abs(d); err != nil {
		return false
	}
	p, err := filepath.EvalSymlinks(path)
	if err != nil {
		return false
	}
	rel, err := filepath.Rel(d, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func (l *loadFile) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	return rewrapped(l.LoadFile, children, func(lf *function.LoadFile) sql.Expression { return &loadFile{LoadFile: lf} })
}
