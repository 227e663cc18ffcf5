package systest

import (
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/gompi/gompi/hwtopo"
)

// Test 1: thread operations timed while other threads load the machine.
//
// Three implementations, each row says which:
//   - goroutine: Go's own threads of control (go statement, channels,
//     sync.Mutex, sync.Cond);
//   - os-thread: goroutines locked to their OS thread with
//     runtime.LockOSThread that exit locked, so the runtime ends the thread
//     and must clone a new one; the waiters block in futex(2) FUTEX_WAIT, the
//     system call under pthread_cond_wait;
//   - c-pthread: the C reference (csrc/threads.c), built in the same run.
//
// Go mutexes are not created or destroyed by a call (a sync.Mutex is a zero
// value; the collector frees it), so "mutex-create" times new(sync.Mutex)
// and there is no Go "mutex-destroy" row.

// threadSetting is one load level with or without affinity.
type threadSetting struct {
	load     string // 0, half, all
	affinity bool
}

func (s threadSetting) String() string {
	a := "off"
	if s.affinity {
		a = "on"
	}
	return fmt.Sprintf("load=%s aff=%s", s.load, a)
}

// busy returns how many spinning threads the load level means.
func (s threadSetting) busy(cores int) int {
	switch s.load {
	case "half":
		return max(1, cores/2)
	case "all":
		return cores
	}
	return 0
}

var sink atomic.Pointer[sync.Mutex]

// mutexBatch mutex operations make one measurement: some tens of
// microseconds, well above the clock's resolution and read cost.
const mutexBatch = 20000

func runThreads(e *env) error {
	cores := e.topo.NumCores()
	allowed := e.topo.Allowed
	if len(allowed) == 0 {
		return fmt.Errorf("no CPU is allowed to this process")
	}
	// With affinity the measuring thread (and the threads it creates, in C)
	// sits on the last allowed CPU; load threads take the CPUs in order.
	measureCPU := allowed[len(allowed)-1]
	cb := e.cRefs()
	var settings []threadSetting
	for _, l := range e.cfg.Loads {
		for _, a := range e.cfg.Affinity {
			settings = append(settings, threadSetting{l, a == "on"})
		}
	}
	fmt.Fprintf(e.out, "%d cores; load = threads spinning on them; aff=on pins the measuring thread to CPU %d and each load thread to one CPU\n", cores, measureCPU)
	for _, st := range settings {
		var pin hwtopo.CPUSet
		if st.affinity {
			pin = allowed
		}
		ld := startLoad(st.busy(cores), pin)
		err := e.threadRows(st, measureCPU, cb)
		ld.end()
		if err != nil {
			return err
		}
	}
	e.threadRatios()
	return nil
}

// threadRows measures every operation in one setting.
func (e *env) threadRows(st threadSetting, cpu int, cb *cBuild) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if st.affinity {
		if err := hwtopo.BindThread(hwtopo.CPUSet{cpu}); err != nil {
			return err
		}
		defer hwtopo.BindThread(e.topo.Allowed)
	}
	batch, chain := e.cfg.Batch, e.cfg.Chain
	type goOp struct {
		name, impl string
		per        int // operations per sample
		run        func() time.Duration
	}
	ops := []goOp{
		{"create", "goroutine", batch, func() time.Duration { return goCreate(batch, false) }},
		{"create", "os-thread", batch, func() time.Duration { return goCreate(batch, true) }},
		{"create-join", "goroutine", batch, func() time.Duration { return goCreateJoin(batch, false) }},
		{"create-join", "os-thread", batch, func() time.Duration { return goCreateJoin(batch, true) }},
		{"chain " + strconv.Itoa(chain), "goroutine", chain - 1, func() time.Duration { return goChain(chain, false) }},
		{"chain " + strconv.Itoa(chain), "os-thread", chain - 1, func() time.Duration { return goChain(chain, true) }},
		{"mutex-create", "goroutine", mutexBatch, func() time.Duration { return mutexCreate(mutexBatch) }},
		{"mutex-lock", "goroutine", mutexBatch, func() time.Duration { return mutexLock(mutexBatch, true) }},
		{"mutex-unlock", "goroutine", mutexBatch, func() time.Duration { return mutexLock(mutexBatch, false) }},
	}
	for i, op := range ops {
		tids.reset()
		ran := 0
		_, err := e.measure(Row{Test: "threads", Case: op.name, Impl: op.impl, Setting: st.String()}, func() (float64, error) {
			ran += op.per
			return op.run().Seconds() / float64(op.per), nil
		})
		if err != nil {
			return err
		}
		if op.impl == "os-thread" {
			// Verified, not assumed: the share of operations that ran on
			// an OS thread no earlier one had used.
			e.rows[len(e.rows)-1].Note = fmt.Sprintf("%d new OS threads in %d ops", tids.count(), ran)
		}
		if i+1 < len(ops) && ops[i+1].name == op.name {
			continue
		}
		if err := e.cThreadRow(cb, st, cpu, op.name, batch, chain); err != nil {
			return err
		}
	}
	if err := e.cThreadRow(cb, st, cpu, "mutex-destroy", batch, chain); err != nil {
		return err
	}
	for _, w := range e.cfg.Waiters {
		for _, osThreads := range []bool{false, true} {
			wk := newWakers(w, osThreads)
			impl := "goroutine"
			if osThreads {
				impl = "os-thread"
			}
			_, err := e.measure(Row{Test: "threads", Case: fmt.Sprintf("wake %d", w), Impl: impl, Setting: st.String(),
				Note: "time to wake all"}, func() (float64, error) { return wk.wakeAll().Seconds(), nil })
			wk.close()
			if err != nil {
				return err
			}
		}
		if err := e.cThreadRow(cb, st, cpu, fmt.Sprintf("wake %d", w), batch, w); err != nil {
			return err
		}
	}
	return nil
}

