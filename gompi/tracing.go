package gompi

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/gompi/gompi/gompi/internal/backend"
	"github.com/gompi/gompi/gompi/internal/base"
	"github.com/gompi/gompi/internal/jobenv"
	"github.com/gompi/gompi/rdtsc"
	"github.com/gompi/gompi/sync/clock/pingpong"
	"github.com/gompi/gompi/trace"
)

// The built-in recorder: with GOMPI_TRACE=DIR (golaunch --trace DIR) every
// rank writes DIR/rank-NNNNN.gtr through package trace. It is an ordinary
// Tracer attached with SetTracer; this file adapts Events to trace.Records
// (world ranks, communicator ids, request ids, call sites).

// recorder is the process's Tracer while tracing is on. Ranks of one process
// (Run) share it; each has its own trace.Writer.
type recorder struct {
	dir     string
	clk     rdtsc.Clock
	tsc     bool            // clk is the TSC: read with rdtsc.Read and scale
	scale   rdtsc.NanoScale // the TSC's ticks to nanoseconds, when tsc
	interp  *interpClock    // when clk is the monotonic clock read through the TSC
	other   rdtsc.Clock     // clk when it is neither the TSC nor the monotonic clock
	base    time.Time       // the monotonic clock's zero
	strs    *trace.Strings
	sites   siteCache
	mu      sync.Mutex
	writers atomic.Pointer[[]*rankWriter] // copy on write; index in a token
}

// rankWriter is one rank's file, and what End needs of each open call.
type rankWriter struct {
	w     *trace.Writer
	comms []*Comm // by slot: the communicator of the open call (status sources)
	index uint32
	rank  int
	world *Comm
	host  string
	rec   *recorder
}

var (
	recMu  sync.Mutex
	theRec *recorder
)

// traceStart switches tracing on for the rank of world if GOMPI_TRACE is
// set: it makes the process's recorder (once), opens the rank's file and
// measures the rank's clock against rank 0's.
//
// host is the host name the launcher gave ("" for none): Init holds the
// lock Host takes.
func traceStart(r *rank, host string) error {
	dir := r.cfg.trace
	if dir == "" {
		return nil
	}
	rec, err := theRecorder(dir)
	if err != nil {
		return err
	}
	world := r.world
	if host == "" {
		host, _ = os.Hostname()
	}
	info := map[string]string{"host": host, "clock": rec.clockName(), "backend": backend.Name,
		"command": strings.Join(os.Args, " "), "start": time.Now().UTC().Format(time.RFC3339Nano)}
	w, err := trace.Create(trace.RankFile(dir, world.Rank()), world.Rank(), world.Size(), info, routineNames(), rec.strs, trace.WriterOptions{})
	if err != nil {
		return base.New("Init", base.ErrArg, err.Error(), "give "+jobenv.Trace+" a writable directory")
	}
	rw := &rankWriter{w: w, comms: make([]*Comm, 1024), rank: world.Rank(), world: world, host: host, rec: rec}
	rec.mu.Lock()
	old := rec.writers.Load()
	var ws []*rankWriter
	if old != nil {
		ws = append(ws, *old...)
	}
	rw.index = uint32(len(ws))
	ws = append(ws, rw)
	rec.writers.Store(&ws)
	rec.mu.Unlock()
	r.trace = rw
	rec.syncClock(rw, "init")
	SetTracer(rec)
	return nil
}

// traceStop measures the clock again, closes the rank's file and, on rank
// 0, writes the job's manifest.
func traceStop(r *rank) error {
	rw := r.trace
	if rw == nil {
		return nil
	}
	rec := rw.rec
	hosts := rec.syncClock(rw, "finalize")
	err := rw.w.Close()
	if rw.rank == 0 {
		m := trace.Manifest{Ranks: rw.world.Size(), Hosts: hosts, Clock: rec.clockName(), Start: time.Now().UTC(),
			Command: os.Args, Backend: backend.Name}
		if merr := trace.WriteManifest(rec.dir, m); err == nil {
			err = merr
		}
	}
	if err != nil {
		return base.New("Finalize", base.ErrArg, err.Error(), "check the trace directory "+rec.dir)
	}
	return nil
}

