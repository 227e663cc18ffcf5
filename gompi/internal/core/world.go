package core

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gompi/gompi/gompi/internal/base"
	"github.com/gompi/gompi/internal/jobenv"
	"github.com/gompi/gompi/internal/shm"
)

// optionsFromEnv reads the tuning variables every mode honours. It is the
// one place the engine reads its environment, once, at Init (or Run).
func optionsFromEnv() (Options, error) {
	var o Options
	if v := os.Getenv(jobenv.Timeout); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return o, fmt.Errorf("gompi: %s=%q is not a duration (e.g. 30s)", jobenv.Timeout, v)
		}
		o.Timeout = d
	}
	for _, d := range []struct {
		name string
		dst  *time.Duration
	}{{jobenv.Spin, &o.Spin}, {jobenv.Yield, &o.Yield}} {
		if v := os.Getenv(d.name); v != "" {
			x, err := time.ParseDuration(v)
			if err != nil || x < 0 {
				return o, fmt.Errorf("gompi: %s=%q is not a duration", d.name, v)
			}
			*d.dst = x
		}
	}
	if v := os.Getenv(jobenv.CMAMin); v != "" {
		n, err := parseBytes(v)
		if err != nil {
			return o, fmt.Errorf("gompi: %s=%q is not a size (e.g. 256K)", jobenv.CMAMin, v)
		}
		o.CMAMin = n
	}
	if v := os.Getenv(jobenv.Progress); v != "" {
		on, err := strconv.ParseBool(v)
		if err != nil {
			return o, fmt.Errorf("gompi: %s=%q is not a boolean", jobenv.Progress, v)
		}
		o.NoProgress = !on
	}
	if v := os.Getenv(jobenv.TCPChunk); v != "" {
		n, err := parseBytes(v)
		if err != nil || n <= 0 || n > 1<<30 {
			return o, fmt.Errorf("gompi: %s=%q is not a size between 1 and 1G (e.g. 512K)", jobenv.TCPChunk, v)
		}
		o.TCPChunk = int(n)
	}
	o.TCPNet = os.Getenv(jobenv.TCPNet)
	if v := os.Getenv(jobenv.CMA); v != "" {
		on, err := strconv.ParseBool(v)
		if err != nil {
			return o, fmt.Errorf("gompi: %s=%q is not a boolean", jobenv.CMA, v)
		}
		o.NoCMA = !on
	}
	if v := os.Getenv(jobenv.LedBarriers); v != "" {
		on, err := strconv.ParseBool(v)
		if err != nil {
			return o, fmt.Errorf("gompi: %s=%q is not a boolean", jobenv.LedBarriers, v)
		}
		o.LedBarriers = on
	}
	return o, nil
}

// Init sets up this process's rank from the job golaunch describes in the
// environment; a process started any other way is a world of one rank.
func Init() (_ *Proc, _ jobenv.Job, err error) {
	job, launched, err := jobenv.FromEnv()
	if err == nil && !launched {
		job, launched, err = pmiJob() // started by srun --mpi=pmi2 (slurm.go)
		defer func() {
			if err != nil {
				pmiFailed(err)
			}
		}()
	}
	if err != nil {
		return nil, job, base.Classify(base.ErrEnvironment, err)
	}
	opts, err := optionsFromEnv()
	if err != nil {
		return nil, job, base.Classify(base.ErrEnvironment, err)
	}
	opts.Oversubscribed = job.Oversubscribed
	if !launched {
		l, _ := shm.NewLayout(1, shm.DefaultCellsPerRank)
		seg, err := shm.NewPrivate(l)
		if err != nil {
			return nil, job, base.Classify(base.ErrSharedMemory, err)
		}
		p := newProc(0, 1, seg, 0, []int32{0}, opts)
		seg.SetPID(0, os.Getpid())
		seg.SetState(0, shm.StateRunning)
		return p, job, nil
	}
	if job.ShmFD < 0 {
		return nil, job, base.Classify(base.ErrEnvironment, errors.New("gompi: golaunch passed no shared segment"))
	}
	seg, err := shm.Attach(job.ShmFD)
	if err != nil {
		return nil, job, base.Classify(base.ErrSharedMemory, err)
	}
	if seg.Layout().NRanks != job.LocalSize {
		seg.Close()
		return nil, job, base.Classify(base.ErrEnvironment, fmt.Errorf("gompi: the segment holds %d ranks, the job %d on this host", seg.Layout().NRanks, job.LocalSize))
	}
	locals := make([]int32, job.Size)
	for i := range locals {
		locals[i] = -1
	}
	for li, w := range job.LocalRanks {
		if job.Transport != "tcp" || w == job.Rank {
			locals[w] = int32(li)
		}
	}
	p := newProc(job.Rank, job.Size, seg, job.LocalRank, locals, opts)
	if !opts.NoProgress && job.Size > 1 {
		reserveProgressP()
	}
	seg.SetPID(job.LocalRank, os.Getpid())
	seg.SetState(job.LocalRank, shm.StateRunning)
	if job.NeedsTCP() {
		var peers []int
		for w, li := range locals {
			if li < 0 {
				peers = append(peers, w)
			}
		}
		if p.net, err = netInit(p, &job, peers); err != nil {
			p.Finalize(shm.StateFinalized)
			seg.Close()
			return nil, job, classifyNetInit(err)
		}
	}
	pmiStarted(p)
	return p, job, nil
}

