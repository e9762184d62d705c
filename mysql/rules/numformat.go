package rules

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// exactFormats is RULE-39's analyzer rule.
func exactFormats(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeExprs(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		if f, ok := e.(*function.Format); ok {
			return &exactFormat{f}, transform.NewTree, nil
		}
		return e, transform.SameTree, nil
	})
}

// exactFormat is FORMAT(X, D[, locale]) computed on decimals (RULE-39):
// X rounded half away from zero to D places (0 to 38, as MariaDB), the
// integer part grouped by the locale's separator. go-mysql-server
// computed in float64 and int64: FORMAT(12345678901234567890.1, 1)
// wrapped to a negative number, FORMAT(1e300, 256) panicked on an
// infinity, and a DECIMAL's digits past float64's precision were lost.
type exactFormat struct{ *function.Format }

func (f *exactFormat) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	return rewrapped(f.Format, children, func(ff *function.Format) sql.Expression { return &exactFormat{ff} })
}

func (f *exactFormat) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := f.NumValue.Eval(ctx, row)
	if err != nil || v == nil {
		return nil, err
	}
	dv, err := f.NumDecimalPlaces.Eval(ctx, row)
	if err != nil || dv == nil {
		return nil, err
	}
	places, _, err := types.Int64.Convert(ctx, dv)
	if err != nil {
		return nil, nil
	}
	d := places.(int64)
	if d < 0 {
		d = 0
	} else if d > 38 {
		d = 38
	}
	sep := localeSeparators{",", ".", false}
	if f.Locale != nil {
		lv, err := f.Locale.Eval(ctx, row)
		if err != nil {
			return nil, err
		}
		if s, ok := lv.(string); ok {
			if ls, ok := formatLocales[strings.ToLower(s)]; ok {
				sep = ls
			}
		}
	}
	n, ok := decimalOf(v)
	if !ok {
		if s, isStr := v.(string); isStr {
			p, _ := numericPrefix(s, prefixDecimal)
			if n, ok = decimalOf(p); ok {
				ctx.Warn(1292, "Truncated incorrect DOUBLE value: '%s'", Printable(s))
			}
		}
		if !ok {
			fv, _, err := types.Float64.Convert(ctx, v)
			if err != nil {
				return nil, nil
			}
			if n, ok = decimalOfFloat(fv.(float64)); !ok {
				return nil, nil
			}
		}
	}
	text := n.Round(int32(d)).StringFixed(int32(d))
	neg := strings.HasPrefix(text, "-")
	text = strings.TrimPrefix(text, "-")
	whole, frac, _ := strings.Cut(text, ".")
	var b strings.Builder
	if neg && strings.Trim(text, "0.") != "" {
		b.WriteByte('-')
	}
	b.WriteString(groupDigits(whole, sep))
	if d > 0 {
		b.WriteString(sep.decimal)
		b.WriteString(frac)
	}
	return b.String(), nil
}

// groupDigits puts the locale's thousands separator into a run of digits:
// every 3 digits, or 3 then every 2 for the Indian locales.
func groupDigits(whole string, sep localeSeparators) string {
	if sep.thousands == "" || len(whole) <= 3 {
		return whole
	}
	var groups []string
	head, tail := whole[:len(whole)-3], whole[len(whole)-3:]
	groups = append(groups, tail)
	size := 3
	if sep.indian {
		size = 2
	}
	for len(head) > size {
		groups = append(groups, head[len(head)-size:])
		head = head[:len(head)-size]
	}
	if head != "" {
		groups = append(groups, head)
	}
	for i, j := 0, len(groups)-1; i < j; i, j = i+1, j-1 {
		groups[i], groups[j] = groups[j], groups[i]
	}
	return strings.Join(groups, sep.thousands)
}

// localeSeparators are a locale's thousands separator (empty: none),
// decimal point, and Indian grouping (3 digits, then 2s).
type localeSeparators struct {
	thousands, decimal string
	indian             bool
}

// formatLocales are the locales whose separators differ from en_US's,
// as MariaDB 10.11's FORMAT writes them (information_schema.LOCALES);
// other names write en_US's.
var formatLocales = map[string]localeSeparators{
	"ar_sa": {"", ".", false},
	"be_by": {".", ",", false},
	"bg_bg": {"\x00", ",", false},
	"ca_es": {"", ",", false},
	"cs_cz": {" ", ",", false},
	"da_dk": {".", ",", false},
	"de_at": {"", ",", false},
	"de_be": {".", ",", false},
	"de_ch": {"'", ".", false},
	"de_de": {".", ",", false},
	"de_lu": {".", ",", false},
	"el_gr": {"", ",", false},
	"en_in": {",", ".", true},
	"es_ar": {".", ",", false},
	"es_bo": {".", ",", false},
	"es_cl": {".", ",", false},
	"es_co": {".", ",", false},
	"es_cr": {" ", ",", false},
	"es_ec": {".", ",", false},
	"es_es": {".", ",", false},
	"es_py": {".", ",", false},
	"es_uy": {".", ",", false},
	"es_ve": {".", ",", false},
	"et_ee": {" ", ",", false},
	"eu_es": {"", ",", false},
	"fi_fi": {" ", ",", false},
	"fo_fo": {".", ",", false},
	"fr_be": {"", ",", false},
	"fr_ca": {"", ",", false},
	"fr_ch": {"", ",", false},
	"fr_fr": {"", ",", false},
	"fr_lu": {"", ",", false},
	"gl_es": {"", ",", false},
	"hr_hr": {"", ",", false},
	"hu_hu": {".", ",", false},
	"id_id": {".", ",", false},
	"is_is": {".", ",", false},
	"it_ch": {"'", ",", false},
	"it_it": {"", ",", false},
	"ka_ge": {" ", ",", false},
	"lt_lt": {".", ",", false},
	"lv_lv": {" ", ",", false},
	"mk_mk": {" ", ",", false},
	"mn_mn": {".", ",", false},
	"nb_no": {".", ",", false},
	"nl_be": {"", ",", false},
	"nl_nl": {"", ",", false},
	"no_no": {".", ",", false},
	"pl_pl": {"", ",", false},
	"pt_br": {"", ",", false},
	"pt_pt": {"", ",", false},
	"rm_ch": {"'", ",", false},
	"ro_ro": {".", ",", false},
	"ru_ru": {" ", ",", false},
	"ru_ua": {".", ",", false},
	"sk_sk": {" ", ",", false},
	"sl_si": {"", ",", false},
	"sq_al": {".", ",", false},
	"sr_rs": {"", ".", false},
	"sv_fi": {" ", ",", false},
	"sv_se": {" ", ",", false},
	"ta_in": {",", ".", true},
	"te_in": {",", ".", true},
	"tr_tr": {".", ",", false},
	"uk_ua": {".", ",", false},
	"vi_vn": {".", ",", false},
}
