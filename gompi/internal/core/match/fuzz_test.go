package match

import (
	"fmt"
	"slices"
	"testing"
)

// FuzzQueues drives Queues with random events and checks every outcome
// against model, a deliberately plain statement of the MPI rules over
// slices, and after every event the invariant that no posted receive could
// take an unexpected message (each of the two events that could leave such
// a pair must have matched them). The seed corpus runs under plain go test.
func FuzzQueues(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11})
	f.Add([]byte{1, 0x11, 1, 0x12, 0, 0x30, 0, 0x00, 3, 0x00, 4, 0x00})
	f.Add([]byte{0, 0x05, 0, 0x1f, 5, 0x01, 1, 0x21, 5, 0x02, 5, 0x03, 0, 0xff})
	f.Add([]byte{1, 0x01, 1, 0x01, 1, 0x41, 4, 0x01, 2, 0x00, 0, 0x01, 0, 0x01, 6, 0x00})
	f.Add([]byte{0, 0xff, 0, 0xfe, 2, 0x01, 1, 0x33, 1, 0x23, 5, 0x03, 0, 0x0f, 0, 0x0c})
	f.Fuzz(func(t *testing.T, data []byte) {
		var q Queues[int, int]
		var m model
		g := &Group{Self: 0, Members: []int32{0, 1, 2, 3}}
		var recvs []*Recv[int]
		for i := 0; i+1 < len(data); i += 2 {
			op, arg := data[i]%7, data[i+1]
			// arg: bits 0-2 source (4+ = AnySource for receives), bits 3-4 tag
			// (3 = AnyTag for receives), bit 5 context, bits 6-7 size.
			k := Key{Ctx: uint32(arg >> 5 & 1), Src: int32(arg & 7), Tag: int32(arg >> 3 & 3)}
			var got, want string
			switch op {
			case 0: // post
				if k.Src > 3 {
					k.Src = AnySource
				}
				if k.Tag == 3 {
					k.Tag = AnyTag
				}
				r := &Recv[int]{Key: k, Group: g, Owner: len(recvs)}
				recvs = append(recvs, r)
				msg, res := q.Post(r)
				got = fmt.Sprint(res)
				if msg != nil {
					got += fmt.Sprint(" m", msg.Owner)
				}
				want = m.post(r.Owner, k)
			case 1, 6: // arrive, twice as often as the rest
				k.Src &= 3
				k.Tag %= 3
				name := i
				if r := q.Arrive(k); r != nil {
					got = fmt.Sprint("deliver r", r.Owner)
				} else {
					q.Keep(&Msg[int]{Key: k, Size: int64(arg >> 6), Owner: name})
					got = "unexpected"
				}
				want = m.arrive(name, k)
			case 2: // cancel an earlier receive
				if len(recvs) == 0 {
					continue
				}
				r := recvs[int(arg)%len(recvs)]
				got = fmt.Sprint(q.Cancel(r))
				want = fmt.Sprint(m.cancel(r.Owner))
			case 3, 4: // probe, mprobe
				if k.Src > 3 {
					k.Src = AnySource
				}
				if k.Tag == 3 {
					k.Tag = AnyTag
				}
				var msg *Msg[int]
				if op == 3 {
					msg = q.Probe(k)
				} else {
					msg = q.Take(k)
				}
				got = "none"
				if msg != nil {
					got = fmt.Sprint("m", msg.Owner)
				}
				want = m.probe(k, op == 4)
			case 5: // peer loss
				w := int32(arg&3) + 1 // never the receiving rank itself
				var names []int
				for _, r := range q.PeerLost(w, nil) {
					names = append(names, r.Owner)
				}
				got = fmt.Sprint(names)
				want = fmt.Sprint(m.lose(w))
			}
			if got != want {
				t.Fatalf("event %d (op %d, key %+v): got %s, the model says %s", i/2, op, k, got, want)
			}
			m.check(t, &q)
		}
	})
}

// model states the rules as plainly as possible: slices in order, a scan
// from the front.
type model struct {
	posted []modelRecv
	unexp  []modelMsg
	lost   [5]bool
}

