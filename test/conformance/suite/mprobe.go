package suite

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/gompi/gompi/gompi"
)

// Matched probes: several goroutines of one rank probe and receive from
// AnySource and AnyTag at once; each message must be received whole by the
// goroutine that probed it (with Probe then Recv, another goroutine could
// take it in between, and the sizes would not match).
var mprobeCases = []Case{
	{"MatchedProbeConcurrentGoroutines", []int{2, 3, 4}, matchedProbeConcurrent},
	{"MatchedProbeEdges", []int{2}, matchedProbeEdges},
}

const (
	mprobeMsgs    = 60 // per sender
	mprobeWorkers = 4
	mprobeStopTag = 0 // data messages have tags from 1
)

// mprobeSize is the size of message i of sender s: small and large ones
// mixed, so that eager and rendezvous messages overtake nothing.
func mprobeSize(s, i int) int { return (i*131 + s*17) % 9000 }

func matchedProbeConcurrent(c *gompi.Comm) error {
	me, last := c.Rank(), c.Size()-1
	if me != last {
		for i := range mprobeMsgs {
			if err := c.Send(pattern(mprobeSize(me, i), byte(i+me)), last, 1+i); err != nil {
				return err
			}
		}
		return c.Barrier()
	}
	// Workers take messages until one with the stop tag; this goroutine
	// sends one to each (to itself) once every data message is in, or one
	// failed.
	total := last * mprobeMsgs
	var (
		mu      sync.Mutex
		got     = map[[2]int]bool{}
		errs    []error
		wg      sync.WaitGroup
		over    = make(chan struct{})
		overOne sync.Once
	)
	fail := func(err error) {
		mu.Lock()
		errs = append(errs, err)
		mu.Unlock()
		overOne.Do(func() { close(over) })
	}
	for w := range mprobeWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				var (
					m   *gompi.Message
					st  gompi.Status
					err error
				)
				if w%2 == 0 {
					m, st, err = c.Mprobe(gompi.AnySource, gompi.AnyTag)
				} else {
					var ok bool
					if m, st, ok, err = c.Improbe(gompi.AnySource, gompi.AnyTag); err == nil && !ok {
						runtime.Gosched()
						continue
					}
				}
				if err != nil {
					fail(err)
					return
				}
				buf := make([]byte, st.Count)
				var rst gompi.Status
				if w%2 == 0 {
					rst, err = m.Recv(buf)
				} else {
					var r *gompi.Request
					if r, err = m.Irecv(buf); err == nil {
						rst, err = r.Wait()
					}
				}
				switch {
				case err != nil:
					fail(fmt.Errorf("receiving a probed message %+v: %w", st, err))
					continue
				case rst.Source != st.Source || rst.Tag != st.Tag || rst.Count != st.Count:
					fail(fmt.Errorf("probed %+v, received %+v", st, rst))
					continue
				case st.Tag == mprobeStopTag:
					return
				}
				i := st.Tag - 1
				if st.Count != mprobeSize(st.Source, i) || !bytes.Equal(buf, pattern(st.Count, byte(i+st.Source))) {
					fail(fmt.Errorf("message %d of rank %d: %d bytes, wrong size or contents", i, st.Source, st.Count))
					continue
				}
				mu.Lock()
				dup := got[[2]int{st.Source, i}]
				got[[2]int{st.Source, i}] = true
				all := len(got) == total
				mu.Unlock()
				if dup {
					fail(fmt.Errorf("message %d of rank %d received twice", i, st.Source))
				}
				if all {
					overOne.Do(func() { close(over) })
				}
			}
		}()
	}
	<-over
	stops := make([]*gompi.Request, mprobeWorkers)
	for i := range stops {
		var err error
		if stops[i], err = c.Isend(nil, me, mprobeStopTag); err != nil {
			return err
		}
	}
	wg.Wait()
	if err := gompi.Waitall(stops, nil); err != nil {
		return err
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	if len(got) != total {
		return fmt.Errorf("received %d messages, want %d", len(got), total)
	}
	return c.Barrier()
}

func matchedProbeEdges(c *gompi.Comm) error {
	// ProcNull: a message of no one, received at once.
	m, st, err := c.Mprobe(gompi.ProcNull, 3)
	if err != nil || st.Source != gompi.ProcNull {
		return fmt.Errorf("Mprobe(ProcNull): %+v %v", st, err)
	}
	if st, err := m.Recv(nil); err != nil || st.Source != gompi.ProcNull {
		return fmt.Errorf("Mrecv of ProcNull: %+v %v", st, err)
	}
	if _, _, err := c.Mprobe(c.Size(), 0); !errors.Is(err, gompi.ErrRank) {
		return fmt.Errorf("Mprobe of rank %d: %v, want ErrRank", c.Size(), err)
	}
	if c.Rank() == 0 {
		if err := c.Send([]byte("0123456789"), 1, 5); err != nil {
			return err
		}
		return c.Barrier()
	}
	m, st, err = c.Mprobe(0, 5)
	if err != nil || st.Count != 10 {
		return fmt.Errorf("Mprobe: %+v %v", st, err)
	}
	// Nothing else sees the probed message.
	if _, ok, _ := c.Iprobe(gompi.AnySource, gompi.AnyTag); ok {
		return errors.New("Iprobe sees a message a matched probe took")
	}
	short := make([]int16, 2)
	st, err = gompi.Mrecv(m, short)
	var e *gompi.Error
	if !errors.Is(err, gompi.ErrTruncate) || !errors.As(err, &e) || e.MessageBytes != 10 || st.Count != 4 || string([]byte{byte(short[0]), byte(short[0] >> 8)}) != "01" {
		return fmt.Errorf("Mrecv of 10 bytes into 4: %+v %v %v", st, short, err)
	}
	if _, err := m.Recv(make([]byte, 10)); !errors.Is(err, gompi.ErrRequest) {
		return fmt.Errorf("a second Mrecv of one message: %v, want ErrRequest", err)
	}
	return c.Barrier()
}
