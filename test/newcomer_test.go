package test

// What a new user meets in the first hour (issue 16): the reason for a
// failure on the screen, a bare command name, mpirun's flags, mistakes
// said once and before a long run, and nothing left behind in /tmp. Each
// test runs the real commands and checks what a person sees on stderr. They
// run in parallel with each other, after the package's serial tests: most
// of their time is waiting for jobs to start and stop.

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// launch runs golaunch from the repository root with extra environment.
func launch(t *testing.T, env []string, args ...string) result {
	t.Helper()
	return launchWith(t, "", env, args...)
}

// after returns what s holds after the first line that contains marker, or
// "" if none does.
func after(s, marker string) string {
	i := strings.Index(s, marker)
	if i < 0 {
		return ""
	}
	return s[i:]
}

// Point 1: the closing summary quotes the failed rank's last lines of
// stderr, however much the others wrote after them.
func TestSummaryQuotesTheFailedRank(t *testing.T) {
	t.Parallel()
	r := golaunch(t, "", "-n", "3", filepath.Join(bin, "rankprog"), "--mode", "loudfail", "--arg", "1")
	tail := after(r.stderr, "golaunch: rank 1 (pid")
	want := "golaunch: rank 1's last lines of stderr:\n    rank 1: reading input.dat: no such file\n"
	if r.code != 3 || !strings.Contains(tail, want) {
		t.Errorf("exit %d; want the summary followed by\n%s\ngot the end of stderr:\n%s", r.code, want, lastLines(r.stderr, 6))
	}
	// The same through an agent (-H): the ranks' lines come back to golaunch.
	r = golaunch(t, "", "-H", "localhost:3", filepath.Join(bin, "rankprog"), "--mode", "loudfail", "--arg", "1")
	if tail := after(r.stderr, "golaunch: rank 1 (pid"); r.code != 3 || !strings.Contains(tail, want) {
		t.Errorf("-H localhost:3: exit %d, the end of stderr:\n%s", r.code, lastLines(r.stderr, 6))
	}
	r = golaunch(t, "", "-n", "3", filepath.Join(bin, "rankprog"), "--mode", "abort", "--arg", "2")
	tail = after(r.stderr, "golaunch: rank 2 called Abort(5)")
	if r.code != 5 || !strings.Contains(tail, "rank 2's last lines of stderr:\n    rank 2: calling Abort(5)\n") {
		t.Errorf("abort: exit %d, the end of stderr:\n%s", r.code, lastLines(r.stderr, 6))
	}
}

func lastLines(s string, n int) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(ls[max(0, len(ls)-n):], "\n")
}

