package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The suites run end to end with small parameters; their output goes to
// stdout, shown with go test -v.

func TestTimersSuite(t *testing.T) {
	for _, format := range []string{"text", "json"} {
		args := []string{"--format", format, "--interval", "20ms", "--samples", "3", "--reads", "1000",
			"--calibrate", "20ms", "--calibration-samples", "5", "--rounds", "10"}
		if err := runTimers(args); err != nil {
			t.Errorf("timers %v: %v", args, err)
		}
	}
	if err := runTimers([]string{"--sources", "nosuch", "--reads", "10", "--rounds", "0", "--calibrate", "5ms"}); err == nil {
		t.Error("timers --sources nosuch: no error")
	}
	if err := runTimers([]string{"--nosuch"}); !errors.Is(err, errUsage) {
		t.Errorf("timers --nosuch: %v, want errUsage", err)
	}
}

func TestTopoSuite(t *testing.T) {
	dir := t.TempDir()
	svg := filepath.Join(dir, "m.svg")
	root := filepath.Join("..", "hwtopo", "testdata", "xeon-2s-smt")
	for _, args := range [][]string{
		{"--root", root, "--svg", svg, "--snapshot", filepath.Join(dir, "snap")},
		{"--root", root, "--plan", "9", "--map-by", "socket", "--bind-to", "socket", "--format", "csv"},
		{"--format", "json"},
	} {
		if err := runTopo(args); err != nil {
			t.Errorf("topo %v: %v", args, err)
		}
	}
	b, err := os.ReadFile(svg)
	if err != nil || !strings.HasPrefix(string(b), "<svg") {
		t.Errorf("--svg wrote %d bytes, %v", len(b), err)
	}
	if _, err := os.Stat(filepath.Join(dir, "snap", "sys", "devices", "system", "cpu", "online")); err != nil {
		t.Errorf("--snapshot: %v", err)
	}
	if err := runTopo([]string{"--root", dir}); err == nil {
		t.Error("topo --root of a directory without sysfs: no error")
	}
}

// The MSU suites are registered, transf1 … transf5 as well; run alone, a
// process is a world of one rank, which transfer refuses with status 2.
// (gompi.Init works once per process, so only one suite runs here; the
// suites' packages test them on in-process ranks.)
func TestMSUSuites(t *testing.T) {
	for _, name := range []string{"transfer", "transf1", "transf2", "transf3", "transf4", "transf5", "nettest", "mpitest"} {
		if !slices.ContainsFunc(suites, func(s suite) bool { return s.name == name }) {
			t.Errorf("no suite %s", name)
		}
	}
	err := runTransfer([]string{"m0", "M8"})
	if exitCode(err) != 2 || !strings.Contains(fmt.Sprint(err), "needs exactly 2 ranks, not 1") {
		t.Errorf("transfer on one rank: %v (exit %d)", err, exitCode(err))
	}
}

// mpiperf alone is a world of one rank: the sweep still runs (the self
// tests and the collectives on one rank). It initializes gompi, so it runs
// in a process of its own.
func TestMpiperfSuite(t *testing.T) {
	if !inOwnProcess(t) {
		return
	}
	if err := runMpiperf([]string{"--nosuch"}); !errors.Is(err, errUsage) {
		t.Errorf("mpiperf --nosuch: %v, want errUsage", err)
	}
	if err := runMpiperf([]string{"--gamma", "0.5"}); err == nil {
		t.Error("mpiperf --gamma 0.5: no error")
	}
	args := []string{"--op", "waitpattern_null,bcast", "--sizes", "8", "--timer", "monotonic", "--max-launches", "8",
		"--bcast-reps", "2", "--format", "csv", "--progress", "off"}
	if err := runMpiperf(args); err != nil {
		t.Errorf("mpiperf %v: %v", args, err)
	}
}

// inOwnProcess reports whether the calling test runs in a process of its
// own. If not, it runs the test again in a child process of the test binary
// (gompi.Init works once per process), reports the child's failure, and
// returns false.
func inOwnProcess(t *testing.T) bool {
	t.Helper()
	const key = "BENCHES_TEST_OWN_PROCESS"
	if os.Getenv(key) == t.Name() {
		return true
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.v")
	cmd.Env = append(os.Environ(), key+"="+t.Name())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s in its own process: %v\n%s", t.Name(), err, out)
	}
	if !strings.Contains(string(out), "--- PASS: "+t.Name()) {
		t.Fatalf("%s in its own process did not run:\n%s", t.Name(), out)
	}
	return false
}
