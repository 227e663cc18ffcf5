package mpiperf

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/spf13/pflag"

	"github.com/gompi/gompi/benches/internal/report"
	"github.com/gompi/gompi/coll"
	"github.com/gompi/gompi/gompi"
	"github.com/gompi/gompi/sync/launch"
)

// quick is a configuration that runs fast in-process: few launches, ranks
// that wait by yielding (they are goroutines).
func quick(args ...string) (Config, error) {
	c := DefaultConfig()
	fs := pflag.NewFlagSet("mpiperf", pflag.ContinueOnError)
	finish := c.Flags(fs)
	base := []string{"--timer", "monotonic", "--wait", "yield", "--k0", "2", "--k", "4", "--max-launches", "8",
		"--max-valid", "4", "--bcast-reps", "2", "--sync-d", "10", "--progress", "off", "--classic-reps", "3"}
	if err := fs.Parse(append(base, args...)); err != nil {
		return c, err
	}
	c.Command = "test " + strings.Join(args, " ")
	return c, finish()
}

// run runs the suite on n in-process ranks and returns rank 0's output.
func run(t *testing.T, n int, args ...string) string {
	t.Helper()
	cfg, err := quick(args...)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	var mu sync.Mutex
	err = gompi.Run(n, func(c *gompi.Comm) error {
		var w io.Writer = io.Discard
		if c.Rank() == 0 {
			w = &out
		}
		mu.Lock()
		cfg := cfg
		mu.Unlock()
		return Run(c, cfg, w, io.Discard)
	})
	if err != nil {
		t.Fatal(err)
	}
	return out.String()
}

func jsonRows(t *testing.T, out string) []map[string]any {
	t.Helper()
	var rows []map[string]any
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("not a JSON line: %q: %v", sc.Text(), err)
		}
		rows = append(rows, m)
	}
	return rows
}

// Every test of the suite runs, at two sizes, on three ranks; every JSON
// object carries the report's fields under plain names.
func TestEveryTestRuns(t *testing.T) {
	out := run(t, 3, "--op", "all", "--sizes", "0,40", "--format", "json")
	rows := jsonRows(t, out)
	seen := map[string]int{}
	for _, r := range rows {
		for _, k := range []string{"method", "op", "alg", "n", "size", "nt", "nc", "ns", "mean_us", "se_us", "min_us",
			"max_us", "e_us", "ci_low_us", "ci_high_us", "late", "overrun", "timer", "sync", "residual_max_us",
			"residual_median_us", "buffers", "root", "hosts", "oversubscribed", "cmd", "confidence"} {
			if _, ok := r[k]; !ok {
				t.Fatalf("row without %q: %v", k, r)
			}
		}
		if r["skipped"] != nil {
			t.Errorf("%v %v skipped: %v", r["op"], r["size"], r["skipped"])
		}
		if r["nt"].(float64) < 4 || r["n"].(float64) != 3 {
			t.Errorf("row %v", r)
		}
		seen[r["op"].(string)]++
	}
	for _, op := range Ops() {
		want := 2
		if !op.Sized {
			want = 1
		}
		if seen[op.Name] != want {
			t.Errorf("%s: %d rows, want %d", op.Name, seen[op.Name], want)
		}
	}
}

// --alg all sweeps every registered algorithm; those that cannot run a call
// (the shared-memory ones for nonblocking calls) are skipped and say why.
func TestAlgorithmSweep(t *testing.T) {
	rows := jsonRows(t, run(t, 2, "--op", "bcast,ibcast", "--alg", "all", "--sizes", "64", "--format", "json"))
	algs := coll.Algorithms(coll.OpBcast)
	if len(rows) != 2*len(algs) {
		t.Fatalf("%d rows for %d algorithms of two tests", len(rows), len(algs))
	}
	for _, r := range rows {
		if r["op"] == "bcast" && r["skipped"] != nil {
			t.Errorf("bcast %v skipped: %v", r["alg"], r["skipped"])
		}
		if r["op"] == "ibcast" && r["alg"] == "shm" && r["skipped"] == nil {
			t.Errorf("ibcast over shm measured: the shm algorithms are blocking only")
		}
	}
}

// "--method classic runs the IMB-style loop beside the synchronized method
// on the same operation"; the self tests run by the synchronized method only.
func TestMethodBoth(t *testing.T) {
	rows := jsonRows(t, run(t, 2, "--op", "barrier,waitpattern_null", "--method", "both", "--format", "json"))
	var methods []string
	for _, r := range rows {
		methods = append(methods, r["op"].(string)+"/"+r["method"].(string))
	}
	if strings.Join(methods, " ") != "barrier/sync barrier/classic waitpattern_null/sync" {
		t.Errorf("rows %v", methods)
	}
}

// The lateinit mode prints the first-call / second-call ratio per operation.
func TestLateInit(t *testing.T) {
	out := run(t, 2, "--method", "lateinit", "--op", "bcast,allreduce,barrier", "--sizes", "8K", "--format", "csv")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "op,size,bytes,first_us,second_us,ratio") {
		t.Fatalf("lateinit output:\n%s", out)
	}
	for _, l := range lines[1:] {
		f := strings.Split(l, ",")
		if f[3] == "" || f[4] == "" || f[5] == "" {
			t.Errorf("row without times: %s", l)
		}
	}
}

