package trace

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
)

// Streamed export: a trace of any length is exported holding only what is
// in flight, not its events. OpenStream reads every rank's file twice:
//
//   - scan, one rank after the other: checks every record, finds the time
//     origin, counts the completed sends and receives of every
//     (communicator, source, destination, tag) queue, and notes the few
//     operations that never complete;
//   - match, all ranks at once, merged by time: pairs the n-th send of each
//     queue with its n-th receive and runs the clock repair over the pairs
//     (repairClocks), keeping the repair's steps and the few facts the
//     writers need (sends nobody received, receives of no send, messages
//     whose received size differs from the sent one).
//
// Each writer (Stream.WritePerfetto, Stream.WriteOTF2) then reads every
// rank once more and writes it as it goes. Every rank's records pass
// through a window of startWindow records that puts them in the order the
// calls began (the file has them in the order they returned); a rank whose
// calls are further out of order than that gives ErrUnordered, and ReadDir
// with the in-memory writers exports it instead.
//
// The output is the in-memory writers' (ReadDir, then WritePerfetto or
// WriteOTF2) but for order: the OTF2 archive is the same byte for byte
// (but the anchor's random id); the Perfetto JSON has the same events, with
// slices in the order calls began and flow arrows numbered by queue.

// ErrUnordered is returned by OpenStream when a rank's file has calls too
// far out of the order they began in for the streamed reader.
var ErrUnordered = errors.New("calls too far out of order for the streamed reader (export with the in-memory reader)")

// startWindow is the number of records per rank the streamed reader holds to
// put them in the order the calls began.
const startWindow = 1024

// Stream is a trace directory read for a streamed export.
type Stream struct {
	t      *Trace // manifest, ranks (no events), communicators, dropped
	clocks []RankClock
	origin float64
	moves  []shifts
	rep    ClockReport
	match  MatchStats
	events int
	used   commUse
	queues map[msgKey]*queue
	// By rank, the few events the writers must treat apart, by index.
	early     []map[int]p2pOp // the event posted an operation in flight for long: its resolution (opTracker.early)
	noMsgPost []map[int]bool  // the event posted a send that is no matched message
	noMsgDone []map[int]bool  // the event completed a receive that is no matched message
	sentAs    []map[int]int64 // the event posted a send whose receiver got this many bytes, not the sent count
	// held is the most operations and message ends one rank held at once
	// while matching (what bounds memory, besides the windows).
	held int
}

// queue counts a message queue's completed operations.
type queue struct {
	idx          uint64 // the queue's number, for message ids
	sends, recvs uint64 // completed, in the whole trace
	sent, recvd  uint64 // seen so far in the current pass
}

// maxQueues bounds the number of message queues, so that a message's id
// (queue number and rank in its queue) stays an exact JSON number.
const maxQueues = 1 << 20

// OpenStream reads the trace directory dir for a streamed export: it
// checks every file, matches the messages and repairs the clocks (see
// above), holding per rank a window of records and the operations in
// flight.
func OpenStream(dir string) (*Stream, error) {
	t, err := readRanks(dir, Skim)
	if err != nil {
		return nil, err
	}
	n := len(t.Ranks)
	s := &Stream{t: t, clocks: make([]RankClock, n), used: newCommUse(), queues: map[msgKey]*queue{},
		early: make([]map[int]p2pOp, n), noMsgPost: make([]map[int]bool, n), noMsgDone: make([]map[int]bool, n),
		sentAs: make([]map[int]int64, n)}
	s.rep.Ranks = s.clocks
	for r, rt := range t.Ranks {
		c := fitClock(r, rt.Clock)
		s.clocks[r] = c
		if r > 0 && c.NoDrift {
			s.rep.NoDrift++
		}
		s.rep.MaxErr = math.Max(s.rep.MaxErr, c.Err*1e-9)
		s.events += rt.events
		s.early[r], s.noMsgPost[r], s.noMsgDone[r], s.sentAs[r] = map[int]p2pOp{}, map[int]bool{}, map[int]bool{}, map[int]int64{}
	}
	s.origin = math.Inf(1)
	for r := range t.Ranks {
		if err := s.scan(r); err != nil {
			return nil, err
		}
	}
	if math.IsInf(s.origin, 1) {
		s.origin = 0
	}
	s.rep.Origin = s.origin
	for _, q := range s.queues {
		m := min(q.sends, q.recvs)
		s.match.Sends += int(q.sends)
		s.match.Recvs += int(q.recvs)
		s.match.Matched += int(m)
		s.match.UnmatchedSends += int(q.sends - m)
		s.match.UnmatchedRecvs += int(q.recvs - m)
	}
	if err := s.matchAndRepair(); err != nil {
		return nil, err
	}
	return s, nil
}

