package systest

import (
	"bufio"
	"bytes"
	"embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

//go:embed csrc/*.c
var csrc embed.FS

// cBuild is the C references compiled in this run, or why not.
type cBuild struct {
	dir     string
	cc      string
	bins    map[string]string // program name → path
	missing string            // why there are none
}

// cRefs compiles the C reference programs once per run with the system C
// compiler; without one they are left out with a note.
func (e *env) cRefs() *cBuild {
	if e.cbuild != nil {
		return e.cbuild
	}
	b := &cBuild{bins: map[string]string{}}
	e.cbuild = b
	if e.cfg.CC == "none" {
		b.missing = "C references skipped (--cc none)"
		return b
	}
	cc, err := exec.LookPath(e.cfg.CC)
	if err != nil {
		b.missing = fmt.Sprintf("no C compiler %q on PATH: the C reference rows are left out (install gcc, or give --cc)", e.cfg.CC)
		e.note("%s", b.missing)
		return b
	}
	b.cc = cc
	dir, err := os.MkdirTemp("", "systest-c-")
	if err != nil {
		b.missing = err.Error()
		return b
	}
	b.dir = dir
	for _, name := range []string{"threads", "memwrite"} {
		src, _ := csrc.ReadFile("csrc/" + name + ".c")
		path := filepath.Join(dir, name+".c")
		os.WriteFile(path, src, 0o644)
		bin := filepath.Join(dir, name)
		out, err := exec.Command(cc, "-O2", "-pthread", "-o", bin, path).CombinedOutput()
		if err != nil {
			e.note("C reference %s did not compile with %s (%v): %s", name, cc, err, bytes.TrimSpace(out))
			continue
		}
		b.bins[name] = bin
	}
	if v, err := exec.Command(cc, "--version").Output(); err == nil {
		first, _, _ := strings.Cut(string(v), "\n")
		e.note("C references built with %s -O2 (%s)", cc, first)
	}
	return b
}

func (b *cBuild) close() {
	if b != nil && b.dir != "" {
		os.RemoveAll(b.dir)
	}
}

// limitArg is the C references' LIMIT argument: seconds until deadline, 0
// for none (a deadline already past still lets one measurement through).
func limitArg(deadline time.Time) string {
	if deadline.IsZero() {
		return "0"
	}
	return strconv.FormatFloat(max(time.Until(deadline).Seconds(), 1e-9), 'g', 6, 64)
}

// run runs a C reference and reads one number a line from its output.
func (b *cBuild) run(name string, args ...string) ([]float64, error) {
	bin, ok := b.bins[name]
	if !ok {
		return nil, fmt.Errorf("no C reference %s", name)
	}
	cmd := exec.Command(bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, bytes.TrimSpace(stderr.Bytes()))
	}
	var x []float64
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		v, err := strconv.ParseFloat(strings.TrimSpace(sc.Text()), 64)
		if err != nil {
			return nil, fmt.Errorf("%s: bad output line %q", name, sc.Text())
		}
		x = append(x, v)
	}
	return x, nil
}
