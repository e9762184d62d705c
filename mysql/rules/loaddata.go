package rules

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/vitess/go/mysql"
)

// loadDataFiles implements RULE-53: LOAD DATA reads its file as MySQL
// does: escape sequences are read (\t a tab, \n a newline, \0, \b, \r,
// \Z, \N NULL, \x x), terminators and enclosing characters that are
// escaped or inside an enclosed field are data, a doubled enclosing
// character inside an enclosed field is one, and LINES STARTING BY drops
// what precedes the prefix. go-mysql-server split the file on every
// terminator and then deleted the escape characters, so a tab written \t
// was stored as "t" (go-sql-driver's TestLoadData) and an escaped tab
// split the field.
//
// The file is read here into fields and records and handed on to
// go-mysql-server's loader separated by 0x1F and 0x1E, with its escape
// and enclosure handling off; the loader's mapping of fields to columns,
// user variables and SET stays as it is. A \N field reaches it as the
// word NULL, which it reads as NULL (so does a field holding the word
// NULL: a remaining difference from MySQL, which reads an unenclosed NULL
// word as NULL only when ENCLOSED BY is set). A file holding the bytes
// 0x1E or 0x1F is refused (1235). A server-side file is checked against
// secure_file_priv as go-mysql-server checks it, then copied, transformed,
// into a temporary file beside it.
func loadDataFiles(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		ld, ok := n.(*plan.LoadData)
		if !ok {
			return n, transform.SameTree, nil
		}
		return &loadData{LoadData: ld}, transform.NewTree, nil
	})
}

const (
	ldField  = "\x1f"
	ldRecord = "\x1e"
)

var errLoadSeparator = mysql.NewSQLError(mysql.ERNotSupportedYet, "42000", "This version of Strata doesn't yet support 'LOAD DATA of a file holding the bytes 0x1E or 0x1F'")

type loadData struct{ *plan.LoadData }

var _ sql.ExecSourceRel = (*loadData)(nil)

func (l *loadData) WithChildren(children ...sql.Node) (sql.Node, error) {
	if len(children) != 0 {
		return nil, sql.ErrInvalidChildrenNumber.New(l, len(children), 0)
	}
	return l, nil
}

func (l *loadData) RowIter(ctx *sql.Context, row sql.Row) (sql.RowIter, error) {
	inner := *l.LoadData
	inner.FieldsTerminatedBy, inner.LinesTerminatedBy = ldField, ldRecord
	inner.FieldsEnclosedBy, inner.FieldsEnclosedByOpt, inner.FieldsEscapedBy, inner.LinesStartingBy = "", false, "", ""
	if l.Local {
		// The client's file comes through the session's LoadInfile: a
		// copy of the context whose LoadInfile transforms it.
		nc := ctx.WithQuery(ctx.Query())
		sql.WithServices(sql.Services{LoadInfile: func(name string) (io.ReadCloser, error) {
			r, err := ctx.LoadInfile(name)
			if err != nil {
				return nil, err
			}
			return l.transformed(r), nil
		}})(nc)
		return Exec.Build(nc, &inner, row)
	}
	_, secure, _ := sql.SystemVariables.GetGlobal("secure_file_priv")
	if err := underSecureDir(secure, l.File); err != nil {
		return nil, sql.ErrLoadDataCannotOpen.New(err.Error())
	}
	src, err := os.Open(l.File)
	if err != nil {
		return nil, sql.ErrLoadDataCannotOpen.New(err.Error())
	}
	tmp, err := os.CreateTemp(filepath.Dir(l.File), ".strata-load-*")
	if err != nil {
		src.Close()
		return nil, sql.ErrLoadDataCannotOpen.New(err.Error())
	}
	defer os.Remove(tmp.Name()) // the loader holds it open
	_, err = io.Copy(tmp, l.transformed(src))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	inner.File = tmp.Name()
	return Exec.Build(ctx, &inner, row)
}

