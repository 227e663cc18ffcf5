// Package jobenv is the contract between golaunch and the ranks it starts:
// the environment variables and inherited file descriptors that describe a
// job. It is the only package the launcher and the runtime share.
package jobenv

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Environment variables set by golaunch for every rank.
const (
	Rank       = "GOMPI_RANK"       // world rank, 0..Size-1
	Size       = "GOMPI_SIZE"       // world size
	LocalRank  = "GOMPI_LOCAL_RANK" // index among the ranks on this host
	LocalSize  = "GOMPI_LOCAL_SIZE" // ranks on this host
	LocalRanks = "GOMPI_LOCAL_RANKS"
	// ShmFD is the inherited descriptor of the host's shared segment (a memfd).
	ShmFD = "GOMPI_SHM_FD"
	// JobID identifies the job in messages and logs.
	JobID = "GOMPI_JOB_ID"
	// Oversubscribed is "1" when ranks on this host outnumber its CPUs: the
	// runtime then yields and sleeps instead of spinning while it waits.
	Oversubscribed = "GOMPI_OVERSUBSCRIBED"
	// Host is the name golaunch uses for this rank's host.
	Host = "GOMPI_HOST"
	// Timeout, when set, bounds every blocking operation (a Go duration):
	// past it the operation returns ErrTimeout instead of waiting on.
	Timeout = "GOMPI_TIMEOUT"
	// CMA set to "0" disables cross-memory attach; large messages then take
	// the pipelined copy through the segment.
	CMA = "GOMPI_SHM_CMA"
	// CMAColl set to "0" disables cross-memory attach in the shared-memory
	// collectives only (their single-copy algorithms, "cma"); point-to-point
	// messages keep it.
	CMAColl = "GOMPI_SHM_CMA_COLL"
	// CMAMin is the message size (bytes, K/M suffixes) from which a receiver
	// copies a large message out of the sender with cross-memory attach;
	// smaller rendezvous messages are pipelined through the segment, which
	// costs no system call per message.
	CMAMin = "GOMPI_SHM_CMA_MIN"
	// LedBarriers set to "1" turns on the leave orders of the barrier after
	// a rooted collective when ranks outnumber CPUs (the root of Bcast or
	// Scatter leaves first, the root of Gather or Reduce last). Off by
	// default: they move the root's wait out of the collective into the
	// barrier without shortening the pair (docs/PERFORMANCE.md, "The leave
	// orders measured as a whole loop").
	LedBarriers = "GOMPI_SHM_LEAD"
	// Timer names the clock Wtime reads (tsc, monotonic, realtime).
	Timer = "GOMPI_TIMER"
	// Progress set to "0" turns off the background progress goroutine:
	// nonblocking operations then progress only inside gompi calls.
	Progress = "GOMPI_PROGRESS"
	// Spin and Yield override how long a waiting rank polls, then yields,
	// before it sleeps (Go durations).
	Spin  = "GOMPI_SPIN"
	Yield = "GOMPI_YIELD"
	// CPUProfile, when set, makes every rank write a Go CPU profile from Init
	// to Finalize to this path with ".RANK" appended.
	CPUProfile = "GOMPI_CPUPROFILE"
	// Trace, when set, makes every rank record every gompi call into this
	// directory (one file per rank and a manifest; see package trace).
	Trace = "GOMPI_TRACE"
	// RMAShm set to "0" turns off windows that map each other's memory on
	// one host: every window then goes by message.
	RMAShm = "GOMPI_RMA_SHM"
)

// Environment variables of jobs that use TCP (several hosts, or
// GOMPI_TRANSPORT=tcp); see net.go.
const (
	// Transport chooses how ranks of one host talk: "auto" (or unset):
	// shared memory within a host, TCP between hosts; "tcp": TCP between
	// every pair, so that TCP can be measured on one host. Users set it
	// (golaunch --transport sets it for them).
	Transport = "GOMPI_TRANSPORT"
	// KVS is the address (host:port) of the rendezvous key-value store the
	// ranks publish their listening addresses in.
	KVS = "GOMPI_KVS"
	// SecretFD is the inherited descriptor of a memory file holding the job
	// secret (SecretSize bytes). Every TCP connection of the job proves it
	// knows the secret before anything else is read (see auth.go).
	SecretFD = "GOMPI_SECRET_FD"
	// Hosts is the rank→host map of the whole job: "nameA=0-1;nameB=2-3"
	// (host names in the order golaunch lists them, ranks as FormatInts).
	Hosts = "GOMPI_HOSTS"
	// ConnectTimeout bounds each step of connecting (a Go duration): waiting
	// for a peer's address, connecting, proving the secret. Default 20s.
	ConnectTimeout = "GOMPI_CONNECT_TIMEOUT"
	// TCPNet, when set, is a CIDR (e.g. 10.231.0.0/16): only addresses in it
	// are published for other hosts to dial.
	TCPNet = "GOMPI_TCP_NET"
	// TCPChunk caps the bytes of one read or write system call on a TCP
	// connection (default 524288); a tuning knob for measurements.
	TCPChunk = "GOMPI_TCP_CHUNK"
)