func theRecorder(dir string) (*recorder, error) {
	recMu.Lock()
	defer recMu.Unlock()
	if theRec != nil && theRec.dir == dir {
		return theRec, nil
	}
	if _, err := trace.CheckDir(dir); err != nil {
		return nil, base.New("Init", base.ErrArg, err.Error(), "give "+jobenv.Trace+" a writable directory")
	}
	theRec = &recorder{dir: dir, strs: trace.NewStrings(), base: time.Now()}
	theRec.chooseClock()
	return theRec, nil
}

// chooseClock sets the clock of the timestamps: the TSC where it can be
// trusted or where GOMPI_TIMER=tsc asks for it (a virtual machine whose
// kernel keeps kvm-clock often has a good TSC, and the trace's clock
// alignment corrects rates anyway); else the monotonic clock, read through
// the TSC between anchors (interpClock) where the counter is invariant,
// unless GOMPI_TIMER=monotonic asks for a system clock reading every time.
func (rec *recorder) chooseClock() {
	tr := rdtsc.CheckTrust(0)
	timer := os.Getenv(jobenv.Timer)
	if tr.OK() || timer == "tsc" {
		if c, err := rdtsc.TSC(); err == nil {
			rec.setClock(c)
			return
		}
	}
	rec.setClock(rdtsc.Monotonic())
	if tr.Invariant && timer != "monotonic" {
		rec.interp = newInterpClock(rec.base)
	}
}

// clockName names the clock of the timestamps for the files and the
// manifest: "tsc", "monotonic", or "monotonic/tsc" (interpClock).
func (rec *recorder) clockName() string {
	if rec.interp != nil {
		return "monotonic/tsc"
	}
	return rec.clk.Name()
}

func (rec *recorder) setClock(c rdtsc.Clock) {
	rec.clk, rec.tsc, rec.interp, rec.other = c, false, nil, nil
	switch c := c.(type) {
	case *rdtsc.TSCClock:
		rec.tsc, rec.scale = true, c.NanoScale()
	case rdtsc.MonotonicClock:
	default:
		rec.other = c
	}
}

// now reads the trace clock in nanoseconds, the unit of records: the TSC
// directly (RDTSC without a fence, and an integer multiply: half the cost of
// a fenced read, and an event's times may move by the few dozen cycles the
// processor lets an unfenced read drift), or the runtime's monotonic clock
// (the vDSO) or that clock through the TSC (interpClock), without the
// interface call and float conversions of rdtsc.Clock.Now.
func (rec *recorder) now() int64 {
	if rec.tsc {
		return rec.scale.Nanos(rdtsc.Read())
	}
	if rec.interp != nil {
		return rec.interp.now()
	}
	if rec.other != nil {
		return int64(rec.other.Now() * 1e9)
	}
	return int64(time.Since(rec.base))
}

// syncClock measures every rank's offset to rank 0 (rank 0 serves ranks 1,
// 2, … in turn, the linear algorithm of package sync/clock) over a duplicate
// of the world that is not traced, and records it. It also gathers the host
// names on rank 0, which it returns there.
func (rec *recorder) syncClock(rw *rankWriter, phase string) []string {
	c := rw.world.c
	d, err := c.Dup()
	if err != nil {
		return nil
	}
	defer d.Free()
	l := engineLink{d}
	clk := nanoClock{rec}
	rule := pingpong.Rule{StopAfter: 50, MaxExchanges: 2000}
	var hosts []string
	if d.Rank() == 0 {
		hosts = append(hosts, rw.host)
		rw.w.Clock(trace.ClockSample{Phase: phase, Local: rec.now()})
		for i := 1; i < d.Size(); i++ {
			if pingpong.Server(l, i, clk) != nil {
				return nil
			}
			b := make([]byte, 256)
			st, err := d.Recv(b, i, 3)
			if err != nil {
				return nil
			}
			hosts = append(hosts, string(b[:st.Count]))
		}
		return hosts
	}
	s, err := pingpong.Client(l, 0, clk, rule)
	if err != nil {
		return nil
	}
	rw.w.Clock(trace.ClockSample{Phase: phase, Local: int64(s.Local), Offset: s.Offset, Err: s.Err})
	_ = d.Send([]byte(rw.host), 0, 3, backend.ModeStandard)
	return nil
}

// nanoClock reads the recorder's clock in nanoseconds, the unit of records.
type nanoClock struct{ rec *recorder }

func (c nanoClock) Now() float64 { return float64(c.rec.now()) }

// engineLink runs the clock exchange on the engine, below the tracer.
type engineLink struct{ c *backend.Comm }

func (l engineLink) Send(b []byte, peer, tag int) error {
	return l.c.Send(b, peer, tag, backend.ModeStandard)
}

