package backend

import (
	"os"
	"strings"
	"testing"
)

func TestZZDebug(t *testing.T) {
	h := &keylessHarness{t: t, dir: t.TempDir()}
	h.open()
	defer h.db.Close()
	h.rows("CREATE DATABASE d")
	h.ctx.SetCurrentDatabase("d")
	for _, q := range strings.Split(os.Getenv("Q"), ";;") {
		h.rows(q)
	}
}
