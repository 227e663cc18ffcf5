package gompi

import (
	"errors"
	"unsafe"

	"github.com/gompi/gompi/gompi/internal/backend"
	"github.com/gompi/gompi/gompi/internal/base"
)

// Request is a nonblocking operation in flight, returned by Isend, Irecv and
// friends, or a persistent operation made by SendInit/RecvInit. Complete it
// with Wait or Test (or the Wait*/Test* functions over several); until then
// its buffer belongs to gompi. A Request may be waited on by one goroutine at
// a time.
type Request backend.Request

func (r *Request) be() *backend.Request { return (*backend.Request)(r) }

// beSlice views a []*Request as the backend's type without copying: the two
// pointer types have the same representation.
func beSlice(rs []*Request) []*backend.Request {
	return unsafe.Slice((**backend.Request)(unsafe.Pointer(unsafe.SliceData(rs))), len(rs))
}

var errNilRequest = base.New("Wait", base.ErrRequest, "the request is nil", "")

// Wait blocks until r completes and returns its status (for a receive: the
// source, tag and byte count). A persistent request becomes inactive, ready
// to Start again.
func (r *Request) Wait() (Status, error) {
	if r == nil {
		return Status{}, errNilRequest
	}
	if b := tracer.Load(); b != nil {
		return b.onRequest(RoutineWait, r, r.be().Wait)
	}
	return r.be().Wait()
}

// Test reports whether r has completed, progressing communication once; if
// it has, it returns the status as Wait would.
func (r *Request) Test() (Status, bool, error) {
	if r == nil {
		return Status{}, false, errNilRequest
	}
	if b := tracer.Load(); b != nil {
		var done bool
		st, err := b.onRequest(RoutineTest, r, func() (st Status, err error) {
			st, done, err = r.be().Test()
			return
		})
		return st, done, err
	}
	return r.be().Test()
}

// Cancel takes back a receive that has not matched yet; Wait then returns a
// status with Cancelled set. A receive that already matched completes
// normally. Sends cannot be cancelled (ErrNotSupported).
func (r *Request) Cancel() error {
	if r == nil {
		return errNilRequest
	}
	if b := tracer.Load(); b != nil {
		_, err := b.onRequest(RoutineCancel, r, func() (Status, error) { return Status{}, r.be().Cancel() })
		return err
	}
	return r.be().Cancel()
}

// Start runs a persistent request (made by SendInit or RecvInit) once; Wait
// or Test completes the run.
func (r *Request) Start() error {
	if r == nil {
		return errNilRequest
	}
	if b := tracer.Load(); b != nil {
		_, err := b.onRequest(RoutineStart, r, func() (Status, error) { return base.EmptyStatus, r.be().Start() })
		return err
	}
	return r.be().Start()
}

// Done reports whether r has completed, without progressing anything.
func (r *Request) Done() bool { return r != nil && r.be().Done() }

// Waitall waits for every request. Completed non-persistent requests are set
// to nil in reqs (as MPI sets them to MPI_REQUEST_NULL); nil entries are
// skipped. If statuses is not nil it receives each request's status. The
// error joins a *RequestError for each request that failed, which says its
// index and wraps its error (MPI_ERR_IN_STATUS): errors.Is finds the
// classes of all, errors.As the first *RequestError (or use
// RequestErrors).
func Waitall(reqs []*Request, statuses []Status) error {
	if b := tracer.Load(); b != nil {
		_, err := b.overRequests(RoutineWaitall, func() (Status, error) { return base.EmptyStatus, waitall(reqs, statuses) })
		return err
	}
	return waitall(reqs, statuses)
}

func waitall(reqs []*Request, statuses []Status) error {
	if statuses != nil && len(statuses) < len(reqs) {
		return base.New("Waitall", base.ErrArg, "statuses is shorter than reqs", "pass nil or a slice as long as reqs")
	}
	var errs []error
	for i, r := range reqs {
		if r == nil {
			if statuses != nil {
				statuses[i] = base.EmptyStatus
			}
			continue
		}
		st, err := r.Wait()
		if err != nil {
			errs = append(errs, &RequestError{Index: i, Err: err})
		}
		if statuses != nil {
			statuses[i] = st
		}
		if !r.be().Persistent() {
			reqs[i] = nil
		}
	}
	return errors.Join(errs...)
}

// Waitany waits until one of reqs completes and returns its index and
// status; that entry is set to nil unless it is persistent. nil entries and
// inactive persistent requests are skipped; if there are none, the index is
// Undefined.
func Waitany(reqs []*Request) (int, Status, error) {
	if b := tracer.Load(); b != nil {
		var i int
		st, err := b.overRequests(RoutineWaitany, func() (st Status, err error) {
			i, st, err = waitany(reqs)
			return
		})
		return i, st, err
	}
	return waitany(reqs)
}

