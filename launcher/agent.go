package launcher

import (
	"encoding/gob"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/gompi/gompi/internal/jobenv"
	"github.com/gompi/gompi/internal/shm"
	"golang.org/x/sys/unix"
)

// golaunch and the agent on each host of a job talk over the agent's stdin
// and stdout (whatever the launch agent connects them through: ssh, ip netns
// exec), as a gob stream of ctlMsg. golaunch sends start, then kill and kv
// answers; the agent sends ready, started, out, exit, kv requests and done.
// The secret travels in start: through the pipe (and ssh's encryption), never
// on a command line or in an environment another user could read.

// ctlMsg is one message between golaunch and an agent.
type ctlMsg struct {
	Kind   string // start kill kvput kvget kvreply ready started out exit error done
	Start  *agentStart
	Rank   int
	Pid    int
	Stream int // out: 1 stdout, 2 stderr
	Data   []byte
	Signal int
	Wait   time.Duration // kvget: how long to wait for the key
	ID     uint64
	Key    string
	Value  string
	OK     bool
	Exit   *rankExit
	Text   string
}

// agentStart is what an agent needs to run its share of a job.
type agentStart struct {
	Secret         []byte
	Program        string
	Args           []string
	Env            []string
	Ranks          []int // world ranks on this host
	Size           int
	JobID          string
	Host           string
	HostMap        []jobenv.HostRanks
	Transport      string
	ConnectTimeout time.Duration
	Grace          time.Duration
	Dir            string // the ranks' working directory (--wdir); "": the agent's
}

// rankExit reports how a rank ended.
type rankExit struct {
	Rank, Pid, Code int
	Status          string
	State           uint32 // its state in the segment when it ended
	Aborted         bool   // the segment says the job aborts
	AbortRank       int
	AbortCode       int
	Stopped         bool // the agent had been told to stop the ranks
}

// agentConn sends messages to the other end, one at a time.
type agentConn struct {
	mu  sync.Mutex
	enc *gob.Encoder
}

func (a *agentConn) send(m ctlMsg) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.enc.Encode(&m)
}

// lineSink turns each line output.copy writes into an out message.
type lineSink struct {
	c            *agentConn
	rank, stream int
}

func (s lineSink) Write(b []byte) (int, error) {
	s.c.send(ctlMsg{Kind: "out", Rank: s.rank, Stream: s.stream, Data: b})
	return len(b), nil
}

// kvRelay is an agent's view of golaunch's store: requests go up the
// control stream, answers come back by id.
type kvRelay struct {
	c       *agentConn
	mu      sync.Mutex
	next    uint64
	waiting map[uint64]chan ctlMsg
}

func (k *kvRelay) Put(key, value string) {
	k.c.send(ctlMsg{Kind: "kvput", Key: key, Value: value})
}

func (k *kvRelay) Get(key string, wait time.Duration) (string, bool) {
	ch := make(chan ctlMsg, 1)
	k.mu.Lock()
	k.next++
	id := k.next
	k.waiting[id] = ch
	k.mu.Unlock()
	defer func() {
		k.mu.Lock()
		delete(k.waiting, id)
		k.mu.Unlock()
	}()
	k.c.send(ctlMsg{Kind: "kvget", ID: id, Key: key, Wait: wait})
	t := time.NewTimer(wait + 5*time.Second)
	defer t.Stop()
	select {
	case m := <-ch:
		return m.Value, m.OK
	case <-t.C:
		return "", false
	}
}

func (k *kvRelay) answer(m ctlMsg) {
	k.mu.Lock()
	ch := k.waiting[m.ID]
	k.mu.Unlock()
	if ch != nil {
		ch <- m
	}
}