// Summary returns what reading found; the clock repair's Moved, MaxShift
// and TotalShift count once a writer has run.
func (s *Stream) Summary() Summary {
	return Summary{Manifest: s.t.Manifest, Ranks: len(s.t.Ranks), Events: s.events, Messages: s.match.Matched,
		Match: s.match, Clock: s.rep, Dropped: s.t.Dropped}
}

// scan is the first pass over rank r.
func (s *Stream) scan(r int) error {
	rt, c := s.t.Ranks[r], s.clocks[r]
	in, err := openStartOrdered(rt)
	if err != nil {
		return err
	}
	defer in.close()
	var k *opTracker
	k = newOpTracker(r, false, func(op *p2pOp) {
		if k.events-op.postAt > longOpen {
			s.early[r][op.post.Index] = p2pOp{state: op.state, peer: op.peer, tag: op.tag, bytes: op.bytes}
		}
		switch op.state {
		case opIncomplete:
			s.match.Incomplete++
		case opComplete:
			q := s.queues[op.key(r)]
			if q == nil {
				q = &queue{idx: uint64(len(s.queues))}
				s.queues[op.key(r)] = q
			}
			if op.send {
				q.sends++
			} else {
				q.recvs++
			}
		}
	})
	last := math.Inf(-1)
	err = in.each(func(i int, e *Event) error {
		// The streamed passes take a rank's calls in the order they began;
		// its clock model must keep that order (a model that does not is
		// not one the reader can use anyway).
		g := c.Global(e.Start)
		if g < last {
			return fmt.Errorf("trace: %s: record %d: %w", rt.Path, i, ErrUnordered)
		}
		last = g
		s.origin = math.Min(s.origin, g)
		s.used.add(r, e.Comm)
		k.event(i, e, rt.opKinds()[e.Routine])
		return nil
	})
	if err != nil {
		return err
	}
	k.finish()
	if len(s.queues) > maxQueues {
		return fmt.Errorf("trace: %s: more than %d message queues (communicator, source, destination, tag): %w", s.t.Dir, maxQueues, ErrUnordered)
	}
	return nil
}

// onAxis sets e's times on the job's axis before the repair (ns).
func (s *Stream) onAxis(r int, e *Event) {
	c := s.clocks[r]
	e.T0, e.T1 = c.Global(e.Start)-s.origin, c.Global(e.End)-s.origin
}

// matched returns the id of a completed operation of rank r and whether it
// is a matched message; it counts the operation in its queue.
func (s *Stream) matched(r int, op *p2pOp) (uint64, bool) {
	q := s.queues[op.key(r)]
	var n uint64
	if op.send {
		n = q.sent
		q.sent++
		if n >= q.recvs {
			return 0, false
		}
	} else {
		n = q.recvd
		q.recvd++
		if n >= q.sends {
			return 0, false
		}
	}
	return q.idx<<32 | n, true
}

func (s *Stream) restartQueues() {
	for _, q := range s.queues {
		q.sent, q.recvd = 0, 0
	}
}

