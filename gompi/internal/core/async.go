package core

import "github.com/gompi/gompi/gompi/internal/base"

// CollRequest is a Request as the collective algorithms see it: Wait returns
// the byte count. Converting between the two pointer types costs nothing.
type CollRequest Request

// Wait waits for the request and returns the bytes it received. It is
// called once per request, after which the request goes back to its pool.
func (r *CollRequest) Wait() (int, error) {
	st, err := (*Request)(r).Wait()
	putReq((*Request)(r))
	return st.Count, err
}

// Go runs fn on a goroutine of its own and returns a request that completes,
// with fn's error, when fn returns: how nonblocking collectives run their
// blocking algorithm while the caller goes on. fn makes its own progress (it
// waits inside), so the request is not counted as pending.
func (c *Comm) Go(fn func() error) *Request {
	p := c.p
	r := &Request{p: p, comm: c, peer: base.ProcNull, bg: make(chan struct{})}
	p.bg.Add(1)
	go func() {
		defer p.bg.Done()
		err := fn()
		p.mu.Lock()
		r.err = err
		r.st = base.EmptyStatus
		p.complete(r)
		p.mu.Unlock()
		close(r.bg)
		p.ringSelf()
	}()
	return r
}
