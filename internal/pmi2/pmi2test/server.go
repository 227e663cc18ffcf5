// Package pmi2test is a PMI-2 server for tests: it plays the part of
// Slurm's slurmstepd for a job of a few tasks, so that the client and the
// runtime's start-up under srun can be tested without Slurm.
//
// It keeps Slurm's semantics where the runtime depends on them: a value put
// becomes visible to kvs-get only after every task has fenced; node
// attributes are visible at once to the tasks of the same node, and a get
// with wait=TRUE is answered only once the attribute is put; abort ends the
// job (the server records it and calls OnAbort).
package pmi2test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gompi/gompi/internal/pmi2"
)

// Server serves the tasks of one job.
type Server struct {
	Size  int
	JobID string
	// NodeOf maps a rank to its node (for node attributes); nil: one node.
	NodeOf func(rank int) int
	// OnAbort, if set, is called once when a task sends abort.
	OnAbort func(rank int, msg string)

	mu       sync.Mutex
	visible  map[string]string
	pending  map[string]string
	fenced   []chan struct{} // tasks waiting in the current fence
	nodeAttr map[int]map[string]string
	nodeWake chan struct{} // closed and replaced at every node-attribute put
	aborted  bool
	abortMsg string
	log      []string
	serving  sync.WaitGroup // one per connection being served
}

// New returns a server for size tasks.
func New(size int) *Server {
	return &Server{Size: size, JobID: "4242.0", visible: map[string]string{}, pending: map[string]string{},
		nodeAttr: map[int]map[string]string{}, nodeWake: make(chan struct{})}
}

// Aborted reports whether a task sent abort, and its message.
func (s *Server) Aborted() (bool, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.aborted, s.abortMsg
}

// Wait returns once every connection has ended (each task exited or
// finalized), so that what the tasks sent last (an abort is never answered)
// has been handled; false if some connection is still open after d.
func (s *Server) Wait(d time.Duration) bool {
	done := make(chan struct{})
	go func() { s.serving.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}

// Log returns the commands received, as "RANK CMD", in order.
func (s *Server) Log() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.log...)
}

// Pipe returns the client end of a new in-process connection for the task
// of the given rank, and serves the server end.
func (s *Server) Pipe(rank int) io.ReadWriteCloser {
	c, srv := net.Pipe()
	s.goServe(srv, rank)
	return c
}