// Job is what a rank learns of its job at Init.
type Job struct {
	Rank, Size           int
	LocalRank, LocalSize int
	LocalRanks           []int // world ranks on this host, in local-rank order
	ShmFD                int   // -1 when there is no segment
	JobID                string
	Host                 string
	Oversubscribed       bool

	// Set for jobs that use TCP; empty otherwise.
	Transport      string        // "auto" or "tcp"
	KVS            string        // rendezvous store address
	SecretFD       int           // -1 when there is none
	HostMap        []HostRanks   // nil for a one-host job launched without one
	ConnectTimeout time.Duration // 0: DefaultConnectTimeout
}

// FromEnv reads the job description. ok is false when the process was not
// started by golaunch (GOMPI_RANK unset): it is then a world of one rank.
func FromEnv() (job Job, ok bool, err error) {
	if _, set := os.LookupEnv(Rank); !set {
		return Job{Size: 1, LocalSize: 1, LocalRanks: []int{0}, ShmFD: -1, SecretFD: -1}, false, nil
	}
	geti := func(name string) (int, error) {
		v, err := strconv.Atoi(os.Getenv(name))
		if err != nil {
			return 0, fmt.Errorf("jobenv: %s=%q is not a number (was this process started by golaunch?)", name, os.Getenv(name))
		}
		return v, nil
	}
	if job.Rank, err = geti(Rank); err != nil {
		return job, true, err
	}
	if job.Size, err = geti(Size); err != nil {
		return job, true, err
	}
	if job.LocalRank, err = geti(LocalRank); err != nil {
		return job, true, err
	}
	if job.LocalSize, err = geti(LocalSize); err != nil {
		return job, true, err
	}
	job.ShmFD = -1
	if os.Getenv(ShmFD) != "" {
		if job.ShmFD, err = geti(ShmFD); err != nil {
			return job, true, err
		}
	}
	if job.LocalRanks, err = ParseInts(os.Getenv(LocalRanks)); err != nil {
		return job, true, fmt.Errorf("jobenv: %s: %v", LocalRanks, err)
	}
	if job.Size <= 0 || job.Rank < 0 || job.Rank >= job.Size ||
		job.LocalSize <= 0 || job.LocalRank < 0 || job.LocalRank >= job.LocalSize ||
		len(job.LocalRanks) != job.LocalSize || job.LocalRanks[job.LocalRank] != job.Rank {
		return job, true, fmt.Errorf("jobenv: inconsistent job description (rank %d of %d, local %d of %d, local ranks %v)",
			job.Rank, job.Size, job.LocalRank, job.LocalSize, job.LocalRanks)
	}
	job.JobID = os.Getenv(JobID)
	job.Host = os.Getenv(Host)
	job.Oversubscribed = os.Getenv(Oversubscribed) == "1"
	if err := job.netFromEnv(); err != nil {
		return job, true, err
	}
	return job, true, nil
}

// Env returns the variables that describe rank r of a job, for the launcher.
func (j Job) Env() []string {
	return append([]string{
		Rank + "=" + strconv.Itoa(j.Rank),
		Size + "=" + strconv.Itoa(j.Size),
		LocalRank + "=" + strconv.Itoa(j.LocalRank),
		LocalSize + "=" + strconv.Itoa(j.LocalSize),
		LocalRanks + "=" + FormatInts(j.LocalRanks),
		ShmFD + "=" + strconv.Itoa(j.ShmFD),
		JobID + "=" + j.JobID,
		Host + "=" + j.Host,
		Oversubscribed + "=" + boolEnv(j.Oversubscribed),
	}, j.netEnv()...)
}

func boolEnv(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// FormatInts writes a list of ranks compactly: "0-3,8,10-11".
func FormatInts(xs []int) string {
	var b strings.Builder
	for i := 0; i < len(xs); {
		j := i
		for j+1 < len(xs) && xs[j+1] == xs[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		if j > i {
			fmt.Fprintf(&b, "%d-%d", xs[i], xs[j])
		} else {
			b.WriteString(strconv.Itoa(xs[i]))
		}
		i = j + 1
	}
	return b.String()
}

// ParseInts reads what FormatInts writes.
func ParseInts(s string) ([]int, error) {
	var out []int
	if s == "" {
		return out, nil
	}
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 {
			return nil, fmt.Errorf("bad rank %q", part)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, fmt.Errorf("bad range %q", part)
			}
		}
		if b-a > 1<<24 {
			return nil, fmt.Errorf("range %q too large", part)
		}
		for x := a; x <= b; x++ {
			out = append(out, x)
		}
	}
	return out, nil
}
