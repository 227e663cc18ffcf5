// Package match is MPI's matching of messages to receives, and nothing else:
// no I/O, no goroutines, no environment, no locks. The engine (package core)
// feeds it events — a receive is posted, a message arrives, a receive is
// cancelled, a probe looks, a peer is lost — under its own lock, and acts on
// what each event returns: deliver this message to that receive, keep the
// message as unexpected, fail these receives. The same events, read from a
// script, drive the golden tests in testdata/ and the fuzz test, which checks
// them against a plain reference model of the MPI rules.
//
// The rules (MPI 4.1 §3.5, §3.8, §9.4 on process failure):
//   - A receive matches a message on (context, source, tag); its source may
//     be AnySource and its tag AnyTag. Messages carry concrete values.
//   - A posted receive first takes the oldest unexpected message it matches;
//     an arriving message goes to the oldest posted receive that matches it.
//     So messages from one sender on one context are received in the order
//     they were sent (non-overtaking), and receives are served in the order
//     they were posted.
//   - A message longer than the receive's buffer truncates (Fit).
//   - When a peer is lost, every posted receive naming it fails, and so does
//     an AnySource receive once every other member of its group is lost.
//     Messages that arrived from a peer before it was lost stay receivable.
//
// Receives and messages are linked intrusively: the engine embeds a Recv in
// its request and a Msg in its unexpected message, so matching allocates
// nothing. Owner points back at the embedding value.
package match

// Wildcards a receive may use; the values are the API's (base.AnySource,
// base.AnyTag), checked by the engine at compile time.
const (
	AnySource = -1
	AnyTag    = -1
)

// Key is what matching looks at: the communicator's context, the source
// (world rank) and the tag.
type Key struct {
	Ctx uint32
	Src int32
	Tag int32
}

// matches reports whether a receive with key r takes a message with key m.
func (r Key) matches(m Key) bool {
	return r.Ctx == m.Ctx && (r.Src == m.Src || r.Src == AnySource) && (r.Tag == m.Tag || r.Tag == AnyTag)
}

// Group is the set of world ranks a receive's communicator spans, and the
// receiving rank's own: what decides when an AnySource receive can no longer
// be satisfied. The engine keeps one per communicator.
type Group struct {
	Self    int32
	Members []int32
}

// Recv is a posted receive. Key.Src may be AnySource and Key.Tag AnyTag.
type Recv[R any] struct {
	Key
	Group *Group // for AnySource receives; nil: never failed by the AnySource rule
	Owner R      // the engine's request
	next  *Recv[R]
}

// Msg is an unexpected message: arrived, not yet matched.
type Msg[M any] struct {
	Key
	Size  int64 // bytes of the whole message
	Owner M     // the engine's message
	next  *Msg[M]
}

// PostResult is what became of a posted receive.
type PostResult uint8

const (
	Posted  PostResult = iota // waits in the posted queue for a message
	Matched                   // took an unexpected message: deliver it
	Lost                      // its peer is lost and nothing matched: fail it
)

func (r PostResult) String() string {
	switch r {
	case Posted:
		return "posted"
	case Matched:
		return "matched"
	default:
		return "lost"
	}
}

// Queues holds one rank's posted receives and unexpected messages, and the
// peers it knows to be lost. The zero value is ready to use. It is not safe
// for concurrent use: the engine calls it under its lock.
type Queues[R, M any] struct {
	postHead, postTail *Recv[R]
	unexHead, unexTail *Msg[M]
	lost               []bool // by world rank
}

// Post posts the receive r: it takes the oldest unexpected message r
// matches (Matched, and the message), or fails at once if r names a lost
// peer (Lost), or queues r behind the receives posted before it (Posted).
func (q *Queues[R, M]) Post(r *Recv[R]) (*Msg[M], PostResult) {
	if m := q.take(r.Key); m != nil {
		return m, Matched
	}
	if q.hopeless(r) {
		return nil, Lost
	}
	r.next = nil
	if q.postTail == nil {
		q.postHead = r
	} else {
		q.postTail.next = r
	}
	q.postTail = r
	return nil, Posted
}

// Arrive handles the arrival of a message with key k (a concrete source and
// tag): it takes and returns the oldest posted receive that matches it. If
// none does, it returns nil and the caller must Keep the message before the
// next event, so that arrival order is kept.
func (q *Queues[R, M]) Arrive(k Key) *Recv[R] {
	var prev *Recv[R]
	for r := q.postHead; r != nil; prev, r = r, r.next {
		if r.matches(k) {
			q.unlinkRecv(prev, r)
			return r
		}
	}
	return nil
}

