//go:build !mpi && !mpich

package gompi_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The README's program and the type safety of operators are checked by
// building small programs with the go command in a module of their own
// that points at this one (-short skips them: each is a build).

// buildSnippet builds main.go holding src against this module and returns
// the go command's output and error.
func buildSnippet(t *testing.T, src string) (string, error) {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gomod := "module snippet\n\ngo 1.26\n\nrequire github.com/gompi/gompi v0.0.0\n\nreplace github.com/gompi/gompi => " + root + "\n"
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"go.mod": []byte(gomod), "go.sum": sum, "main.go": []byte(src)} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("go", "build", "-mod=mod", "-o", filepath.Join(dir, "snippet"), ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestReadmeProgramBuilds extracts the README's Go program and builds it,
// so that the README cannot fall behind the API.
func TestReadmeProgramBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(string(readme), -1)
	n := 0
	for _, b := range blocks {
		if !strings.HasPrefix(b[1], "package main") {
			continue
		}
		n++
		if out, err := buildSnippet(t, b[1]); err != nil {
			t.Errorf("README program %d does not build: %v\n%s", n, err, out)
		}
	}
	if n == 0 {
		t.Fatal("no Go program (a ```go block starting with package main) in README.md")
	}
}

// TestOperatorOfAnotherTypeDoesNotCompile: Allreduce on []float32 with an
// operator made for int32 must be a compile error, not a wrong answer.
func TestOperatorOfAnotherTypeDoesNotCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	out, err := buildSnippet(t, `package main

import "github.com/gompi/gompi/gompi"

func main() {
	in, out := []float32{1}, []float32{0}
	_ = gompi.Allreduce(gompi.World(), in, out, gompi.Sum[int32]())
}
`)
	if err == nil {
		t.Fatal("Allreduce of []float32 with Sum[int32]() compiled")
	}
	if !strings.Contains(out, "does not match") {
		t.Fatalf("the build failed for another reason:\n%s", out)
	}
}
