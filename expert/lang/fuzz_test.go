package lang

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse: any input gives a file or a positioned syntax error, never a
// panic; what parses also checks without a panic.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("../kb/*.rules")
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err == nil {
			f.Add(string(b))
		}
	}
	f.Add(base)
	f.Add(`declare problem for x when a > b parameters(name = "n", duration = -(1 + 2) * 3 / 4);`)
	f.Add("declare event e for Send when not (peer == 1 or tag != 2) parameters(out x = status_tag);")
	f.Add(`"unterminated`)
	f.Add("declare composite event c member(shared all x as y) parameters(a = max(y.b where y.c));")
	f.Fuzz(func(t *testing.T, src string) {
		file, err := Parse("fuzz.rules", src)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, ErrSyntax) || e.Pos.Line < 1 || e.Pos.Col < 1 {
				t.Fatalf("error without a position or class: %v", err)
			}
			return
		}
		if _, err := Check(file); err != nil && !errors.Is(err, ErrCheck) {
			t.Fatalf("check error without class: %v", err)
		}
	})
}
