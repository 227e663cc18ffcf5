// Package launcher starts the ranks of a job, supervises them and tears the
// job down: what golaunch does. It shares only package jobenv with the
// runtime.
//
// Guarantees: every rank runs in a process group of its own and dies with
// the launcher (PR_SET_PDEATHSIG), so no rank outlives a killed launcher;
// the host's shared segment is a memfd, so no segment outlives the job
// whatever way it ends; when one rank fails, the others are stopped within a
// second and the launcher says which rank failed and how.
package launcher

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gompi/gompi/internal/jobenv"
	"github.com/gompi/gompi/internal/shm"
	"golang.org/x/sys/unix"
)

// Config describes a job.
type Config struct {
	N       int      // number of ranks
	Program string   // path of the executable every rank runs
	Args    []string // its arguments
	Env     []string // extra environment, NAME=VALUE (from -x)

	TagOutput bool
	Timeout   time.Duration // whole job; 0 = none

	// TimestampOutput prefixes every line of output with the time it
	// arrived; OutputFilename DIR also writes each rank's streams to
	// DIR/1/rank.R/stdout and stderr (DIR:nocopy: only there), as Open
	// MPI's --output-filename does. Dir is the ranks' working directory
	// ("": golaunch's).
	TimestampOutput bool
	OutputFilename  string
	Dir             string

	// Bind, if set, pins the calling OS thread to rank's CPUs (ok false: no
	// binding for it). The launcher calls it on a locked thread just before
	// starting the rank, so the rank inherits the binding from its first
	// instruction on, then restores the thread's own mask.
	Bind func(rank int) (ok bool, err error)
	// Oversubscribed is set when ranks outnumber this host's CPUs.
	Oversubscribed bool
	// GOMAXPROCS, when positive, is set in every rank's environment unless
	// the environment already sets it: each rank's Go scheduler and garbage
	// collector then use its share of the CPUs instead of all of them.
	GOMAXPROCS int

	Stdin          *os.File // given to rank 0; nil: /dev/null
	Stdout, Stderr io.Writer
	Log            io.Writer // the launcher's own messages

	// Grace is how long a failing job's ranks get between SIGTERM and
	// SIGKILL.
	Grace time.Duration

	// Transport is "tcp" to make the ranks talk over TCP even on one host
	// (GOMPI_TRANSPORT); "" or "auto" for shared memory within a host.
	Transport string
	// ConnectTimeout bounds each step of connecting: a host's agent to
	// answer, a rank to publish its address, a connection to be made.
	ConnectTimeout time.Duration

	// Several hosts (remote.go): Hosts non-empty runs the job through an
	// agent on each host.
	Hosts       []Host
	MapBy       string   // "slot" (default) or "node"
	LaunchAgent []string // command that runs a command on a host; the host name and the agent command follow
	AgentPath   string   // golaunch's own path on the hosts; default: this executable
}

// Result says how the job ended.
type Result struct {
	ExitCode int    // what golaunch should exit with
	Failure  string // the first failure, in words; "" if none
}

type rankProc struct {
	rank   int
	cmd    *exec.Cmd
	done   bool
	status string // how it ended, in words
	code   int
}

type exit struct {
	rank int
	err  error
}

