// Package pmi2 is a client of the PMI-2 wire protocol, in pure Go (no
// libpmi2): what a rank started by `srun --mpi=pmi2` uses to learn its rank
// and size and to exchange endpoints with the other ranks of the step
// through the step's key-value space.
//
// The protocol, as Slurm's mpi/pmi2 plugin and MPICH's simple PMI-2 client
// speak it over the descriptor named by PMI_FD:
//
//   - one handshake line in PMI-1 form: the client sends
//     "cmd=init pmi_version=2 pmi_subversion=0\n" and the server answers
//     "cmd=response_to_init rc=0 pmi_version=2 pmi_subversion=0\n";
//   - then messages in PMI-2 form, each way: a length of 6 ASCII characters
//     (decimal, left-aligned, space-padded: "%-6d") and that many bytes of
//     "cmd=NAME;key=value;key=value;". A ';' inside a value is written ";;"
//     (MPICH's escape; Slurm's server does not decode it, so this client
//     never sends one).
//
// Every request has one response ("NAME-response" with rc=0 on success),
// except abort, which has none: the server ends the step.
package pmi2

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Limits of the protocol (PMI2_MAX_KEYLEN, PMI2_MAX_VALLEN in pmi2.h).
const (
	MaxKeyLen   = 64
	MaxValueLen = 1024
	// maxMessage bounds one message: the length field has 6 digits.
	maxMessage = 999999
)

// Error classes; test with errors.Is.
var (
	// ErrProtocol: the other end sent something that is not PMI-2.
	ErrProtocol = errors.New("pmi2: protocol error")
	// ErrFailed: the server answered a request with a non-zero rc.
	ErrFailed = errors.New("pmi2: the PMI server refused the request")
	// ErrInvalid: a key or value this client was asked to send cannot be
	// sent (too long, or holds a character the wire format cannot carry).
	ErrInvalid = errors.New("pmi2: invalid key or value")
	// ErrNoPMI: the process was not started with a PMI-2 environment.
	ErrNoPMI = errors.New("pmi2: no PMI-2 environment (PMI_FD is not set)")
)

// Pair is one key=value of a message. Order matters: some commands (spawn)
// repeat keys.
type Pair struct{ Key, Value string }

// Message is one PMI-2 command or response.
type Message struct {
	Cmd   string
	Pairs []Pair
}

// Get returns the value of the first pair with key k.
func (m Message) Get(k string) (string, bool) {
	for _, p := range m.Pairs {
		if p.Key == k {
			return p.Value, true
		}
	}
	return "", false
}

// Int returns the value of key k as a number.
func (m Message) Int(k string) (int, error) {
	v, ok := m.Get(k)
	if !ok {
		return 0, fmt.Errorf("%w: %s has no %s", ErrProtocol, m.Cmd, k)
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("%w: %s: %s=%q is not a number", ErrProtocol, m.Cmd, k, v)
	}
	return n, nil
}

// Encode writes m with its length prefix. Keys must be non-empty and hold
// no '=' or ';', values no ';' (see the package comment).
func Encode(m Message) ([]byte, error) {
	var b strings.Builder
	b.WriteString("cmd=")
	b.WriteString(m.Cmd)
	b.WriteByte(';')
	if m.Cmd == "" || strings.ContainsAny(m.Cmd, "=;") {
		return nil, fmt.Errorf("%w: command %q", ErrInvalid, m.Cmd)
	}
	for _, p := range m.Pairs {
		if p.Key == "" || strings.ContainsAny(p.Key, "=;") {
			return nil, fmt.Errorf("%w: key %q", ErrInvalid, p.Key)
		}
		if strings.ContainsRune(p.Value, ';') {
			return nil, fmt.Errorf("%w: the value of %s holds a ';'", ErrInvalid, p.Key)
		}
		b.WriteString(p.Key)
		b.WriteByte('=')
		b.WriteString(p.Value)
		b.WriteByte(';')
	}
	if b.Len() > maxMessage {
		return nil, fmt.Errorf("%w: message of %d bytes (at most %d)", ErrInvalid, b.Len(), maxMessage)
	}
	return []byte(fmt.Sprintf("%-6d%s", b.Len(), b.String())), nil
}

