package server

import "testing"

// SRV-FLOATS: FLOAT and DOUBLE text as MariaDB writes it (the compat
// corpus compares the same values against a running MariaDB).
func TestFloatText(t *testing.T) {
	for _, c := range []struct {
		in    string
		float bool
		want  string
	}{
		{"1.234567890125e+11", false, "123456789012.5"},
		{"1e-07", false, "0.0000001"},
		{"1e+15", false, "1e15"},
		{"1e+14", false, "100000000000000"},
		{"-2.25e+100", false, "-2.25e100"},
		{"1.5e-16", false, "1.5e-16"},
		{"1e-15", false, "0.000000000000001"},
		{"0", false, "0"},
		{"-1234.5", false, "-1234.5"},
		{"1.2345678e+06", true, "1234570"},
		{"3.1415927", true, "3.14159"},
		{"1.6777216e+07", true, "16777200"},
		{"0.1", true, "0.1"},
		{"1e+20", true, "1e20"},
	} {
		got, _ := floatText([]byte(c.in), c.float)
		if string(got) != c.want {
			t.Errorf("floatText(%q, float=%v) = %q, want %q", c.in, c.float, got, c.want)
		}
	}
}
