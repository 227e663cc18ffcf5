package shm

import (
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// pairSleepSteps runs steps first..first+steps-1 of rank r (0 or 1) on the
// two-rank slot c the way the shm collectives take them, but sleeping at
// once whenever its peer has not arrived, on naps of an hour: a lost
// wake-up leaves a rank asleep, and the caller's watchdog reports it. Each
// rank writes the step into its data beside its arrival word (PairData)
// before arriving and checks its peer's after the release, so an arrival
// seen before the data it publishes is reported too. Every fourth step is
// rooted (the root arrives, which is its post, and goes on; the reader
// waits for the post only), and some arrivals are delayed by a short spin
// so that the peer is, by turns, spinning, going to sleep and asleep.
func pairSleepSteps(c *CollCtl, r int, first, steps uint64) error {
	const nap = time.Hour
	open := false
	for k := first; k < first+steps; k++ {
		if open { // wait for the last rooted step's release, as every collective does
			for !c.Released(k-1, 2) {
				c.Sleep(k-1, 2, nap)
			}
			open = false
		}
		binary.LittleEndian.PutUint64(c.PairData(r, k), k)
		for i := 0; i < int(k*7+uint64(r)*3)%64*16; i++ {
			runtime.Gosched()
		}
		if k%4 == 3 {
			root := int(k/4) % 2
			c.Arrive(k, 2, r)
			if r != root {
				for !c.Posted(k, 2, root) {
					c.SleepPost(k, 2, root, nap)
				}
				if got := binary.LittleEndian.Uint64(c.PairData(root, k)); got != k {
					return fmt.Errorf("rank %d, rooted step %d: the root's data say %d", r, k, got)
				}
			}
			open = true
			continue
		}
		if !c.Arrive(k, 2, r) {
			for !c.Released(k, 2) {
				c.Sleep(k, 2, nap)
			}
		}
		if got := binary.LittleEndian.Uint64(c.PairData(1-r, k)); got != k {
			return fmt.Errorf("rank %d, step %d: the peer's data say %d", r, k, got)
		}
	}
	if open {
		for !c.Released(first+steps-1, 2) {
			c.Sleep(first+steps-1, 2, nap)
		}
	}
	return nil
}

// usePlain turns this process's plain arrivals on for the test, if it can
// have them; it reports whether they are on.
func usePlain(t testing.TB) bool {
	t.Helper()
	setupArrivals()
	if plainArrive {
		return true
	}
	if !registerPlain() {
		return false
	}
	plainArrive = true
	t.Cleanup(func() { plainArrive = false })
	return true
}

// useFenced turns this process's plain arrivals off for the test.
func useFenced(t testing.TB) {
	if plainArrive {
		plainArrive = false
		t.Cleanup(func() { plainArrive = true })
	}
}

// watch waits for done, at most two minutes.
func watch(t *testing.T, what string, done <-chan struct{}) {
	t.Helper()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		t.Fatalf("%s: a rank still sleeps after 2 minutes: a lost wake-up", what)
	}
}

func pairSleepStepCount() uint64 {
	if testing.Short() {
		return 2000
	}
	return 10000
}

// TestPairSleepNoLostWakeup: two ranks of one process (goroutines, as in
// gompi.Run) that sleep whenever they wait never miss a wake-up, with the
// arrival stored plainly (where this process can, see arrive.go) and with
// its XCHG, with the runtime's sleeps and raw ones.
func TestPairSleepNoLostWakeup(t *testing.T) {
	for _, mode := range []string{"plain", "fenced", "plain-raw"} {
		t.Run(mode, func(t *testing.T) {
			raw := mode == "plain-raw"
			if mode == "fenced" {
				useFenced(t)
			} else if !usePlain(t) {
				t.Skip("no plain arrivals here")
			}
			SetRawCollSleep(raw)
			defer SetRawCollSleep(false)
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(3)) // a raw sleep holds its P
			s := newTestSegment(t, 2)
			slot, base := s.ClaimCollSlot(1, 2)
			c := s.CollCtlAt(slot)
			errs := make([]error, 2)
			var wg sync.WaitGroup
			for r := range 2 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					errs[r] = pairSleepSteps(c, r, base, pairSleepStepCount())
				}()
			}
			done := make(chan struct{})
			go func() { wg.Wait(); close(done) }()
			watch(t, "one process", done)
			for _, err := range errs {
				if err != nil {
					t.Error(err)
				}
			}
		})
	}
}

