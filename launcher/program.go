package launcher

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
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

// Resolve turns the PROGRAM argument into an executable, the way a user of
// mpirun expects: an executable file is used as it is; a bare name
// (no slash) is a command in PATH, as in a shell; a Go package (a
// directory, a path like ./examples/hello or example.com/x/cmd, or a .go
// file) is built once into a temporary directory, so that every rank runs
// the same binary. A bare name that is no command in PATH but a directory
// here is built as ./NAME.
func Resolve(arg string) (*Program, error) {
	if arg == "" {
		return nil, errors.New("no program given")
	}
	st, statErr := os.Stat(arg)
	if statErr == nil && st.Mode().IsRegular() && !strings.HasSuffix(arg, ".go") {
		if st.Mode()&0o111 == 0 {
			return nil, fmt.Errorf("%s is not executable (chmod +x it, or name a Go package)", arg)
		}
		abs, err := filepath.Abs(arg)
		if err != nil {
			return nil, err
		}
		return &Program{Path: abs}, nil
	}
	bare := !strings.ContainsRune(arg, '/')
	if bare {
		if p, err := exec.LookPath(arg); err == nil {
			return &Program{Path: p}, nil
		}
	}
	switch {
	case statErr == nil:
		// A directory or a .go file here: a Go package.
		return build(arg, true)
	case bare:
		return nil, fmt.Errorf("%s: no such file, and no command of that name in PATH "+
			"(a command installed with go install is in $(go env GOPATH)/bin: is that in PATH?)", arg)
	case strings.HasPrefix(arg, "./") || strings.HasPrefix(arg, "../") || filepath.IsAbs(arg):
		return nil, fmt.Errorf("%s: no such file or directory", arg)
	}
	// Not a file: perhaps a Go package path (module/path/cmd).
	return build(arg, false)
}

// ErrNotCommand is returned for a Go package that is not a command
// (package main): there is nothing to run.
var ErrNotCommand = errors.New("not a command (package main)")

// buildPrefix names golaunch's build directories; the launcher's pid
// follows, so that a later golaunch can remove those whose launcher died
// without cleaning up (SIGKILL).
const buildPrefix = "golaunch-build-"

// build builds pkg into a temporary directory. A local package (a
// directory or a .go file) is built from its own directory, so that it
// need not be inside the current module; outside any module, its .go files
// are built as a list of files (enough for a program that imports only the
// standard library).
func build(pkg string, local bool) (*Program, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return nil, fmt.Errorf("%s looks like a Go package, but the go command is not in PATH to build it", pkg)
	}
	removeStaleBuilds(os.TempDir())
	dir, err := os.MkdirTemp("", buildPrefix+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return nil, err
	}
	name := strings.TrimSuffix(filepath.Base(pkg), ".go")
	if name == "." || name == "" || name == "..." || name == ".." {
		name = "program"
	}
	out := filepath.Join(dir, name)
	args := []string{"build", "-o", out}
	cmd := exec.Command(goBin)
	switch {
	case !local:
		args = append(args, pkg)
	case strings.HasSuffix(pkg, ".go"):
		cmd.Dir = filepath.Dir(pkg)
		args = append(args, filepath.Base(pkg))
	default:
		cmd.Dir = pkg
		if files := goFilesOutsideModule(pkg); files != nil {
			args = append(args, files...)
		} else {
			args = append(args, ".")
		}
	}
	cmd.Args = append(cmd.Args, args...)
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
	if isArchive(out) {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("%s: %w: a library package has nothing to run; name a program, e.g. ./examples/hello", pkg, ErrNotCommand)
	}
	return &Program{Path: out, Built: true, cleanup: func() { os.RemoveAll(dir) }}, nil
}

// goFilesOutsideModule lists the non-test .go files of dir when no go.mod is
// in it or above it; nil otherwise.
func goFilesOutsideModule(dir string) []string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil
	}
	for d := abs; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return nil
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	files, _ := filepath.Glob(filepath.Join(abs, "*.go"))
	var out []string
	for _, f := range files {
		if !strings.HasSuffix(f, "_test.go") {
			out = append(out, filepath.Base(f))
		}
	}
	return out
}

// isArchive reports whether go build wrote a package archive (what it
// writes for a package that is not main) rather than an executable.
func isArchive(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	magic := make([]byte, 8)
	n, _ := f.Read(magic)
	return string(magic[:n]) == "!<arch>\n"
}

// removeStaleBuilds removes the build directories under tmp of launchers
// that are gone: a golaunch killed by SIGKILL cannot remove its own.
func removeStaleBuilds(tmp string) {
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), buildPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		pidText, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 {
			continue // not one of ours (or of an older golaunch)
		}
		if err := unix.Kill(pid, 0); errors.Is(err, unix.ESRCH) {
			os.RemoveAll(filepath.Join(tmp, e.Name()))
		}
	}
}