// Keep queues m as unexpected, behind the messages that arrived before it.
func (q *Queues[R, M]) Keep(m *Msg[M]) {
	m.next = nil
	if q.unexTail == nil {
		q.unexHead = m
	} else {
		q.unexTail.next = m
	}
	q.unexTail = m
}

// Probe returns the unexpected message a receive with key k would take,
// leaving it queued (MPI_Probe, MPI_Iprobe); nil if none.
func (q *Queues[R, M]) Probe(k Key) *Msg[M] {
	for m := q.unexHead; m != nil; m = m.next {
		if k.matches(m.Key) {
			return m
		}
	}
	return nil
}

// Take removes and returns the unexpected message a receive with key k
// would take (a matched probe: MPI_Mprobe, MPI_Improbe); nil if none.
// No later receive or probe can see it.
func (q *Queues[R, M]) Take(k Key) *Msg[M] { return q.take(k) }

func (q *Queues[R, M]) take(k Key) *Msg[M] {
	var prev *Msg[M]
	for m := q.unexHead; m != nil; prev, m = m, m.next {
		if k.matches(m.Key) {
			if prev == nil {
				q.unexHead = m.next
			} else {
				prev.next = m.next
			}
			if q.unexTail == m {
				q.unexTail = prev
			}
			m.next = nil
			return m
		}
	}
	return nil
}

// Cancel takes r out of the posted queue and reports whether it was there:
// false once a message has matched it (MPI_Cancel then does nothing).
func (q *Queues[R, M]) Cancel(r *Recv[R]) bool {
	var prev *Recv[R]
	for x := q.postHead; x != nil; prev, x = x, x.next {
		if x == r {
			q.unlinkRecv(prev, x)
			return true
		}
	}
	return false
}

// PeerLost records that world rank w is lost, and removes from the posted
// queue, appending them to failed, the receives that can no longer be
// satisfied: those naming w, and AnySource receives whose group has no
// other member left. Unexpected messages from w stay receivable.
func (q *Queues[R, M]) PeerLost(w int32, failed []*Recv[R]) []*Recv[R] {
	if w < 0 {
		return failed
	}
	for int(w) >= len(q.lost) {
		q.lost = append(q.lost, false)
	}
	q.lost[w] = true
	var prev *Recv[R]
	for r := q.postHead; r != nil; {
		next := r.next
		if q.hopeless(r) {
			q.unlinkRecv(prev, r)
			failed = append(failed, r)
		} else {
			prev = r
		}
		r = next
	}
	return failed
}

// IsLost reports whether PeerLost has recorded w.
func (q *Queues[R, M]) IsLost(w int32) bool { return w >= 0 && int(w) < len(q.lost) && q.lost[w] }

// hopeless reports whether no message can ever reach r any more: its peer
// is lost or, for AnySource, every member of its group but itself is.
func (q *Queues[R, M]) hopeless(r *Recv[R]) bool {
	if len(q.lost) == 0 {
		return false
	}
	if r.Src != AnySource {
		return q.IsLost(r.Src)
	}
	if r.Group == nil {
		return false
	}
	others := false
	for _, w := range r.Group.Members {
		if w == r.Group.Self {
			continue
		}
		if !q.IsLost(w) {
			return false
		}
		others = true
	}
	return others
}

// EachPosted calls f for every posted receive, oldest first (for diagnostics and
// tests).
func (q *Queues[R, M]) EachPosted(f func(*Recv[R])) {
	for r := q.postHead; r != nil; r = r.next {
		f(r)
	}
}

// EachUnexpected calls f for every unexpected message, oldest first.
func (q *Queues[R, M]) EachUnexpected(f func(*Msg[M])) {
	for m := q.unexHead; m != nil; m = m.next {
		f(m)
	}
}

func (q *Queues[R, M]) unlinkRecv(prev, r *Recv[R]) {
	if prev == nil {
		q.postHead = r.next
	} else {
		prev.next = r.next
	}
	if q.postTail == r {
		q.postTail = prev
	}
	r.next = nil
}

// Fit decides what a receive with a buffer of capacity bytes gets of a
// message of size bytes: count bytes are copied, and truncated says the
// message did not fit (the receive then fails with MPI_ERR_TRUNCATE, having
// received the first count bytes).
func Fit(capacity int, size int64) (count int, truncated bool) {
	if size > int64(capacity) {
		return capacity, true
	}
	return int(size), false
}

// NoneBefore reports whether a receive with key k, posted now, would wait
// behind nothing: no receive is posted at all, and no unexpected message
// matches k. The next message to arrive that k matches would then go to
// that receive, so a caller may hand it over without posting (the blocking
// receive's fast path over a fast box).
func (q *Queues[R, M]) NoneBefore(k Key) bool {
	return q.postHead == nil && q.Probe(k) == nil
}
