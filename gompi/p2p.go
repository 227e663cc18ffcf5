package gompi

import (
	"github.com/gompi/gompi/gompi/internal/backend"
)

// Send sends buf to rank dest with tag and returns when buf may be reused.
// Small messages are copied out at once; a large one waits until the
// receiver has taken it (MPI's standard mode permits both).
func (c *Comm) Send(buf []byte, dest, tag int) error {
	return c.sendMode(RoutineSend, "Send", buf, dest, tag, backend.ModeStandard)
}

// Ssend sends in synchronous mode: it returns only once the matching receive
// has started, whatever the size.
func (c *Comm) Ssend(buf []byte, dest, tag int) error {
	return c.sendMode(RoutineSsend, "Ssend", buf, dest, tag, backend.ModeSync)
}

// Rsend sends in ready mode: the caller asserts that the matching receive is
// already posted (it is a program error otherwise). Here it behaves like Send.
func (c *Comm) Rsend(buf []byte, dest, tag int) error {
	return c.sendMode(RoutineRsend, "Rsend", buf, dest, tag, backend.ModeReady)
}

func (c *Comm) sendMode(op Routine, name string, buf []byte, dest, tag, mode int) error {
	if b := tracer.Load(); b != nil {
		return b.run(op, c, dest, tag, len(buf), func() error { return c.send(name, buf, dest, tag, mode) })
	}
	return c.send(name, buf, dest, tag, mode)
}

func (c *Comm) send(name string, buf []byte, dest, tag, mode int) error {
	if err := c.checkSend(name, dest, tag); err != nil {
		return err
	}
	if dest == ProcNull {
		return nil
	}
	return c.c.Send(buf, dest, tag, mode)
}

// Recv receives a message from rank src (or AnySource) with tag (or AnyTag)
// into buf. A message longer than buf fills buf and returns ErrTruncate;
// later messages are unaffected. Status.Count is the number of bytes stored.
func (c *Comm) Recv(buf []byte, src, tag int) (Status, error) {
	if b := tracer.Load(); b != nil {
		return b.runStatus(RoutineRecv, c, src, tag, len(buf), func() (Status, error) { return c.recv(buf, src, tag) })
	}
	return c.recv(buf, src, tag)
}

func (c *Comm) recv(buf []byte, src, tag int) (Status, error) {
	if err := c.checkRecv("Recv", src, tag); err != nil {
		return Status{}, err
	}
	if src == ProcNull {
		return procNullStatus, nil
	}
	return c.c.Recv(buf, src, tag)
}

// Isend starts a send and returns its request; buf belongs to gompi until
// the request completes.
func (c *Comm) Isend(buf []byte, dest, tag int) (*Request, error) {
	return c.isendMode(RoutineIsend, "Isend", buf, dest, tag, backend.ModeStandard)
}

// Issend starts a synchronous-mode send: the request completes once the
// matching receive has started.
func (c *Comm) Issend(buf []byte, dest, tag int) (*Request, error) {
	return c.isendMode(RoutineIssend, "Issend", buf, dest, tag, backend.ModeSync)
}

// Irsend starts a ready-mode send (see Rsend).
func (c *Comm) Irsend(buf []byte, dest, tag int) (*Request, error) {
	return c.isendMode(RoutineIrsend, "Irsend", buf, dest, tag, backend.ModeReady)
}

func (c *Comm) isendMode(op Routine, name string, buf []byte, dest, tag, mode int) (*Request, error) {
	if b := tracer.Load(); b != nil {
		return b.runReq(op, c, dest, tag, len(buf), func() (*Request, error) { return c.isend(name, buf, dest, tag, mode) })
	}
	return c.isend(name, buf, dest, tag, mode)
}

func (c *Comm) isend(name string, buf []byte, dest, tag, mode int) (*Request, error) {
	if err := c.checkSend(name, dest, tag); err != nil {
		return nil, err
	}
	if dest == ProcNull {
		return (*Request)(backend.NewDone(c.c, procNullStatus, false)), nil
	}
	r, err := c.c.Isend(buf, dest, tag, mode)
	return (*Request)(r), err
}

// Irecv posts a receive and returns its request; buf belongs to gompi until
// the request completes.
func (c *Comm) Irecv(buf []byte, src, tag int) (*Request, error) {
	f := func() (*Request, error) {
		if err := c.checkRecv("Irecv", src, tag); err != nil {
			return nil, err
		}
		if src == ProcNull {
			return (*Request)(backend.NewDone(c.c, procNullStatus, false)), nil
		}
		return (*Request)(c.c.Irecv(buf, src, tag)), nil
	}
	if b := tracer.Load(); b != nil {
		return b.runReq(RoutineIrecv, c, src, tag, len(buf), f)
	}
	return f()
}