func (l engineLink) Recv(b []byte, peer, tag int) error {
	_, err := l.c.Recv(b, peer, tag)
	return err
}

// Begin opens a record for the call: who, with whom, where from, when. It
// serves the Tracer interface; gompi's own calls take the faster path of
// open and close, with the record on the caller's stack.
func (rec *recorder) Begin(ev Event) uint64 {
	c := ev.Comm
	if c == nil || c.r.trace == nil {
		return 0
	}
	rw := c.r.trace
	slot, r := rw.w.Begin()
	if slot == 0 {
		return 0
	}
	rw.comms[slot-1] = c
	*r = trace.Record{}
	rec.fill(rw, r, &ev)
	var pcs [8]uintptr
	n := callers(pcs[:])
	r.Site = rec.sites.site(rec.strs, pcs[:n], 0)
	r.Start = rec.now()
	return uint64(rw.index)<<32 | uint64(slot)
}

// End closes the record: end time, error, status of a receive.
func (rec *recorder) End(tok uint64, st Status, err error) {
	if tok == 0 {
		return
	}
	end := rec.now()
	rw := (*rec.writers.Load())[tok>>32]
	slot := uint32(tok)
	finish(rw.w.Slot(slot), end, rw.comms[slot-1], st, err)
	rw.comms[slot-1] = nil
	rw.w.Commit(slot)
}

// openCall is a call in progress on the fast path: its record lives on the
// caller's stack until the call returns, then is copied into the rank's
// buffer (one lock per event, no slot to take and give back).
type openCall struct {
	r  trace.Record
	c  *Comm
	rw *rankWriter // nil: not recorded
}

// open starts the record of a call (the fast path of Begin). It is not
// inlined so that the first frame of the call-site walk is its own.
//
//go:noinline
func (rec *recorder) open(oc *openCall, ev *Event) {
	c := ev.Comm
	if c == nil || c.r.trace == nil {
		return
	}
	oc.c, oc.rw = c, c.r.trace
	rec.fill(oc.rw, &oc.r, ev)
	var pcs [8]uintptr
	n := callers(pcs[:])
	oc.r.Site = rec.sites.site(rec.strs, pcs[:n], 1)
	oc.r.Start = rec.now()
}

// close ends the record and writes it (the fast path of End).
func (rec *recorder) close(oc *openCall, st Status, err error) {
	if oc.rw == nil {
		return
	}
	finish(&oc.r, rec.now(), oc.c, st, err)
	oc.rw.w.Write(&oc.r)
}

// fill fills the record of a call as it begins, but for its call site and
// start time, which its callers take last, so that the recorder's own work
// is outside the call. r is zero.
func (rec *recorder) fill(rw *rankWriter, r *trace.Record, ev *Event) {
	c := ev.Comm
	if !c.inTrace.Load() {
		defineComm(rw, c)
	}
	r.Routine, r.Comm, r.Peer = uint8(ev.Routine), c.tid, peerOf(c, ev.Peer, ev.Routine)
	r.Tag, r.Bytes, r.StSource, r.StTag = int32(ev.Tag), int64(ev.Bytes), trace.PeerNone, trace.TagAny
	if ev.Req != nil {
		r.Req = reqID(ev.Req)
	}
}

// defineComm writes the members of c into the rank's trace, the first time
// the rank records a call on c (whichever call made c: Dup, Split, a window's
// communicator...), so that exporters put messages on their communicator.
func defineComm(rw *rankWriter, c *Comm) {
	if !c.inTrace.CompareAndSwap(false, true) || c.tid == 1 {
		return
	}
	m := make([]int32, c.Size())
	for i := range m {
		m[i] = int32(c.WorldRank(i))
	}
	rw.w.Comm(c.tid, m)
}

// finish completes the record of a call of c that ended at end. An end
// before the start (the clocks of two CPUs, or two anchors of interpClock,
// disagreeing by a few ns over a call shorter than that) is the start.
func finish(r *trace.Record, end int64, c *Comm, st Status, err error) {
	r.End = max(end, r.Start)
	if err != nil {
		r.Flags |= trace.FlagError
	}
	if st.Cancelled {
		r.Flags |= trace.FlagCancelled
	}
	if st.Source >= 0 {
		r.StSource, r.StTag, r.StCount = int32(c.WorldRank(st.Source)), int32(st.Tag), int64(st.Count)
	} else if st.Source == ProcNull {
		r.StSource = trace.PeerNull // no message (ProcNull, or not a receive)
	}
}