// Agent runs one host's part of a job for a golaunch elsewhere, talking to
// it over in and out: it makes the host's segment, starts and supervises the
// ranks, sends their output and exits up, and kills them when told to or
// when golaunch goes away (in ends). It returns the process's exit code.
func Agent(in io.Reader, out io.Writer, log io.Writer) int {
	dec := gob.NewDecoder(in)
	c := &agentConn{enc: gob.NewEncoder(out)}
	var m ctlMsg
	if err := dec.Decode(&m); err != nil || m.Kind != "start" || m.Start == nil {
		fmt.Fprintf(log, "golaunch --agent: no job from golaunch on stdin (%v); this mode is for golaunch itself\n", err)
		return 2
	}
	st := m.Start
	fail := func(err error) int {
		c.send(ctlMsg{Kind: "error", Text: err.Error()})
		return 1
	}
	n := len(st.Ranks)
	layout, err := shm.NewLayout(n, shm.DefaultCellsPerRank)
	if err != nil {
		return fail(err)
	}
	seg, segFile, err := shm.Create(st.JobID, layout)
	if err != nil {
		return fail(err)
	}
	defer seg.Close()
	defer segFile.Close()
	relay := &kvRelay{c: c, waiting: map[uint64]chan ctlMsg{}}
	kv, err := serveKV(st.Secret, relay, st.ConnectTimeout, func(format string, args ...any) {
		fmt.Fprintf(log, "golaunch agent on %s: "+format+"\n", append([]any{st.Host}, args...)...)
	})
	if err != nil {
		return fail(err)
	}
	defer kv.close()

	cpus := UsableCPUs()
	cfg := &Config{Program: st.Program, Args: st.Args, Env: st.Env, Dir: st.Dir, Log: log, GOMAXPROCS: max(1, cpus/n)}
	if hasVar(os.Environ(), "GOMAXPROCS") {
		cfg.GOMAXPROCS = 0
	}
	ranks := make([]*rankProc, n)
	type localExit struct {
		li  int
		err error
	}
	exits := make(chan localExit, n)
	streamsDone := make(chan struct{}, 2*n)
	var pipes []*os.File
	stopped := false
	sent := map[syscall.Signal]bool{} // the signals killAll sent
	var stopMu sync.Mutex
	killAll := func(sig syscall.Signal) {
		stopMu.Lock()
		stopped = true
		sent[sig] = true
		stopMu.Unlock()
		signalAll(ranks, sig)
	}
	started := 0
	for li, w := range st.Ranks {
		job := jobenv.Job{Rank: w, Size: st.Size, LocalRank: li, LocalSize: n, LocalRanks: st.Ranks,
			ShmFD: 3, JobID: st.JobID, Host: st.Host, Oversubscribed: n > cpus,
			Transport: st.Transport, KVS: kv.addr, SecretFD: 4, HostMap: st.HostMap, ConnectTimeout: st.ConnectTimeout}
		cmd, rs, err := spawn(cfg, job, []*os.File{segFile, kv.secretFile}, nil,
			[2]io.Writer{lineSink{c, w, 1}, lineSink{c, w, 2}}, &output{}, streamsDone)
		pipes = append(pipes, rs...)
		if err != nil {
			c.send(ctlMsg{Kind: "error", Text: err.Error()})
			killAll(syscall.SIGKILL)
			break
		}
		ranks[li] = &rankProc{rank: w, cmd: cmd}
		started++
		c.send(ctlMsg{Kind: "started", Rank: w, Pid: cmd.Process.Pid})
		go func(li int) { exits <- localExit{li, cmd.Wait()} }(li)
	}

	// Commands from golaunch; the end of the stream means golaunch is gone.
	gone := make(chan struct{})
	go func() {
		defer close(gone)
		for {
			var m ctlMsg
			if err := dec.Decode(&m); err != nil {
				return
			}
			switch m.Kind {
			case "kill":
				killAll(syscall.Signal(m.Signal))
			case "kvreply":
				relay.answer(m)
			}
		}
	}()
	for left := started; left > 0; {
		select {
		case e := <-exits:
			left--
			rp := ranks[e.li]
			st := rp.reap(e.err, seg, e.li)
			ar, ac, aborted := seg.Aborted()
			stopMu.Lock()
			// A rank killed by a signal this agent did not send was not
			// stopped by it, even if a stop came in meanwhile: a rank
			// killed from outside is the failure to report, not the
			// consequences its peers met first.
			wasStopped := stopped && !(rp.code > 128 && !sent[syscall.Signal(rp.code-128)])
			stopMu.Unlock()
			c.send(ctlMsg{Kind: "exit", Exit: &rankExit{Rank: rp.rank, Pid: rp.cmd.Process.Pid, Code: rp.code,
				Status: rp.status, State: st, Aborted: aborted, AbortRank: ar, AbortCode: ac, Stopped: wasStopped}})
		case <-gone:
			// golaunch is gone: nothing must be left behind.
			killAll(syscall.SIGKILL)
			gone = nil
		}
	}
	drain := time.After(time.Second)
	for i := 0; i < len(pipes); i++ {
		select {
		case <-streamsDone:
		case <-drain:
			i = len(pipes)
		}
	}
	for _, p := range pipes {
		p.Close()
	}
	c.send(ctlMsg{Kind: "done"})
	return 0
}

// UsableCPUs counts the CPUs this process may run on.
func UsableCPUs() int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err == nil && set.Count() > 0 {
		return set.Count()
	}
	return runtime.NumCPU()
}

// agentCommand is the command that starts the agent for host h.
func agentCommand(cfg *Config, h string) (*exec.Cmd, error) {
	self := cfg.AgentPath
	if self == "" {
		var err error
		if self, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("finding golaunch's own path for the agents: %w", err)
		}
	}
	var argv []string
	if isThisHost(h) {
		argv = []string{self, "--agent"}
	} else {
		if len(cfg.LaunchAgent) == 0 {
			return nil, fmt.Errorf("no --launch-agent to reach host %s", h)
		}
		argv = append(append(append([]string(nil), cfg.LaunchAgent...), h), self, "--agent")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	return cmd, nil
}

// isThisHost reports whether h names the host golaunch runs on.
func isThisHost(h string) bool {
	if h == "localhost" || h == "127.0.0.1" {
		return true
	}
	me, _ := os.Hostname()
	return h == me
}
