package pmi2

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
)

// Environment variables of a PMI-2 launch (set by Slurm's mpi/pmi2 plugin
// for every task).
const (
	EnvFD    = "PMI_FD"    // descriptor of the connection to the PMI server
	EnvRank  = "PMI_RANK"  // this task's rank
	EnvSize  = "PMI_SIZE"  // number of tasks
	EnvJobID = "PMI_JOBID" // the PMI job id ("JOB.STEP" under Slurm)
)

// Present reports whether this process was started with a PMI-2
// environment.
func Present() bool {
	_, ok := os.LookupEnv(EnvFD)
	return ok
}

// Client is a connection to the PMI server. Its methods may be called from
// several goroutines; requests go one at a time.
type Client struct {
	mu sync.Mutex
	c  io.ReadWriteCloser
	r  *bufio.Reader

	Rank, Size int
	AppNum     int
	JobID      string // the PMI job id (job-getid), e.g. "1234.0"
}

// FromEnv connects to the PMI server through PMI_FD and runs the init
// handshake and fullinit. It returns ErrNoPMI when PMI_FD is not set.
func FromEnv() (*Client, error) {
	v, ok := os.LookupEnv(EnvFD)
	if !ok {
		return nil, ErrNoPMI
	}
	fd, err := strconv.Atoi(v)
	if err != nil || fd < 0 {
		return nil, fmt.Errorf("pmi2: %s=%q is not a descriptor", EnvFD, v)
	}
	rank := 0
	if v := os.Getenv(EnvRank); v != "" {
		if rank, err = strconv.Atoi(v); err != nil || rank < 0 {
			return nil, fmt.Errorf("pmi2: %s=%q is not a rank", EnvRank, v)
		}
	}
	f := os.NewFile(uintptr(fd), "pmi")
	if f == nil {
		return nil, fmt.Errorf("pmi2: %s=%d is not an open descriptor", EnvFD, fd)
	}
	return Connect(f, rank, os.Getenv(EnvJobID))
}

// Connect runs the handshake, fullinit and job-getid on c, an open
// connection to a PMI server, for the task of the given rank. On error c is
// closed.
func Connect(c io.ReadWriteCloser, rank int, jobID string) (*Client, error) {
	cl := &Client{c: c, r: bufio.NewReader(c)}
	if err := cl.start(rank, jobID); err != nil {
		c.Close()
		return nil, err
	}
	return cl, nil
}

func (cl *Client) start(rank int, jobID string) error {
	if _, err := io.WriteString(cl.c, initLine); err != nil {
		return fmt.Errorf("pmi2: writing init to the PMI server: %w", err)
	}
	line, err := readLine(cl.r)
	if err != nil {
		return err
	}
	if err := parseInitResponse(line); err != nil {
		return err
	}
	if jobID == "" {
		jobID = "0"
	}
	resp, err := cl.call(Message{Cmd: "fullinit", Pairs: []Pair{
		{"pmijobid", jobID}, {"pmirank", strconv.Itoa(rank)}, {"threaded", "FALSE"}}})
	if err != nil {
		return err
	}
	if cl.Rank, err = resp.Int("rank"); err != nil {
		return err
	}
	if cl.Size, err = resp.Int("size"); err != nil {
		return err
	}
	if cl.Size <= 0 || cl.Rank < 0 || cl.Rank >= cl.Size {
		return fmt.Errorf("%w: fullinit gave rank %d of %d", ErrProtocol, cl.Rank, cl.Size)
	}
	cl.AppNum = -1
	if n, err := resp.Int("appnum"); err == nil {
		cl.AppNum = n
	}
	resp, err = cl.call(Message{Cmd: "job-getid"})
	if err != nil {
		return err
	}
	cl.JobID, _ = resp.Get("jobid")
	return nil
}

// call sends req and reads its response, checking that it answers req and
// that rc is 0.
func (cl *Client) call(req Message) (Message, error) {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	if err := cl.send(req); err != nil {
		return Message{}, err
	}
	resp, err := ReadMessage(cl.r)
	if err != nil {
		return Message{}, fmt.Errorf("pmi2: %s: %w", req.Cmd, err)
	}
	if resp.Cmd != req.Cmd+"-response" {
		return Message{}, fmt.Errorf("%w: sent %s, got %s", ErrProtocol, req.Cmd, resp.Cmd)
	}
	if rc, ok := resp.Get("rc"); ok && rc != "0" {
		msg, _ := resp.Get("errmsg")
		return resp, fmt.Errorf("%w: %s: rc=%s %s", ErrFailed, req.Cmd, rc, msg)
	}
	return resp, nil
}

