package golden

import (
	"os"
	"path/filepath"
	"testing"
)

type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true }
func (r *recorder) Helper()               {}

func TestCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.txt")
	if err := os.WriteFile(path, []byte("same\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path, got string
		fail      bool
	}{{path, "same\n", false}, {path, "other\n", true}, {path + ".missing", "x", true}} {
		r := &recorder{TB: t}
		Check(r, c.path, []byte(c.got))
		if r.failed != c.fail {
			t.Errorf("Check(%s, %q): failed %v, want %v", c.path, c.got, r.failed, c.fail)
		}
	}
}