// matchAndRepair is the second pass: every rank at once.
func (s *Stream) matchAndRepair() error {
	s.restartQueues()
	// Each message's two ends meet here (while in flight) to compare the
	// sizes sent and received.
	type end struct {
		send       bool
		rank, post int
		bytes      int64
	}
	ends := map[uint64]end{}
	meet := func(id uint64, x end) {
		y, ok := ends[id]
		if !ok {
			ends[id] = x
			return
		}
		delete(ends, id)
		if x.send {
			x, y = y, x
		}
		if x.bytes != y.bytes { // x the receive, y the send
			s.sentAs[y.rank][y.post] = x.bytes
		}
	}
	srcs := make([]pointSource, len(s.t.Ranks))
	for r := range s.t.Ranks {
		in, err := openStartOrdered(s.t.Ranks[r])
		if err != nil {
			return err
		}
		defer in.close()
		rp := &rankPoints{s: s, r: r, in: in}
		// recvDone takes a matched receive once both emitted and completed.
		recvDone := func(op *p2pOp) {
			if !op.matched {
				s.noMsgDone[r][op.done.Index] = true
				return
			}
			rp.push(point{t: op.doneT1, recv: true, id: op.id})
		}
		rp.k = newOpTracker(r, true, func(op *p2pOp) {
			if op.state != opComplete {
				if op.send {
					s.noMsgPost[r][op.post.Index] = true
				}
				return
			}
			op.id, op.matched = s.matched(r, op)
			switch {
			case op.send && !op.matched:
				s.noMsgPost[r][op.post.Index] = true
			case op.send:
				rp.push(point{t: op.postT0, id: op.id})
				meet(op.id, end{true, r, op.post.Index, op.bytes})
			default:
				if op.matched {
					meet(op.id, end{false, r, 0, op.bytes})
				}
				if op.finished {
					recvDone(op)
				}
			}
		})
		rp.k.late = recvDone
		rp.k.early = s.early[r]
		srcs[r] = rp
	}
	moves, violations, err := repairClocks(srcs)
	if err != nil {
		return err
	}
	s.moves, s.rep.Violations = moves, violations
	return nil
}

// rankPoints gives the repair one rank's message ends in time order, read
// from the file as needed.
type rankPoints struct {
	s      *Stream
	r      int
	in     *startOrdered
	k      *opTracker
	ps     []point // a heap by (t, receives first, seq)
	seq    []int
	next   int
	latest float64 // the start of the last call read
	done   bool
	last   point
	any    bool
}

func (p *rankPoints) less(i, j int) bool {
	a, b := p.ps[i], p.ps[j]
	if a.t != b.t {
		return a.t < b.t
	}
	if a.recv != b.recv {
		return a.recv
	}
	return p.seq[i] < p.seq[j]
}

func (p *rankPoints) swap(i, j int) {
	p.ps[i], p.ps[j] = p.ps[j], p.ps[i]
	p.seq[i], p.seq[j] = p.seq[j], p.seq[i]
}

func (p *rankPoints) push(x point) {
	p.ps, p.seq = append(p.ps, x), append(p.seq, p.next)
	p.next++
	for i := len(p.ps) - 1; i > 0; {
		up := (i - 1) / 2
		if !p.less(i, up) {
			break
		}
		p.swap(i, up)
		i = up
	}
}

func (p *rankPoints) pop() point {
	x := p.ps[0]
	n := len(p.ps) - 1
	p.swap(0, n)
	p.ps, p.seq = p.ps[:n], p.seq[:n]
	for i := 0; ; {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && p.less(c+1, c) {
			c++
		}
		if !p.less(c, i) {
			break
		}
		p.swap(i, c)
		i = c
	}
	return x
}

// ready says whether the earliest point held can go: no call still to be
// read, nor operation still to be resolved, can give an earlier one.
func (p *rankPoints) ready() bool {
	if len(p.ps) == 0 {
		return false
	}
	if p.done {
		return true
	}
	w := p.latest
	if len(p.k.ops) > 0 {
		w = math.Min(w, p.k.ops[0].postT0)
	}
	return p.ps[0].t < w
}