// TestPairSleepTwoProcesses: the same between two processes on a shared
// segment (the test binary starts itself again as rank 1), each arriving as
// its own setting says: both plainly, one plainly with the other keeping
// the XCHG (whose sleeps must still fence against the plain one), and both
// with the XCHG.
func TestPairSleepTwoProcesses(t *testing.T) {
	if os.Getenv("GOMPI_TEST_PAIR_CHILD") != "" {
		return // the child's work is in TestMain's helper
	}
	for _, modes := range [][2]string{{"plain", "plain"}, {"plain", "fenced"}, {"fenced", "plain"}, {"fenced", "fenced"}} {
		t.Run(modes[0]+"-"+modes[1], func(t *testing.T) {
			newTestSegment(t, 2) // sets this process's arrivals up
			if modes[0] == "fenced" {
				useFenced(t)
			} else if !usePlain(t) {
				t.Skip("no plain arrivals here")
			}
			child := modes[1]
			l, err := NewLayout(2, DefaultCellsPerRank)
			if err != nil {
				t.Fatal(err)
			}
			s, f, err := Create("arrive-test", l)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			defer f.Close()
			steps := pairSleepStepCount()
			cmd := exec.Command(os.Args[0], "-test.run=^TestPairSleepTwoProcesses$")
			cmd.Env = append(os.Environ(), "GOMPI_TEST_PAIR_CHILD="+strconv.FormatUint(steps, 10), "GOMPI_SHM_ARRIVE="+child)
			cmd.ExtraFiles = []*os.File{f}
			out := make(chan []byte, 1)
			childErr := make(chan error, 1)
			go func() {
				b, err := cmd.CombinedOutput()
				out <- b
				childErr <- err
			}()
			var parentErr error
			done := make(chan struct{})
			go func() {
				parentErr = pairSleepSteps(s.CollCtlAt(0), 0, 0, steps)
				<-childErr
				close(done)
			}()
			select {
			case <-done:
			case <-time.After(2 * time.Minute):
				cmd.Process.Kill()
				t.Fatalf("a rank still sleeps after 2 minutes: a lost wake-up")
			}
			if b := <-out; len(b) > 0 && string(b) != "PASS\n" {
				t.Errorf("rank 1 (a process of its own) said:\n%s", b)
			}
			if parentErr != nil {
				t.Error(parentErr)
			}
		})
	}
}

