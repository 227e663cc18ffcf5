package launcher

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Program is what each rank runs: a path to an executable, and a function
// that removes whatever Resolve built.
type Program struct {
	Path    string
	Built   bool // Resolve compiled it from a Go package
	cleanup func()
}

// Close removes a program Resolve built.
func (p *Program) Close() {
	if p.cleanup != nil {
		p.cleanup()
	}
}

// Resolve turns the PROGRAM argument into an executable. An executable file
// is used as it is; a command name is looked up in PATH; a Go package (a
// directory, a path like ./examples/hello or example.com/x/cmd, or a .go
// file) is built once into a temporary directory, so that every rank runs the
// same binary.
func Resolve(arg string) (*Program, error) {
	if arg == "" {
		return nil, errors.New("no program given")
	}
	if st, err := os.Stat(arg); err == nil {
		switch {
		case st.IsDir():
			return build(arg)
		case strings.HasSuffix(arg, ".go"):
			return build(arg)
		case st.Mode()&0o111 != 0:
			abs, err := filepath.Abs(arg)
			if err != nil {
				return nil, err
			}
			return &Program{Path: abs}, nil
		default:
			return nil, fmt.Errorf("%s is not executable (chmod +x it, or name a Go package)", arg)
		}
	}
	if !strings.ContainsRune(arg, '/') {
		if p, err := exec.LookPath(arg); err == nil {
			return &Program{Path: p}, nil
		}
		return nil, fmt.Errorf("%s: no such file, and no command of that name in PATH", arg)
	}
	// Not a file: perhaps a Go package path (./x/..., module/path/cmd).
	return build(arg)
}

func build(pkg string) (*Program, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return nil, fmt.Errorf("%s looks like a Go package, but the go command is not in PATH to build it", pkg)
	}
	dir, err := os.MkdirTemp("", "golaunch-build-")
	if err != nil {
		return nil, err
	}
	name := strings.TrimSuffix(filepath.Base(pkg), ".go")
	if name == "." || name == "" || name == "..." {
		name = "program"
	}
	out := filepath.Join(dir, name)
	cmd := exec.Command(goBin, "build", "-o", out, pkg)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		os.RemoveAll(dir)
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("building %s: %s", pkg, msg)
	}
	return &Program{Path: out, Built: true, cleanup: func() { os.RemoveAll(dir) }}, nil
}