// cThreadRow measures one operation with the C reference, when it was built.
func (e *env) cThreadRow(cb *cBuild, st threadSetting, cpu int, name string, batch, n int) error {
	if _, ok := cb.bins["threads"]; !ok {
		return nil
	}
	op, per := name, batch
	switch {
	case len(name) > 5 && name[:5] == "chain":
		op = "chain"
	case len(name) > 4 && name[:4] == "wake":
		op, per = "wake", 1
	case name == "mutex-create" || name == "mutex-lock" || name == "mutex-unlock" || name == "mutex-destroy":
		per = mutexBatch
	}
	c := -1
	if st.affinity {
		c = cpu
	}
	note := ""
	if op == "wake" {
		note = "time to wake all"
	}
	_, err := e.measureRounds(Row{Test: "threads", Case: name, Impl: "c-pthread", Setting: st.String(), Note: note}, func(k int, deadline time.Time) ([]float64, error) {
		return cb.run("threads", op, strconv.Itoa(per), strconv.Itoa(k), strconv.Itoa(c), strconv.Itoa(n), limitArg(deadline))
	})
	return err
}

// tids records the OS threads the os-thread rows ran on.
var tids = &tidSet{seen: map[int]bool{}}

type tidSet struct {
	mu   sync.Mutex
	seen map[int]bool
}

func (t *tidSet) reset() {
	t.mu.Lock()
	t.seen = map[int]bool{}
	t.mu.Unlock()
}

// lockNew locks the calling goroutine to its OS thread and records the thread.
func (t *tidSet) lockNew() {
	runtime.LockOSThread()
	id := unix.Gettid()
	t.mu.Lock()
	t.seen[id] = true
	t.mu.Unlock()
}

func (t *tidSet) count() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.seen)
}

// goCreate times n go statements until every new goroutine has run (a go
// statement returns before any thread exists, so that is the first moment
// the creation is known done); with osThread each locks its thread and
// exits locked, so that its thread ends and the next needs a new one.
func goCreate(n int, osThread bool) time.Duration {
	var wg sync.WaitGroup
	wg.Add(n)
	f := func() { wg.Done() }
	if osThread {
		f = func() { tids.lockNew(); wg.Done() }
	}
	t0 := time.Now()
	for range n {
		go f()
	}
	wg.Wait()
	return time.Since(t0)
}

// goCreateJoin times n go statements, each waited for before the next.
func goCreateJoin(n int, osThread bool) time.Duration {
	done := make(chan struct{})
	f := func() { done <- struct{}{} }
	if osThread {
		f = func() { tids.lockNew(); done <- struct{}{} }
	}
	t0 := time.Now()
	for range n {
		go f()
		<-done
	}
	return time.Since(t0)
}

// goChain times n links, each created and waited for by the one before.
func goChain(n int, osThread bool) time.Duration {
	var link func(k int)
	link = func(k int) {
		if osThread {
			tids.lockNew()
		}
		if k > 1 {
			done := make(chan struct{})
			go func() { link(k - 1); close(done) }()
			<-done
		}
	}
	t0 := time.Now()
	done := make(chan struct{})
	go func() { link(n); close(done) }()
	<-done
	return time.Since(t0)
}

func mutexCreate(n int) time.Duration {
	t0 := time.Now()
	for range n {
		sink.Store(new(sync.Mutex))
	}
	return time.Since(t0)
}

// mutexLock times locking n free mutexes (lock) or unlocking n held ones.
var mutexes []sync.Mutex

