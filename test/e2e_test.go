// Package test holds the end-to-end tests: they build golaunch and real rank
// programs and run whole jobs as separate processes, including jobs that
// fail on purpose.
package test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var bin string // directory of the binaries built for the tests

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "gompi-e2e-")
	if err != nil {
		panic(err)
	}
	bin = dir
	for _, p := range []string{"../launcher/golaunch", "./rankprog", "../examples/hello", "../examples/ring", "../examples/pingpong", "../expert/goexpert", "../benches", "./faults"} {
		cmd := exec.Command("go", "build", "-o", dir+"/", p)
		if out, err := cmd.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "building %s: %v\n%s", p, err, out)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type result struct {
	stdout, stderr string
	code           int
	took           time.Duration
}

// golaunch runs golaunch with args and a deadline; the test fails if it hangs.
func golaunch(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	return launchWith(t, stdin, nil, args...)
}

// launchWith runs golaunch from the repository root with stdin, extra
// environment and a deadline; the test fails if it hangs.
func launchWith(t *testing.T, stdin string, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "golaunch"), args...)
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.Stdin = strings.NewReader(stdin)
	return runToEnd(t, ctx, cmd, &out, &errb)
}

// runToEnd runs cmd, whose output goes to out and errb, and fails the test
// if it cannot start or outlives ctx.
func runToEnd(t *testing.T, ctx context.Context, cmd *exec.Cmd, out, errb *bytes.Buffer) result {
	t.Helper()
	start := time.Now()
	err := cmd.Run()
	r := result{out.String(), errb.String(), 0, time.Since(start)}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%v: %v", cmd.Args, err)
	}
	if ctx.Err() != nil {
		t.Fatalf("%v hung; stderr:\n%s", cmd.Args, r.stderr)
	}
	return r
}

var pidRe = regexp.MustCompile(`pid=(\d+)`)

// pids lists the rank pids a rankprog job printed.
func pids(out string) []int {
	var ps []int
	for _, m := range pidRe.FindAllStringSubmatch(out, -1) {
		p, _ := strconv.Atoi(m[1])
		ps = append(ps, p)
	}
	return ps
}

// assertGone fails if any of pids is still a process.
func assertGone(t *testing.T, ps []int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for _, p := range ps {
		for syscall.Kill(p, 0) == nil {
			if time.Now().After(deadline) {
				t.Errorf("rank process %d is still alive", p)
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// assertNoSegments fails if the job left anything of ours in /dev/shm.
func assertNoSegments(t *testing.T) {
	t.Helper()
	entries, _ := os.ReadDir("/dev/shm")
	for _, e := range entries {
		if strings.Contains(e.Name(), "gompi") || strings.Contains(e.Name(), "golaunch") {
			t.Errorf("left behind in /dev/shm: %s", e.Name())
		}
	}
}

func TestHelloFromPackagePath(t *testing.T) {
	r := golaunch(t, "", "-n", "4", "./examples/hello")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for i := 0; i < 4; i++ {
		if !strings.Contains(r.stdout, fmt.Sprintf("rank %d of 4 on ", i)) {
			t.Errorf("no line from rank %d in:\n%s", i, r.stdout)
		}
	}
}

func TestRing64RanksOnFewCores(t *testing.T) {
	r := golaunch(t, "", "-np", "64", filepath.Join(bin, "ring"), "--iterations", "10")
	if r.code != 0 || !strings.Contains(r.stdout, "ring of 64 ranks: 10 rounds") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	assertNoSegments(t)
}

func TestKilledRankStopsJob(t *testing.T) {
	cmd := exec.Command(filepath.Join(bin, "golaunch"), "-n", "4", filepath.Join(bin, "rankprog"), "--mode", "forever")
	stdout, _ := cmd.StdoutPipe()
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait for every rank to report its pid and readiness.
	sc := bufio.NewScanner(stdout)
	rankPid, all := readyRanks(sc, 4)
	time.Sleep(100 * time.Millisecond) // mid-run
	killed := time.Now()
	syscall.Kill(rankPid[2], syscall.SIGKILL)
	go func() {
		for sc.Scan() {
		}
	}()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		took := time.Since(killed)
		if err == nil {
			t.Fatal("golaunch exited 0 after a rank was killed")
		}
		if took > 2*time.Second {
			t.Errorf("golaunch took %v to exit after the kill (want < 2 s)", took)
		}
		if !strings.Contains(errb.String(), "rank 2") || !strings.Contains(errb.String(), "signal 9") {
			t.Errorf("golaunch does not name the killed rank and signal:\n%s", errb.String())
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatal("golaunch did not exit after a rank was killed")
	}
	assertGone(t, all)
	assertNoSegments(t)
}

func TestTruncationAcrossProcesses(t *testing.T) {
	r := golaunch(t, "", "-n", "2", filepath.Join(bin, "rankprog"), "--mode", "truncate")
	if r.code != 0 || !strings.Contains(r.stdout, "next message intact") || !strings.Contains(r.stdout, "message truncated") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
}

func TestPeerExitsEarly(t *testing.T) {
	r := golaunch(t, "", "-n", "2", filepath.Join(bin, "rankprog"), "--mode", "early")
	if r.code != 0 || !strings.Contains(r.stdout, "peer lost") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
}

func TestFailingRankNamedWithItsStatus(t *testing.T) {
	r := golaunch(t, "", "-n", "3", filepath.Join(bin, "rankprog"), "--mode", "exit", "--arg", "1")
	if r.code != 3 || !strings.Contains(r.stderr, "rank 1") || !strings.Contains(r.stderr, "status 3") {
		t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
	}
	assertGone(t, pids(r.stdout))
}

func TestExitWithoutFinalizeIsAFailure(t *testing.T) {
	r := golaunch(t, "", "-n", "2", filepath.Join(bin, "rankprog"), "--mode", "nofinalize", "--arg", "1")
	if r.code == 0 || !strings.Contains(r.stderr, "without calling Finalize") {
		t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
	}
}

func TestAbort(t *testing.T) {
	r := golaunch(t, "", "-n", "3", filepath.Join(bin, "rankprog"), "--mode", "abort", "--arg", "2")
	if r.code != 5 || !strings.Contains(r.stderr, "rank 2 called Abort(5)") {
		t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
	}
	if r.took > 5*time.Second {
		t.Errorf("abort took %v", r.took)
	}
	assertGone(t, pids(r.stdout))
}

func TestJobTimeout(t *testing.T) {
	r := golaunch(t, "", "-n", "2", "--timeout", "500ms", filepath.Join(bin, "rankprog"), "--mode", "hang")
	if r.code != 124 || !strings.Contains(r.stderr, "--timeout") {
		t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
	}
	assertGone(t, pids(r.stdout))
}

func TestInterruptStopsJob(t *testing.T) {
	cmd := exec.Command(filepath.Join(bin, "golaunch"), "-n", "3", filepath.Join(bin, "rankprog"), "--mode", "hang")
	var out, errb syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return strings.Count(out.String(), "ready") == 3 })
	cmd.Process.Signal(os.Interrupt)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("after SIGINT: %v\n%s", err, errb.String())
	}
	assertGone(t, pids(out.String()))
}

func TestKilledLauncherTakesRanksWithIt(t *testing.T) {
	cmd := exec.Command(filepath.Join(bin, "golaunch"), "-n", "3", filepath.Join(bin, "rankprog"), "--mode", "hang")
	var out syncBuffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return strings.Count(out.String(), "ready") == 3 })
	cmd.Process.Kill()
	cmd.Wait()
	assertGone(t, pids(out.String()))
	assertNoSegments(t)
}