// Run runs the job to its end. It returns an error only if the job could not
// start; how the ranks ended is in the Result.
func Run(ctx context.Context, cfg Config) (Result, error) {
	if len(cfg.Hosts) > 0 {
		return runHosts(ctx, cfg)
	}
	if cfg.N <= 0 {
		return Result{}, fmt.Errorf("-n must be at least 1, not %d", cfg.N)
	}
	if cfg.Grace == 0 {
		cfg.Grace = 500 * time.Millisecond
	}
	if cfg.Log == nil {
		cfg.Log = os.Stderr
	}
	jobID := newJobID()
	layout, err := shm.NewLayout(cfg.N, shm.DefaultCellsPerRank)
	if err != nil {
		return Result{}, err
	}
	seg, segFile, err := shm.Create(jobID, layout)
	if err != nil {
		return Result{}, err
	}
	defer seg.Close()
	defer segFile.Close()

	host, _ := os.Hostname()
	local := make([]int, cfg.N)
	for i := range local {
		local[i] = i
	}
	out := newOutput(&cfg)
	ranks := make([]*rankProc, cfg.N)
	exits := make(chan exit, cfg.N)
	var pipes []*os.File
	streamsDone := make(chan struct{}, 2*cfg.N)
	streams := 0

	// SIGINT and SIGTERM stop the job cleanly: the ranks are in process
	// groups of their own, so the terminal's Ctrl-C reaches only us.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	pipeClosed := notifyPipeClosed(&cfg)
	defer signal.Stop(pipeClosed)

	var files []*os.File
	var netJob jobenv.Job
	if cfg.Transport == "tcp" && cfg.N > 1 {
		// Ranks talk over TCP: they find each other through a rendezvous
		// store this process keeps, and prove the job secret to it and to
		// each other.
		kv, err := startLocalKV(cfg, jobID, host)
		if err != nil {
			return Result{}, err
		}
		defer kv.close()
		files = []*os.File{kv.secretFile}
		netJob = jobenv.Job{Transport: "tcp", KVS: kv.addr, SecretFD: 4, ConnectTimeout: cfg.ConnectTimeout,
			HostMap: []jobenv.HostRanks{{Name: host, Ranks: local}}}
	}

	started := 0
	var startErr error
	for r := 0; r < cfg.N; r++ {
		job := netJob
		job.Rank, job.Size, job.LocalRank, job.LocalSize, job.LocalRanks = r, cfg.N, r, cfg.N, local
		job.ShmFD, job.JobID, job.Host, job.Oversubscribed = 3, jobID, host, cfg.Oversubscribed
		var stdin *os.File
		if r == 0 {
			stdin = cfg.Stdin
		}
		var cmd *exec.Cmd
		var rpipes []*os.File
		cmd, rpipes, startErr = spawn(&cfg, job, append([]*os.File{segFile}, files...), stdin,
			[2]io.Writer{cfg.Stdout, cfg.Stderr}, out, streamsDone)
		pipes = append(pipes, rpipes...)
		streams += len(rpipes)
		if startErr != nil {
			break
		}
		started++
		ranks[r] = &rankProc{rank: r, cmd: cmd}
		go func(rp *rankProc) { exits <- exit{rp.rank, rp.cmd.Wait()} }(ranks[r])
	}

	var timeout <-chan time.Time
	if cfg.Timeout > 0 {
		t := time.NewTimer(cfg.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	res := Result{}
	var killAt <-chan time.Time
	stopping := false
	failed := -1 // the rank whose end failed the job, if one did
	stop := func(reason string, code int) {
		if res.Failure == "" {
			res.Failure, res.ExitCode = reason, code
		}
		if stopping {
			return
		}
		stopping = true
		signalAll(ranks, syscall.SIGTERM)
		killAt = time.After(cfg.Grace)
	}
	if startErr != nil {
		stop(startErr.Error(), 1)
	}
	for left := started; left > 0; {
		select {
		case e := <-exits:
			left--
			rp := ranks[e.rank]
			st := rp.reap(e.err, seg, e.rank)
			if stopping {
				continue
			}
			if ar, code, aborted := seg.Aborted(); aborted {
				failed = ar
				stop(fmt.Sprintf("rank %d called Abort(%d)", ar, code), nonzero(code))
				continue
			}
			if rp.code != 0 || st == shm.StateRunning {
				failed = e.rank
			}
			switch {
			case rp.code != 0:
				stop(fmt.Sprintf("rank %d (pid %d) %s", e.rank, rp.cmd.Process.Pid, rp.status), rp.code)
			case st == shm.StateRunning:
				stop(fmt.Sprintf("rank %d (pid %d) exited with status 0 without calling Finalize", e.rank, rp.cmd.Process.Pid), 1)
			}
		case <-killAt:
			signalAll(ranks, syscall.SIGKILL)
			killAt = nil
		case <-timeout:
			stop(fmt.Sprintf("the job ran past --timeout %v", cfg.Timeout), 124)
		case s := <-sigs:
			stop(fmt.Sprintf("stopped by %v", s), 128+int(s.(syscall.Signal)))
		case <-pipeClosed:
			if outputClosed(cfg.Stdout, cfg.Stderr) {
				stop("its output was closed (broken pipe)", 128+int(syscall.SIGPIPE))
			}
		case <-ctx.Done():
			stop("cancelled", 1)
		}
	}
	// Ranks are gone; their output may still be in the pipes. Whatever holds
	// a pipe open past the grace period (a rank's own child that escaped its
	// process group) does not hold up the launcher.
	drain := time.After(cfg.Grace + time.Second)
	for i := 0; i < streams; i++ {
		select {
		case <-streamsDone:
		case <-drain:
			i = streams
		}
	}
	for _, p := range pipes {
		p.Close()
	}
	if err := out.closeFiles(); err != nil {
		fmt.Fprintf(cfg.Log, "golaunch: %v\n", err)
	}
	if res.Failure != "" {
		fmt.Fprintf(cfg.Log, "golaunch: %s; %s\n", res.Failure, summary(ranks, started))
		if failed >= 0 {
			out.quote(cfg.Log, failed)
		}
	}
	return res, startErr
}

// startBound starts cmd with the CPU binding of rank: fork inherits the
// affinity of the thread that forks, so the launcher binds a locked thread
// of its own, starts the rank from it, and restores the thread.
func startBound(cmd *exec.Cmd, rank int, cfg Config) error {
	if cfg.Bind == nil {
		return cmd.Start()
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var old unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		fmt.Fprintf(cfg.Log, "golaunch: warning: rank %d not bound: %v\n", rank, err)
		return cmd.Start()
	}
	bound, err := cfg.Bind(rank)
	if err != nil {
		fmt.Fprintf(cfg.Log, "golaunch: warning: rank %d not bound: %v\n", rank, err)
	}
	err = cmd.Start()
	if bound {
		if rerr := unix.SchedSetaffinity(0, &old); rerr != nil {
			// This thread keeps the rank's mask: do not let it run anything else.
			runtime.Goexit()
		}
	}
	return err
}

// spawn starts the rank that job describes, with files as its descriptors
// 3, 4, ...; its stdout and stderr are copied line by line to dst[0] and
// dst[1] by goroutines that signal done when their stream ends. It returns
// the read ends of the output pipes, for the caller to close at the end.
func spawn(cfg *Config, job jobenv.Job, files []*os.File, stdin *os.File, dst [2]io.Writer, out *output, done chan<- struct{}) (*exec.Cmd, []*os.File, error) {
	r := job.Rank
	cmd := exec.Command(cfg.Program, cfg.Args...)
	cmd.Dir = cfg.Dir
	cmd.Env = append(append(os.Environ(), cfg.Env...), job.Env()...)
	if cfg.GOMAXPROCS > 0 && !hasVar(cmd.Env, "GOMAXPROCS") {
		cmd.Env = append(cmd.Env, "GOMAXPROCS="+strconv.Itoa(cfg.GOMAXPROCS))
	}
	cmd.ExtraFiles = files
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if stdin != nil {
		cmd.Stdin = stdin
	}
	var ws, rs []*os.File
	defer func() {
		for _, w := range ws {
			w.Close() // the child holds its own copies
		}
	}()
	for i, name := range []string{"stdout", "stderr"} {
		pr, pw, err := os.Pipe()
		if err != nil {
			return nil, rs, fmt.Errorf("starting rank %d: %w", r, err)
		}
		if i == 0 {
			cmd.Stdout = pw
		} else {
			cmd.Stderr = pw
		}
		ws = append(ws, pw)
		rs = append(rs, pr)
		go func(dst io.Writer, name string) {
			out.copy(dst, pr, r, name)
			done <- struct{}{}
		}(dst[i], name)
	}
	if err := startBound(cmd, job.LocalRank, *cfg); err != nil {
		return nil, rs, fmt.Errorf("starting rank %d (%s): %w", r, cfg.Program, err)
	}
	return cmd, rs, nil
}

// reap records how rp ended, from its Wait error, and returns its state in
// the segment (local index li); a rank that ended without finalizing is
// marked dead there, which tells its peers at once: they see ErrPeerLost.
func (rp *rankProc) reap(err error, seg *shm.Segment, li int) uint32 {
	rp.done = true
	rp.status, rp.code = describe(err)
	st := seg.State(li)
	if st == shm.StateRunning || st == shm.StateNone && rp.code != 0 {
		seg.SetState(li, shm.StateDead)
	}
	return st
}

// signalAll sends sig to the process group of every rank still running.
func signalAll(ranks []*rankProc, sig syscall.Signal) {
	for _, rp := range ranks {
		if rp != nil && !rp.done {
			unix.Kill(-rp.cmd.Process.Pid, sig)
		}
	}
}

func nonzero(code int) int {
	if code == 0 {
		return 1
	}
	return code
}

// describe turns a Wait error into words and an exit code in the shell's
// convention (128+signal for a signal).
func describe(err error) (string, int) {
	if err == nil {
		return "exited with status 0", 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return fmt.Sprintf("was killed by signal %d (%v)", int(ws.Signal()), ws.Signal()), 128 + int(ws.Signal())
		}
		return fmt.Sprintf("exited with status %d", ee.ExitCode()), ee.ExitCode()
	}
	return err.Error(), 1
}

// summary says what became of the other ranks.
func summary(ranks []*rankProc, started int) string {
	var ok, failed, stopped int
	for _, rp := range ranks {
		if rp == nil {
			continue
		}
		switch {
		case rp.code == 0:
			ok++
		case strings.Contains(rp.status, "signal 15") || strings.Contains(rp.status, "signal 9"):
			stopped++
		default:
			failed++
		}
	}
	return fmt.Sprintf("%d of %d ranks finished, %d failed, %d stopped", ok, started, failed, stopped)
}

func hasVar(env []string, name string) bool {
	for _, kv := range env {
		if strings.HasPrefix(kv, name+"=") {
			return true
		}
	}
	return false
}

func newJobID() string {
	var b [6]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
