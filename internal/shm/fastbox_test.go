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
	l, err := NewLayout(2, DefaultCellsPerRank)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewPrivate(l)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	off := s.BoxOffset(0, 3)
	w, r := s.NewBoxWriter(off), s.NewBoxReader(off)
	const records = 200000
	sizes := make([]int, records)
	rng := rand.New(rand.NewSource(1))
	for i := range sizes {
		sizes[i] = rng.Intn(BoxInlineMax + 1)
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
