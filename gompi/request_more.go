package gompi

import (
	"errors"
	"fmt"

	"github.com/gompi/gompi/gompi/internal/base"
)

// RequestError is the error of one request of Waitall, Waitsome, Testall,
// Testsome or Startall: which request (its index in the slice passed) and
// why. It wraps the request's own error, so errors.Is finds its class.
type RequestError struct {
	Index int
	Err   error
}

func (e *RequestError) Error() string { return fmt.Sprintf("request %d: %v", e.Index, e.Err) }
func (e *RequestError) Unwrap() error { return e.Err }

// RequestErrors returns the per-request errors in err (from Waitall and
// friends), in index order of their discovery; nil if there are none.
func RequestErrors(err error) []*RequestError {
	var out []*RequestError
	var walk func(error)
	walk = func(err error) {
		var re *RequestError
		switch x := err.(type) {
		case nil:
		case interface{ Unwrap() []error }:
			for _, e := range x.Unwrap() {
				walk(e)
			}
		default:
			if errors.As(err, &re) {
				out = append(out, re)
			}
		}
	}
	walk(err)
	return out
}

// Testsome completes every request of reqs that has completed (progressing
// once) and returns their indices and statuses; those entries are set to
// nil unless persistent. With nothing left to test (all nil or inactive) it
// returns no indices; if none has completed yet it returns no indices
// either, and done is false.
func Testsome(reqs []*Request) (idx []int, sts []Status, done bool, err error) {
	if b := tracer.Load(); b != nil {
		_, err = b.overRequests(RoutineTestsome, reqs, func() (Status, error) {
			var err error
			idx, sts, done, err = testsome(reqs)
			return base.EmptyStatus, err
		})
		return idx, sts, done, err
	}
	return testsome(reqs)
}

func testsome(reqs []*Request) (idx []int, sts []Status, done bool, err error) {
	live := false
	var errs []error
	for i, r := range reqs {
		if r == nil || (r.be().Persistent() && !r.be().Active()) {
			continue
		}
		live = true
		if _, ok, _ := r.peek(); !ok {
			continue
		}
		st, err := r.Wait()
		if err != nil {
			errs = append(errs, &RequestError{Index: i, Err: err})
		}
		idx, sts = append(idx, i), append(sts, st)
		if !r.be().Persistent() {
			reqs[i] = nil
		}
	}
	return idx, sts, !live || len(idx) > 0, errors.Join(errs...)
}

// SendrecvReplace sends buf to dest and receives into the same buf from src
// (MPI_Sendrecv_replace): the message sent is buf as it was. The received
// message may be shorter than buf (Status.Count says), not longer
// (ErrTruncate).
func (c *Comm) SendrecvReplace(buf []byte, dest, stag, src, rtag int) (Status, error) {
	f := func() (Status, error) {
		var send []byte
		if dest != ProcNull && len(buf) > 0 {
			send = append([]byte(nil), buf...)
		}
		return c.sendrecv("SendrecvReplace", send, dest, stag, buf, src, rtag)
	}
	if b := tracer.Load(); b != nil {
		return b.runStatus(RoutineSendrecvReplace, c, dest, stag, len(buf), f)
	}
	return f()
}

// SendrecvReplace sends the elements of buf to dest and receives into them
// from src (see Comm.SendrecvReplace).
func SendrecvReplace[T any](c *Comm, buf []T, dest, stag, src, rtag int) (Status, error) {
	b, err := asBytes("SendrecvReplace", buf)
	if err != nil {
		return Status{}, err
	}
	return c.SendrecvReplace(b, dest, stag, src, rtag)
}

// Free releases r (MPI_Request_free): a pending operation still completes
// on its own, but nothing will report it, and r must not be used again. Its
// buffer belongs to gompi until the operation is over, which only the
// program's own protocol can tell (a reply from the receiver, a barrier):
// free a request only when that is so. A persistent request is released
// for good.
func (r *Request) Free() error {
	if r == nil {
		return base.New("Request.Free", base.ErrRequest, "the request is nil", "")
	}
	if b := tracer.Load(); b != nil {
		_, err := b.onRequest(RoutineRequestFree, r, func() (Status, error) { r.be().Free(); return base.EmptyStatus, nil })
		return err
	}
	r.be().Free()
	return nil
}
