// Package sim runs collective algorithms on simulated ranks: n goroutines
// exchanging messages in memory with MPI's matching rules, optionally
// recording every message with a logical round so that the schedule of an
// algorithm can be printed or drawn.
//
// It exists to test package coll without the runtime and to teach: the
// schedule of a binomial broadcast on 8 ranks shows its 3 rounds.
//
// Semantics: messages match by (source, tag) in the order sent, per pair and
// tag; a message longer than the receive buffer completes the receive with
// ErrTruncate. By default every send is synchronous (it completes only when
// a receive has matched it, like MPI_Ssend), which exposes algorithms that
// rely on buffering; Options.Eager makes sends complete at once instead. When
// every rank that has not returned is blocked waiting, the simulator breaks
// the deadlock: every waiting operation fails with ErrDeadlock, so a faulty
// algorithm returns errors instead of hanging.
package sim

import (
	"bytes"
	"errors"
	"fmt"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gompi/gompi/coll"
)

// Errors of the simulated transport.
var (
	ErrTruncate = errors.New("sim: message longer than the receive buffer")
	ErrDeadlock = errors.New("sim: deadlock: every rank is waiting")
	ErrRank     = errors.New("sim: no such rank")
	ErrTag      = errors.New("sim: tag out of range")
	ErrTimeout  = errors.New("sim: rank did not finish in time")
)

// Options configure a World.
type Options struct {
	// Eager makes sends complete when posted (the payload is copied), as an
	// eager protocol would; by default a send completes only when matched.
	Eager bool
	// Record keeps every message for Schedule.
	Record bool
	// Timeout, if positive, bounds Run in wall-clock time: ranks still
	// running then are reported with ErrTimeout (and their goroutines leak).
	Timeout time.Duration
	// MaxTag is the largest valid tag (0: coll.MaxTag).
	MaxTag int
}

// World is n simulated ranks. Use it for one Run.
type World struct {
	n    int
	opt  Options
	mu   sync.Mutex
	q    map[key]*queue
	rk   []*rankState
	busy int // ranks blocked in Wait
	done int // ranks whose function has returned
	msgs []Message
}

type key struct{ src, dst, tag int }

// queue holds the unmatched sends and receives of one (source, dest, tag).
type queue struct{ sends, recvs []*request }

type rankState struct {
	rank    int
	clock   int // logical clock: rounds of the messages sent and received so far
	seq     int // messages sent so far
	wake    chan struct{}
	waiting *request
}

// New makes a world of n ranks.
func New(n int, opt Options) *World {
	if opt.MaxTag == 0 {
		opt.MaxTag = coll.MaxTag
	}
	w := &World{n: n, opt: opt, q: map[key]*queue{}}
	for r := range n {
		w.rk = append(w.rk, &rankState{rank: r, wake: make(chan struct{}, 1)})
	}
	return w
}

// Run calls f on every rank, each on its own goroutine with its own Comm, and
// returns what each returned (a panic is returned as an error).
func (w *World) Run(f func(c coll.Comm) error) []error {
	type result struct {
		rank int
		err  error
	}
	results := make(chan result, w.n)
	for r := range w.n {
		go func() {
			var err error
			defer func() {
				if p := recover(); p != nil {
					err = fmt.Errorf("rank %d panicked: %v\n%s", r, p, debug.Stack())
				}
				w.finish()
				results <- result{r, err}
			}()
			err = f(&comm{w, w.rk[r]})
		}()
	}
	errs := make([]error, w.n)
	pending := make([]bool, w.n)
	for i := range pending {
		pending[i] = true
	}
	var timeout <-chan time.Time
	if w.opt.Timeout > 0 {
		timeout = time.After(w.opt.Timeout)
	}
	for range w.n {
		select {
		case res := <-results:
			errs[res.rank], pending[res.rank] = res.err, false
		case <-timeout:
			for r, p := range pending {
				if p {
					errs[r] = fmt.Errorf("%w after %v", ErrTimeout, w.opt.Timeout)
				}
			}
			return errs
		}
	}
	return errs
}

// finish marks a rank as returned; the others may now be deadlocked.
func (w *World) finish() {
	w.mu.Lock()
	w.done++
	w.checkDeadlock()
	w.mu.Unlock()
}

// request is a pending send or receive.
type request struct {
	w      *World
	owner  *rankState
	isSend bool
	buf    []byte
	peer   int
	tag    int
	round  int // send: the message's round; receive: the round of the message matched
	done   bool
	merged bool // a receive's round has entered the owner's clock
	n      int
	err    error
}

type comm struct {
	w *World
	r *rankState
}

func (c *comm) Rank() int { return c.r.rank }
func (c *comm) Size() int { return c.w.n }

func (c *comm) check(peer, tag int, what string) error {
	if peer < 0 || peer >= c.w.n {
		return fmt.Errorf("%w: rank %d %s rank %d of %d", ErrRank, c.r.rank, what, peer, c.w.n)
	}
	if tag < 0 || tag > c.w.opt.MaxTag {
		return fmt.Errorf("%w: rank %d %s rank %d with tag %d (valid: 0..%d)", ErrTag, c.r.rank, what, peer, tag, c.w.opt.MaxTag)
	}
	return nil
}