// made tells the record of a nonblocking call which request it made (the
// Tracer path; the fast path sets openCall.r.Req).
func (rec *recorder) made(tok uint64, req *Request) {
	if tok == 0 || req == nil {
		return
	}
	rw := (*rec.writers.Load())[tok>>32]
	rw.w.Slot(uint32(tok)).Req = reqID(req)
}

// completed marks a Test's record: the request completed in it.
func (rec *recorder) completed(tok uint64) {
	if tok == 0 {
		return
	}
	rw := (*rec.writers.Load())[tok>>32]
	rw.w.Slot(uint32(tok)).Flags |= trace.FlagCompleted
}

// reqID names a request for the trace: its address, unique while the
// request is in use (a request reused later is a new post in the trace).
func reqID(r *Request) uint64 { return uint64(uintptr(unsafe.Pointer(r))) }

// peerOf converts a rank of c to a world rank (wildcards and ProcNull to the
// trace's special values).
func peerOf(c *Comm, peer int, op Routine) int32 {
	switch {
	case peer >= 0 && peer < c.Size():
		return int32(c.WorldRank(peer))
	case peer == AnySource && isReceive(op):
		return trace.PeerAny
	case peer == ProcNull:
		return trace.PeerNull
	}
	return trace.PeerNone
}

func isReceive(op Routine) bool {
	switch op {
	case RoutineRecv, RoutineIrecv, RoutineProbe, RoutineIprobe, RoutineRecvInit, RoutineSendrecv,
		RoutineMprobe, RoutineImprobe, RoutineSendrecvReplace:
		return true
	}
	return false
}

// siteCache resolves program counters to call sites once each: a
// direct-mapped table read without locks; a miss resolves the PC (its
// inlined frames too) and interns "function file:line" of the first frame
// outside gompi.
type siteCache struct {
	tab [4096]atomic.Pointer[siteEntry]
}

type siteEntry struct {
	pc       uintptr
	id       uint32 // string id of the site; 0 when every frame is gompi's own
	internal bool
}

// site returns the call site of the first frame outside gompi, given the
// return addresses pcs of the recorder's frame and its callers (callers'
// result, as many as fit), less the first skip of them, which are known to
// be gompi's own. The user's frame is usually a few up (open, run, sendMode,
// the user); only when pcs are all gompi's own does it walk the whole stack.
func (sc *siteCache) site(strs *trace.Strings, pcs []uintptr, skip int) uint32 {
	if id, ok := sc.first(pcs[skip:], strs); ok {
		return id
	}
	var deep [64]uintptr
	n := callers(deep[:])
	if n <= len(pcs) {
		return 0
	}
	id, _ := sc.first(deep[len(pcs):n], strs)
	return id
}

// first returns the site of the first of pcs that is not gompi's own.
func (sc *siteCache) first(pcs []uintptr, strs *trace.Strings) (uint32, bool) {
	for _, pc := range pcs {
		e := sc.tab[(pc>>2)%uintptr(len(sc.tab))].Load()
		if e == nil || e.pc != pc {
			e = resolveSite(pc, strs)
			sc.tab[(pc>>2)%uintptr(len(sc.tab))].Store(e)
		}
		if !e.internal {
			return e.id, true
		}
	}
	return 0, false
}

func resolveSite(pc uintptr, strs *trace.Strings) *siteEntry {
	frames := runtime.CallersFrames([]uintptr{pc})
	for {
		f, more := frames.Next()
		if f.Function != "" && !internalFrame(f.Function, f.File) {
			return &siteEntry{pc: pc, id: strs.ID(fmt.Sprintf("%s %s:%d", f.Function, f.File, f.Line))}
		}
		if !more {
			return &siteEntry{pc: pc, internal: true}
		}
	}
}

// internalFrame: frames of gompi itself, its engine, its collectives and
// the Go runtime are not call sites; gompi's own tests (files *_test.go)
// call it as a user does, and their lines are.
func internalFrame(fn, file string) bool {
	if strings.HasSuffix(file, "_test.go") {
		return false
	}
	for _, p := range []string{"github.com/gompi/gompi/gompi.", "github.com/gompi/gompi/gompi/internal/",
		"github.com/gompi/gompi/coll.", "github.com/gompi/gompi/coll/", "runtime."} {
		if strings.HasPrefix(fn, p) {
			return true
		}
	}
	return false
}
