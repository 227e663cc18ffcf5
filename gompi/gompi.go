// Package gompi is a message-passing runtime with MPI semantics, in pure Go.
//
// A job is a set of ranks that exchange messages. Started by golaunch, each
// rank is an operating-system process; ranks on one host talk through a
// shared-memory segment. A program run on its own is a world of one rank, so
// every program also runs alone. For tests and teaching, Run starts n ranks
// as goroutines of one process, with the same semantics.
//
//	func main() {
//		if err := gompi.Init(); err != nil { log.Fatal(err) }
//		defer gompi.Finalize()
//		world := gompi.World()
//		fmt.Println("rank", world.Rank(), "of", world.Size())
//	}
//
// # Messages
//
// Point-to-point calls follow MPI: a message is matched by (communicator,
// source, tag); AnySource and AnyTag match any; messages between one pair on
// one communicator are never overtaken by later ones; a message that arrives
// before its receive is kept until received. Methods of Comm move byte
// slices; the generic functions (Send, Recv, Bcast, Allreduce, ...) move
// slices of any fixed-size element type without copying.
//
// # Buffers
//
// A blocking send returns when its buffer may be reused; a blocking receive
// returns with the message in its buffer. For a nonblocking call the buffer
// belongs to gompi until the request completes (Wait, or Test reporting
// true): do not write a send buffer or read a receive buffer before then.
//
// # Goroutines
//
// Every function and method may be called from several goroutines at once
// (MPI_THREAD_MULTIPLE). Matching order between goroutines of one rank is
// the order in which their calls happen to enter the runtime.
//
// # Errors
//
// Every error is an *Error wrapping one of the classes ErrTruncate, ErrRank,
// ErrTag, ErrComm, ErrPeerLost, ErrTimeout, ErrNotSupported, ErrArg,
// ErrRequest, ErrBuffer, ErrAborted, ErrMismatch, ErrInternal, and for Init
// ErrEnvironment, ErrLauncherUnreachable, ErrSecretRefused, ErrSharedMemory;
// test them with errors.Is. errors.As gives the *Error: the operation, rank,
// peer, tag, sizes of a truncated message, and the Cause below it (which
// errors.As reaches too). Bad arguments never panic and never disturb other
// messages.
package gompi

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"sync"

	"github.com/gompi/gompi/gompi/internal/backend"
	"github.com/gompi/gompi/gompi/internal/base"
	"github.com/gompi/gompi/internal/jobenv"
)

// rank is the per-rank state above the engine: one per process, or one per
// goroutine rank under Run.
type rank struct {
	proc    *backend.Proc
	world   *Comm
	bsend   bsendBuffer
	inRun   bool
	abortCb func(code int) // in-process: how Abort stops this rank
	trace   *rankWriter    // this rank's trace file, when tracing is on
	cfg     config         // the environment's settings, read at Init or Run
}

var global struct {
	mu        sync.Mutex
	r         *rank
	job       jobenv.Job
	finalized bool
}

// Init starts this process's rank. Under golaunch it joins the job; run any
// other way, the process is a world of one rank. Calling Init again is a
// no-op.
func Init() error {
	if runWorld() != nil {
		return nil // a rank of Run: already initialized
	}
	global.mu.Lock()
	defer global.mu.Unlock()
	if global.r != nil {
		return nil
	}
	if global.finalized {
		return base.New("Init", base.ErrArg, "gompi was already finalized", "Init may be called only once per process")
	}
	cfg := configFromEnv()
	if err := applyTimer(cfg.timer); err != nil {
		return err
	}
	p, job, err := backend.Init()
	if err != nil {
		return initErr(err)
	}
	r := &rank{proc: p, cfg: cfg}
	r.world = newComm(r, p.World())
	global.r, global.job = r, job
	if path := cfg.cpuProfile; path != "" {
		if err := startProfile(fmt.Sprintf("%s.%d", path, p.Rank())); err != nil {
			return base.New("Init", base.ErrArg, err.Error(), "unset "+jobenv.CPUProfile+" or give a writable path")
		}
	}
	if err := traceStart(r, job.Host); err != nil {
		return err
	}
	emitInit(r.world)
	return nil
}

// initHints say what to do about each class of Init failure.
var initHints = map[error]string{
	base.ErrEnvironment:         "start the program with golaunch (or on its own, as one rank) without changing the GOMPI_ variables golaunch sets",
	base.ErrLauncherUnreachable: "golaunch (its rendezvous store) or a peer could not be reached: check that golaunch still runs and that the hosts reach each other",
	base.ErrSecretRefused:       "the store or a peer refused this rank's proof of the job secret: do not mix ranks of different golaunch runs",
	base.ErrSharedMemory:        "shared memory (memfd, /dev/shm) is not available or full here: check its size and limits",
	base.ErrInternal:            "",
}

// initErr gives a failure of the backend's Init its class, keeping the
// cause for errors.As.
func initErr(err error) error {
	class := base.ClassOf(err, base.ErrEnvironment, base.ErrLauncherUnreachable, base.ErrSecretRefused, base.ErrSharedMemory)
	if class == nil {
		class = base.ErrInternal
	}
	return &base.Error{Op: "Init", Rank: -1, Peer: -1, Tag: -1, Err: class, Cause: err, Hint: initHints[class]}
}

var profile *os.File

func startProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return err
	}
	profile = f
	return nil
}

