package shm

import (
	"encoding/binary"
	"testing"
)

// BenchmarkCollStepData: one two-rank step that also moves 8 bytes each
// way, between two goroutines on their own threads, as a two-rank Allreduce
// of 8 B does: each rank writes its 8 bytes, arrives, waits for the
// other's arrival and reads the other's 8 bytes. "line": the data beside
// the arrival word (PairData); "scratch": in the scratch half of the step,
// where they went before (after the signatures, both ranks' on one line).
// ns/op is one step.
func BenchmarkCollStepData(b *testing.B) {
	for _, mode := range []string{"line", "scratch"} {
		b.Run(mode, func(b *testing.B) {
			s := newTestSegment(b, 2)
			slot, base := s.ClaimCollSlot(1, 2)
			c := s.CollCtlAt(slot)
			area := func(k uint64, r int) []byte {
				if mode == "line" {
					return c.PairData(r, k)[:8]
				}
				return s.CollScratch(slot, int(k&1))[32+8*r:][:8]
			}
			bad := make([]bool, 2)
			step := func(k uint64, r int) {
				binary.LittleEndian.PutUint64(area(k, r), k*2+uint64(r))
				if !c.Arrive(k, 2, r) {
					for !c.Released(k, 2) {
					}
				}
				if binary.LittleEndian.Uint64(area(k, 1-r)) != k*2+uint64(1-r) {
					bad[r] = true
				}
			}
			stepPair(b, base, step)
			if bad[0] || bad[1] {
				b.Fatal("a rank read the wrong data")
			}
		})
	}
}