func waitany(reqs []*Request) (int, Status, error) {
	var p *backend.Proc
	for _, r := range reqs {
		if r != nil {
			p = r.be().Proc()
			break
		}
	}
	if p == nil {
		return Undefined, base.EmptyStatus, nil
	}
	i, err := p.WaitAny(beSlice(reqs))
	if err != nil {
		return Undefined, Status{}, err
	}
	if i < 0 {
		return Undefined, base.EmptyStatus, nil
	}
	st, err := reqs[i].Wait()
	if !reqs[i].be().Persistent() {
		reqs[i] = nil
	}
	return i, st, err
}

// Waitsome waits until at least one of reqs completes and returns the
// indices of all that have, with their statuses; those entries are set to
// nil unless persistent. With nothing left to wait for it returns no indices.
// Errors are *RequestError as for Waitall.
func Waitsome(reqs []*Request) ([]int, []Status, error) {
	if b := tracer.Load(); b != nil {
		var idx []int
		var sts []Status
		_, err := b.overRequests(RoutineWaitsome, func() (Status, error) {
			var err error
			idx, sts, err = waitsome(reqs)
			return base.EmptyStatus, err
		})
		return idx, sts, err
	}
	return waitsome(reqs)
}

func waitsome(reqs []*Request) ([]int, []Status, error) {
	i, st, err := waitany(reqs)
	if i == Undefined {
		return nil, nil, err
	}
	idx, sts := []int{i}, []Status{st}
	var errs []error
	if err != nil {
		errs = append(errs, &RequestError{Index: i, Err: err})
	}
	for j, r := range reqs {
		if r != nil && r.be().Done() && (!r.be().Persistent() || r.be().Active()) {
			st, err := r.Wait()
			if err != nil {
				errs = append(errs, &RequestError{Index: j, Err: err})
			}
			idx, sts = append(idx, j), append(sts, st)
			if !r.be().Persistent() {
				reqs[j] = nil
			}
		}
	}
	return idx, sts, errors.Join(errs...)
}

// Testall reports whether every request has completed (progressing once);
// only if so are they completed as by Waitall.
func Testall(reqs []*Request, statuses []Status) (bool, error) {
	if b := tracer.Load(); b != nil {
		var done bool
		_, err := b.overRequests(RoutineTestall, func() (st Status, err error) {
			done, err = testall(reqs, statuses)
			return base.EmptyStatus, err
		})
		return done, err
	}
	return testall(reqs, statuses)
}

func testall(reqs []*Request, statuses []Status) (bool, error) {
	for _, r := range reqs {
		if r != nil && (!r.be().Persistent() || r.be().Active()) {
			if _, done, _ := r.peek(); !done {
				return false, nil
			}
		}
	}
	return true, waitall(reqs, statuses)
}

// Testany completes one completed request if there is one and returns its
// index (Undefined if none has completed).
func Testany(reqs []*Request) (int, Status, bool, error) {
	if b := tracer.Load(); b != nil {
		var i int
		var done bool
		st, err := b.overRequests(RoutineTestany, func() (st Status, err error) {
			i, st, done, err = testany(reqs)
			return
		})
		return i, st, done, err
	}
	return testany(reqs)
}

func testany(reqs []*Request) (int, Status, bool, error) {
	live := false
	for i, r := range reqs {
		if r == nil || (r.be().Persistent() && !r.be().Active()) {
			continue
		}
		live = true
		if _, done, _ := r.peek(); done {
			st, err := r.Wait()
			if !r.be().Persistent() {
				reqs[i] = nil
			}
			return i, st, true, err
		}
	}
	return Undefined, base.EmptyStatus, !live, nil
}

// peek progresses once and reports whether r is done, without completing a
// persistent request's run.
func (r *Request) peek() (Status, bool, error) {
	if r.be().Done() {
		return Status{}, true, nil
	}
	r.be().Proc().Progress()
	return Status{}, r.be().Done(), nil
}

// Startall starts every persistent request in reqs.
func Startall(reqs []*Request) error {
	if b := tracer.Load(); b != nil {
		_, err := b.overRequests(RoutineStartall, func() (Status, error) { return base.EmptyStatus, startall(reqs) })
		return err
	}
	return startall(reqs)
}

func startall(reqs []*Request) error {
	var errs []error
	for i, r := range reqs {
		if err := r.Start(); err != nil {
			errs = append(errs, &RequestError{Index: i, Err: err})
		}
	}
	return errors.Join(errs...)
}
