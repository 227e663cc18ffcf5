package main

import (
	"errors"
	"os"
	"path/filepath"
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

// mpiperf alone is a world of one rank: the sweep still runs (the self
// tests and the collectives on one rank).
func TestMpiperfSuite(t *testing.T) {
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
