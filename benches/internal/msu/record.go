package msu

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gompi/gompi/gompi"
)

// deadline bounds a test's run: a procedure whose messages do not match
// fails with gompi.ErrTimeout rather than hanging (the runs here take milliseconds).
const deadline = 10 * time.Second

// Record runs fn on n ranks in this process (gompi.Run), each over a
// Recorder, and returns every rank's calls. A run that takes longer than
// ten seconds fails.
func Record(n int, fn func(c Comm) error) ([][]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	calls := make([][]string, n)
	err := gompi.RunContext(ctx, n, func(c *gompi.Comm) error {
		rec := &Recorder{Comm: Gompi(c)}
		err := fn(rec)
		calls[c.Rank()] = rec.Calls
		return err
	})
	return calls, err
}

// A Recorder is a Comm that passes every call on to another and writes it
// down, in the order of the calls, as a line:
//
//	Send(to 1, 64 B)          Recv(from 1, 64 B)       Sendrecv(to 1 from 1, 64 B)
//	Isend(to 2, 64 B)         Irecv(from 2, 64 B)      SendInit(to 1, 64 B)
//	Waitany: Irecv(from 2, 64 B)                       Waitall: Isend(to 1, 64 B), Irecv(from 1, 64 B)
//	Startall: RecvInit(from 1, 64 B), SendInit(to 1, 64 B)
//	Barrier                   Bcast(root 0, 8 B)       AllreduceSum(1)
//
// Requests are named by the call that made them. One Recorder records one
// rank; like the Comm it wraps, it is for one goroutine.
type Recorder struct {
	Comm  Comm
	Calls []string
}

// RunMain runs a suite's Main on n ranks in this process (gompi.Run) with
// args, and returns what rank 0 wrote to stdout and stderr and every rank's
// error (other ranks' output is dropped). Like Record, it fails a run that
// takes longer than ten seconds.
func RunMain(n int, main func(*gompi.Comm, []string, IO) error, args ...string) (stdout, stderr string, errs []error) {
	var out, diag bytes.Buffer
	errs = make([]error, n)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	gompi.RunContext(ctx, n, func(c *gompi.Comm) error {
		io := IO{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}
		if c.Rank() == 0 {
			io = IO{Stdout: &out, Stderr: &diag}
		}
		errs[c.Rank()] = main(c, args, io)
		return nil
	})
	return out.String(), diag.String(), errs
}

// recorded is a Request of a Recorder's: the wrapped one and its name.
type recorded struct {
	r    Request
	name string
}

func (r *recorded) Done() bool { return r.r.Done() }

func (rec *Recorder) add(format string, a ...any) {
	rec.Calls = append(rec.Calls, fmt.Sprintf(format, a...))
}

func (rec *Recorder) wrap(r Request, err error, format string, a ...any) (Request, error) {
	name := fmt.Sprintf(format, a...)
	rec.Calls = append(rec.Calls, name)
	if err != nil {
		return nil, err
	}
	return &recorded{r, name}, nil
}

// names lists the names of the requests in rs that are not nil.
func names(rs []Request) string {
	var parts []string
	for _, r := range rs {
		if r != nil {
			parts = append(parts, r.(*recorded).name)
		}
	}
	return strings.Join(parts, ", ")
}

// unwrap returns the wrapped requests of rs.
func unwrap(rs []Request) []Request {
	inner := make([]Request, len(rs))
	for i, r := range rs {
		if r != nil {
			inner[i] = r.(*recorded).r
		}
	}
	return inner
}

func (rec *Recorder) Rank() int { return rec.Comm.Rank() }
func (rec *Recorder) Size() int { return rec.Comm.Size() }

func (rec *Recorder) Send(buf []byte, dest, tag int) error {
	rec.add("Send(to %d, %d B)", dest, len(buf))
	return rec.Comm.Send(buf, dest, tag)
}

