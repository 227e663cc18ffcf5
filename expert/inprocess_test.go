//go:build !mpi && !mpich

package expert

import (
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gompi/gompi/gompi"
)

// A real run, traced in-process: rank 0 sends late, rank 2 reaches the
// barrier late (a delay after rank 1 got its message). The report must name both at the calls of this file, with at
// least the injected delay (the machine may add to it, never take away).
func TestInProcessRunReport(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("GOMPI_TRACE", dir)
	const delay = 50 * time.Millisecond
	var recvLine, barrierLine atomic.Int64
	err := gompi.Run(3, func(c *gompi.Comm) error {
		b := make([]byte, 8)
		switch c.Rank() {
		case 0:
			time.Sleep(delay)
			if err := c.Send(b, 1, 0); err != nil {
				return err
			}
		case 1:
			_, _, line, _ := runtime.Caller(0)
			recvLine.Store(int64(line + 2))
			if _, err := c.Recv(b, 0, 0); err != nil {
				return err
			}
		case 2:
			time.Sleep(2 * delay) // after rank 1 got its late message
		}
		_, _, line, _ := runtime.Caller(0)
		barrierLine.Store(int64(line + 2))
		return c.Barrier()
	})
	if err != nil {
		t.Fatal(err)
	}
	tr, raw, err := ReadTrace(dir)
	if err != nil {
		t.Fatal(err)
	}
	if raw.Match.Matched != 1 {
		t.Fatalf("trace matched %d messages, want 1", raw.Match.Matched)
	}
	rules, err := LoadRules(false)
	if err != nil {
		t.Fatal(err)
	}
	rep := BuildReport(rules, tr)
	find := func(name string) *Problem {
		for i := range rep.Problems {
			if rep.Problems[i].Name == name {
				return &rep.Problems[i]
			}
		}
		t.Fatalf("no %s in the report: %+v", name, rep.Problems)
		return nil
	}
	for _, c := range []struct {
		problem string
		line    int64
		routine string
	}{
		{"Late sender", recvLine.Load(), "Recv"},
		{"Wait before barrier", barrierLine.Load(), "Barrier"},
	} {
		p := find(c.problem)
		want := "inprocess_test.go:" + itoa(c.line) + ")"
		if !strings.HasPrefix(p.Sites[0].Site, c.routine+" in ") || !strings.HasSuffix(p.Sites[0].Site, want) {
			t.Errorf("%s at %q, want %s ... %s", c.problem, p.Sites[0].Site, c.routine, want)
		}
		if p.Seconds < 0.95*delay.Seconds() {
			t.Errorf("%s costs %.6f s, less than the injected %.3f s", c.problem, p.Seconds, delay.Seconds())
		}
	}
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }
