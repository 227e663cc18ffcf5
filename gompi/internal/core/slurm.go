package core

import (
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gompi/gompi/internal/jobenv"
	"github.com/gompi/gompi/internal/pmi2"
	"github.com/gompi/gompi/internal/shm"
	"github.com/gompi/gompi/internal/slurmenv"
	"golang.org/x/sys/unix"
)

// Start-up under `srun --mpi=pmi2` (or any PMI-2 server): no golaunch
// passes a job description, so the ranks build one themselves through the
// step's key-value space.
//
//  1. fullinit gives the rank and the size. Rank 0 puts a fresh random job
//     secret, every rank its node (SLURM_NODEID, else the host name), its
//     index on the node (SLURM_LOCALID) and its host name; fence; every rank
//     reads every record and groups the ranks by node, ordered by their
//     local id: Slurm's placement, not a second one.
//  2. The node's first rank creates the host's segment (a memfd, as
//     golaunch does) and publishes "PID:FD" as a PMI-2 node attribute; the
//     others wait for it and open /proc/PID/fd/FD. No name is ever made in
//     /dev/shm, so a killed step leaves none behind.
//  3. Ranks with peers on other nodes (or GOMPI_TRANSPORT=tcp) publish
//     their TCP addresses through the same key-value space (pmiRendezvous)
//     and fence once more; netInit then connects as under golaunch.
//
// The secret travels only through the step's key-value space, which only
// the step's tasks can reach (their PMI descriptors come from slurmstepd).
// A secret derived from the job and step ids would be known to every user
// of the cluster.
//
// Abort: the aborting rank marks the segment; the ranks of its node see
// the mark and exit with its code; then it asks Slurm to cancel the step
// (PMI-2 abort) and exits with its code. srun reports that code when the
// step ran on one node; on several, the ranks elsewhere are killed by Slurm
// and srun reports the signal (137), as for any cancelled step.
//
// A rank that dies: with no golaunch to mark it dead in the segment, each
// rank watches its node's peers (watchNodePeers) and marks them itself.

// pmi is the PMI-2 session of this process: cl is nil unless the process
// was started through PMI-2, and again once the session ended.
var pmi struct {
	sync.Mutex
	cl        *pmi2.Client
	segFD     *os.File // the node's first rank: its segment, kept open for the others to open
	proc      *Proc
	stopWatch atomic.Bool
	watchDone chan struct{} // closed when the abort watcher returns
	stopPeers *os.File      // closed to stop watchNodePeers
	peersDone chan struct{} // closed when it returns
}

const (
	pmiSecretKey = "gompi-secret"
	pmiShmAttr   = "gompi-shm"
	// pmiKVS stands in jobenv.Job.KVS for the PMI-2 key-value space.
	pmiKVS = "pmi2"
)

func pmiNodeKey(r int) string { return "gompi-node-" + strconv.Itoa(r) }

// pmiJob builds the job description from PMI-2 when this process was
// started with a PMI-2 environment; ok is false otherwise. On error after
// the connection is made, the step is aborted: the other ranks would wait
// in a fence for this one forever.
func pmiJob() (job jobenv.Job, ok bool, err error) {
	if !pmi2.Present() {
		return job, false, srunWithoutPMI2()
	}
	cl, err := pmi2.FromEnv()
	if err != nil {
		return job, true, fmt.Errorf("gompi: started with a PMI-2 environment (%s is set) but cannot speak to its server: %w", pmi2.EnvFD, err)
	}
	pmi.Lock()
	pmi.cl = cl
	pmi.Unlock()
	job, err = pmiExchange(cl)
	if err != nil {
		err = fmt.Errorf("gompi: rank %d: start-up through PMI-2: %w", cl.Rank, err)
	}
	return job, true, err // Init cancels the step on error (pmiFailed)
}

// srunWithoutPMI2 is an error when this process is one of several tasks
// that srun started without PMI-2: each would otherwise run alone, as a
// world of one rank.
func srunWithoutPMI2() error {
	if os.Getenv("PMIX_RANK") != "" {
		return errors.New("gompi: started by srun --mpi=pmix, but gompi speaks PMI-2 only: run srun --mpi=pmi2 (see docs/SLURM.md)")
	}
	n, _ := strconv.Atoi(os.Getenv("SLURM_STEP_NUM_TASKS"))
	if os.Getenv(slurmenv.StepID) != "" && n > 1 {
		return fmt.Errorf("gompi: one of %d tasks started by srun without PMI-2 (%s is not set): run srun --mpi=pmi2, or golaunch inside the allocation (see docs/SLURM.md)", n, pmi2.EnvFD)
	}
	return nil
}

func pmiExchange(cl *pmi2.Client) (jobenv.Job, error) {
	job := jobenv.Job{Rank: cl.Rank, Size: cl.Size, ShmFD: -1, SecretFD: -1, JobID: "slurm-" + cl.JobID, KVS: pmiKVS}
	if err := job.TCPFromEnv(); err != nil {
		return job, err
	}
	job.KVS = pmiKVS
	host, _ := os.Hostname()
	if host == "" || strings.ContainsAny(host, " ;") {
		host = "node"
	}
	job.Host = host
	node := os.Getenv(slurmenv.NodeID)
	if node == "" {
		node = host
	}
	localID := cl.Rank
	if v := os.Getenv(slurmenv.LocalID); v != "" {
		if n, err := strconv.Atoi(v); err == nil && n >= 0 {
			localID = n
		}
	}
	if cl.Rank == 0 {
		secret, err := jobenv.NewSecret()
		if err != nil {
			return job, err
		}
		if err := cl.Put(pmiSecretKey, hex.EncodeToString(secret)); err != nil {
			return job, err
		}
	}
	if err := cl.Put(pmiNodeKey(cl.Rank), fmt.Sprintf("%s %d %s", node, localID, host)); err != nil {
		return job, err
	}
	if err := cl.Fence(); err != nil {
		return job, err
	}

	// Group the ranks by node, each node's ranks by local id.
	type rec struct{ rank, local int }
	nodes := map[string][]rec{}
	hostOf := map[string]string{}
	var order []string
	for w := 0; w < cl.Size; w++ {
		v, ok, err := cl.Get(pmiNodeKey(w))
		if err != nil {
			return job, err
		}
		f := strings.Fields(v)
		if !ok || len(f) != 3 {
			return job, fmt.Errorf("rank %d published no node record (%q): is every task of the step a gompi program of the same version?", w, v)
		}
		l, err := strconv.Atoi(f[1])
		if err != nil {
			return job, fmt.Errorf("rank %d published a bad node record %q", w, v)
		}
		if _, seen := nodes[f[0]]; !seen {
			order = append(order, f[0])
			hostOf[f[0]] = f[2]
		}
		nodes[f[0]] = append(nodes[f[0]], rec{w, l})
	}
	for _, k := range order {
		rs := nodes[k]
		sort.Slice(rs, func(i, j int) bool {
			if rs[i].local != rs[j].local {
				return rs[i].local < rs[j].local
			}
			return rs[i].rank < rs[j].rank
		})
		hr := jobenv.HostRanks{Name: hostOf[k]}
		for _, r := range rs {
			hr.Ranks = append(hr.Ranks, r.rank)
		}
		job.HostMap = append(job.HostMap, hr)
		if k == node {
			job.LocalRanks = hr.Ranks
		}
	}
	job.LocalSize = len(job.LocalRanks)
	for i, w := range job.LocalRanks {
		if w == job.Rank {
			job.LocalRank = i
		}
	}
	job.Oversubscribed = job.LocalSize > runtime.NumCPU()

	if job.NeedsTCP() {
		v, ok, err := cl.Get(pmiSecretKey)
		if err != nil {
			return job, err
		}
		secret, herr := hex.DecodeString(v)
		if !ok || herr != nil || len(secret) != jobenv.SecretSize {
			return job, errors.New("rank 0 published no job secret")
		}
		f, err := jobenv.SecretFile(secret)
		if err != nil {
			return job, err
		}
		fd, err := unix.Dup(int(f.Fd())) // jobenv.ReadSecret closes it
		f.Close()
		if err != nil {
			return job, err
		}
		job.SecretFD = fd
	}

	fd, err := pmiSegment(cl, job)
	if err != nil {
		return job, err
	}
	job.ShmFD = fd
	return job, nil
}

// pmiSegment returns a descriptor of the host's segment for shm.Attach:
// the node's first rank creates it, the others open it through /proc.
func pmiSegment(cl *pmi2.Client, job jobenv.Job) (int, error) {
	if job.LocalRank == 0 {
		l, err := shm.NewLayout(job.LocalSize, shm.DefaultCellsPerRank)
		if err != nil {
			return -1, err
		}
		seg, f, err := shm.Create(job.JobID, l)
		if err != nil {
			return -1, err
		}
		seg.Close() // Init maps it again through the descriptor below
		dup, err := unix.Dup(int(f.Fd()))
		if err != nil {
			f.Close()
			return -1, err
		}
		pmi.Lock()
		pmi.segFD = f
		pmi.Unlock()
		if job.LocalSize > 1 {
			if err := cl.PutNodeAttr(pmiShmAttr, fmt.Sprintf("%d:%d", os.Getpid(), f.Fd())); err != nil {
				unix.Close(dup)
				return -1, err
			}
		}
		return dup, nil
	}
	v, ok, err := cl.GetNodeAttr(pmiShmAttr, true)
	if err != nil {
		return -1, err
	}
	if !ok {
		return -1, fmt.Errorf("the first rank of this node (rank %d) published no shared segment", job.LocalRanks[0])
	}
	path := "/proc/" + strings.Replace(v, ":", "/fd/", 1)
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("opening the segment of rank %d (%s): %w (ranks of one node must run as one user, and may not be made non-dumpable)", job.LocalRanks[0], path, err)
	}
	return fd, nil
}

// pmiStarted runs once the Proc exists. Slurm's answer to a PMI-2 abort
// is to kill the step's tasks (SIGKILL before Slurm 26.05), which srun
// reports as 137 whatever the code; so the ranks of the aborting rank's node
// end first, with its code: each watches the segment's abort word and exits
// when it is set.
func pmiStarted(p *Proc) {
	pmi.Lock()
	defer pmi.Unlock()
	if pmi.cl == nil {
		return
	}
	pmi.proc = p
	if r, w, err := os.Pipe(); err == nil {
		pmi.stopPeers, pmi.peersDone = w, make(chan struct{})
		go func() {
			defer close(pmi.peersDone)
			defer r.Close()
			watchNodePeers(p, r)
		}()
	}
	pmi.watchDone = make(chan struct{})
	leader := pmi.segFD != nil
	go func() {
		defer close(pmi.watchDone)
		for !pmi.stopWatch.Load() {
			if rank, code, ok := p.seg.WaitAbort(time.Hour); ok {
				if rank != p.rank {
					// The aborting rank cancels the step as soon as this
					// rank is marked dead: its SIGTERM must not overtake
					// the exit with the code.
					signal.Ignore(syscall.SIGTERM)
					p.seg.SetState(p.local, shm.StateDead)
					waitNodeMatesOpened(p, leader, abortGrace)
					os.Exit(code)
				}
				return
			}
		}
	}()
}

// pmiAbort runs after this rank marked the segment aborted: it waits
// (briefly) for the other ranks of the node to exit with the code, then asks
// the PMI server to cancel the whole step. The caller exits with the code
// next.
func pmiAbort(rank, code int) {
	pmi.Lock()
	cl, p, leader := pmi.cl, pmi.proc, pmi.segFD != nil
	pmi.Unlock()
	if cl == nil {
		return
	}
	fmt.Fprintf(os.Stderr, "gompi: rank %d called Abort(%d): cancelling the step\n", rank, code)
	if p != nil {
		deadline := time.Now().Add(abortGrace)
		for l := 0; l < p.seg.Layout().NRanks; l++ {
			for l != p.local && p.seg.State(l) < shm.StateFinalized && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
		}
		waitNodeMatesOpened(p, leader, abortGrace)
	}
	// The step's cancellation (SIGTERM from srun) must not overtake this
	// rank's own exit with the code, which follows at once.
	signal.Ignore(syscall.SIGTERM)
	cl.Abort(fmt.Sprintf("rank %d called Abort(%d)", rank, code))
}

