package rules

import "testing"

func TestClampExponent(t *testing.T) {
	for in, want := range map[string]string{
		"1e5":                     "1e5",
		"1.5e400":                 "1.5e400",
		"0e111111111":             "0",
		"1e-111111111":            "0",
		"-5e99999999999999999999": "-9e400",
		" 2.5E+401 ":              "9e400",
		".0e999":                  "0",
		"abc":                     "abc",
		"1e":                      "1e",
		"e999":                    "e999",
		"12345":                   "12345",
	} {
		if got := clampExponent(in); got != want {
			t.Errorf("clampExponent(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{"abc": "abc", "a\xffb": `a\xFFb`, "\x80\x00": `\x80` + "\x00", "é": "é"} {
		if got := Printable(in); got != want {
			t.Errorf("Printable(%q) = %q, want %q", in, got, want)
		}
	}
}