type modelRecv struct {
	name int
	k    Key
}

type modelMsg struct {
	name int
	k    Key
}

func fits(recv, msg Key) bool {
	if recv.Ctx != msg.Ctx {
		return false
	}
	if recv.Src != AnySource && recv.Src != msg.Src {
		return false
	}
	return recv.Tag == AnyTag || recv.Tag == msg.Tag
}

// dead says whether a receive can no longer be satisfied: its peer is
// lost, or it is AnySource and ranks 1 to 3 (all but the receiver, 0) are.
func (m *model) dead(k Key) bool {
	if k.Src == AnySource {
		return m.lost[1] && m.lost[2] && m.lost[3]
	}
	return m.lost[k.Src]
}

func (m *model) post(name int, k Key) string {
	for i, u := range m.unexp {
		if fits(k, u.k) {
			m.unexp = slices.Delete(m.unexp, i, i+1)
			return fmt.Sprint("matched m", u.name)
		}
	}
	if m.dead(k) {
		return "lost"
	}
	m.posted = append(m.posted, modelRecv{name, k})
	return "posted"
}

func (m *model) arrive(name int, k Key) string {
	for i, r := range m.posted {
		if fits(r.k, k) {
			m.posted = slices.Delete(m.posted, i, i+1)
			return fmt.Sprint("deliver r", r.name)
		}
	}
	m.unexp = append(m.unexp, modelMsg{name, k})
	return "unexpected"
}

func (m *model) cancel(name int) bool {
	for i, r := range m.posted {
		if r.name == name {
			m.posted = slices.Delete(m.posted, i, i+1)
			return true
		}
	}
	return false
}

func (m *model) probe(k Key, take bool) string {
	for i, u := range m.unexp {
		if fits(k, u.k) {
			if take {
				m.unexp = slices.Delete(m.unexp, i, i+1)
			}
			return fmt.Sprint("m", u.name)
		}
	}
	return "none"
}

func (m *model) lose(w int32) []int {
	m.lost[w] = true
	var failed []int
	m.posted = slices.DeleteFunc(m.posted, func(r modelRecv) bool {
		if m.dead(r.k) {
			failed = append(failed, r.name)
			return true
		}
		return false
	})
	return failed
}

// check compares the queues with the model's and checks that no posted
// receive matches an unexpected message.
func (m *model) check(t *testing.T, q *Queues[int, int]) {
	t.Helper()
	var posted, unexp []int
	q.EachPosted(func(r *Recv[int]) { posted = append(posted, r.Owner) })
	q.EachUnexpected(func(u *Msg[int]) { unexp = append(unexp, u.Owner) })
	var wantPosted, wantUnexp []int
	for _, r := range m.posted {
		wantPosted = append(wantPosted, r.name)
	}
	for _, u := range m.unexp {
		wantUnexp = append(wantUnexp, u.name)
	}
	if !slices.Equal(posted, wantPosted) || !slices.Equal(unexp, wantUnexp) {
		t.Fatalf("queues: posted %v unexpected %v; the model has posted %v unexpected %v",
			posted, unexp, wantPosted, wantUnexp)
	}
	for _, r := range m.posted {
		for _, u := range m.unexp {
			if fits(r.k, u.k) {
				t.Fatalf("receive r%d and message m%d match each other but both wait", r.name, u.name)
			}
		}
	}
}

// TestFitTruncates pins the truncation decision at its edges.
func TestFitTruncates(t *testing.T) {
	for _, c := range []struct {
		capacity int
		size     int64
		n        int
		trunc    bool
	}{{4, 4, 4, false}, {4, 5, 4, true}, {4, 0, 0, false}, {0, 0, 0, false}, {0, 1, 0, true}, {8, 3, 3, false},
		{1, 1 << 40, 1, true}} {
		n, trunc := Fit(c.capacity, c.size)
		if n != c.n || trunc != c.trunc {
			t.Errorf("Fit(%d, %d) = %d, %v; want %d, %v", c.capacity, c.size, n, trunc, c.n, c.trunc)
		}
	}
}
