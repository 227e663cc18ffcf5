package gompi

import (
	"sync/atomic"

	"github.com/gompi/gompi/gompi/internal/backend"
	"github.com/gompi/gompi/gompi/internal/base"
)

// Message is a message taken out of matching by Mprobe or Improbe (MPI's
// matched probe): no other receive or probe can see it any more, so the
// goroutine that probed it is the one that receives it, with Recv or Irecv,
// once. Probe then Recv cannot promise that when several goroutines
// receive: another one may take the probed message in between.
type Message struct {
	c    *Comm
	m    *backend.Message // nil for a probe of ProcNull (MPI_MESSAGE_NO_PROC)
	st   Status
	used atomic.Bool
}

// Mprobe blocks until a message from src (or AnySource) with tag (or
// AnyTag) arrives, takes it out of matching and describes it: Status.Count
// is its size, so the caller can size the buffer it receives it into.
func (c *Comm) Mprobe(src, tag int) (*Message, Status, error) {
	if b := tracer.Load(); b != nil {
		m, st, _, err := b.runProbe(RoutineMprobe, c, src, tag, func() (*Message, Status, bool, error) {
			m, st, err := c.mprobe(src, tag)
			return m, st, err == nil, err
		})
		return m, st, err
	}
	return c.mprobe(src, tag)
}

func (c *Comm) mprobe(src, tag int) (*Message, Status, error) {
	if err := c.checkRecv("Mprobe", src, tag); err != nil {
		return nil, Status{}, err
	}
	if src == ProcNull {
		return &Message{c: c, st: procNullStatus}, procNullStatus, nil
	}
	m, st, err := c.c.Mprobe(src, tag)
	if err != nil {
		return nil, st, err
	}
	return &Message{c: c, m: m, st: st}, st, nil
}

// Improbe is Mprobe that does not wait: ok reports whether a message was
// there (and is now the caller's).
func (c *Comm) Improbe(src, tag int) (msg *Message, st Status, ok bool, err error) {
	if b := tracer.Load(); b != nil {
		return b.runProbe(RoutineImprobe, c, src, tag, func() (*Message, Status, bool, error) { return c.improbe(src, tag) })
	}
	return c.improbe(src, tag)
}

func (c *Comm) improbe(src, tag int) (msg *Message, st Status, ok bool, err error) {
	if err := c.checkRecv("Improbe", src, tag); err != nil {
		return nil, Status{}, false, err
	}
	if src == ProcNull {
		return &Message{c: c, st: procNullStatus}, procNullStatus, true, nil
	}
	m, st, ok, err := c.c.Improbe(src, tag)
	if err != nil || !ok {
		return nil, st, false, err
	}
	return &Message{c: c, m: m, st: st}, st, true, nil
}

// request is the request that receives m, whose address names m in traces;
// nil for a message of ProcNull.
func (m *Message) request() *Request {
	if m == nil || m.m == nil {
		return nil
	}
	return (*Request)(m.m.Request())
}

// Status describes the message as the probe found it.
func (m *Message) Status() Status { return m.st }

// take checks that m can still be received.
func (m *Message) take(op string) error {
	if m == nil {
		return base.New(op, base.ErrRequest, "the message is nil", "receive a message returned by Mprobe or Improbe")
	}
	if m.used.Swap(true) {
		return m.c.errf(op, base.ErrRequest, m.st.Source, m.st.Tag, "the message was already received", "a probed message is received once")
	}
	return m.c.valid(op)
}

// Recv receives the message into buf (MPI_Mrecv). A message longer than
// buf fills buf and returns ErrTruncate, as Recv does.
func (m *Message) Recv(buf []byte) (Status, error) {
	if b := tracer.Load(); b != nil && m != nil {
		return b.runStatusReq(RoutineMrecv, m.c, m.request(), len(buf), func() (Status, error) { return m.recv(buf) })
	}
	return m.recv(buf)
}

func (m *Message) recv(buf []byte) (Status, error) {
	if err := m.take("Mrecv"); err != nil {
		return Status{}, err
	}
	if m.m == nil {
		return procNullStatus, nil
	}
	return m.m.Recv(buf)
}

// Irecv starts the receive of the message into buf (MPI_Imrecv); buf
// belongs to gompi until the request completes.
func (m *Message) Irecv(buf []byte) (*Request, error) {
	if b := tracer.Load(); b != nil && m != nil {
		return b.runReq(RoutineImrecv, m.c, -1, -1, len(buf), func() (*Request, error) { return m.irecv(buf) })
	}
	return m.irecv(buf)
}

func (m *Message) irecv(buf []byte) (*Request, error) {
	if err := m.take("Imrecv"); err != nil {
		return nil, err
	}
	if m.m == nil {
		return (*Request)(backend.NewDone(m.c.c, procNullStatus, false)), nil
	}
	return (*Request)(m.m.Irecv(buf)), nil
}

// Mrecv receives the message m into the elements of buf (see Message.Recv).
func Mrecv[T any](m *Message, buf []T) (Status, error) {
	b, err := asBytes("Mrecv", buf)
	if err != nil {
		return Status{}, err
	}
	return m.Recv(b)
}

// Imrecv starts the receive of the message m into the elements of buf (see
// Message.Irecv).
func Imrecv[T any](m *Message, buf []T) (*Request, error) {
	b, err := asBytes("Imrecv", buf)
	if err != nil {
		return nil, err
	}
	return m.Irecv(b)
}
