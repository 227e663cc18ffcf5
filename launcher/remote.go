package launcher

import (
	"bufio"
	"context"
	"encoding/gob"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gompi/gompi/internal/jobenv"
	"github.com/gompi/gompi/internal/shm"
	"golang.org/x/sys/unix"
)

// A job on several hosts: golaunch starts an agent on each host through the
// launch agent (golaunch --agent, see agent.go), hands it its share of the
// ranks and the job secret, keeps the rendezvous store the agents relay to,
// writes the ranks' output tagged with their world rank, and supervises the
// job exactly as on one host: the first failure anywhere stops every rank
// everywhere.

type remoteHost struct {
	name    string
	ranks   []int
	cmd     *exec.Cmd
	conn    *agentConn
	stdin   io.Closer
	started int
	done    bool // the agent sent done
	exited  bool
	forced  bool // golaunch killed the agent: its end is not news
	errTail *tail
}

type hostEvent struct {
	host int
	msg  ctlMsg
	end  string // the stream ended: "eof" (then the agent process ended: "exit")
	err  error
}

// failure is a candidate for the reason a job failed: when several arrive
// at once (a rank killed on one host, its peers on another seeing the lost
// connection), the most telling one is reported.
type failure struct {
	prio   int // abort 4, a rank killed by a signal 3, a host lost 2, a rank's own error 1
	reason string
	code   int
}

