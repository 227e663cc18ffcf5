// Command faults kills a running job at a random moment, over and over, and
// checks that it ends well: kill -9 of a random rank (golaunch must stop the
// job and name that rank), of golaunch itself (the ranks must die with it),
// or of the connection to a remote host's agent (--kill link: both ends
// must notice, golaunch must name the host, and every rank on both hosts
// must end). Each trial must end within --limit with nothing left behind:
// no rank or agent process and no /dev/shm/gompi* file. It prints one line
// per trial and a summary, and exits non-zero if any trial failed.
//
//	go run ./test/faults --trials 100 --n 8                 # a rank or golaunch
//	go run ./test/faults --trials 20 --n 8 --kill link      # the link to a remote agent
//
// The link trials run a job on two hosts, "localhost" and a second one that
// is this machine too, reached through a relay that faults itself plays as
// golaunch's --launch-agent: it starts the agent in a session of its own and
// copies its standard streams, like ssh. Killing the relay cuts the
// connection and nothing else: the agent lives on until it notices. Only
// loopback addresses are used (GOMPI_TCP_NET matches no interface, so the
// ranks publish 127.0.0.1 alone).
//
// Run it from the repository root: it builds golaunch and test/rankprog.
package main

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"
)

// remoteHost names the second host of the link trials.
const remoteHost = "gompi-faults-remote"