// Decode reads the body of a message (without its length prefix):
// "cmd=NAME;k=v;...". The last ';' may be missing. In a value, ";;" stands
// for one ';'.
func Decode(body []byte) (Message, error) {
	var m Message
	s := string(body)
	first := true
	for len(s) > 0 {
		eq := strings.IndexByte(s, '=')
		if eq < 0 {
			return Message{}, fmt.Errorf("%w: %q has no '='", ErrProtocol, clip(s))
		}
		key := s[:eq]
		if key == "" || strings.IndexByte(key, ';') >= 0 {
			return Message{}, fmt.Errorf("%w: bad key %q", ErrProtocol, clip(key))
		}
		s = s[eq+1:]
		var val strings.Builder
		for {
			i := strings.IndexByte(s, ';')
			if i < 0 {
				val.WriteString(s)
				s = ""
				break
			}
			val.WriteString(s[:i])
			if i+1 < len(s) && s[i+1] == ';' {
				val.WriteByte(';')
				s = s[i+2:]
				continue
			}
			s = s[i+1:]
			break
		}
		if first {
			if key != "cmd" {
				return Message{}, fmt.Errorf("%w: message does not start with cmd= (%q)", ErrProtocol, clip(string(body)))
			}
			m.Cmd = val.String()
			first = false
			continue
		}
		m.Pairs = append(m.Pairs, Pair{key, val.String()})
	}
	if first || m.Cmd == "" {
		return Message{}, fmt.Errorf("%w: message without a command", ErrProtocol)
	}
	return m, nil
}

// ReadMessage reads one length-prefixed message.
func ReadMessage(r io.Reader) (Message, error) {
	var lenField [6]byte
	if _, err := io.ReadFull(r, lenField[:]); err != nil {
		return Message{}, fmt.Errorf("%w: reading a message length: %v", ErrProtocol, err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(lenField[:])))
	if err != nil || n <= 0 || n > maxMessage {
		return Message{}, fmt.Errorf("%w: bad message length %q", ErrProtocol, lenField[:])
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return Message{}, fmt.Errorf("%w: reading a message of %d bytes: %v", ErrProtocol, n, err)
	}
	return Decode(body)
}

// initLine is the PMI-1 handshake the client opens with.
const initLine = "cmd=init pmi_version=2 pmi_subversion=0\n"

// parseInitResponse checks the server's answer to initLine:
// "cmd=response_to_init rc=0 pmi_version=2 pmi_subversion=0" (any order
// after cmd).
func parseInitResponse(line string) error {
	fields := strings.Fields(line)
	if len(fields) == 0 || fields[0] != "cmd=response_to_init" {
		return fmt.Errorf("%w: unexpected answer to init: %q", ErrProtocol, clip(line))
	}
	kv := map[string]string{}
	for _, f := range fields[1:] {
		k, v, _ := strings.Cut(f, "=")
		kv[k] = v
	}
	if kv["rc"] != "0" {
		return fmt.Errorf("%w: init: rc=%s (the server does not speak PMI-2? start the job with srun --mpi=pmi2)", ErrFailed, kv["rc"])
	}
	if kv["pmi_version"] != "2" {
		return fmt.Errorf("%w: the server offers PMI version %q, not 2", ErrProtocol, kv["pmi_version"])
	}
	return nil
}

// readLine reads up to '\n' from r, at most 1024 bytes.
func readLine(r *bufio.Reader) (string, error) {
	var b []byte
	for len(b) < 1024 {
		c, err := r.ReadByte()
		if err != nil {
			return "", fmt.Errorf("%w: reading the init answer: %v", ErrProtocol, err)
		}
		if c == '\n' {
			return string(b), nil
		}
		b = append(b, c)
	}
	return "", fmt.Errorf("%w: init answer longer than 1024 bytes", ErrProtocol)
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}