func (p *rankPoints) nextPoint() (point, bool, error) {
	for !p.ready() {
		if p.done {
			return point{}, false, nil
		}
		i, e, ok, err := p.in.next()
		if err != nil {
			return point{}, false, err
		}
		if !ok {
			p.k.finish()
			p.done = true
			continue
		}
		p.s.onAxis(p.r, e)
		p.latest = e.T0
		p.k.event(i, e, p.s.t.Ranks[p.r].opKinds()[e.Routine])
		p.s.held = max(p.s.held, len(p.k.ops)+len(p.ps))
	}
	x := p.pop()
	if p.any && (x.t < p.last.t || x.t == p.last.t && x.recv && !p.last.recv) {
		return point{}, false, fmt.Errorf("trace: %s: message ends out of order: %w", p.s.t.Ranks[p.r].Path, ErrUnordered)
	}
	p.last, p.any = x, true
	return x, true, nil
}

// walk is a writer's pass over rank r: each call in the order calls began,
// on the job's axis after the repair (seconds), after the operation
// tracker has seen it; emit gets the operations as they resolve.
func (s *Stream) walk(r int, emit, late func(op *p2pOp), each func(i int, e *Event, k *opTracker)) error {
	rt := s.t.Ranks[r]
	in, err := openStartOrdered(rt)
	if err != nil {
		return err
	}
	defer in.close()
	k := newOpTracker(r, true, emit)
	k.early, k.late = s.early[r], late
	mv := s.moves[r]
	err = in.each(func(i int, e *Event) error {
		s.onAxis(r, e)
		if len(mv) > 0 {
			t0, t1 := mv.move(e.T0), mv.move(e.T1)
			s.rep.account(e.T0, e.T1, t0, t1)
			e.T0, e.T1 = t0, t1
		}
		e.T0 *= 1e-9
		e.T1 *= 1e-9
		k.event(i, e, rt.opKinds()[e.Routine])
		each(i, e, k)
		return nil
	})
	if err != nil {
		return err
	}
	k.finish()
	return nil
}

// resetReport clears what a writer's pass counts, so that each writer
// reports its own.
func (s *Stream) resetReport() {
	s.rep.Moved, s.rep.MaxShift, s.rep.TotalShift = 0, 0, 0
	s.restartQueues()
}

// WritePerfetto writes the trace as WritePerfetto does, streamed.
func (s *Stream) WritePerfetto(out io.Writer) error {
	s.resetReport()
	w := bufio.NewWriterSize(out, 1<<16)
	pj := newPerfettoJSON(w, s.t)
	var buf []byte
	for r, rt := range s.t.Ranks {
		flowEnd := func(op *p2pOp) {
			if op.matched {
				pj.flowEnd(op.id+1, r, op.doneT0, op.doneT1)
			}
		}
		err := s.walk(r, func(op *p2pOp) {
			if op.state != opComplete {
				return
			}
			op.id, op.matched = s.matched(r, op)
			switch {
			case op.send && op.matched:
				pj.flowStart(op.id+1, r, op.postT0)
			case !op.send && op.finished:
				flowEnd(op)
			}
		}, flowEnd, func(i int, e *Event, k *opTracker) {
			buf = appendSlice(buf[:0], rt, e, pj.pid[r], r)
			pj.event(buf)
		})
		if err != nil {
			return err
		}
	}
	return pj.close()
}