func (cl *Client) send(m Message) error {
	b, err := Encode(m)
	if err != nil {
		return err
	}
	if _, err := cl.c.Write(b); err != nil {
		return fmt.Errorf("pmi2: writing %s to the PMI server: %w", m.Cmd, err)
	}
	return nil
}

func checkKV(key, value string) error {
	if key == "" || len(key) > MaxKeyLen {
		return fmt.Errorf("%w: key %q (1 to %d bytes)", ErrInvalid, clip(key), MaxKeyLen)
	}
	if len(value) > MaxValueLen {
		return fmt.Errorf("%w: the value of %s is %d bytes (at most %d)", ErrInvalid, key, len(value), MaxValueLen)
	}
	return nil
}

// Put publishes key=value in the job's key-value space. Other tasks see it
// after the next Fence.
func (cl *Client) Put(key, value string) error {
	if err := checkKV(key, value); err != nil {
		return err
	}
	_, err := cl.call(Message{Cmd: "kvs-put", Pairs: []Pair{{"key", key}, {"value", value}}})
	return err
}

// Fence waits until every task of the job has called Fence; afterwards
// every value put before it is visible to Get. It is collective: every task
// must call it, the same number of times.
func (cl *Client) Fence() error {
	_, err := cl.call(Message{Cmd: "kvs-fence"})
	return err
}

// Get looks key up in the job's key-value space; ok is false when no task
// put it (before the last Fence).
func (cl *Client) Get(key string) (value string, ok bool, err error) {
	if err := checkKV(key, ""); err != nil {
		return "", false, err
	}
	resp, err := cl.call(Message{Cmd: "kvs-get", Pairs: []Pair{{"jobid", cl.JobID}, {"srcid", "-1"}, {"key", key}}})
	if err != nil {
		return "", false, err
	}
	return found(resp)
}

// PutNodeAttr publishes key=value to the tasks of this node only; it is
// visible at once (no fence).
func (cl *Client) PutNodeAttr(key, value string) error {
	if err := checkKV(key, value); err != nil {
		return err
	}
	_, err := cl.call(Message{Cmd: "info-putnodeattr", Pairs: []Pair{{"key", key}, {"value", value}}})
	return err
}

// GetNodeAttr looks up a node attribute; with wait, the server answers only
// once some task of this node has put it.
func (cl *Client) GetNodeAttr(key string, wait bool) (value string, ok bool, err error) {
	if err := checkKV(key, ""); err != nil {
		return "", false, err
	}
	resp, err := cl.call(Message{Cmd: "info-getnodeattr", Pairs: []Pair{{"key", key}, {"wait", boolString(wait)}}})
	if err != nil {
		return "", false, err
	}
	return found(resp)
}

// JobAttr looks up an attribute of the job, e.g. PMI_process_mapping.
func (cl *Client) JobAttr(key string) (value string, ok bool, err error) {
	if err := checkKV(key, ""); err != nil {
		return "", false, err
	}
	resp, err := cl.call(Message{Cmd: "info-getjobattr", Pairs: []Pair{{"key", key}}})
	if err != nil {
		return "", false, err
	}
	return found(resp)
}

func found(resp Message) (string, bool, error) {
	f, _ := resp.Get("found")
	if !strings.EqualFold(f, "TRUE") {
		return "", false, nil
	}
	v, _ := resp.Get("value")
	return v, true, nil
}

func boolString(b bool) string {
	if b {
		return "TRUE"
	}
	return "FALSE"
}

// Abort asks the server to end the whole job (every task of the step). The
// server sends no answer: the caller exits with its code after this.
// Characters the wire format cannot carry are replaced in msg.
func (cl *Client) Abort(msg string) error {
	msg = strings.ReplaceAll(msg, ";", ",")
	if len(msg) > MaxValueLen {
		msg = msg[:MaxValueLen]
	}
	cl.mu.Lock()
	defer cl.mu.Unlock()
	return cl.send(Message{Cmd: "abort", Pairs: []Pair{{"isworld", "TRUE"}, {"msg", msg}}})
}

// Finalize tells the server this task is done with PMI and closes the
// connection.
func (cl *Client) Finalize() error {
	_, err := cl.call(Message{Cmd: "finalize"})
	cl.c.Close()
	return err
}

// Close closes the connection without finalizing.
func (cl *Client) Close() error { return cl.c.Close() }