func (rec *Recorder) Rsend(buf []byte, dest, tag int) error {
	rec.add("Rsend(to %d, %d B)", dest, len(buf))
	return rec.Comm.Rsend(buf, dest, tag)
}

func (rec *Recorder) Recv(buf []byte, src, tag int) error {
	rec.add("Recv(from %d, %d B)", src, len(buf))
	return rec.Comm.Recv(buf, src, tag)
}

func (rec *Recorder) Sendrecv(sbuf []byte, dest, stag int, rbuf []byte, src, rtag int) error {
	rec.add("Sendrecv(to %d from %d, %d B)", dest, src, len(sbuf))
	return rec.Comm.Sendrecv(sbuf, dest, stag, rbuf, src, rtag)
}

func (rec *Recorder) Isend(buf []byte, dest, tag int) (Request, error) {
	r, err := rec.Comm.Isend(buf, dest, tag)
	return rec.wrap(r, err, "Isend(to %d, %d B)", dest, len(buf))
}

func (rec *Recorder) Irecv(buf []byte, src, tag int) (Request, error) {
	r, err := rec.Comm.Irecv(buf, src, tag)
	return rec.wrap(r, err, "Irecv(from %d, %d B)", src, len(buf))
}

func (rec *Recorder) SendInit(buf []byte, dest, tag int) (Request, error) {
	r, err := rec.Comm.SendInit(buf, dest, tag)
	return rec.wrap(r, err, "SendInit(to %d, %d B)", dest, len(buf))
}

func (rec *Recorder) RecvInit(buf []byte, src, tag int) (Request, error) {
	r, err := rec.Comm.RecvInit(buf, src, tag)
	return rec.wrap(r, err, "RecvInit(from %d, %d B)", src, len(buf))
}

func (rec *Recorder) Iprobe(src, tag int) (bool, error) {
	rec.add("Iprobe(from %d)", src)
	return rec.Comm.Iprobe(src, tag)
}

func (rec *Recorder) Wait(r Request) error {
	rec.add("Wait: %s", r.(*recorded).name)
	return rec.Comm.Wait(r.(*recorded).r)
}

func (rec *Recorder) Waitall(rs []Request) error {
	rec.add("Waitall: %s", names(rs))
	inner := unwrap(rs)
	err := rec.Comm.Waitall(inner)
	for i := range rs {
		if inner[i] == nil {
			rs[i] = nil
		}
	}
	return err
}

// Waitany is written down with the request it completed.
func (rec *Recorder) Waitany(rs []Request) (int, error) {
	inner := unwrap(rs)
	i, err := rec.Comm.Waitany(inner)
	if i >= 0 && i < len(rs) {
		rec.add("Waitany: %s", rs[i].(*recorded).name)
		if inner[i] == nil {
			rs[i] = nil
		}
	} else {
		rec.add("Waitany: none")
	}
	return i, err
}

func (rec *Recorder) Startall(rs []Request) error {
	rec.add("Startall: %s", names(rs))
	return rec.Comm.Startall(unwrap(rs))
}

func (rec *Recorder) Barrier() error {
	rec.add("Barrier")
	return rec.Comm.Barrier()
}

func (rec *Recorder) Bcast(buf []byte, root int) error {
	rec.add("Bcast(root %d, %d B)", root, len(buf))
	return rec.Comm.Bcast(buf, root)
}

func (rec *Recorder) Gather(send, recv []byte, root int) error {
	rec.add("Gather(root %d, %d B)", root, len(send))
	return rec.Comm.Gather(send, recv, root)
}

func (rec *Recorder) AllreduceSum(send, recv []int32) error {
	rec.add("AllreduceSum(%d)", len(send))
	return rec.Comm.AllreduceSum(send, recv)
}

func (rec *Recorder) ReduceSum(send, recv []int32, root int) error {
	rec.add("ReduceSum(root %d, %d)", root, len(send))
	return rec.Comm.ReduceSum(send, recv, root)
}