// WriteOTF2 writes the trace as WriteOTF2 does, streamed.
func (s *Stream) WriteOTF2(anchor string) error {
	s.resetReport()
	a, err := newOTF2Archive(anchor, s.t.Manifest, s.t.Ranks, otf2Comms(len(s.t.Ranks), s.used, s.t.Comms))
	if err != nil {
		return err
	}
	type call struct {
		otf2Call
		i int
	}
	var group []call // calls that begin at the same time, in the order of the in-memory writer once sorted
	for r, rt := range s.t.Ranks {
		l, err := createOTF2Location(a.eventFile(r), a.region, a.comms)
		if err != nil {
			return err
		}
		flush := func() {
			sort.Slice(group, func(x, y int) bool {
				a, b := &group[x], &group[y]
				return a.e.T1 > b.e.T1 || a.e.T1 == b.e.T1 && a.i < b.i
			})
			for _, c := range group {
				l.call(c.otf2Call)
			}
			group = group[:0]
		}
		err = s.walk(r, func(*p2pOp) {}, func(*p2pOp) {}, func(i int, e *Event, k *opTracker) {
			if len(group) > 0 && group[0].e.T0 != e.T0 {
				flush()
			}
			c := call{otf2Call{e: *e, name: rt.routine(e.Routine)}, i}
			if k.hasPosted && !s.noMsgPost[r][i] {
				op := &k.posted
				bytes, ok := s.sentAs[r][i]
				if !ok {
					bytes = op.bytes
				}
				cm := a.comms.comm(op.comm)
				c.sends = []otf2Msg{{cm.rank(int(op.peer)), cm.id, uint32(op.tag), uint64(max(bytes, 0))}}
			}
			if k.hasCompleted && !s.noMsgDone[r][i] {
				op := &k.completed
				cm := a.comms.comm(op.comm)
				c.recv = []otf2Msg{{cm.rank(int(op.peer)), cm.id, uint32(op.tag), uint64(max(op.bytes, 0))}}
			}
			group = append(group, c)
		})
		flush()
		count, end, cerr := l.close()
		if err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		if err := a.located(r, count, end); err != nil {
			return err
		}
	}
	return a.finish()
}

// startOrdered yields a rank's records in the order the calls began (ties in
// file order) through a window of startWindow records, kept sorted: a file
// in that order already (one goroutine per rank) costs a comparison per
// record.
type startOrdered struct {
	rr      *recordReader
	q       []indexedEvent // q[head:] sorted by (Start, index)
	head    int
	eof     bool
	last    int64
	started bool
	out     indexedEvent
}

type indexedEvent struct {
	i int
	e Event
}

func openStartOrdered(rt *RankTrace) (*startOrdered, error) {
	rr, err := openRecords(rt)
	if err != nil {
		return nil, err
	}
	return &startOrdered{rr: rr, q: make([]indexedEvent, 0, 2*startWindow)}, nil
}

func (s *startOrdered) close() { s.rr.Close() }

// each calls f with every record in turn, until f returns an error.
func (s *startOrdered) each(f func(i int, e *Event) error) error {
	for {
		i, e, ok, err := s.next()
		if err != nil || !ok {
			return err
		}
		if err := f(i, e); err != nil {
			return err
		}
	}
}

// next returns the next record, valid until the following call.
func (s *startOrdered) next() (int, *Event, bool, error) {
	for !s.eof && len(s.q)-s.head < startWindow {
		if len(s.q) == cap(s.q) {
			s.q = s.q[:copy(s.q, s.q[s.head:])]
			s.head = 0
		}
		s.q = append(s.q, indexedEvent{})
		j := len(s.q) - 1
		i, ok, err := s.rr.read(&s.q[j].e)
		if err != nil {
			return 0, nil, false, err
		}
		if !ok {
			s.q = s.q[:j]
			s.eof = true
			break
		}
		s.q[j].i = i
		for ; j > s.head && s.q[j-1].e.Start > s.q[j].e.Start; j-- {
			s.q[j-1], s.q[j] = s.q[j], s.q[j-1]
		}
	}
	if s.head == len(s.q) {
		return 0, nil, false, nil
	}
	s.out = s.q[s.head]
	s.head++
	if s.started && s.out.e.Start < s.last {
		return 0, nil, false, fmt.Errorf("trace: %s: record %d began %d ns before one already read (more than %d records apart): %w",
			s.rr.rt.Path, s.out.i, s.last-s.out.e.Start, startWindow, ErrUnordered)
	}
	s.last, s.started = s.out.e.Start, true
	return s.out.i, &s.out.e, true, nil
}