// Point 2: golaunch -n 2 benches runs the benches installed in PATH, even
// from the repository root where benches/ is a directory; a name found
// nowhere says where installed commands go.
func TestBareNameIsACommandInPATH(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := "#!/bin/sh\necho installed benches, rank $GOMPI_RANK\n"
	if err := os.WriteFile(filepath.Join(dir, "benches"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	path := "PATH=" + dir + ":" + os.Getenv("PATH")
	r := launch(t, []string{path}, "-n", "2", "benches")
	if r.code != 0 || !strings.Contains(r.stdout, "installed benches, rank 0") || !strings.Contains(r.stdout, "installed benches, rank 1") {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	r = launch(t, nil, "-n", "2", "gompi-no-such-command")
	if r.code != 2 || !strings.Contains(r.stderr, "no command of that name in PATH") || !strings.Contains(r.stderr, "go env GOPATH") {
		t.Errorf("unknown name: exit %d, stderr %q", r.code, r.stderr)
	}
}

// Point 3: an oversubscribed mpiperf run says in one line why figures are
// missing and what to do, and --plot still draws (what there is, marked).
func TestMpiperfOversubscribedSaysWhy(t *testing.T) {
	t.Parallel()
	svg := filepath.Join(t.TempDir(), "bcast.svg")
	n := runtime.NumCPU() + 2
	r := launch(t, nil, "-n", strconv.Itoa(n), filepath.Join(bin, "benches"), "mpiperf", "--op", "bcast", "--sizes", "8,1K",
		"--max-launches", "10", "--bcast-reps", "2", "--plot", svg)
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
	}
	why := regexp.MustCompile(`(?m)^mpiperf: no figure at \d+ of \d+ points: .*cannot start together.*run one rank per CPU \(golaunch -n \d+\).*$`)
	if lines := why.FindAllString(r.stderr, -1); len(lines) != 1 {
		t.Errorf("want one line saying why figures are missing, got %d in stderr:\n%s", len(lines), r.stderr)
	}
	b, err := os.ReadFile(svg)
	if err != nil || !strings.Contains(string(b), "(all launches)") || !strings.Contains(string(b), strconv.Itoa(n)+" ranks") {
		t.Errorf("--plot: %v; the figure should show the all-launch means and the rank count:\n%.400s", err, b)
	}
}

// Point 4: mistakes are said once (not once per rank), exit non-zero, and
// come before the run, not after it.
func TestMpiperfMistakesSaidOnceBeforeTheRun(t *testing.T) {
	t.Parallel()
	benches := filepath.Join(bin, "benches")
	for _, tc := range []struct {
		args []string
		want string // said once, at the start of a line
	}{
		{[]string{"mpiperf", "--alg", "nonsense"}, `benches mpiperf: --alg "nonsense": no collective asked for`},
		{[]string{"mpiperf", "--bogus"}, "usage: benches mpiperf"},
		{[]string{"mpiperf", "--plot", "/nonexistent/dir/x.svg"}, "benches mpiperf: --plot /nonexistent/dir/x.svg: cannot be written: directory /nonexistent/dir does not exist"},
		{[]string{"mpiperf", "--per-rank", os.TempDir()}, "benches mpiperf: --per-rank " + os.TempDir() + ": cannot be written: it is a directory"},
		{[]string{"transfer", "-o", "/nonexistent/dir/t.txt"}, "benches transfer: --output /nonexistent/dir/t.txt: cannot be written"},
	} {
		r := launch(t, nil, append([]string{"-n", "2", benches}, tc.args...)...)
		said := strings.Count("\n"+r.stderr, "\n"+tc.want)
		if r.code == 0 || said != 1 || strings.Contains(r.stdout, "# mpiperf:") {
			t.Errorf("benches %v: exit %d, said %d times (want 1) %q; stdout %q\nstderr:\n%s", tc.args, r.code, said, tc.want, r.stdout, r.stderr)
		}
	}
}

// Point 5: mpirun's flags, in Open MPI's and MPICH's spellings, work, are
// accepted with a note, or are refused with the gompi way.
func TestMpirunFlags(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	mpichHosts := filepath.Join(tmp, "hosts")
	os.WriteFile(mpichHosts, []byte("localhost:2\n"), 0o644)
	rank := []string{"sh", "-c", `echo "rank $GOMPI_RANK of $GOMPI_SIZE in $(pwd)"`}
	for _, tc := range []struct {
		args       []string
		code       int
		stdout     []string // each must appear
		stderr     string   // must appear
		stdoutFile string   // this file (under tmp) must exist
	}{
		{args: []string{"--oversubscribe", "-H", "localhost:2", "-n", "4"}, stdout: []string{"rank 3 of 4"}},
		{args: []string{"-H", "localhost:2", "-n", "4"}, code: 1, stderr: "--oversubscribe"},
		{args: []string{"-N", "2"}, stdout: []string{"rank 1 of 2"}},
		{args: []string{"--npernode", "3"}, stdout: []string{"rank 2 of 3"}},
		{args: []string{"-ppn", "2"}, stdout: []string{"rank 1 of 2"}},
		{args: []string{"-n", "2", "--wdir", tmp}, stdout: []string{"rank 0 of 2 in " + tmp, "rank 1 of 2 in " + tmp}},
		{args: []string{"-np", "2", "-wdir", tmp}, stdout: []string{"rank 1 of 2 in " + tmp}},
		{args: []string{"-n", "2", "--output-filename", filepath.Join(tmp, "out")}, stdout: []string{"rank 1 of 2"}, stdoutFile: "out/1/rank.1/stdout"},
		{args: []string{"-n", "1", "--timestamp-output"}, stdout: []string{"T"}},
		{args: []string{"-n", "2", "--allow-run-as-root"}, stdout: []string{"rank 1 of 2"}},
		{args: []string{"-n", "1", "--mca", "btl", "self,vader"}, stdout: []string{"rank 0 of 1"}, stderr: "golaunch: note: --mca btl self,vader accepted and ignored"},
		{args: []string{"-n", "1", "-mca", "pml", "ob1"}, stdout: []string{"rank 0 of 1"}, stderr: "--mca pml ob1 accepted and ignored"},
		{args: []string{"--hostfile", mpichHosts}, stdout: []string{"rank 1 of 2"}},
		{args: []string{"-f", mpichHosts, "-l"}, stdout: []string{"[1,1]<stdout>:rank 1 of 2"}},
		{args: []string{"-n", "2", "-genv", "GOMPI_TEST_G", "x", "--timeout", "30"}, stdout: []string{"rank 1 of 2"}},
		{args: []string{"--app", "appfile"}, code: 2, stderr: "--app is not supported: golaunch runs one program"},
		{args: []string{"-n", "1", "--merge-stderr-to-stdout"}, code: 2, stderr: "2>&1"},
	} {
		r := launch(t, nil, append(tc.args, rank...)...)
		bad := r.code != tc.code || !strings.Contains(r.stderr, tc.stderr)
		for _, w := range tc.stdout {
			bad = bad || !strings.Contains(r.stdout, w)
		}
		if tc.stdoutFile != "" {
			b, err := os.ReadFile(filepath.Join(tmp, tc.stdoutFile))
			bad = bad || err != nil || !strings.Contains(string(b), "rank 1 of 2")
		}
		if bad {
			t.Errorf("golaunch %v: exit %d (want %d)\nstdout: %s\nstderr: %s\n(want stdout %q, stderr %q)", tc.args, r.code, tc.code, r.stdout, r.stderr, tc.stdout, tc.stderr)
		}
	}
	// --timestamp-output: each line starts with the time.
	r := launch(t, nil, append([]string{"-n", "2", "--timestamp-output"}, rank...)...)
	if !regexp.MustCompile(`(?m)^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+ rank 1 of 2`).MatchString(r.stdout) {
		t.Errorf("--timestamp-output: %q", r.stdout)
	}
}

// Point 6: a library package, a program outside the module.
func TestPackagesAUserMightName(t *testing.T) {
	t.Parallel()
	r := launch(t, nil, "-n", "2", "./gompi")
	if r.code != 2 || !strings.Contains(r.stderr, "./gompi: not a command (package main)") || strings.Contains(r.stderr, "permission denied") {
		t.Errorf("a library package: exit %d, stderr %q", r.code, r.stderr)
	}
	outside := t.TempDir() // no go.mod above it
	os.WriteFile(filepath.Join(outside, "main.go"), []byte("package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello from outside\") }\n"), 0o644)
	for _, prog := range []string{outside, filepath.Join(outside, "main.go")} {
		r = launch(t, nil, "-n", "2", prog)
		if r.code != 0 || strings.Count(r.stdout, "hello from outside") != 2 {
			t.Errorf("%s: exit %d\nstdout: %s\nstderr: %s", prog, r.code, r.stdout, r.stderr)
		}
	}
	r = launch(t, nil, "-n", "2", "./no/such/dir")
	if r.code != 2 || !strings.Contains(r.stderr, "./no/such/dir: no such file or directory") {
		t.Errorf("a missing path: exit %d, stderr %q", r.code, r.stderr)
	}
}

// buildDirs lists golaunch's build directories under dir.
func buildDirs(dir string) []string {
	m, _ := filepath.Glob(filepath.Join(dir, "golaunch-build-*"))
	return m
}

// Point 6: nothing is left in /tmp when golaunch is killed (the next one
// removes it) or when its output pipe closes (it stops the job in order).
func TestNoBuildLeftBehind(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	env := []string{"TMPDIR=" + tmp}
	cmd := exec.Command(filepath.Join(bin, "golaunch"), "-n", "1", "./test/rankprog", "--mode", "hang")
	cmd.Dir, cmd.Env = "..", append(os.Environ(), env...)
	var out syncBuffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return strings.Contains(out.String(), "ready") })
	if len(buildDirs(tmp)) != 1 {
		t.Fatalf("no build directory while running: %v", buildDirs(tmp))
	}
	cmd.Process.Kill()
	cmd.Wait()
	assertGone(t, pids(out.String()))
	if r := launch(t, env, "-n", "1", "./examples/hello"); r.code != 0 || len(buildDirs(tmp)) != 0 {
		t.Errorf("after a SIGKILL, the next golaunch: exit %d, left %v\n%s", r.code, buildDirs(tmp), r.stderr)
	}

	// golaunch ... | head -1
	spam := t.TempDir()
	os.WriteFile(filepath.Join(spam, "main.go"), []byte("package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfor i := 0; ; i++ {\n\t\tfmt.Println(\"line\", i)\n\t}\n}\n"), 0o644)
	cmd = exec.Command(filepath.Join(bin, "golaunch"), "-n", "2", spam)
	cmd.Dir, cmd.Env = "..", append(os.Environ(), env...)
	var errb syncBuffer
	cmd.Stderr = &errb
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	if !sc.Scan() {
		t.Fatalf("no line: %s", errb.String())
	}
	stdout.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("golaunch did not end after its output closed")
	}
	ee, _ := err.(*exec.ExitError)
	if ee == nil || ee.ExitCode() != 128+int(syscall.SIGPIPE) || !strings.Contains(errb.String(), "broken pipe") {
		t.Errorf("after its output closed: %v, stderr %q", err, errb.String())
	}
	if left := buildDirs(tmp); len(left) != 0 {
		t.Errorf("left behind after a closed output pipe: %v", left)
	}
}

// Shell completion: golaunch --completion bash completes golaunch's flags,
// benches' suites and a suite's flags, read from their --help.
func TestShellCompletion(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	script := `source <(golaunch --completion bash)
complete_words() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); _gompi_complete; echo "${COMPREPLY[*]}"; }
complete_words golaunch --overs
complete_words benches mpip
complete_words benches mpiperf --pl
`
	cmd := exec.Command("bash", "-c", script)
	cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if want := "--oversubscribe\nmpiperf\n--plot\n"; err != nil || string(out) != want {
		t.Errorf("completions: %v\n%q, want %q", err, out, want)
	}
}