// TestMain runs rank 1 of TestPairSleepTwoProcesses in the child process.
func TestMain(m *testing.M) {
	if v := os.Getenv("GOMPI_TEST_PAIR_CHILD"); v != "" {
		steps, _ := strconv.ParseUint(v, 10, 64)
		s, err := Attach(3)
		if err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		if err := pairSleepSteps(s.CollCtlAt(0), 1, 0, steps); err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		fmt.Println("PASS")
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// BenchmarkFenceSleeper: what a sleeper's fence costs (membarrier's global
// expedited command where this kernel has it).
func BenchmarkFenceSleeper(b *testing.B) {
	setupArrivals()
	for b.Loop() {
		if !fenceSleeper() {
			b.Fatal("membarrier failed")
		}
	}
}

// TestSleeperFenceOrdersPlainArrival: the store-buffering litmus test of
// arrive.go's argument. One thread stores x plainly, as an arrival does
// (StoreRelease32), and then loads y, as the arriver loads the sleeper
// count; the other stores y with a full fence, as the sleeper's increment
// does, fences (fenceSleeper) and loads x, as the sleeper re-reads the
// arrival word. Both loads missing the other's store is what would lose a
// wake-up: with the fence it must never happen. The same rounds without the
// fence are counted and logged (a plain store's later load can pass it; how
// often that shows depends on the machine and its load).
func TestSleeperFenceOrdersPlainArrival(t *testing.T) {
	newTestSegment(t, 2) // sets the arrivals up
	if !usePlain(t) {
		t.Skip("no plain arrivals here")
	}
	rounds := 5000
	if testing.Short() {
		rounds = 1000
	}
	// spin polls a word until ok; both threads spin, so on a loaded
	// machine each gives the CPU away now and then.
	spin := func(p *uint32, ok func(uint32) bool) uint32 {
		for i := 1; ; i++ {
			if v := atomic.LoadUint32(p); ok(v) {
				return v
			}
			if i%1024 == 0 {
				Yield()
			}
		}
	}
	for _, fenced := range []bool{true, false} {
		type line struct {
			v uint32
			_ [124]byte
		}
		var round, doneA, x, y line
		missed := 0
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { // the arriver
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			for i := uint32(1); i <= uint32(rounds); i++ {
				for p := 1; atomic.LoadUint32(&round.v) != i; p++ { // inline: a closure's call lets the other side run ahead
					if p%1024 == 0 {
						Yield()
					}
				}
				StoreRelease32(&x.v, i)
				if atomic.LoadUint32(&y.v) != i {
					atomic.StoreUint32(&doneA.v, 2*i) // missed y
				} else {
					atomic.StoreUint32(&doneA.v, 2*i+1)
				}
			}
		}()
		runtime.LockOSThread()
		for i := uint32(1); i <= uint32(rounds); i++ {
			atomic.StoreUint32(&round.v, i)
			// The other thread sees the round a cache-line hand-off later:
			// wait a varying while, so that some rounds line the two up.
			for j := uint32(0); j < i%64*4; j++ {
				atomic.LoadUint32(&doneA.v)
			}
			atomic.StoreUint32(&y.v, i) // the sleeper's increment (a full fence)
			if fenced && !fenceSleeper() {
				t.Fatal("membarrier failed")
			}
			sawX := atomic.LoadUint32(&x.v) == i
			a := spin(&doneA.v, func(v uint32) bool { return v>>1 == i })
			if !sawX && a&1 == 0 {
				missed++
			}
		}
		runtime.UnlockOSThread()
		wg.Wait()
		if fenced && missed > 0 {
			t.Errorf("with the sleeper's fence, %d of %d rounds had both loads miss the other's store", missed, rounds)
		}
		if !fenced {
			t.Logf("without the sleeper's fence, %d of %d rounds had both loads miss the other's store", missed, rounds)
		}
	}
}

// BenchmarkCollStepRooted: the two-rank steps of a loop of Reduce (8 B to
// root 0), each followed by a Barrier as in the OSU loop, between two
// goroutines on their own threads. In the Reduce step the root arrives,
// waits for its peer's arrival and reads its 8 bytes; the peer writes its
// 8 bytes, arrives and goes on; then both meet in the Barrier. ns/op is
// one Reduce and one Barrier. Run with GOMPI_SHM_ARRIVE=plain for the
// plain arrival.
func BenchmarkCollStepRooted(b *testing.B) {
	s := newTestSegment(b, 2)
	slot, base := s.ClaimCollSlot(1, 2)
	c := s.CollCtlAt(slot)
	var sum [2]uint64
	stepPair(b, base, func(i uint64, r int) {
		k := base + 2*(i-base)
		if k > base {
			for !c.Released(k-1, 2) {
			}
		}
		if r == 1 {
			binary.LittleEndian.PutUint64(c.PairData(1, k), k)
			c.Arrive(k, 2, 1)
		} else {
			if !c.Arrive(k, 2, 0) {
				for !c.Released(k, 2) {
				}
			}
			sum[0] += binary.LittleEndian.Uint64(c.PairData(1, k))
		}
		if !c.Arrive(k+1, 2, r) { // the Barrier
			for !c.Released(k+1, 2) {
			}
		}
	})
}
