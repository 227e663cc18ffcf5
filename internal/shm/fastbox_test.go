package shm

import (
	"bytes"
	"math/rand"
	"sync"
	"testing"
)

// TestBoxStream pushes records of random sizes through one box from a
// producer goroutine to a consumer goroutine, with payloads full of values
// that look like stamps, and checks every record arrives once, whole and
// in order.
func TestBoxStream(t *testing.T) {
	_, w, r := newTestBox(t)
	const records = 200000
	sizes := make([]int, records)
	rng := rand.New(rand.NewSource(1))
	for i := range sizes {
		sizes[i] = rng.Intn(BoxInlineRoomMax + 1)
	}
	payload := func(i int) []byte {
		b := make([]byte, sizes[i])
		for j := 0; j+4 <= len(b); j += 4 {
			// Little-endian small integers: plausible stamps, if the reader
			// ever looked at payload as a header.
			v := uint32(i + j/4 + 1)
			b[j], b[j+1], b[j+2], b[j+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
		}
		return b
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < records; i++ {
			p := payload(i)
			for !w.Write(BoxInline, int32(i), uint32(i*3), int64(i), p) {
			}
		}
	}()
	for i := 0; i < records; i++ {
		var h *BoxRecord
		var p []byte
		for h == nil {
			h, p = r.Next()
		}
		if h.Kind != BoxInline || h.Tag != int32(i) || h.Ctx != uint32(i*3) || h.CellOff != int64(i) ||
			!bytes.Equal(p, payload(i)) {
			t.Fatalf("record %d arrived wrong: kind %d tag %d len %d", i, h.Kind, h.Tag, len(p))
		}
		r.Done(h)
	}
	wg.Wait()
	if h, _ := r.Next(); h != nil {
		t.Fatal("a record arrived after the last one")
	}
}

func TestFIFOManyProducers(t *testing.T) {
	const producers, each = 4, 20000
	l, _ := NewLayout(producers+1, 64)
	s, err := NewPrivate(l)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var wg sync.WaitGroup
	for p := 0; p < producers; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cells := s.Cells(p + 1)
			for i := 0; i < each; i++ {
				c := cells[i%len(cells)]
				// Wait until the consumer handed this cell back (Kind reset).
				for i >= len(cells) && atomicLoadKind(s, c) != 0 {
				}
				cl := s.CellAt(c)
				cl.Src, cl.Tag = int32(p+1), int32(i)
				storeKind(s, c, 1)
				s.Push(producers, c)
			}
		}()
	}
	next := make([]int32, producers+1)
	for got := 0; got < producers*each; {
		off := s.Pop(producers)
		if off == 0 {
			continue
		}
		c := s.CellAt(off)
		if c.Tag != next[c.Src] {
			t.Fatalf("from %d got %d, want %d", c.Src, c.Tag, next[c.Src])
		}
		next[c.Src]++
		storeKind(s, off, 0)
		got++
	}
	wg.Wait()
}

// lockStep writes each record and reads it at once, then checks that the
// reader sees nothing more: the line after the last record must not pass
// for a record, whatever an earlier lap left in it.
func lockStep(t *testing.T, w *BoxWriter, r *BoxReader, what string, payloads [][]byte) {
	t.Helper()
	for i, p := range payloads {
		if !w.Write(BoxInline, int32(i), 0, 0, p) {
			t.Fatalf("%s: record %d: the box is full although the reader keeps up", what, i)
		}
		h, got := r.Next()
		if h == nil || h.Tag != int32(i) || !bytes.Equal(got, p) {
			t.Fatalf("%s: record %d did not arrive whole", what, i)
		}
		r.Done(h)
		if h, _ := r.Next(); h != nil {
			t.Fatalf("%s: after record %d the reader found a record nobody wrote (tag %d)", what, i, h.Tag)
		}
	}
}

func putU32(b []byte, v uint32) {
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}

func newTestBox(t *testing.T) (*Segment, *BoxWriter, *BoxReader) {
	t.Helper()
	s := newTestSegment(t, 2)
	off := s.BoxOffset(0, 1)
	return s, s.NewBoxWriter(off), s.NewBoxReader(off)
}

// TestBoxPayloadNeverPassesForAStamp: one lap of 512-byte records whose
// payload holds, where each of their later lines starts, exactly the stamp
// the reader will expect there on the next lap of one-line records. The
// writer must clear those words before the reader gets there.
func TestBoxPayloadNeverPassesForAStamp(t *testing.T) {
	_, w, r := newTestBox(t)
	const bigLen = 512 - boxHeader // one record of 8 lines
	bigs := boxRing / 512          // they fill the ring exactly: no skip
	var first [][]byte
	for b := 0; b < bigs; b++ {
		p := make([]byte, bigLen)
		for m := 1; m < 8; m++ {
			// Line m of big record b is line k = 8b+m of the ring; on the
			// next lap the one-line record there is record bigs+k, stamp
			// bigs+k+1.
			putU32(p[64*m-boxHeader:], uint32(bigs+8*b+m+1))
		}
		first = append(first, p)
	}
	lockStep(t, w, r, "big records", first)
	small := make([][]byte, 2*boxLines)
	for i := range small {
		small[i] = []byte{byte(i), 1, 2, 3, 4, 5, 6, 7}
	}
	lockStep(t, w, r, "one-line records", small)
}

// TestBoxStampWrap: lines written long ago hold small stamps; when the
// counter wraps, those stamps come round again and must not pass for new
// records.
func TestBoxStampWrap(t *testing.T) {
	_, w, r := newTestBox(t)
	start := stampWrapGuard + 1
	w.stamp = start - 1
	r.stamp = start
	// At every line, the stamp the reader will expect there on the first
	// lap of one-line records, as if left there 2^32 records ago.
	s := start
	for k := uint64(0); k < boxLines; k++ {
		putU32(w.ring[64*k:], s)
		s = nextStamp(s)
	}
	small := make([][]byte, 3*boxLines)
	for i := range small {
		small[i] = []byte{byte(i)}
	}
	lockStep(t, w, r, "across the wrap", small)
}
