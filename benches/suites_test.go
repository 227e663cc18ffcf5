package main

import (
	"errors"
	"fmt"
	"os"
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