// Socket returns a file for a task process to inherit as PMI_FD (the client
// end of a socket pair), and serves the other end. The caller closes the
// file once the process has started.
func (s *Server) Socket(rank int) (*os.File, error) {
	// Close-on-exec from the start (under ForkLock, as package net does
	// where SOCK_CLOEXEC is missing): no other child may inherit it.
	syscall.ForkLock.RLock()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(fds[0])
		syscall.CloseOnExec(fds[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, err
	}
	srvFile := os.NewFile(uintptr(fds[1]), "pmi-server")
	srv, err := net.FileConn(srvFile)
	srvFile.Close()
	if err != nil {
		syscall.Close(fds[0])
		return nil, err
	}
	s.goServe(srv, rank)
	return os.NewFile(uintptr(fds[0]), "pmi-client"), nil
}

// Env returns the environment Slurm gives a task of rank r whose PMI
// connection is descriptor fd.
func (s *Server) Env(r, fd int) []string {
	return []string{pmi2.EnvFD + "=" + strconv.Itoa(fd), pmi2.EnvRank + "=" + strconv.Itoa(r),
		pmi2.EnvSize + "=" + strconv.Itoa(s.Size), pmi2.EnvJobID + "=" + s.JobID}
}

func (s *Server) node(rank int) int {
	if s.NodeOf == nil {
		return 0
	}
	return s.NodeOf(rank)
}

// Serve answers the task of the given rank on c until it finalizes or the
// connection ends.
func (s *Server) Serve(c net.Conn, rank int) {
	s.serving.Add(1)
	s.serve(c, rank)
}

// goServe serves c in a goroutine, counted before it starts (for Wait).
func (s *Server) goServe(c net.Conn, rank int) {
	s.serving.Add(1)
	go s.serve(c, rank)
}

func (s *Server) serve(c net.Conn, rank int) {
	defer s.serving.Done()
	defer c.Close()
	r := bufio.NewReader(c)
	line, err := r.ReadString('\n')
	if err != nil {
		return
	}
	if strings.TrimSpace(line) != "cmd=init pmi_version=2 pmi_subversion=0" {
		io.WriteString(c, "cmd=response_to_init rc=1 pmi_version=2 pmi_subversion=0\n")
		return
	}
	io.WriteString(c, "cmd=response_to_init rc=0 pmi_version=2 pmi_subversion=0\n")
	for {
		m, err := pmi2.ReadMessage(r)
		if err != nil {
			return
		}
		s.mu.Lock()
		s.log = append(s.log, fmt.Sprintf("%d %s", rank, m.Cmd))
		s.mu.Unlock()
		resp, end := s.handle(rank, m)
		if resp != nil {
			b, err := pmi2.Encode(*resp)
			if err != nil {
				return
			}
			if _, err := c.Write(b); err != nil {
				return
			}
		}
		if end {
			return
		}
	}
}

func reply(cmd string, pairs ...pmi2.Pair) *pmi2.Message {
	return &pmi2.Message{Cmd: cmd + "-response", Pairs: append([]pmi2.Pair{{Key: "rc", Value: "0"}}, pairs...)}
}

func (s *Server) handle(rank int, m pmi2.Message) (resp *pmi2.Message, end bool) {
	get := func(k string) string { v, _ := m.Get(k); return v }
	switch m.Cmd {
	case "fullinit":
		if get("pmirank") != strconv.Itoa(rank) {
			return &pmi2.Message{Cmd: "fullinit-response", Pairs: []pmi2.Pair{{Key: "rc", Value: "3"}}}, true
		}
		return reply("fullinit", pmi2.Pair{Key: "pmi-version", Value: "2"}, pmi2.Pair{Key: "pmi-subversion", Value: "0"},
			pmi2.Pair{Key: "rank", Value: strconv.Itoa(rank)}, pmi2.Pair{Key: "size", Value: strconv.Itoa(s.Size)},
			pmi2.Pair{Key: "appnum", Value: "-1"}, pmi2.Pair{Key: "debugged", Value: "FALSE"},
			pmi2.Pair{Key: "pmiverbose", Value: "FALSE"}), false
	case "job-getid":
		return reply("job-getid", pmi2.Pair{Key: "jobid", Value: s.JobID}), false
	case "kvs-put":
		s.mu.Lock()
		s.pending[get("key")] = get("value")
		s.mu.Unlock()
		return reply("kvs-put"), false
	case "kvs-fence":
		s.fence()
		return reply("kvs-fence"), false
	case "kvs-get":
		s.mu.Lock()
		v, ok := s.visible[get("key")]
		s.mu.Unlock()
		return found("kvs-get", v, ok), false
	case "info-putnodeattr":
		s.mu.Lock()
		n := s.node(rank)
		if s.nodeAttr[n] == nil {
			s.nodeAttr[n] = map[string]string{}
		}
		s.nodeAttr[n][get("key")] = get("value")
		close(s.nodeWake)
		s.nodeWake = make(chan struct{})
		s.mu.Unlock()
		return reply("info-putnodeattr"), false
	case "info-getnodeattr":
		for {
			s.mu.Lock()
			v, ok := s.nodeAttr[s.node(rank)][get("key")]
			wake := s.nodeWake
			s.mu.Unlock()
			if ok || get("wait") != "TRUE" {
				return found("info-getnodeattr", v, ok), false
			}
			<-wake
		}
	case "info-getjobattr":
		return found("info-getjobattr", "", false), false
	case "finalize":
		return reply("finalize"), true
	case "abort":
		s.mu.Lock()
		first := !s.aborted
		s.aborted, s.abortMsg = true, get("msg")
		s.mu.Unlock()
		if first && s.OnAbort != nil {
			s.OnAbort(rank, get("msg"))
		}
		return nil, true
	}
	return &pmi2.Message{Cmd: m.Cmd + "-response", Pairs: []pmi2.Pair{{Key: "rc", Value: "14"}, {Key: "errmsg", Value: "unknown command"}}}, false
}

func found(cmd, v string, ok bool) *pmi2.Message {
	if !ok {
		return reply(cmd, pmi2.Pair{Key: "found", Value: "FALSE"})
	}
	return reply(cmd, pmi2.Pair{Key: "found", Value: "TRUE"}, pmi2.Pair{Key: "value", Value: v})
}

// fence blocks until every task has entered the current fence, then makes
// the values put before it visible.
func (s *Server) fence() {
	s.mu.Lock()
	ch := make(chan struct{})
	s.fenced = append(s.fenced, ch)
	if len(s.fenced) == s.Size {
		for k, v := range s.pending {
			s.visible[k] = v
		}
		s.pending = map[string]string{}
		for _, c := range s.fenced {
			close(c)
		}
		s.fenced = nil
	}
	s.mu.Unlock()
	<-ch
}
