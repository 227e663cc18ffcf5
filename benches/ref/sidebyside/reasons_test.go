package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseReasonsRejects(t *testing.T) {
	for _, tt := range []struct {
		name, json, want string
	}{
		{"not JSON", `{`, "unexpected EOF"},
		{"unknown field", `[{"id":"a","ops":["bcast"],"reason":"r","evidence":"e","sizes":"8"}]`, "unknown field"},
		{"unknown op", `[{"id":"a","ops":["bcats"],"reason":"r","evidence":"e"}]`, `unknown operation "bcats"`},
		{"no ops", `[{"id":"a","reason":"r","evidence":"e"}]`, "ops is empty"},
		{"bad range", `[{"id":"a","ops":["bcast"],"min_bytes":1024,"max_bytes":8,"reason":"r","evidence":"e"}]`, "above max_bytes"},
		{"negative size", `[{"id":"a","ops":["bcast"],"min_bytes":-1,"reason":"r","evidence":"e"}]`, "negative"},
		{"bad n", `[{"id":"a","ops":["bcast"],"n":[0],"reason":"r","evidence":"e"}]`, "rank count 0"},
		{"no reason", `[{"id":"a","ops":["bcast"],"evidence":"e"}]`, "reason is empty"},
		{"no evidence", `[{"id":"a","ops":["bcast"],"reason":"r"}]`, "evidence is empty"},
		{"bad id", `[{"id":"A b","ops":["bcast"],"reason":"r","evidence":"e"}]`, "id must be"},
		{"id twice", `[{"id":"a","ops":["bcast"],"reason":"r","evidence":"e"},{"id":"a","ops":["scan"],"reason":"r","evidence":"e"}]`, "id used twice"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseReasons([]byte(tt.json))
			if !errors.Is(err, errBadReasons) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("parseReasons(%s) = %v, want an errBadReasons saying %q", tt.json, err, tt.want)
			}
		})
	}
}

func TestReasonFor(t *testing.T) {
	rs, err := parseReasons([]byte(`[
		{"id":"small","ops":["bcast","scatter"],"n":[4],"max_bytes":1024,"reason":"r1","evidence":"e1"},
		{"id":"large","ops":["bcast"],"min_bytes":131072,"reason":"r2","evidence":"e2"},
		{"id":"any","ops":["bcast"],"reason":"r3","evidence":"e3"}
	]`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		op      string
		n, size int
		want    string
	}{
		{"bcast", 4, 8, "small"},
		{"scatter", 4, 1024, "small"},
		{"scatter", 4, 1025, ""},       // above max_bytes
		{"scatter", 8, 8, ""},          // another n
		{"bcast", 8, 1 << 20, "large"}, // no max_bytes: no limit
		{"bcast", 8, 8, "any"},         // the first that covers it
		{"gather", 4, 8, ""},
	} {
		got := ""
		if r := reasonFor(rs, sample{Op: tt.op, N: tt.n, Size: tt.size}); r != nil {
			got = r.ID
		}
		if got != tt.want {
			t.Errorf("reasonFor(%s, n=%d, %d B) = %q, want %q", tt.op, tt.n, tt.size, got, tt.want)
		}
	}
}

// TestSweepJoinsReasons: points above 1.0 carry their reason or
// "unexplained", the summary counts and lists the unexplained, and the
// reasons section says how many points each explains.
func TestSweepJoinsReasons(t *testing.T) {
	dir := t.TempDir()
	rs, err := parseReasons([]byte(`[{"id":"slow-wakeup","ops":["bcast"],"n":[4],"reason":"Measured X.","evidence":"docs/PERFORMANCE.md#x"}]`))
	if err != nil {
		t.Fatal(err)
	}
	cfg := sweepConfig{ops: []string{"bcast"}, ns: []int{2, 4}, reps: 1, out: dir, reasons: rs}
	samples := []sample{
		{Op: "bcast", N: 2, Size: 8, Gompi: []float64{3}, MPI: []float64{1}},
		{Op: "bcast", N: 2, Size: 1024, Gompi: []float64{0.5}, MPI: []float64{1}},
		{Op: "bcast", N: 4, Size: 8, Gompi: []float64{2}, MPI: []float64{1}},
		{Op: "bcast", N: 4, Size: 1024, MPI: []float64{1}, Failed: []string{"gompi: no result within 5m0s"}},
	}
	if err := writeSweep(cfg, sweepMeta{CPUs: 2, MPI: "Open MPI"}, samples); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "sweep.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| 2 | 8 B | 3.00 | 1.00 | **3.00** | — | unexplained |",
		"| 2 | 1 KiB | 0.50 | 1.00 | 0.50 | — |  |",
		"| 4 | 8 B | 2.00 | 1.00 | **2.00** | — | [slow-wakeup](#slow-wakeup) |",
		"| 4 | 1 KiB | — | 1.00 | **failed** | — |  |",
		"**Points above 1.0: 2; with a measured reason: 1; unexplained: 1.**",
		"Unexplained (op, n, size: ratio): bcast 2 8 B: 3.00.",
		`<a id="slow-wakeup"></a>**slow-wakeup** (bcast; n = 4; 0 B..∞; explains 1 points here). Measured X. Evidence: docs/PERFORMANCE.md#x`,
		"- bcast n = 4 1 KiB: gompi: no result within 5m0s",
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("sweep.md lacks %q:\n%s", want, md)
		}
	}
}

// TestRewriteAndResumeForm: --rewrite renders from sweep.json alone, and a
// sweep of another form refuses to resume it.
func TestRewriteAndResumeForm(t *testing.T) {
	dir := t.TempDir()
	cfg := sweepConfig{ops: []string{"bcast"}, ns: []int{2}, reps: 1, out: dir, sizes: "8", osuArgs: "--iters 10"}
	meta := sweepMeta{CPUs: 2, MPI: "Open MPI", Ops: cfg.ops, Ns: cfg.ns, Sizes: cfg.sizes, OSUArgs: cfg.osuArgs, Reps: 1, Done: []string{"bcast/2"}}
	if err := writeSweep(cfg, meta, []sample{{Op: "bcast", N: 2, Size: 8, Gompi: []float64{2}, MPI: []float64{1}}}); err != nil {
		t.Fatal(err)
	}
	rs, _ := parseReasons([]byte(`[{"id":"r","ops":["bcast"],"reason":"why","evidence":"e"}]`))
	if err := rewriteSweep(sweepConfig{out: dir, reasons: rs}); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "sweep.md"))
	if !strings.Contains(string(md), "| 2 | 8 B | 2.00 | 1.00 | **2.00** | — | [r](#r) |") {
		t.Errorf("rewritten sweep.md lacks the reason:\n%s", md)
	}
	f, err := readSweep(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Meta.sameForm(cfg); err != nil {
		t.Errorf("same form refused: %v", err)
	}
	other := cfg
	other.sizes = "8,64"
	if err := f.Meta.sameForm(other); err == nil {
		t.Error("a sweep of other sizes may resume this one")
	}
}

func TestExpectedSizes(t *testing.T) {
	if got := expectedSizes("barrier", "8,64"); len(got) != 1 || got[0] != 0 {
		t.Errorf("barrier: %v", got)
	}
	if got := expectedSizes("bcast", "8, 64"); len(got) != 2 || got[1] != 64 {
		t.Errorf("bcast: %v", got)
	}
}
