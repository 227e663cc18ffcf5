// Command faults kills a running job at a random moment, over and over, and
// checks that it ends well: kill -9 of a random rank (golaunch must stop the
// job and name that rank) or of golaunch itself (the ranks must die with
// it). Each trial must end within --limit with nothing left behind: no rank
// process and no /dev/shm/gompi* file. It prints one line per trial and a
// summary, and exits non-zero if any trial failed.
//
//	go run ./test/faults --trials 100 --n 8
//
// Run it from the repository root: it builds golaunch and test/rankprog.
package main

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"
)

func main() {
	trials := pflag.Int("trials", 10, "number of trials")
	n := pflag.Int("n", 8, "ranks per job")
	limit := pflag.Duration("limit", time.Second, "longest a job may take to end after the kill")
	transport := pflag.String("transport", "auto", "golaunch --transport")
	seed := pflag.Uint64("seed", uint64(time.Now().UnixNano()), "random seed (printed, to replay a run)")
	pflag.Parse()
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
		victim := *n // golaunch itself, in half the trials
		if rng.IntN(2) == 0 {
			victim = rng.IntN(*n)
		}
		delay := time.Duration(rng.IntN(1000)) * time.Millisecond
		took, err := trial(dir, *n, *transport, victim, delay, *limit)
		who := "golaunch"
		if victim < *n {
			who = fmt.Sprintf("rank %d", victim)
		}
		status := "ok"
		if err != nil {
			status = "FAIL: " + err.Error()
			failed++
		}
		times = append(times, took)
		fmt.Printf("trial %3d: kill -9 %-9s %4d ms into the run: ended in %6.1f ms  %s\n",
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

var pidRe = regexp.MustCompile(`pid=(\d+) rank=(\d+)`)

// trial runs one job of n ranks passing messages round a ring, kills victim
// (a rank, or golaunch if victim == n) delay after every rank is ready, and
// reports how long the job took to end and what went wrong.
func trial(dir string, n int, transport string, victim int, delay, limit time.Duration) (time.Duration, error) {
	cmd := exec.Command(filepath.Join(dir, "golaunch"), "-n", strconv.Itoa(n), "--transport", transport,
		filepath.Join(dir, "rankprog"), "--mode", "forever")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	pids := map[int]int{} // rank → pid
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
	time.Sleep(delay)
	start := time.Now()
	target := cmd.Process.Pid
	if victim < n {
		target = pids[victim]
	}
	syscall.Kill(target, syscall.SIGKILL)
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	var problems []string
	select {
	case <-waited:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-waited
		problems = append(problems, "golaunch did not end within 10 s")
	}
	// The ranks must be gone too (golaunch does not wait for them when it
	// is the one killed).
	for time.Since(start) < 10*time.Second && len(alive(pids)) > 0 {
		time.Sleep(time.Millisecond)
	}
	took := time.Since(start)
	if left := alive(pids); len(left) > 0 {
		problems = append(problems, fmt.Sprintf("ranks still running: pids %v", left))
		for _, p := range left {
			syscall.Kill(p, syscall.SIGKILL)
		}
	}
	if took > limit {
		problems = append(problems, fmt.Sprintf("took %v, more than %v", took.Round(time.Millisecond), limit))
	}
	if victim < n && !strings.Contains(stderr.String(), fmt.Sprintf("rank %d (pid %d)", victim, pids[victim])) {
		problems = append(problems, fmt.Sprintf("golaunch did not name rank %d: %q", victim, strings.TrimSpace(stderr.String())))
	}
	if m, _ := filepath.Glob("/dev/shm/gompi*"); len(m) > 0 {
		problems = append(problems, fmt.Sprintf("left in /dev/shm: %v", m))
	}
	if len(problems) > 0 {
		return took, fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	return took, nil
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