func main() {
	if len(os.Args) > 1 && os.Args[1] == "relay" {
		os.Exit(relay(os.Args[2:]))
	}
	trials := pflag.Int("trials", 10, "number of trials")
	n := pflag.Int("n", 8, "ranks per job")
	limit := pflag.Duration("limit", time.Second, "longest a job may take to end after the kill")
	transport := pflag.String("transport", "auto", "golaunch --transport")
	seed := pflag.Uint64("seed", uint64(time.Now().UnixNano()), "random seed (printed, to replay a run)")
	kinds := pflag.StringSlice("kill", []string{"rank", "golaunch"}, "what to kill, drawn at random each trial: rank, golaunch, link (the connection to a remote host's agent)")
	pflag.Parse()
	for _, k := range *kinds {
		if k != "rank" && k != "golaunch" && k != "link" {
			fail(fmt.Errorf("--kill %q: want rank, golaunch or link", k))
		}
	}
	if len(*kinds) == 0 {
		fail(fmt.Errorf("--kill: name at least one of rank, golaunch, link"))
	}
	if *n < 2 && slices.Contains(*kinds, "link") {
		fail(fmt.Errorf("--kill link needs --n 2 or more (ranks on two hosts)"))
	}
	self, err := os.Executable()
	if err != nil {
		fail(err)
	}
	dir, err := os.MkdirTemp("", "gompi-faults-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(dir)
	build := exec.Command("go", "build", "-o", dir+"/", "./launcher/golaunch", "./test/rankprog")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fail(fmt.Errorf("building (run from the repository root): %w", err))
	}
	rng := rand.New(rand.NewPCG(*seed, 1))
	fmt.Printf("faults: %d trials of %d ranks, seed %d, limit %v\n", *trials, *n, *seed, *limit)
	var times []time.Duration
	failed := 0
	for t := 0; t < *trials; t++ {
		v := victim{kind: (*kinds)[rng.IntN(len(*kinds))]}
		if v.kind == "rank" {
			v.rank = rng.IntN(*n)
		}
		delay := time.Duration(rng.IntN(1000)) * time.Millisecond
		took, err := trial(dir, self, *n, *transport, v, delay, *limit)
		who := v.kind
		switch v.kind {
		case "rank":
			who = fmt.Sprintf("rank %d", v.rank)
		case "link":
			who = "the link"
		}
		status := "ok"
		if err != nil {
			status = "FAIL: " + err.Error()
			failed++
		}
		times = append(times, took)
		fmt.Printf("trial %3d: kill -9 %-8s %4d ms into the run: ended in %6.1f ms  %s\n",
			t, who, delay.Milliseconds(), float64(took.Microseconds())/1000, status)
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	if len(times) > 0 {
		fmt.Printf("faults: %d of %d trials failed; time to end: median %.1f ms, max %.1f ms\n", failed, *trials,
			float64(times[len(times)/2].Microseconds())/1000, float64(times[len(times)-1].Microseconds())/1000)
	}
	if failed > 0 {
		os.Exit(1)
	}
}

var (
	pidRe   = regexp.MustCompile(`pid=(\d+) rank=(\d+)`)
	relayRe = regexp.MustCompile(`^relay=(\d+) agent=(\d+)$`)
)

// victim is what a trial kills: a rank, golaunch, or the link to the
// remote host's agent.
type victim struct {
	kind string // rank, golaunch, link
	rank int
}

// trial runs one job of n ranks passing messages round a ring, kills its
// victim delay after every rank is ready, and reports how long the job took
// to end and what went wrong. A link trial puts the upper half of the ranks
// on the remote host, behind the relay.
func trial(dir, self string, n int, transport string, v victim, delay, limit time.Duration) (time.Duration, error) {
	args := []string{"-n", strconv.Itoa(n), "--transport", transport}
	pidFile := filepath.Join(dir, "relay.pid")
	if v.kind == "link" {
		os.Remove(pidFile)
		args = append(args, "-H", fmt.Sprintf("localhost:%d,%s:%d", n/2, remoteHost, n-n/2),
			"--launch-agent", self+" relay "+pidFile, "-x", "GOMPI_TCP_NET=127.255.255.255/32")
	}
	args = append(args, filepath.Join(dir, "rankprog"), "--mode", "forever")
	cmd := exec.Command(filepath.Join(dir, "golaunch"), args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	pids := map[int]int{} // rank → pid; agents below -1
	ready := 0
	sc := bufio.NewScanner(stdout)
	for ready < n && sc.Scan() {
		l := sc.Text()
		if m := pidRe.FindStringSubmatch(l); m != nil {
			pid, _ := strconv.Atoi(m[1])
			rank, _ := strconv.Atoi(m[2])
			pids[rank] = pid
		}
		if l == "ready" {
			ready++
		}
	}
	go func() {
		for sc.Scan() {
		}
	}()
	if ready < n {
		cmd.Process.Kill()
		cmd.Wait()
		return 0, fmt.Errorf("the job did not start: %s", stderr.String())
	}
	target := cmd.Process.Pid
	switch v.kind {
	case "rank":
		target = pids[v.rank]
	case "link":
		b, err := os.ReadFile(pidFile)
		m := relayRe.FindStringSubmatch(strings.TrimSpace(string(b)))
		if err != nil || m == nil {
			cmd.Process.Kill()
			cmd.Wait()
			return 0, fmt.Errorf("the relay left no pids in %s (%v)", pidFile, err)
		}
		target, _ = strconv.Atoi(m[1])
		pids[-2], _ = strconv.Atoi(m[2]) // the remote agent must end too
	}
	time.Sleep(delay)
	start := time.Now()
	syscall.Kill(target, syscall.SIGKILL)
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	var problems []string
	var launcherTook time.Duration
	select {
	case <-waited:
		launcherTook = time.Since(start)
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-waited
		problems = append(problems, "golaunch did not end within 10 s")
	}
	// The ranks must be gone too (golaunch does not wait for them when it
	// is the one killed, nor for the agent it lost).
	var lateAtLimit []string // who still ran when the limit passed
	for time.Since(start) < 10*time.Second && len(alive(pids)) > 0 {
		if lateAtLimit == nil && time.Since(start) > limit {
			lateAtLimit = describe(pids, alive(pids))
		}
		time.Sleep(time.Millisecond)
	}
	took := time.Since(start)
	if took > limit {
		if launcherTook > limit {
			lateAtLimit = append(lateAtLimit, fmt.Sprintf("golaunch (ended after %v)", launcherTook.Round(time.Millisecond)))
		}
		problems = append(problems, fmt.Sprintf("still running after %v: %s", limit, strings.Join(lateAtLimit, ", ")))
	}
	if left := alive(pids); len(left) > 0 {
		problems = append(problems, fmt.Sprintf("still running: pids %v", left))
		for _, p := range left {
			syscall.Kill(p, syscall.SIGKILL)
		}
	}
	if took > limit {
		problems = append(problems, fmt.Sprintf("took %v, more than %v", took.Round(time.Millisecond), limit))
	}
	switch v.kind {
	case "rank":
		if !strings.Contains(stderr.String(), fmt.Sprintf("rank %d (pid %d)", v.rank, pids[v.rank])) {
			problems = append(problems, fmt.Sprintf("golaunch did not name rank %d", v.rank))
		}
	case "link":
		if !strings.Contains(stderr.String(), "golaunch: host "+remoteHost+":") {
			problems = append(problems, "golaunch did not name host "+remoteHost)
		}
	}
	if m, _ := filepath.Glob("/dev/shm/gompi*"); len(m) > 0 {
		problems = append(problems, fmt.Sprintf("left in /dev/shm: %v", m))
	}
	if len(problems) > 0 {
		return took, fmt.Errorf("%s; golaunch said: %q", strings.Join(problems, "; "), strings.TrimSpace(stderr.String()))
	}
	return took, nil
}

// relay plays ssh for the link trials: `faults relay PIDFILE HOST CMD...`
// runs CMD (golaunch --agent) in a session of its own, as on another host,
// and copies its stdin, stdout and stderr. It writes its own pid and the
// agent's to PIDFILE. Killed, it cuts the agent's streams and nothing else.
func relay(args []string) int {
	if len(args) < 3 {
		fmt.Fprintln(os.Stderr, "faults relay: want PIDFILE HOST COMMAND...")
		return 2
	}
	cmd := exec.Command(args[2], args[3:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	in, err := cmd.StdinPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "faults relay:", err)
		return 1
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "faults relay:", err)
		return 1
	}
	errs, err := cmd.StderrPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "faults relay:", err)
		return 1
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "faults relay:", err)
		return 1
	}
	os.WriteFile(args[0], fmt.Appendf(nil, "relay=%d agent=%d\n", os.Getpid(), cmd.Process.Pid), 0o644)
	go func() {
		io.Copy(in, os.Stdin)
		in.Close()
	}()
	done := make(chan struct{}, 2)
	go func() { io.Copy(os.Stdout, out); done <- struct{}{} }()
	go func() { io.Copy(os.Stderr, errs); done <- struct{}{} }()
	<-done
	<-done
	if err := cmd.Wait(); err != nil {
		return 1
	}
	return 0
}

// describe names the processes of pids: "rank 3", "the remote agent".
func describe(pids map[int]int, which []int) []string {
	var out []string
	for _, p := range which {
		for k, q := range pids {
			if q == p {
				if k >= 0 {
					out = append(out, fmt.Sprintf("rank %d", k))
				} else {
					out = append(out, "the remote agent")
				}
			}
		}
	}
	return out
}

// alive lists the pids that still run (zombies count as gone).
func alive(pids map[int]int) []int {
	var out []int
	for _, p := range pids {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p))
		if err != nil {
			continue
		}
		s := string(b)
		if i := strings.LastIndexByte(s, ')'); i >= 0 && strings.HasPrefix(strings.TrimSpace(s[i+1:]), "Z") {
			continue
		}
		out = append(out, p)
	}
	sort.Ints(out)
	return out
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "faults:", err)
	os.Exit(1)
}