// Initialized reports whether Init has been called (and Finalize not yet).
func Initialized() bool {
	if runWorld() != nil {
		return true
	}
	global.mu.Lock()
	defer global.mu.Unlock()
	return global.r != nil
}

// Finalize ends this process's part in the job. Buffered sends still in
// flight complete first. Peers still waiting on this rank afterwards get
// ErrPeerLost. Messages this rank sent stay deliverable.
func Finalize() error {
	if runWorld() != nil {
		return nil // a rank of Run: Run finishes it when fn returns
	}
	global.mu.Lock()
	r := global.r
	global.r = nil
	global.finalized = r != nil || global.finalized
	global.mu.Unlock()
	if r == nil {
		return nil
	}
	emitFinalize(r.world)
	terr := traceStop(r)
	if profile != nil {
		pprof.StopCPUProfile()
		profile.Close()
		profile = nil
	}
	_, err := r.bsend.detach(r.world)
	stopWindows(r)
	pushSettle(r) // contributions to pushed gathering calls read (shmcoll_pushg.go)
	r.proc.Close()
	if err == nil {
		err = terr
	}
	return err
}

// World returns the communicator of all ranks of the job, or nil before Init.
// Under Run, called from the goroutine Run started for a rank, it returns
// that rank's world (the Comm passed to fn); from other goroutines of the
// rank, pass that Comm along instead.
func World() *Comm {
	global.mu.Lock()
	r := global.r
	global.mu.Unlock()
	if r != nil {
		return r.world
	}
	return runWorld()
}

// Host returns the name of the host this rank runs on, as golaunch knows it.
func Host() string {
	global.mu.Lock()
	h := global.job.Host
	global.mu.Unlock()
	if h == "" {
		h, _ = os.Hostname()
	}
	return h
}

// Abort stops every rank of the job: this process exits with code, and
// golaunch stops the others. Use it when a rank cannot go on and its peers
// would wait for it forever.
func Abort(code int) {
	if w := World(); w != nil {
		w.Abort(code)
	}
	os.Exit(code)
}

// Abort stops every rank of the job, as the package-level Abort. Under Run it
// stops the calling rank's goroutine (Run then returns an error wrapping
// ErrAborted) and makes every blocking call of the other ranks fail.
func (c *Comm) Abort(code int) {
	if c == nil {
		os.Exit(code)
	}
	c.r.proc.Abort(code)
	if c.r.inRun {
		c.r.abortCb(code)
		runtime.Goexit()
	}
	os.Exit(code)
}

// Run runs fn as n ranks, each a goroutine of this process with its own
// world communicator, and returns when all have returned: nil, or the
// errors of the ranks that failed (joined; each says its rank). A rank that
// returns leaves the job; peers still waiting on it get ErrPeerLost. It is
// the in-process mode, for tests and teaching: the same semantics as ranks
// started by golaunch. Inside fn, World returns the rank's world and Init
// and Finalize do nothing, so a main written for golaunch runs as fn.
func Run(n int, fn func(world *Comm) error) error {
	return RunContext(context.Background(), n, fn)
}

// RunContext is Run with a context: when ctx is done, every blocking call of
// every rank fails (ErrTimeout after a deadline, ErrAborted otherwise).
//
// Built with -tags mpi, Run runs fn once per MPI process instead: started
// by mpirun -n n, each process runs fn as its rank of the MPI world (Run
// calls Init if need be; the program calls Finalize), and Run returns once
// every rank's fn has returned (a barrier). A job of another size than n
// gets ErrArg. MPI calls cannot be interrupted: when ctx ends first, the job
// is aborted (MPI_Abort).
func RunContext(ctx context.Context, n int, fn func(world *Comm) error) error {
	if backend.Name != "go" {
		return runMPI(ctx, n, fn)
	}
	cfg := configFromEnv()
	return backend.RunLocal(ctx, n, func(p *backend.Proc) error {
		r := &rank{proc: p, inRun: true, cfg: cfg}
		r.abortCb = func(code int) { p.SetAbortExit(code) }
		r.world = newComm(r, p.World())
		defer enterRun(r.world)()
		if err := traceStart(r, ""); err != nil {
			return err
		}
		emitInit(r.world)
		err := fn(r.world)
		if _, derr := r.bsend.detach(r.world); err == nil {
			err = derr
		}
		stopWindows(r)
		pushSettle(r) // contributions to pushed gathering calls read (shmcoll_pushg.go)
		emitFinalize(r.world)
		if terr := traceStop(r); err == nil {
			err = terr
		}
		return err
	})
}

// runMPI is Run under the MPI backend: this process is one of the n ranks.
func runMPI(ctx context.Context, n int, fn func(world *Comm) error) error {
	if err := Init(); err != nil {
		return err
	}
	w := World()
	if w.Size() != n {
		return base.New("Run", base.ErrArg,
			fmt.Sprintf("Run(%d) in an MPI job of %d processes: under -tags mpi each rank is a process", n, w.Size()),
			fmt.Sprintf("start the program with mpirun -n %d, or build without -tags mpi to run the ranks as goroutines", n))
	}
	finished := make(chan struct{})
	defer close(finished)
	go func() {
		select {
		case <-ctx.Done():
			fmt.Fprintf(os.Stderr, "gompi: Run on rank %d: %v before the ranks returned; aborting the MPI job (MPI calls cannot be interrupted)\n", w.Rank(), ctx.Err())
			w.Abort(1)
		case <-finished:
		}
	}()
	err := fn(w)
	if berr := w.Barrier(); err == nil {
		err = berr
	}
	return err
}