// The mutexes are made once, so that no measurement allocates.
func mutexLock(n int, lock bool) time.Duration {
	if len(mutexes) < n {
		mutexes = make([]sync.Mutex, n)
	}
	ms := mutexes[:n]
	if !lock {
		for i := range ms {
			ms[i].Lock()
		}
	}
	t0 := time.Now()
	if lock {
		for i := range ms {
			ms[i].Lock()
		}
	} else {
		for i := range ms {
			ms[i].Unlock()
		}
	}
	d := time.Since(t0)
	if lock {
		for i := range ms {
			ms[i].Unlock()
		}
	}
	return d
}

// wakers are n goroutines or locked OS threads blocked until the generation
// changes; wakeAll changes it, wakes them all and waits until each ran.
type wakers struct {
	n        int
	osThread bool
	gen      atomic.Uint32 // futex word (os-thread) or guarded by mu
	mu       sync.Mutex
	cond     *sync.Cond
	ready    atomic.Int64 // waiters back at the wait
	acks     atomic.Int64
	done     chan struct{}
	wg       sync.WaitGroup
	closing  atomic.Bool
}

func newWakers(n int, osThread bool) *wakers {
	w := &wakers{n: n, osThread: osThread, done: make(chan struct{}, 1)}
	w.cond = sync.NewCond(&w.mu)
	for range n {
		w.wg.Add(1)
		go w.wait()
	}
	return w
}

func (w *wakers) wait() {
	defer w.wg.Done()
	if w.osThread {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
	}
	for {
		seen := w.gen.Load()
		w.ready.Add(1)
		if w.osThread {
			for w.gen.Load() == seen {
				futexWait(&w.gen, seen)
			}
		} else {
			w.mu.Lock()
			for w.gen.Load() == seen {
				w.cond.Wait()
			}
			w.mu.Unlock()
		}
		if w.closing.Load() {
			return
		}
		if w.acks.Add(1) == int64(w.n) {
			w.done <- struct{}{}
		}
	}
}

// wakeAll wakes every waiter once and returns how long until the last ran.
func (w *wakers) wakeAll() time.Duration {
	for w.ready.Load() < int64(w.n) {
		runtime.Gosched()
	}
	// The counter says each waiter is about to wait; give the last ones
	// time to reach the futex or the condition.
	time.Sleep(50 * time.Microsecond)
	w.ready.Store(0)
	w.acks.Store(0)
	t0 := time.Now()
	w.bump()
	<-w.done
	return time.Since(t0)
}

func (w *wakers) bump() {
	if w.osThread {
		w.gen.Add(1)
		futexWakeAll(&w.gen)
		return
	}
	w.mu.Lock()
	w.gen.Add(1)
	w.cond.Broadcast()
	w.mu.Unlock()
}

func (w *wakers) close() {
	for w.ready.Load() < int64(w.n) {
		runtime.Gosched()
	}
	w.closing.Store(true)
	w.bump()
	w.wg.Wait()
}

const (
	futexWaitPrivate = 128 // FUTEX_WAIT | FUTEX_PRIVATE_FLAG
	futexWakePrivate = 129 // FUTEX_WAKE | FUTEX_PRIVATE_FLAG
)

// futexWait blocks the OS thread while *addr == val (futex(2)); the
// runtime sees a blocking system call and hands the thread's P on.
func futexWait(addr *atomic.Uint32, val uint32) {
	unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWaitPrivate, uintptr(val), 0, 0, 0)
}

func futexWakeAll(addr *atomic.Uint32) {
	unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWakePrivate, uintptr(1<<31-1), 0, 0, 0)
}

// threadRatios prints Go/C for each operation and setting where both exist.
func (e *env) threadRatios() {
	type key struct{ op, setting string }
	c := map[key]Row{}
	for _, r := range e.rows {
		if r.Test == "threads" && r.Impl == "c-pthread" {
			c[key{r.Case, r.Setting}] = r
		}
	}
	if len(c) == 0 {
		return
	}
	fmt.Fprintf(e.out, "\nGo / C (time ratio of the means, and of the medians; above 1: Go slower), rows accepted by both only:\n")
	tb := newRatioTable("case", "impl", "setting")
	tb.t.SetVerb("ratio", "%.3g").SetVerb("median ratio", "%.3g")
	for _, r := range e.rows {
		cr, ok := c[key{r.Case, r.Setting}]
		if r.Test != "threads" || r.Impl == "c-pthread" || !ok || !r.Res.OK() || !cr.Res.OK() {
			continue
		}
		tb.add(r.Seconds()/cr.Seconds(), r.Median()/cr.Median(), r.Case, r.Impl, r.Setting)
	}
	tb.write(e.out)
}