func runHosts(ctx context.Context, cfg Config) (Result, error) {
	if cfg.Grace == 0 {
		cfg.Grace = 500 * time.Millisecond
	}
	if cfg.Log == nil {
		cfg.Log = os.Stderr
	}
	if cfg.ConnectTimeout <= 0 {
		cfg.ConnectTimeout = jobenv.DefaultConnectTimeout
	}
	hm, err := mapRanks(cfg.Hosts, cfg.N, cfg.MapBy)
	if err != nil {
		return Result{}, err
	}
	secret, err := jobenv.NewSecret()
	if err != nil {
		return Result{}, err
	}
	store := &jobenv.Store{}
	jobID := newJobID()
	out := newOutput(&cfg)
	transport := cfg.Transport
	if transport == "" {
		transport = "auto"
	}

	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)

	events := make(chan hostEvent, 64)
	hosts := make([]*remoteHost, len(hm))
	ranks := make([]*rankProc, cfg.N)
	res := Result{}
	var fails []failure
	failRank := map[string]int{} // the rank a failure's reason is about, to quote its stderr
	stopping := false
	var killAt, forceAt <-chan time.Time
	sendAll := func(m ctlMsg) {
		for _, h := range hosts {
			if h != nil && h.conn != nil && !h.exited {
				go h.conn.send(m)
			}
		}
	}
	stop := func(f failure) {
		fails = append(fails, f)
		if stopping {
			return
		}
		stopping = true
		sendAll(ctlMsg{Kind: "kill", Signal: int(syscall.SIGTERM)})
		killAt = time.After(cfg.Grace)
	}

	running := 0
	for i, h := range hm {
		rh := &remoteHost{name: h.Name, ranks: h.Ranks, errTail: &tail{host: h.Name, log: cfg.Log}}
		hosts[i] = rh
		cmd, err := agentCommand(&cfg, h.Name)
		if err == nil {
			err = rh.start(cmd, i, events)
		}
		if err != nil {
			stop(failure{2, fmt.Sprintf("host %s: %v", h.Name, err), 1})
			break
		}
		running++
		rh.conn.send(ctlMsg{Kind: "start", Start: &agentStart{
			Secret: secret, Program: cfg.Program, Args: cfg.Args, Env: cfg.Env, Ranks: h.Ranks, Size: cfg.N,
			JobID: jobID, Host: h.Name, HostMap: hm, Transport: transport, ConnectTimeout: cfg.ConnectTimeout,
			Grace: cfg.Grace, Dir: cfg.Dir}})
	}

	var timeout <-chan time.Time
	if cfg.Timeout > 0 {
		t := time.NewTimer(cfg.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	startBy := time.NewTimer(cfg.ConnectTimeout)
	defer startBy.Stop()
	for running > 0 {
		select {
		case ev := <-events:
			h := hosts[ev.host]
			switch {
			case ev.end == "eof":
				// The exit that follows says more.
			case ev.end == "exit":
				h.exited = true
				running--
				// A lost agent is reported even when the job is already
				// stopping: the ranks that lost their peers on it often
				// fail first, and the lost host is what explains them.
				if !h.done && !h.forced {
					_, code := describe(ev.err)
					stop(failure{2, fmt.Sprintf("host %s: the agent (%s) %s before its ranks ended%s",
						h.name, strings.Join(h.cmd.Args, " "), describeShort(ev.err), h.errTail.say()), nonzero(code)})
					for _, rk := range h.ranks {
						if rp := ranks[rk]; rp != nil && !rp.done {
							rp.done, rp.status, rp.code = true, "was lost with its host", 1
						}
					}
				}
			default:
				m := ev.msg
				switch m.Kind {
				case "started":
					h.started++
					ranks[m.Rank] = &rankProc{rank: m.Rank}
				case "out":
					dst := cfg.Stdout
					if m.Stream == 2 {
						dst = cfg.Stderr
					}
					out.write(dst, m.Rank, m.Stream, m.Data)
				case "kvput":
					store.Put(m.Key, m.Value)
				case "kvget":
					go func() {
						v, ok := store.Get(m.Key, m.Wait)
						h.conn.send(ctlMsg{Kind: "kvreply", ID: m.ID, Value: v, OK: ok})
					}()
				case "error":
					stop(failure{2, fmt.Sprintf("host %s: %s", h.name, m.Text), 1})
				case "done":
					h.done = true
					h.stdin.Close()
				case "exit":
					e := m.Exit
					rp := ranks[e.Rank]
					if rp == nil {
						rp = &rankProc{rank: e.Rank}
						ranks[e.Rank] = rp
					}
					rp.done, rp.status, rp.code = true, e.Status, e.Code
					if f, bad := judgeExit(e, h.name); bad && !(stopping && e.Stopped) {
						failRank[f.reason] = e.Rank
						if e.Aborted {
							failRank[f.reason] = e.AbortRank
						}
						stop(f)
					}
				}
			}
		case <-startBy.C:
			for _, h := range hosts {
				if h != nil && !h.exited && h.started < len(h.ranks) && !stopping {
					stop(failure{2, fmt.Sprintf("host %s: its agent did not start its %d ranks within %v (is the host reachable with %q?)%s",
						h.name, len(h.ranks), cfg.ConnectTimeout, strings.Join(cfg.LaunchAgent, " "), h.errTail.say()), 1})
				}
			}
		case <-killAt:
			sendAll(ctlMsg{Kind: "kill", Signal: int(syscall.SIGKILL)})
			killAt = nil
			forceAt = time.After(cfg.Grace + 2*time.Second)
		case <-forceAt:
			// An agent that does not end by itself is ended, with what it
			// started (its ranks die with it: PR_SET_PDEATHSIG).
			for _, h := range hosts {
				if h != nil && h.cmd != nil && !h.exited {
					h.forced = true
					unix.Kill(-h.cmd.Process.Pid, unix.SIGKILL)
				}
			}
			forceAt = nil
		case <-timeout:
			stop(failure{4, fmt.Sprintf("the job ran past --timeout %v", cfg.Timeout), 124})
		case s := <-sigs:
			stop(failure{4, fmt.Sprintf("stopped by %v", s), 128 + int(s.(syscall.Signal))})
		case <-ctx.Done():
			stop(failure{4, "cancelled", 1})
		}
	}
	if len(fails) > 0 {
		best := fails[0]
		for _, f := range fails[1:] {
			if f.prio > best.prio {
				best = f
			}
		}
		res.Failure, res.ExitCode = best.reason, best.code
		started := 0
		for _, rp := range ranks {
			if rp != nil {
				started++
			}
		}
		fmt.Fprintf(cfg.Log, "golaunch: %s; %s\n", res.Failure, summary(ranks, started))
		if rk, ok := failRank[best.reason]; ok {
			out.quote(cfg.Log, rk)
		}
	}
	if err := out.closeFiles(); err != nil {
		fmt.Fprintf(cfg.Log, "golaunch: %v\n", err)
	}
	return res, nil
}

// judgeExit says whether a rank's end is a failure of the job, and which.
func judgeExit(e *rankExit, host string) (failure, bool) {
	where := fmt.Sprintf("rank %d (pid %d on host %s)", e.Rank, e.Pid, host)
	switch {
	case e.Aborted:
		return failure{4, fmt.Sprintf("rank %d called Abort(%d)", e.AbortRank, e.AbortCode), nonzero(e.AbortCode)}, true
	case e.Code > 128 && strings.Contains(e.Status, "signal"):
		return failure{3, fmt.Sprintf("%s %s", where, e.Status), e.Code}, true
	case e.Code != 0:
		return failure{1, fmt.Sprintf("%s %s", where, e.Status), e.Code}, true
	case e.State == shm.StateRunning:
		return failure{1, fmt.Sprintf("%s exited with status 0 without calling Finalize", where), 1}, true
	}
	return failure{}, false
}

func describeShort(err error) string {
	s, _ := describe(err)
	return s
}

// start runs the agent command with its stdin and stdout as the control
// stream; its stderr goes to golaunch's log, prefixed with the host.
func (h *remoteHost) start(cmd *exec.Cmd, idx int, events chan<- hostEvent) error {
	h.cmd = cmd
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	cmd.Stderr = h.errTail
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting the launch agent %q: %w", strings.Join(cmd.Args, " "), err)
	}
	h.stdin = stdin
	h.conn = &agentConn{enc: gob.NewEncoder(stdin)}
	go func() {
		dec := gob.NewDecoder(bufio.NewReader(stdout))
		for {
			var m ctlMsg
			if err := dec.Decode(&m); err != nil {
				break
			}
			events <- hostEvent{host: idx, msg: m}
		}
		events <- hostEvent{host: idx, end: "eof"}
		events <- hostEvent{host: idx, end: "exit", err: cmd.Wait()}
	}()
	return nil
}

// tail passes an agent's stderr on to the log, prefixed with the host, and
// keeps its last lines to quote in an error.
type tail struct {
	mu    sync.Mutex
	host  string
	log   io.Writer
	lines []string
	part  []byte
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.part = append(t.part, b...)
	for {
		i := strings.IndexByte(string(t.part), '\n')
		if i < 0 {
			break
		}
		line := string(t.part[:i])
		t.part = t.part[i+1:]
		fmt.Fprintf(t.log, "golaunch: [%s] %s\n", t.host, line)
		t.lines = append(t.lines, line)
		if len(t.lines) > 5 {
			t.lines = t.lines[1:]
		}
	}
	return len(b), nil
}

// say quotes the agent's last words, if any.
func (t *tail) say() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	ls := t.lines
	if len(t.part) > 0 {
		ls = append(ls, string(t.part))
	}
	if len(ls) == 0 {
		return ""
	}
	return ": " + strings.Join(ls, " / ")
}