// Sendrecv sends sbuf to dest and receives into rbuf from src at the same
// time, so that pairs exchanging with each other cannot deadlock.
func (c *Comm) Sendrecv(sbuf []byte, dest, stag int, rbuf []byte, src, rtag int) (Status, error) {
	if b := tracer.Load(); b != nil {
		return b.runStatus(RoutineSendrecv, c, dest, stag, len(sbuf), func() (Status, error) {
			return c.sendrecv("Sendrecv", sbuf, dest, stag, rbuf, src, rtag)
		})
	}
	return c.sendrecv("Sendrecv", sbuf, dest, stag, rbuf, src, rtag)
}

// sendrecv is Sendrecv (and SendrecvReplace, named op) without the tracer.
func (c *Comm) sendrecv(op string, sbuf []byte, dest, stag int, rbuf []byte, src, rtag int) (Status, error) {
	if err := c.checkSend(op, dest, stag); err != nil {
		return Status{}, err
	}
	if err := c.checkRecv(op, src, rtag); err != nil {
		return Status{}, err
	}
	var rr *backend.Request
	if src != ProcNull {
		rr = c.c.Irecv(rbuf, src, rtag)
	}
	var serr error
	if dest != ProcNull {
		serr = c.c.Send(sbuf, dest, stag, backend.ModeStandard)
	}
	if rr == nil {
		return procNullStatus, serr
	}
	if serr != nil {
		rr.Cancel()
	}
	st, rerr := rr.Wait()
	if serr != nil {
		return st, serr
	}
	return st, rerr
}

// Probe blocks until a message from src (or AnySource) with tag (or AnyTag)
// can be received, and describes it without receiving it: Status.Count is
// the message's size, so the caller can size its buffer.
func (c *Comm) Probe(src, tag int) (Status, error) {
	f := func() (Status, error) {
		if err := c.checkRecv("Probe", src, tag); err != nil {
			return Status{}, err
		}
		if src == ProcNull {
			return procNullStatus, nil
		}
		return c.c.Probe(src, tag)
	}
	if b := tracer.Load(); b != nil {
		return b.runStatus(RoutineProbe, c, src, tag, -1, f)
	}
	return f()
}

// Iprobe reports whether a message from src with tag can be received now,
// and if so describes it.
func (c *Comm) Iprobe(src, tag int) (Status, bool, error) {
	var ok bool
	f := func() (Status, error) {
		if err := c.checkRecv("Iprobe", src, tag); err != nil {
			return Status{}, err
		}
		if src == ProcNull {
			ok = true
			return procNullStatus, nil
		}
		var st Status
		st, ok = c.c.Iprobe(src, tag)
		return st, nil
	}
	if b := tracer.Load(); b != nil {
		st, err := b.runStatus(RoutineIprobe, c, src, tag, -1, f)
		return st, ok, err
	}
	st, err := f()
	return st, ok, err
}

// SendInit makes a persistent send: Start (or Startall) runs it, Wait
// completes each run; the arguments are fixed once. Repeated exchanges with
// the same peer and buffer skip per-call setup this way.
func (c *Comm) SendInit(buf []byte, dest, tag int) (*Request, error) {
	return c.sendInitMode(RoutineSendInit, "SendInit", buf, dest, tag, backend.ModeStandard)
}

// SsendInit makes a persistent synchronous-mode send.
func (c *Comm) SsendInit(buf []byte, dest, tag int) (*Request, error) {
	return c.sendInitMode(RoutineSsendInit, "SsendInit", buf, dest, tag, backend.ModeSync)
}

// RsendInit makes a persistent ready-mode send.
func (c *Comm) RsendInit(buf []byte, dest, tag int) (*Request, error) {
	return c.sendInitMode(RoutineRsendInit, "RsendInit", buf, dest, tag, backend.ModeReady)
}

func (c *Comm) sendInitMode(op Routine, name string, buf []byte, dest, tag, mode int) (*Request, error) {
	if b := tracer.Load(); b != nil {
		return b.runReq(op, c, dest, tag, len(buf), func() (*Request, error) { return c.sendInit(name, buf, dest, tag, mode) })
	}
	return c.sendInit(name, buf, dest, tag, mode)
}

func (c *Comm) sendInit(name string, buf []byte, dest, tag, mode int) (*Request, error) {
	if err := c.checkSend(name, dest, tag); err != nil {
		return nil, err
	}
	if dest == ProcNull {
		return (*Request)(backend.NewDone(c.c, procNullStatus, true)), nil
	}
	return (*Request)(c.c.SendInit(buf, dest, tag, mode)), nil
}

// RecvInit makes a persistent receive (see SendInit).
func (c *Comm) RecvInit(buf []byte, src, tag int) (*Request, error) {
	if b := tracer.Load(); b != nil {
		return b.runReq(RoutineRecvInit, c, src, tag, len(buf), func() (*Request, error) { return c.recvInit(buf, src, tag) })
	}
	return c.recvInit(buf, src, tag)
}

func (c *Comm) recvInit(buf []byte, src, tag int) (*Request, error) {
	if err := c.checkRecv("RecvInit", src, tag); err != nil {
		return nil, err
	}
	if src == ProcNull {
		return (*Request)(backend.NewDone(c.c, procNullStatus, true)), nil
	}
	return (*Request)(c.c.RecvInit(buf, src, tag)), nil
}
