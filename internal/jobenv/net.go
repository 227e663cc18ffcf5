package jobenv

import (
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// DefaultConnectTimeout bounds each step of connecting when
// GOMPI_CONNECT_TIMEOUT is not set.
const DefaultConnectTimeout = 20 * time.Second

// HostRanks is one host of a job and the world ranks that run there.
type HostRanks struct {
	Name  string
	Ranks []int
}

// FormatHosts writes a rank→host map as "nameA=0-1;nameB=2-3".
func FormatHosts(hs []HostRanks) string {
	var b strings.Builder
	for i, h := range hs {
		if i > 0 {
			b.WriteByte(';')
		}
		b.WriteString(h.Name)
		b.WriteByte('=')
		b.WriteString(FormatInts(h.Ranks))
	}
	return b.String()
}

// ParseHosts reads what FormatHosts writes.
func ParseHosts(s string) ([]HostRanks, error) {
	if s == "" {
		return nil, nil
	}
	var out []HostRanks
	for _, part := range strings.Split(s, ";") {
		name, ranks, ok := strings.Cut(part, "=")
		if !ok || name == "" {
			return nil, fmt.Errorf("bad host entry %q (want NAME=RANKS)", part)
		}
		rs, err := ParseInts(ranks)
		if err != nil {
			return nil, fmt.Errorf("host %s: %v", name, err)
		}
		out = append(out, HostRanks{name, rs})
	}
	return out, nil
}

// HostOf returns the name of the host world rank r runs on, "" if the map
// does not say.
func (j *Job) HostOf(r int) string {
	for _, h := range j.HostMap {
		for _, x := range h.Ranks {
			if x == r {
				return h.Name
			}
		}
	}
	if len(j.HostMap) == 0 {
		for _, x := range j.LocalRanks {
			if x == r {
				return j.Host
			}
		}
	}
	return ""
}

// NeedsTCP reports whether this rank has peers it must reach over TCP: peers
// on other hosts, or any peer when the transport is forced to TCP.
func (j *Job) NeedsTCP() bool {
	return j.Size > 1 && (j.LocalSize < j.Size || j.Transport == "tcp")
}

// TCPFromEnv reads the TCP variables (GOMPI_TRANSPORT,
// GOMPI_CONNECT_TIMEOUT, …) into j, for ranks whose job is described by
// another launcher (srun, through PMI-2).
func (j *Job) TCPFromEnv() error { return j.netFromEnv() }

func (j *Job) netFromEnv() error {
	j.SecretFD = -1
	j.KVS = os.Getenv(KVS)
	switch t := os.Getenv(Transport); t {
	case "", "auto":
		j.Transport = "auto"
	case "tcp":
		j.Transport = "tcp"
	default:
		return fmt.Errorf("jobenv: %s=%q: want auto or tcp", Transport, t)
	}
	if v := os.Getenv(SecretFD); v != "" {
		fd, err := strconv.Atoi(v)
		if err != nil || fd < 0 {
			return fmt.Errorf("jobenv: %s=%q is not a descriptor", SecretFD, v)
		}
		j.SecretFD = fd
	}
	hs, err := ParseHosts(os.Getenv(Hosts))
	if err != nil {
		return fmt.Errorf("jobenv: %s: %v", Hosts, err)
	}
	j.HostMap = hs
	if v := os.Getenv(ConnectTimeout); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return fmt.Errorf("jobenv: %s=%q is not a positive duration", ConnectTimeout, v)
		}
		j.ConnectTimeout = d
	}
	return nil
}

// netEnv returns the TCP variables of j that are set.
func (j Job) netEnv() []string {
	var env []string
	if j.Transport != "" {
		env = append(env, Transport+"="+j.Transport)
	}
	if j.KVS != "" {
		env = append(env, KVS+"="+j.KVS)
	}
	if j.SecretFD >= 0 && j.KVS != "" {
		env = append(env, SecretFD+"="+strconv.Itoa(j.SecretFD))
	}
	if len(j.HostMap) > 0 {
		env = append(env, Hosts+"="+FormatHosts(j.HostMap))
	}
	if j.ConnectTimeout > 0 {
		env = append(env, ConnectTimeout+"="+j.ConnectTimeout.String())
	}
	return env
}

// SecretSize is the length of a job secret in bytes.
const SecretSize = 32

// NewSecret returns a fresh random job secret.
func NewSecret() ([]byte, error) {
	s := make([]byte, SecretSize)
	if _, err := rand.Read(s); err != nil {
		return nil, fmt.Errorf("jobenv: no randomness for the job secret: %w", err)
	}
	return s, nil
}

// ReadSecret reads the job secret from the inherited descriptor fd and
// closes it.
func ReadSecret(fd int) ([]byte, error) {
	if fd < 0 {
		return nil, errors.New("jobenv: golaunch passed no job secret")
	}
	defer unix.Close(fd)
	s := make([]byte, SecretSize+1)
	n, err := unix.Pread(fd, s, 0)
	if err != nil {
		return nil, fmt.Errorf("jobenv: reading the job secret from descriptor %d: %w", fd, err)
	}
	if n != SecretSize {
		return nil, fmt.Errorf("jobenv: the job secret is %d bytes, want %d", n, SecretSize)
	}
	return s[:SecretSize], nil
}