// underSecureDir is the secure_file_priv check: the file lies in the
// directory or below it, links resolved (within, as LOAD_FILE checks).
func underSecureDir(secure any, file string) error {
	dir, _ := secure.(string)
	if dir == "" {
		return nil
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return err
	}
	if !within(abs, dir) {
		return sql.ErrSecureFilePriv.New()
	}
	return nil
}

// transformed reads r as MySQL reads a LOAD DATA file under l's FIELDS
// and LINES options and returns its records, fields separated by 0x1F,
// records ended by 0x1E.
func (l *loadData) transformed(r io.ReadCloser) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		defer r.Close()
		w := bufio.NewWriterSize(pw, 64<<10)
		err := l.parse(bufio.NewReaderSize(r, 64<<10), w)
		if err == nil {
			err = w.Flush()
		}
		pw.CloseWithError(err)
	}()
	return pr
}

func (l *loadData) parse(in *bufio.Reader, out *bufio.Writer) error {
	fieldTerm, lineTerm := l.FieldsTerminatedBy, l.LinesTerminatedBy
	if lineTerm == "" {
		lineTerm = "\n"
	}
	var esc byte
	if l.FieldsEscapedBy != "" {
		esc = l.FieldsEscapedBy[0]
	}
	enc := l.FieldsEnclosedBy
	at := func(s string) bool { // the input continues with s (consumed if so)
		if s == "" {
			return false
		}
		b, err := in.Peek(len(s))
		if err != nil || string(b) != s {
			return false
		}
		in.Discard(len(s))
		return true
	}
	eof := func() bool { _, err := in.Peek(1); return err != nil }
	var field bytes.Buffer
	for !eof() {
		if l.LinesStartingBy != "" {
			// Drop what precedes the prefix; a line without it is skipped.
			found := false
			for !eof() && !found {
				if at(l.LinesStartingBy) {
					found = true
				} else if at(lineTerm) {
					break
				} else {
					in.ReadByte()
				}
			}
			if !found {
				continue
			}
		}
		for first := true; ; first = false {
			field.Reset()
			isNull, endRecord := false, false
			enclosed := enc != "" && at(enc)
			for {
				if eof() {
					endRecord = true
					break
				}
				if enclosed && at(enc) {
					if at(enc) { // a doubled enclosing character
						field.WriteString(enc)
						continue
					}
					enclosed = false
					// After the closing character: the field ends at the
					// next terminator.
					for !eof() && !strings.HasPrefix(peekString(in, len(fieldTerm)), fieldTerm) && !strings.HasPrefix(peekString(in, len(lineTerm)), lineTerm) {
						in.ReadByte()
					}
					continue
				}
				if !enclosed {
					if at(fieldTerm) {
						break
					}
					if at(lineTerm) {
						endRecord = true
						break
					}
				}
				c, _ := in.ReadByte()
				if esc != 0 && c == esc {
					n, err := in.ReadByte()
					if err != nil {
						field.WriteByte(c)
						continue
					}
					switch n {
					case '0':
						field.WriteByte(0)
					case 'b':
						field.WriteByte('\b')
					case 'n':
						field.WriteByte('\n')
					case 'r':
						field.WriteByte('\r')
					case 't':
						field.WriteByte('\t')
					case 'Z':
						field.WriteByte(26)
					case 'N':
						if field.Len() == 0 {
							isNull = true
						} else {
							field.WriteByte('N')
						}
					default:
						field.WriteByte(n)
					}
					continue
				}
				if isNull { // \N followed by more: the text itself
					field.WriteString("N")
					isNull = false
				}
				field.WriteByte(c)
			}
			if bytes.ContainsAny(field.Bytes(), ldField+ldRecord) {
				return errLoadSeparator
			}
			if !first {
				out.WriteString(ldField)
			}
			if isNull {
				out.WriteString("NULL")
			} else {
				out.Write(field.Bytes())
			}
			if endRecord {
				out.WriteString(ldRecord)
				break
			}
		}
	}
	return nil
}

func peekString(in *bufio.Reader, n int) string {
	if n == 0 {
		return "\x00never"
	}
	b, _ := in.Peek(n)
	return string(b)
}
