//go:build !mpi && !mpich

package expert

import (
	"math"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gompi/gompi/gompi"
)

// A real run, traced in-process: rank 0 sends late, rank 2 reaches the
// barrier late (a delay after rank 1 got its message). The report must name
// both at the calls of this file. (How much they cost depends on when the
// goroutines ran on a loaded machine; the simulated tests check the cost.)
func TestInProcessRunReport(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("GOMPI_TRACE", dir)
	const delay = 50 * time.Millisecond
	var recvLine, barrierLine atomic.Int64
	err := gompi.Run(3, func(c *gompi.Comm) error {
		b := make([]byte, 8)
		if err := c.Barrier(); err != nil { // start together
			return err
		}
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
		return gompi.Barrier(c)
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
		found := false
		for _, s := range p.Sites {
			found = found || strings.HasPrefix(s.Site, c.routine+" in ") && strings.HasSuffix(s.Site, want)
		}
		if !found {
			t.Errorf("%s at %+v, want %s ... %s among the sites", c.problem, p.Sites, c.routine, want)
		}
		if p.Seconds <= 0 {
			t.Errorf("%s costs %.6f s", c.problem, p.Seconds)
		}
	}
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// The nonblocking forms through the real tracer: the Wait of a persistent
// receive and a Wait inside Waitall both wait for a late send.
func TestInProcessNonblockingLateSender(t *testing.T) {
	const delay = 40 * time.Millisecond
	for _, form := range []string{"persistent", "waitall"} {
		t.Run(form, func(t *testing.T) {
			dir := t.TempDir()
			t.Setenv("GOMPI_TRACE", dir)
			var waitLine atomic.Int64
			err := gompi.Run(2, func(c *gompi.Comm) error {
				b := make([]byte, 8)
				if err := c.Barrier(); err != nil { // start together
					return err
				}
				if c.Rank() == 0 {
					time.Sleep(delay)
					return c.Send(b, 1, 3)
				}
				var req *gompi.Request
				var err error
				if form == "persistent" {
					if req, err = c.RecvInit(b, 0, 3); err == nil {
						err = req.Start()
					}
				} else {
					req, err = c.Irecv(b, 0, 3)
				}
				if err != nil {
					return err
				}
				_, _, line, _ := runtime.Caller(0)
				waitLine.Store(int64(line + 3))
				if form == "persistent" {
					_, err = req.Wait()
				} else {
					err = gompi.Waitall([]*gompi.Request{req}, nil)
				}
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			tr, _, err := ReadTrace(dir)
			if err != nil {
				t.Fatal(err)
			}
			rules, err := LoadRules(false)
			if err != nil {
				t.Fatal(err)
			}
			var cost, want float64
			for _, f := range Analyse(rules, tr) {
				if f.Problem.Name != "Late sender (nonblocking receive)" {
					continue
				}
				cost += f.Duration
				// The wait as the trace shows it: from the Wait's start to
				// the send's start (the delay, less how late rank 1 came).
				var send Call
				for _, c := range tr.Calls[0] {
					if c.Routine == "Send" {
						send = c
					}
				}
				want += min(send.Start, f.At.End) - f.At.Start
				line := waitLine.Load()
				if form == "waitall" {
					line += 2
				}
				if f.At.Line != int(line) || f.At.Rank != 1 {
					t.Errorf("found at rank %d, %s; want rank 1, line %d", f.At.Rank, f.At.Site(), line)
				}
			}
			if cost <= 0 || math.Abs(cost-want) > 1e-9 {
				t.Errorf("cost %.6f s, want the trace's wait %.6f s", cost, want)
			}
		})
	}
}

// A Sendrecv is a send and a receive at once: its receive waits for a late
// send like a Recv, and its send is the message its partner receives.
func TestInProcessSendrecvLateSender(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("GOMPI_TRACE", dir)
	var line atomic.Int64
	err := gompi.Run(2, func(c *gompi.Comm) error {
		b, r := make([]byte, 8), make([]byte, 8)
		if err := c.Barrier(); err != nil {
			return err
		}
		if c.Rank() == 0 {
			time.Sleep(40 * time.Millisecond)
			if err := c.Send(b, 1, 3); err != nil {
				return err
			}
			_, err := c.Recv(r, 1, 9)
			return err
		}
		_, _, l, _ := runtime.Caller(0)
		line.Store(int64(l + 2))
		_, err := c.Sendrecv(b, 0, 9, r, 0, 3)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	tr, raw, err := ReadTrace(dir)
	if err != nil {
		t.Fatal(err)
	}
	if raw.Match.Matched != 2 {
		t.Fatalf("trace matched %d messages, want 2", raw.Match.Matched)
	}
	rules, err := LoadRules(false)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range Analyse(rules, tr) {
		if f.Problem.Name == "Late sender" {
			found = true
			if f.At.Routine != "Sendrecv" || f.At.Line != int(line.Load()) || f.At.Rank != 1 {
				t.Errorf("late sender at rank %d, %s; want rank 1, Sendrecv at line %d", f.At.Rank, f.At.Site(), line.Load())
			}
		}
	}
	if !found {
		t.Error("no late sender found at the Sendrecv")
	}
	if base, _ := PredictGain(tr, nil); math.Abs(base-tr.WallTime()) > 1e-6 {
		t.Errorf("replay of the trace %.6f s, its wall time %.6f s", base, tr.WallTime())
	}
}
