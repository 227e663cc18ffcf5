package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteSweep(t *testing.T) {
	dir := t.TempDir()
	cfg := sweepConfig{ops: []string{"barrier", "bcast"}, ns: []int{2, 4, 8}, reps: 3, out: dir}
	meta := sweepMeta{Command: "go run ./benches/ref/sidebyside --sweep", Start: "2026-01-01 00:00 UTC", Commit: "abc", CPUs: 2, MPI: "Open MPI 4.1.4"}
	samples := []sample{
		{Op: "barrier", N: 2, Size: 0, Gompi: []float64{1, 9, 2}, MPI: []float64{1, 1, 1}},
		{Op: "bcast", N: 2, Size: 8, Gompi: []float64{0.5, 0.4, 0.6}, MPI: []float64{1, 1, 1},
			GompiLoop: []float64{3, 2, 4}, MPILoop: []float64{2, 2, 2}},
		{Op: "bcast", N: 4, Size: 8, Gompi: nil, MPI: []float64{1}}, // a failed run: unmeasured
	}
	if err := writeSweep(cfg, meta, samples); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "sweep.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| 2 | 0 B | 2.00 | 1.00 | **2.00** | — |",    // median of 1, 9, 2; above 1 in bold; no loop figures
		"| 2 | 8 B | 0.50 | 1.00 | 0.50 | **1.50** |", // the call below 1.0, its loop above
		"| 4 | 8 B | — | 1.00 | — | — |",
		"By the whole loop: 1 of 1 points above 1.0, 0 of them above by the call's figure too.",
		"**4 and 8 ranks are oversubscribed**",
		"| bcast | 1 | 0 | 0.50 | 0.50 (2, 8 B) |",
		"![bcast: gompi / MPI](bcast.svg)",
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("sweep.md lacks %q:\n%s", want, md)
		}
	}
	for _, f := range []string{"barrier.svg", "bcast.svg"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(b), "<svg") || !strings.Contains(string(b), "Open MPI 4.1.4") {
			t.Errorf("%s is not the heat map", f)
		}
	}
	var back struct {
		Samples []sample `json:"samples"`
	}
	raw, err := os.ReadFile(filepath.Join(dir, "sweep.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &back); err != nil || len(back.Samples) != 3 || back.Samples[0].Gompi[1] != 9 {
		t.Errorf("sweep.json does not hold every repetition: %v %+v", err, back.Samples)
	}
}

func TestRatioOfUnmeasuredIsNaN(t *testing.T) {
	if r := (sample{MPI: []float64{1}}).ratio(); !math.IsNaN(r) {
		t.Errorf("ratio without gompi figures = %v, want NaN", r)
	}
}

func TestOverSubscribed(t *testing.T) {
	for _, tt := range []struct {
		ns   []int
		cpus int
		want string
	}{
		{[]int{2, 4, 8}, 2, "4 and 8"},
		{[]int{2, 4, 8, 64}, 2, "4, 8 and 64"},
		{[]int{2}, 2, ""},
		{[]int{2, 4}, 2, "4"},
	} {
		if got := overSubscribed(tt.ns, tt.cpus); got != tt.want {
			t.Errorf("overSubscribed(%v, %d) = %q, want %q", tt.ns, tt.cpus, got, tt.want)
		}
	}
}
