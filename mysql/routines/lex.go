package routines

import "strings"

// token is one lexical unit of a routine's text: a word (identifier or
// keyword, backquotes removed), a quoted string, a number or punctuation.
type token struct {
	kind       byte // 'w' word, 'q' quoted identifier, 's' string, 'n' number, 'p' punctuation
	text       string
	start, end int // byte offsets in the source
}

func (t token) is(word string) bool { return t.kind == 'w' && strings.EqualFold(t.text, word) }

// lex splits s into tokens, skipping spaces and comments (-- , #, /* */).
func lex(s string) []token {
	var out []token
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '#' || (c == '-' && i+2 < len(s) && s[i+1] == '-' && (s[i+2] == ' ' || s[i+2] == '\t' || s[i+2] == '\n')):
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			j := strings.Index(s[i+2:], "*/")
			if j < 0 {
				i = len(s)
			} else {
				i += j + 4
			}
		case c == '\'' || c == '"' || c == '`':
			j := i + 1
			for j < len(s) {
				if s[j] == '\\' && c != '`' {
					j += 2
					continue
				}
				if s[j] == c {
					if j+1 < len(s) && s[j+1] == c {
						j += 2
						continue
					}
					break
				}
				j++
			}
			end := min(j+1, len(s))
			if c == '`' {
				out = append(out, token{'q', strings.ReplaceAll(s[i+1:min(j, len(s))], "``", "`"), i, end})
			} else {
				out = append(out, token{'s', s[i:end], i, end})
			}
			i = end
		case isWordByte(c):
			j := i
			for j < len(s) && isWordByte(s[j]) {
				j++
			}
			kind := byte('w')
			if c >= '0' && c <= '9' {
				kind = 'n'
			}
			out = append(out, token{kind, s[i:j], i, j})
			i = j
		default:
			out = append(out, token{'p', s[i : i+1], i, i + 1})
			i++
		}
	}
	return out
}

func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}
