package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"runtime/debug"
	"time"

	"github.com/gompi/gompi/gompi"
)

func init() {
	modes["soak"] = soak
}

// soak: for arg seconds (10 if 0), every rank passes a message round the
// ring, joins an Allreduce, and exchanges with a partner drawn anew each
// round (the same draw on every rank), checking every payload. Every few
// seconds rank 0 prints the ranks' total resident and private memory; at
// the end, their growth since the first report after a warm-up.
func soak(c *gompi.Comm, arg int) error {
	secs := arg
	if secs == 0 {
		secs = 10
	}
	n, me := c.Size(), c.Rank()
	right, left := (me+1)%n, (me-1+n)%n
	out, in := make([]byte, 4096), make([]byte, 4096)
	fill := func(b []byte, from, round int) {
		for i := 0; i+8 <= len(b); i += 8 {
			binary.LittleEndian.PutUint64(b[i:], uint64(from)<<40|uint64(round)<<8|uint64(i&0xff))
		}
	}
	check := func(what string, b []byte, from, round int) error {
		want := make([]byte, len(b))
		fill(want, from, round)
		if !bytes.Equal(b, want) {
			return fmt.Errorf("soak: round %d: %s from rank %d: payload corrupted", round, what, from)
		}
		return nil
	}
	perm := make([]int, n)
	start := time.Now()
	// Memory is compared with the first report after a warm-up of a fifth
	// of the run (at least 5 s): the time for every rank to have met its
	// partners and touched its share of the segment.
	warm := max(5*time.Second, time.Duration(secs)*time.Second/5)
	nextReport := start.Add(5 * time.Second)
	var first, firstAnon, firstPss int64
	for round := 0; ; round++ {
		// Everyone agrees on when to stop: rank 0's clock, by Allreduce.
		stop := []int64{0}
		if me == 0 && time.Since(start) > time.Duration(secs)*time.Second {
			stop[0] = 1
		}
		report := []int64{0}
		if me == 0 && time.Now().After(nextReport) {
			report[0] = 1
			nextReport = nextReport.Add(5 * time.Second)
		}
		flags := append(stop, report...)
		got := make([]int64, 2)
		if err := gompi.Allreduce(c, flags, got, gompi.Max[int64]()); err != nil {
			return err
		}
		if got[1] != 0 || got[0] != 0 {
			// Resident memory, its private (anonymous) part, and the
			// proportional set size: the segment's pages count in the
			// first as each rank touches them (so the sum over ranks
			// counts a shared page once per rank that touched it), up to
			// the segment's size; a leak shows in the second; the sum of
			// the third is what the machine holds for the job. Go's
			// heap grows to 4 MiB of garbage before its first collection,
			// which at this pace takes minutes: collect, and give the free
			// pages back, before looking, so that what is measured is what
			// is alive.
			debug.FreeOSMemory()
			rss := []int64{statusKB("VmRSS"), statusKB("RssAnon"), procKB("/proc/self/smaps_rollup", "Pss")}
			all := make([]int64, 3*n)
			if err := gompi.Gather(c, rss, all, 0); err != nil {
				return err
			}
			if me == 0 {
				var sum, anon, pss int64
				for r := 0; r < n; r++ {
					sum += all[3*r]
					anon += all[3*r+1]
					pss += all[3*r+2]
				}
				if first == 0 && time.Since(start) >= warm {
					first, firstAnon, firstPss = sum, anon, pss
				}
				fmt.Printf("soak: t=%.0fs rounds=%d rss_total=%d KiB anon_total=%d KiB pss_total=%d KiB\n", time.Since(start).Seconds(), round, sum, anon, pss)
				if got[0] != 0 {
					growth := func(now, then int64) float64 { return 100 * float64(now-then) / float64(then) }
					fmt.Printf("soak: %d ranks, %d rounds in %.0f s, no error; since the first report after %.0f s of warm-up: private memory %+.1f%%, proportional (PSS, what the machine holds) %+.1f%%, resident %+.1f%% (counts a shared page once per rank that touched it)\n",
						n, round, time.Since(start).Seconds(), warm.Seconds(), growth(anon, firstAnon), growth(pss, firstPss), growth(sum, first))
				}
			}
		}
		if got[0] != 0 {
			break
		}
		size := 8 << (round % 10) // 8 B .. 4 KiB
		// Ring.
		fill(out[:size], me, round)
		if _, err := c.Sendrecv(out[:size], right, 1, in[:size], left, 1); err != nil {
			return err
		}
		if err := check("ring", in[:size], left, round); err != nil {
			return err
		}
		// Allreduce of a known sum.
		v := []int64{int64(me + round)}
		sum := []int64{0}
		if err := gompi.Allreduce(c, v, sum, gompi.Sum[int64]()); err != nil {
			return err
		}
		if want := int64(n*(n-1)/2 + n*round); sum[0] != want {
			return fmt.Errorf("soak: round %d: Allreduce gave %d, want %d", round, sum[0], want)
		}
		// Random pairs: a permutation every rank draws alike; pair the
		// ranks at even and odd places.
		rng := rand.New(rand.NewPCG(uint64(round), 42))
		for i := range perm {
			perm[i] = i
		}
		rng.Shuffle(n, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		for i := 0; i+1 < n; i += 2 {
			a, b := perm[i], perm[i+1]
			if me != a && me != b {
				continue
			}
			peer := a + b - me
			fill(out[:size], me, round)
			if _, err := c.Sendrecv(out[:size], peer, 2, in[:size], peer, 2); err != nil {
				return err
			}
			if err := check("pair", in[:size], peer, round); err != nil {
				return err
			}
		}
	}
	return nil
}