// abortGrace bounds how long an abort waits for the node's other ranks to
// end with the code (and, on the node's first rank, to have opened the
// segment) before the step is cancelled: ranks still starting need the time.
const abortGrace = 5 * time.Second

// waitNodeMatesOpened returns once every rank of the node has opened the
// segment (its pid is in it), or after wait. Only the node's first rank,
// through whose /proc entry the others open the segment, waits: were it to
// exit first, a rank still starting up would fail to open it and end with
// a start-up error instead of the abort's code.
func waitNodeMatesOpened(p *Proc, leader bool, wait time.Duration) {
	if !leader {
		return
	}
	deadline := time.Now().Add(wait)
	for l := 0; l < p.seg.Layout().NRanks; l++ {
		for p.seg.PID(l) == 0 && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
	}
}

// pmiFailed reports a start-up error and cancels the step.
func pmiFailed(err error) {
	pmi.Lock()
	cl := pmi.cl
	pmi.cl = nil
	pmi.Unlock()
	if cl == nil {
		return
	}
	fmt.Fprintf(os.Stderr, "%v; cancelling the step\n", err)
	cl.Abort(err.Error())
}

// pmiFinalize ends the PMI-2 session at Close, before the segment is
// unmapped: the abort watcher sleeps on it.
func pmiFinalize() {
	pmi.Lock()
	defer pmi.Unlock()
	if pmi.cl == nil {
		return
	}
	if pmi.stopPeers != nil {
		pmi.stopPeers.Close()
		<-pmi.peersDone
	}
	if pmi.proc != nil {
		pmi.stopWatch.Store(true)
		for {
			pmi.proc.seg.WakeAbortWaiters()
			select {
			case <-pmi.watchDone:
			case <-time.After(10 * time.Millisecond):
				continue
			}
			break
		}
	}
	pmi.cl.Finalize()
	pmi.cl = nil
	if pmi.segFD != nil {
		// The others of the node open the segment through this process:
		// it stays until each has (its pid is in the segment), or until
		// they are given up on.
		if p := pmi.proc; p != nil {
			waitNodeMatesOpened(p, true, jobenv.DefaultConnectTimeout)
		}
		pmi.segFD.Close()
	}
}

// rendezvous is where ranks publish and look up their TCP addresses:
// golaunch's store, or the PMI-2 key-value space.
type rendezvous interface {
	Put(key, value string) error
	// Fence makes every rank's puts visible; collective under PMI-2.
	Fence() error
	Get(key string, wait time.Duration) (string, bool, error)
	Close() error
}

// dialRendezvous connects to the job's rendezvous.
func dialRendezvous(job *jobenv.Job, secret []byte, timeout time.Duration) (rendezvous, error) {
	if job.KVS == pmiKVS {
		pmi.Lock()
		cl := pmi.cl
		pmi.Unlock()
		if cl != nil {
			return pmiRendezvous{cl}, nil
		}
	}
	kv, err := jobenv.DialKV(job.KVS, secret, timeout)
	if err != nil {
		return nil, err
	}
	return storeRendezvous{kv}, nil
}

// storeRendezvous is golaunch's store: a put is visible at once.
type storeRendezvous struct{ *jobenv.KVClient }

func (storeRendezvous) Fence() error { return nil }

// pmiRendezvous is the PMI-2 key-value space: a put is visible after the
// fence, so Get need not wait.
type pmiRendezvous struct{ cl *pmi2.Client }

func (r pmiRendezvous) Put(key, value string) error { return r.cl.Put(key, value) }
func (r pmiRendezvous) Fence() error                { return r.cl.Fence() }
func (r pmiRendezvous) Close() error                { return nil }
func (r pmiRendezvous) Get(key string, _ time.Duration) (string, bool, error) {
	return r.cl.Get(key)
}