func TestStdinEnvAndTags(t *testing.T) {
	r := golaunch(t, "hello stdin\n", "-n", "2", filepath.Join(bin, "rankprog"), "--mode", "echo")
	if r.code != 0 || !strings.Contains(r.stdout, "hello stdin") {
		t.Fatalf("stdin to rank 0: exit %d, stdout %q", r.code, r.stdout)
	}
	os.Setenv("GOMPI_TEST_VAR", "from-here")
	defer os.Unsetenv("GOMPI_TEST_VAR")
	r = golaunch(t, "", "-n", "2", "--tag-output", "-x", "GOMPI_TEST_VAR", filepath.Join(bin, "rankprog"), "--mode", "env")
	for _, want := range []string{"[1,0]<stdout>:var=from-here", "[1,1]<stdout>:var=from-here"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("missing %q in\n%s", want, r.stdout)
		}
	}
	r = golaunch(t, "", "-n", "1", "-x", "GOMPI_TEST_VAR=set", filepath.Join(bin, "rankprog"), "--mode", "env")
	if !strings.Contains(r.stdout, "var=set") {
		t.Errorf("-x VAR=VALUE: %q", r.stdout)
	}
}

func TestBadInvocations(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-n", "2", "./no/such/program"}, "no/such/program"},
		{[]string{"-n", "0", "true"}, "at least 1"},
		{[]string{"-n", "2"}, "no program"},
		{[]string{"--bogus", "true"}, "unknown flag"},
	} {
		r := golaunch(t, "", tc.args...)
		if r.code == 0 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("golaunch %v: exit %d, stderr %q (want it to mention %q)", tc.args, r.code, r.stderr, tc.want)
		}
	}
	if r := golaunch(t, "", "--version"); r.code != 0 || !strings.Contains(r.stdout, "golaunch") {
		t.Errorf("--version: %d %q", r.code, r.stdout)
	}
}

func TestPingPongJSON(t *testing.T) {
	r := golaunch(t, "", "-n", "2", filepath.Join(bin, "pingpong"), "--format", "json", "--max", "64K", "--reps", "1", "--time", "0.001")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 18 { // 0, 1, 2, ..., 64K
		t.Fatalf("want 18 sizes, got %d lines:\n%s", len(lines), r.stdout)
	}
	for _, l := range lines {
		for _, f := range []string{`"size":`, `"latency_us":`, `"bandwidth_MBps":`} {
			if !strings.Contains(l, f) {
				t.Errorf("line %q lacks %s", l, f)
			}
		}
	}
}