// Close ends a process-mode rank: finalize, then unmap the segment.
func (p *Proc) Close() {
	if p.net != nil {
		p.net.close(true)
	}
	p.Finalize(shm.StateFinalized)
	pmiFinalize()
	p.seg.Close()
}

// RankFailure is the error of one rank of an in-process run.
type RankFailure struct {
	Rank int
	Err  error
}

func (f *RankFailure) Error() string { return fmt.Sprintf("rank %d: %v", f.Rank, f.Err) }
func (f *RankFailure) Unwrap() error { return f.Err }

// SetAbortExit records that this in-process rank stops because it called
// Abort(code); its goroutine then exits and RunLocal reports it.
func (p *Proc) SetAbortExit(code int) { p.abortCode.Store(int64(code) | 1<<40) }

// RunLocal runs n ranks as goroutines of this process over one private
// segment and returns the error of each rank that failed. When ctx ends,
// every blocking operation fails (ErrTimeout for a deadline, ErrAborted
// otherwise).
func RunLocal(ctx context.Context, n int, fn func(p *Proc) error) error {
	if n <= 0 {
		return base.New("Run", base.ErrArg, fmt.Sprintf("%d ranks", n), "run at least one rank")
	}
	opts, err := optionsFromEnv()
	if err != nil {
		return err
	}
	cells := shm.DefaultCellsPerRank
	if n > 64 {
		cells = 16 // many goroutine ranks: keep the segment small
	}
	l, err := shm.NewLayout(n, cells)
	if err != nil {
		return err
	}
	seg, err := shm.NewPrivate(l)
	if err != nil {
		return err
	}
	opts.InProcess = true
	opts.Oversubscribed = n > max(2, runtimeProcs())
	opts.Cancelled = func() error {
		switch ctx.Err() {
		case nil:
			return nil
		case context.DeadlineExceeded:
			return base.New("Run", base.ErrTimeout, "the run's context deadline passed", "")
		default:
			return base.New("Run", base.ErrAborted, "the run's context was cancelled", "")
		}
	}
	// When ctx ends, wake every rank so that its waits see it. The wake-up
	// may be running when the ranks are done: the segment is unmapped only
	// once it is over (stop does not wait for a callback already started).
	var wakeMu sync.Mutex
	unmapped := false
	stop := context.AfterFunc(ctx, func() {
		wakeMu.Lock()
		defer wakeMu.Unlock()
		if !unmapped {
			seg.WakeAll()
		}
	})
	defer func() {
		stop()
		wakeMu.Lock()
		unmapped = true
		seg.Close()
		wakeMu.Unlock()
	}()

	locals := make([]int32, n)
	for i := range locals {
		locals[i] = int32(i)
	}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		p := newProc(i, n, seg, i, locals, opts)
		seg.SetPID(i, os.Getpid())
		seg.SetState(i, shm.StateRunning)
		wg.Add(1)
		go func() {
			defer wg.Done()
			state := uint32(shm.StateDead)
			defer func() { p.Finalize(state) }()
			returned := false
			defer func() {
				if v := recover(); v != nil {
					errs[i] = &RankFailure{i, fmt.Errorf("panic: %v\n%s", v, debug.Stack())}
				} else if a := p.abortCode.Load(); a != 0 {
					errs[i] = &RankFailure{i, base.New("Abort", base.ErrAborted,
						fmt.Sprintf("rank %d called Abort(%d)", i, int32(a)), "")}
				} else if !returned {
					errs[i] = &RankFailure{i, errors.New("the rank's goroutine exited (runtime.Goexit) without returning")}
				}
			}()
			err := fn(p)
			returned = true
			if err != nil {
				errs[i] = &RankFailure{i, err}
				return
			}
			state = shm.StateFinalized
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// parseBytes reads a size with an optional K, M or G suffix.
func parseBytes(s string) (int64, error) {
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, s[:len(s)-1]
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, s[:len(s)-1]
	case strings.HasSuffix(s, "G"):
		mult, s = 1<<30, s[:len(s)-1]
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return n * mult, nil
}