// The number of ranks varies over the first n ranks; the plot is drawn
// against ranks, the per-rank report has a line per rank and point.
func TestRanksPlotPerRank(t *testing.T) {
	dir := t.TempDir()
	svg, per := filepath.Join(dir, "p.svg"), filepath.Join(dir, "r.csv")
	rows := jsonRows(t, run(t, 3, "--op", "allreduce", "--ranks", "1..3:+1", "--sizes", "64",
		"--format", "json", "--plot", svg, "--per-rank", per, "--buffers", "rotate"))
	if len(rows) != 3 || rows[0]["n"].(float64) != 1 || rows[2]["n"].(float64) != 3 || rows[0]["buffers"] != "rotate" {
		t.Fatalf("rows %v", rows)
	}
	b, err := os.ReadFile(svg)
	if err != nil || !bytes.HasPrefix(b, []byte("<svg")) {
		t.Errorf("plot: %v", err)
	}
	pr := jsonRows(t, mustRead(t, per))
	if len(pr) != 1+2+3 {
		t.Errorf("%d per-rank lines, want 6", len(pr))
	}
}

func mustRead(t *testing.T, f string) string {
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The text report's header records the command, the parameters, the
// rank→host map, the timer, the clock sync and its residuals, and says
// plainly when ranks outnumber CPUs.
func TestTextHeader(t *testing.T) {
	n := 3
	out := run(t, n, "--op", "waitpattern_null,reduce", "--sizes", "8", "--sync", "ring", "--overlap")
	for _, want := range []string{"# command: test --op", "rank→host: ", "# timer: monotonic", "# binding: not bound (ranks are goroutines", "# clock sync: ring",
		"ring closure", "# residual offset vs rank 0", "# scheduler: k′ = 2, k = 4", "# buffers: hot", "mean_us", "ci_high_us"} {
		if !strings.Contains(out, want) {
			t.Errorf("report without %q:\n%s", want, out)
		}
	}
	over := n > runtime.NumCPU()
	if strings.Contains(out, "OVERSUBSCRIBED") != over || strings.Contains(out, "NOT synchronized") != over {
		t.Errorf("%d ranks on %d CPUs, report:\n%s", n, runtime.NumCPU(), out)
	}
}

func TestParseOps(t *testing.T) {
	ops, err := ParseOps([]string{"MPI_Reduce_scatter", "Reduce-Scatter-Block", "ibarrier", "selftest", "bcast", "Bcast"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, o := range ops {
		names = append(names, o.Name)
	}
	if got := strings.Join(names, ","); got != "reduce_scatter,reduce_scatter_block,ibarrier,waitpattern_null,waitpattern_up,waitpattern_down,start_spread,bcast" {
		t.Errorf("ParseOps: %s", got)
	}
	if _, err := ParseOps([]string{"nosuch"}); err == nil {
		t.Error("unknown test accepted")
	}
	all, _ := ParseOps([]string{"all"})
	if len(all) != 4+2*len(coll.Operations())+2 {
		t.Errorf("all: %d tests", len(all))
	}
}

func TestConfig(t *testing.T) {
	c, err := quick("--min-size", "1K", "--max-size", "4K", "--step", "1K", "--stop", "either", "--late-slack", "0.25")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Sizes) != 4 || c.Sizes[3] != 4096 || c.Launch.Stop != launch.Either || c.Launch.LateSlack != 0.25e-6 {
		t.Errorf("config %+v", c)
	}
	c, err = quick("--min-size", "8", "--max-size", "512", "--factor", "4", "--format", "csv")
	if err != nil || len(c.Sizes) != 4 || c.Sizes[3] != 512 || c.Format != report.CSV {
		t.Errorf("sizes %v, %v", c.Sizes, err)
	}
	for _, bad := range [][]string{{"--method", "x"}, {"--sync", "x"}, {"--gamma", "0.9"}, {"--op", "x"}, {"--progress", "x"}, {"--bind", "x"}} {
		if _, err := quick(bad...); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	var list bytes.Buffer
	if err := writeList(&list); err != nil || !strings.Contains(list.String(), "start_spread") || !strings.Contains(list.String(), "drift") {
		t.Errorf("list: %v\n%s", err, list.String())
	}
}

// A sync that could not reach its acceptance bound is not passed off as
// synchronized: the header warns.
func TestSyncWarning(t *testing.T) {
	out := run(t, 2, "--op", "waitpattern_null", "--sync-max-err", "0.00001", "--sync-max", "40")
	if !strings.Contains(out, "WARNING: the clocks are synchronized only to") {
		t.Errorf("no warning for an unreachable acceptance bound:\n%s", out)
	}
	if out := run(t, 2, "--op", "waitpattern_null", "--sync-max-err", "0"); strings.Contains(out, "WARNING") {
		t.Errorf("a warning without an acceptance bound:\n%s", out)
	}
}