func (c *comm) Isend(buf []byte, dest, tag int) (coll.Request, error) {
	if err := c.check(dest, tag, "sends to"); err != nil {
		return nil, err
	}
	w := c.w
	w.mu.Lock()
	defer w.mu.Unlock()
	c.r.clock++ // a send takes the next step of the sender
	c.r.seq++
	s := &request{w: w, owner: c.r, isSend: true, buf: buf, peer: dest, tag: tag, round: c.r.clock}
	if w.opt.Eager {
		s.buf = bytes.Clone(buf)
		s.done = true
	}
	if w.opt.Record {
		w.msgs = append(w.msgs, Message{Round: s.round, From: c.r.rank, To: dest, Bytes: len(buf), Tag: tag, seq: c.r.seq})
	}
	w.post(s)
	return s, nil
}

func (c *comm) Irecv(buf []byte, source, tag int) (coll.Request, error) {
	if err := c.check(source, tag, "receives from"); err != nil {
		return nil, err
	}
	w := c.w
	w.mu.Lock()
	defer w.mu.Unlock()
	r := &request{w: w, owner: c.r, buf: buf, peer: source, tag: tag}
	w.post(r)
	return r, nil
}

func (c *comm) Send(buf []byte, dest, tag int) error {
	req, err := c.Isend(buf, dest, tag)
	if err != nil {
		return err
	}
	_, err = req.Wait()
	return err
}

func (c *comm) Recv(buf []byte, source, tag int) (int, error) {
	req, err := c.Irecv(buf, source, tag)
	if err != nil {
		return 0, err
	}
	return req.Wait()
}

// key is the (source, destination, tag) that q matches on.
func (q *request) key() key {
	if q.isSend {
		return key{q.owner.rank, q.peer, q.tag}
	}
	return key{q.peer, q.owner.rank, q.tag}
}

// lists returns the queue of q's kind and the queue of the kind q matches.
func (w *World) lists(q *request) (own, other *[]*request) {
	k := q.key()
	qu := w.q[k]
	if qu == nil {
		qu = &queue{}
		w.q[k] = qu
	}
	if q.isSend {
		return &qu.sends, &qu.recvs
	}
	return &qu.recvs, &qu.sends
}

// post matches a new request with the oldest unmatched one of the other kind
// (non-overtaking), or queues it. Called with w.mu held.
func (w *World) post(q *request) {
	own, other := w.lists(q)
	if len(*other) == 0 {
		*own = append(*own, q)
		return
	}
	peer := (*other)[0]
	*other = (*other)[1:]
	if q.isSend {
		w.match(q, peer)
	} else {
		w.match(peer, q)
	}
}

// match delivers send s to receive r. Called with w.mu held.
func (w *World) match(s, r *request) {
	r.n = copy(r.buf, s.buf)
	if len(s.buf) > len(r.buf) {
		r.err = fmt.Errorf("%w: %d bytes from rank %d (tag %d) into %d bytes at rank %d",
			ErrTruncate, len(s.buf), s.owner.rank, s.tag, len(r.buf), r.owner.rank)
	}
	r.round = s.round
	w.complete(r)
	w.complete(s)
}

// complete marks q done and wakes its owner if it waits for it.
func (w *World) complete(q *request) {
	if q.done {
		return
	}
	q.done = true
	if q.owner.waiting == q {
		q.owner.waiting = nil
		w.busy--
		q.owner.wake <- struct{}{}
	}
}

// Wait blocks until the request is complete. Only its owner may call it.
func (q *request) Wait() (int, error) {
	w := q.w
	w.mu.Lock()
	if !q.done {
		q.owner.waiting = q
		w.busy++
		w.checkDeadlock()
		w.mu.Unlock()
		<-q.owner.wake
		w.mu.Lock()
	}
	if !q.isSend && !q.merged && q.err == nil {
		q.owner.clock = max(q.owner.clock, q.round)
		q.merged = true
	}
	n, err := q.n, q.err
	w.mu.Unlock()
	return n, err
}

// checkDeadlock fails every waiting request when no rank can make progress.
// Called with w.mu held.
func (w *World) checkDeadlock() {
	if w.busy == 0 || w.busy+w.done < w.n {
		return
	}
	var waits []string
	for _, rs := range w.rk {
		if q := rs.waiting; q != nil {
			verb := "receive from"
			if q.isSend {
				verb = "send to"
			}
			waits = append(waits, fmt.Sprintf("rank %d waits to %s rank %d (tag %d)", rs.rank, verb, q.peer, q.tag))
		}
	}
	err := fmt.Errorf("%w: %s", ErrDeadlock, strings.Join(waits, "; "))
	for _, rs := range w.rk {
		if q := rs.waiting; q != nil {
			w.unqueue(q)
			q.err = err
			w.complete(q)
		}
	}
}

// unqueue removes an unmatched request from its queue.
func (w *World) unqueue(q *request) {
	list, _ := w.lists(q)
	for i, x := range *list {
		if x == q {
			*list = append((*list)[:i:i], (*list)[i+1:]...)
			return
		}
	}
}

// Message is one recorded message.
type Message struct {
	Round int // logical round: the sender's step, after every message it has received
	From  int
	To    int
	Bytes int
	Tag   int
	seq   int // the sender's message count, to order messages of one round
}

// Schedule is the recorded messages of a run, ordered by round, sender and
// sending order.
func (w *World) Schedule() *Schedule {
	w.mu.Lock()
	msgs := append([]Message(nil), w.msgs...)
	w.mu.Unlock()
	sort.Slice(msgs, func(i, j int) bool {
		a, b := msgs[i], msgs[j]
		if a.Round != b.Round {
			return a.Round < b.Round
		}
		if a.From != b.From {
			return a.From < b.From
		}
		return a.seq < b.seq
	})
	return &Schedule{Ranks: w.n, Messages: msgs}
}
