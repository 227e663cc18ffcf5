package outpath

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "old.svg")
	os.WriteFile(file, nil, 0o644)
	for _, tc := range []struct {
		path string
		ok   bool
	}{
		{"", true},
		{filepath.Join(dir, "new.svg"), true},
		{file, true},
		{dir, false},
		{filepath.Join(dir, "no", "such", "x.svg"), false},
		{filepath.Join(file, "x.svg"), false},
	} {
		err := Check("--plot", tc.path)
		if (err == nil) != tc.ok || err != nil && !errors.Is(err, ErrUnwritable) {
			t.Errorf("Check(%q) = %v, want ok %v", tc.path, err, tc.ok)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "new.svg")); err == nil {
		t.Error("Check created the file")
	}
}
