package test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gompi/gompi/internal/pmi2/pmi2test"
)

// The ranks' start-up under srun --mpi=pmi2, without Slurm: fakeSrun plays
// slurmstepd with the PMI-2 server of pmi2test and the environment Slurm
// gives each task. slurm_test.go runs the same programs under a real Slurm.

type fakeStep struct {
	srv   *pmi2test.Server
	cmds  []*exec.Cmd
	outs  []*bytes.Buffer
	errs  []*bytes.Buffer
	codes []int
}

// fakeSrun runs n tasks of prog, task r on node nodeOf(r), and waits for
// them (at most 60 s). When a task sends abort, every task gets SIGTERM, as
// Slurm cancels the step.
func fakeSrun(t *testing.T, n int, nodeOf func(int) int, prog string, args ...string) *fakeStep {
	t.Helper()
	st := &fakeStep{srv: pmi2test.New(n)}
	st.srv.NodeOf = nodeOf
	var mu sync.Mutex
	st.srv.OnAbort = func(int, string) {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range st.cmds {
			if c.Process != nil {
				c.Process.Signal(syscall.SIGTERM)
			}
		}
	}
	local := map[int]int{}
	mu.Lock()
	for r := 0; r < n; r++ {
		f, err := st.srv.Socket(r)
		if err != nil {
			t.Fatal(err)
		}
		node := nodeOf(r)
		cmd := exec.Command(prog, args...)
		cmd.Dir = ".."
		cmd.Env = append(os.Environ(), st.srv.Env(r, 3)...)
		cmd.Env = append(cmd.Env, fmt.Sprintf("SLURM_NODEID=%d", node), fmt.Sprintf("SLURM_LOCALID=%d", local[node]),
			fmt.Sprintf("SLURM_PROCID=%d", r))
		local[node]++
		cmd.ExtraFiles = []*os.File{f}
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		f.Close()
		st.cmds, st.outs, st.errs = append(st.cmds, cmd), append(st.outs, &o), append(st.errs, &e)
	}
	mu.Unlock()
	st.codes = make([]int, n)
	done := make(chan struct{})
	go func() {
		for r, c := range st.cmds {
			c.Wait()
			st.codes[r] = c.ProcessState.ExitCode()
			if ws, ok := c.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				st.codes[r] = 128 + int(ws.Signal())
			}
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		for _, c := range st.cmds {
			c.Process.Kill()
		}
		<-done
		t.Fatalf("the step hung; stderr:\n%s", st.stderr())
	}
	// An abort is never answered: the task may exit before the server has
	// read it.
	if !st.srv.Wait(10 * time.Second) {
		t.Errorf("a PMI-2 connection stayed open after every task exited")
	}
	return st
}

func (st *fakeStep) stdout() string {
	var b strings.Builder
	for _, o := range st.outs {
		b.WriteString(o.String())
	}
	return b.String()
}

func (st *fakeStep) stderr() string {
	var b strings.Builder
	for r, e := range st.errs {
		for _, l := range strings.Split(strings.TrimSpace(e.String()), "\n") {
			if l != "" {
				fmt.Fprintf(&b, "[%d] %s\n", r, l)
			}
		}
	}
	return b.String()
}

func oneNode(int) int { return 0 }

func TestPMIRing(t *testing.T) {
	st := fakeSrun(t, 4, oneNode, filepath.Join(bin, "ring"), "--iterations", "20")
	for r, c := range st.codes {
		if c != 0 {
			t.Fatalf("rank %d exited %d; stderr:\n%s", r, c, st.stderr())
		}
	}
	if !strings.Contains(st.stdout(), "ring of 4 ranks: 20 rounds") {
		t.Errorf("stdout: %s", st.stdout())
	}
	assertNoSegments(t)
}

// Ranks that end at once: the node's first rank, through which the others
// open the segment, must not be gone before they have.
func TestPMIQuickExit(t *testing.T) {
	st := fakeSrun(t, 8, oneNode, filepath.Join(bin, "hello"))
	for r, c := range st.codes {
		if c != 0 {
			t.Fatalf("rank %d exited %d; stderr:\n%s", r, c, st.stderr())
		}
	}
	if n := strings.Count(st.stdout(), "of 8 on"); n != 8 {
		t.Errorf("%d ranks said hello:\n%s", n, st.stdout())
	}
}

// Ranks on two nodes: shared memory within a node, TCP between nodes, and
// the ranks of a node in Slurm's local order.
func TestPMITwoNodes(t *testing.T) {
	nodeOf := func(r int) int { return r % 2 } // cyclic: 0,2 on node 0; 1,3 on node 1
	st := fakeSrun(t, 4, nodeOf, filepath.Join(bin, "rankprog"), "--mode", "hosts")
	for r, c := range st.codes {
		if c != 0 {
			t.Fatalf("rank %d exited %d; stderr:\n%s", r, c, st.stderr())
		}
	}
	out := st.stdout()
	for _, want := range []string{" 0=self@", " 2=shm@", " 1=tcp@", " 3=tcp@"} {
		if !strings.Contains(out, "rank 0 on") || !strings.Contains(lineOf(out, "rank 0 on"), want) {
			t.Errorf("rank 0 does not reach %q; stdout:\n%s", want, out)
		}
	}
	if l := lineOf(out, "rank 3 on"); !strings.Contains(l, " 1=shm@") || !strings.Contains(l, " 2=tcp@") {
		t.Errorf("rank 3: %s", l)
	}
	log := strings.Join(st.srv.Log(), "\n")
	if strings.Count(log, "kvs-fence") != 8 {
		t.Errorf("want two fences per rank; the server saw:\n%s", log)
	}
}

// A rank that calls Abort(5) cancels the step; every rank of its node ends
// with its code, as srun reports the highest.
func TestPMIAbort(t *testing.T) {
	st := fakeSrun(t, 3, oneNode, filepath.Join(bin, "rankprog"), "--mode", "abort", "--arg", "2")
	if ok, msg := st.srv.Aborted(); !ok || !strings.Contains(msg, "rank 2 called Abort(5)") {
		t.Errorf("the server saw no abort (%v %q)", ok, msg)
	}
	for r, c := range st.codes {
		if c != 5 {
			t.Errorf("rank %d exited %d, want 5", r, c)
		}
	}
	if !strings.Contains(st.stderr(), "rank 2 called Abort(5)") {
		t.Errorf("stderr:\n%s", st.stderr())
	}
	assertGone(t, pids(st.stdout()))
	assertNoSegments(t)
}

func lineOf(out, prefix string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}