// syncBuffer is a bytes.Buffer that a test may read while a process writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestBindToCore(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("binding two ranks to two cores needs two CPUs")
	}
	r := golaunch(t, "", "-n", "2", "--bind-to", "core", "--tag-output", "sh", "-c", "grep Cpus_allowed_list /proc/self/status")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		_, cpus, _ := strings.Cut(line, "Cpus_allowed_list:")
		cpus = strings.TrimSpace(cpus)
		if cpus == "" || strings.ContainsAny(cpus, ",-") {
			t.Errorf("a rank bound to a core should see one CPU, got %q", line)
		}
		seen[cpus] = true
	}
	if len(seen) != 2 {
		t.Errorf("the two ranks should be on two different CPUs: %s", r.stdout)
	}
	r = golaunch(t, "", "-n", "3", "--bind-to", "core", "true")
	if r.code != 0 || (runtime.NumCPU() < 3 && !strings.Contains(r.stderr, "oversubscribed")) {
		t.Errorf("binding more ranks than cores should warn: exit %d, %q", r.code, r.stderr)
	}
}

// TestCrowdedBindingInPairs: with twice as many ranks as CPUs and no
// --bind-to, golaunch binds consecutive ranks to one CPU each (rank r on
// CPU r·cpus/n; launcher/golaunch/crowdbind.go).
func TestCrowdedBindingInPairs(t *testing.T) {
	cpus := runtime.NumCPU()
	if cpus < 2 || cpus > 8 {
		t.Skip("needs 2..8 CPUs")
	}
	n := 2 * cpus
	r := golaunch(t, "", "-n", strconv.Itoa(n), "--tag-output", "sh", "-c", "grep Cpus_allowed_list /proc/self/status")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	byRank := map[int]string{}
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		tag, cpu, _ := strings.Cut(line, "Cpus_allowed_list:")
		var rank int
		if _, err := fmt.Sscanf(tag, "[1,%d]", &rank); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		byRank[rank] = strings.TrimSpace(cpu)
	}
	if len(byRank) != n {
		t.Fatalf("want %d ranks, got %q", n, r.stdout)
	}
	for rank := 0; rank < n; rank += 2 {
		a, b := byRank[rank], byRank[rank+1]
		if a == "" || strings.ContainsAny(a, ",-") || a != b {
			t.Errorf("ranks %d and %d should share one CPU, got %q and %q", rank, rank+1, a, b)
		}
		if rank > 0 && a == byRank[rank-1] {
			t.Errorf("rank %d should not share rank %d's CPU %s", rank, rank-1, a)
		}
	}
}

// readyRanks reads a rankprog job's output until n ranks said "ready" and
// returns the pid of each rank and all pids.
func readyRanks(sc *bufio.Scanner, n int) (map[int]int, []int) {
	var all []int
	rankPid := map[int]int{}
	lineRe := regexp.MustCompile(`pid=(\d+) rank=(\d+)`)
	for ready := 0; ready < n && sc.Scan(); {
		if m := lineRe.FindStringSubmatch(sc.Text()); m != nil {
			p, _ := strconv.Atoi(m[1])
			rk, _ := strconv.Atoi(m[2])
			rankPid[rk] = p
			all = append(all, p)
		}
		if sc.Text() == "ready" {
			ready++
		}
	}
	return rankPid, all
}

// buildConformance builds the conformance suite's program (test/conformance)
// into bin and returns its path.
func buildConformance(t *testing.T) string {
	t.Helper()
	conf := filepath.Join(bin, "conformance")
	if out, err := exec.Command("go", "build", "-o", conf, "./conformance").CombinedOutput(); err != nil {
		t.Fatalf("building the conformance suite: %v\n%s", err, out)
	}
	return conf
}

// TestSingleCopyCollectivesAcrossProcesses runs the collective cases of the
// conformance suite as real processes, where the single-copy algorithms
// ("cma") read each other's memory with process_vm_readv: chosen by default
// for large blocks and named on every operation, and again with single copy
// turned off, where the default selection must give the same results
// without it.
func TestSingleCopyCollectivesAcrossProcesses(t *testing.T) {
	conf := buildConformance(t)
	for _, env := range [][]string{nil, {"GOMPI_SHM_CMA_COLL=0"}} {
		r := launchWith(t, "", env, "-n", "5", conf, "--run", "EveryAlgorithm/.*/cma|DefaultSelection|Subcommunicators", "--timeout", "1m", "-v")
		if r.code != 0 || !strings.Contains(r.stdout, " 0 failed") {
			t.Fatalf("env %v: exit %d\nstdout: %s\nstderr: %s", env, r.code, r.stdout, r.stderr)
		}
		ran := strings.Contains(r.stdout, "ok    EveryAlgorithm/alltoall/cma/3")
		switch {
		case env != nil && ran:
			t.Errorf("with %v the named cma cases should be skipped:\n%s", env, r.stdout)
		case env == nil && !ran:
			t.Logf("single copy is off on this machine (the kernel refuses process_vm_readv between ranks): only the fallback ran\n%s", r.stdout)
		}
	}
}
