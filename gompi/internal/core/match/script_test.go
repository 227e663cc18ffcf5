package match

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The golden tests: each testdata/*.txt is a script of events, each followed
// by the actions the engine must take, as in etcd-io/raft's data-driven
// tests. A block is one command line, a line "----", and the expected
// output up to a blank line; lines starting with # are comments.
//
//	go test ./gompi/internal/core/match -run TestScripts -update
//
// rewrites the expected output from what the code does now: read the diff
// before committing it, it is the specification.

var update = flag.Bool("update", false, "rewrite the expected output of testdata/*.txt")

func TestScripts(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts in testdata: %v", err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) { runScriptFile(t, f) })
	}
}

// block is one command of a script and its expected output.
type block struct {
	comments []string
	cmd      string
	line     int
	want     string
}

func parseScript(text string) ([]block, error) {
	var (
		blocks []block
		cur    block
		state  = 0 // 0: before the command, 1: after it, 2: in the output
		out    []string
	)
	sc := bufio.NewScanner(strings.NewReader(text))
	n := 0
	flush := func() {
		cur.want = strings.Join(out, "\n")
		blocks = append(blocks, cur)
		cur, out, state = block{}, nil, 0
	}
	for sc.Scan() {
		n++
		l := sc.Text()
		switch state {
		case 0:
			if strings.HasPrefix(l, "#") || strings.TrimSpace(l) == "" {
				cur.comments = append(cur.comments, l)
				continue
			}
			cur.cmd, cur.line, state = l, n, 1
		case 1:
			if l != "----" {
				return nil, fmt.Errorf("line %d: expected ---- after the command", n)
			}
			state = 2
		case 2:
			if strings.TrimSpace(l) == "" {
				flush()
				continue
			}
			out = append(out, l)
		}
	}
	if state == 1 {
		return nil, fmt.Errorf("line %d: the last command has no ----", n)
	}
	if state == 2 {
		flush()
	}
	return blocks, sc.Err()
}

func runScriptFile(t *testing.T, path string) {
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := parseScript(string(text))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	s := newScript()
	var rewritten strings.Builder
	for _, b := range blocks {
		got, err := s.run(b.cmd)
		if err != nil {
			t.Fatalf("%s:%d: %s: %v", path, b.line, b.cmd, err)
		}
		if *update {
			for _, c := range b.comments {
				rewritten.WriteString(c + "\n")
			}
			fmt.Fprintf(&rewritten, "%s\n----\n%s\n\n", b.cmd, got)
			continue
		}
		if got != b.want {
			t.Errorf("%s:%d: %s\ngot:\n%s\nwant:\n%s", path, b.line, b.cmd, got, b.want)
		}
	}
	if *update {
		if err := os.WriteFile(path, []byte(rewritten.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// script interprets the commands of a golden script against Queues. Names
// (r1, m2, g1) are the script's; receives and messages are plain values.
type script struct {
	q      Queues[string, string]
	recvs  map[string]*Recv[string]
	msgs   map[string]*Msg[string] // unexpected or taken by mprobe
	caps   map[string]int          // a receive's buffer capacity
	groups map[string]*Group
	taken  map[string]bool // messages taken by mprobe, not yet received
}

func newScript() *script {
	return &script{recvs: map[string]*Recv[string]{}, msgs: map[string]*Msg[string]{}, caps: map[string]int{},
		groups: map[string]*Group{}, taken: map[string]bool{}}
}

// args parses "k=v" words; "any" stands for a wildcard.
func args(words []string) (map[string]string, error) {
	a := map[string]string{}
	for _, w := range words {
		k, v, ok := strings.Cut(w, "=")
		if !ok {
			return nil, fmt.Errorf("argument %q is not key=value", w)
		}
		a[k] = v
	}
	return a, nil
}

func num(a map[string]string, k string, def int64) (int64, error) {
	v, ok := a[k]
	if !ok {
		return def, nil
	}
	if v == "any" {
		return -1, nil
	}
	return strconv.ParseInt(v, 10, 64)
}

func (s *script) key(a map[string]string) (Key, error) {
	ctx, err1 := num(a, "ctx", 0)
	src, err2 := num(a, "src", 0)
	tag, err3 := num(a, "tag", 0)
	for _, err := range []error{err1, err2, err3} {
		if err != nil {
			return Key{}, err
		}
	}
	return Key{Ctx: uint32(ctx), Src: int32(src), Tag: int32(tag)}, nil
}

func (s *script) deliver(m *Msg[string], r string) string {
	n, trunc := Fit(s.caps[r], m.Size)
	out := fmt.Sprintf("deliver %s -> %s src=%d tag=%d count=%d", m.Owner, r, m.Src, m.Tag, n)
	if trunc {
		out += fmt.Sprintf(" error=truncate(%d>%d)", m.Size, s.caps[r])
	}
	return out
}

func (s *script) run(line string) (string, error) {
	f := strings.Fields(line)
	name, a := "", map[string]string{}
	if len(f) > 1 {
		name = f[1]
	}
	if len(f) > 2 && (f[0] == "post" || f[0] == "arrive") {
		var err error
		if a, err = args(f[2:]); err != nil {
			return "", err
		}
	}
	switch f[0] {
	case "group": // group g1 self=0 members=0,1,2
		a, err := args(f[2:])
		if err != nil {
			return "", err
		}
		self, _ := num(a, "self", 0)
		g := &Group{Self: int32(self)}
		for _, w := range strings.Split(a["members"], ",") {
			x, err := strconv.Atoi(w)
			if err != nil {
				return "", fmt.Errorf("members: %v", err)
			}
			g.Members = append(g.Members, int32(x))
		}
		s.groups[name] = g
		return "ok", nil
	case "post": // post r1 ctx=0 src=1 tag=5 cap=8 group=g1
		k, err := s.key(a)
		if err != nil {
			return "", err
		}
		c, err := num(a, "cap", 0)
		if err != nil {
			return "", err
		}
		r := &Recv[string]{Key: k, Owner: name}
		if g := a["group"]; g != "" {
			if r.Group = s.groups[g]; r.Group == nil {
				return "", fmt.Errorf("no group %s", g)
			}
		}
		s.recvs[name], s.caps[name] = r, int(c)
		m, res := s.q.Post(r)
		switch res {
		case Matched:
			delete(s.msgs, m.Owner)
			return s.deliver(m, name), nil
		case Lost:
			return fmt.Sprintf("fail %s error=peer-lost", name), nil
		}
		return "posted " + name, nil
	case "arrive": // arrive m1 ctx=0 src=1 tag=5 size=4
		k, err := s.key(a)
		if err != nil {
			return "", err
		}
		if k.Src < 0 || k.Tag < 0 {
			return "", fmt.Errorf("a message has a concrete source and tag")
		}
		size, err := num(a, "size", 0)
		if err != nil {
			return "", err
		}
		m := &Msg[string]{Key: k, Size: size, Owner: name}
		if r := s.q.Arrive(k); r != nil {
			return s.deliver(m, r.Owner), nil
		}
		s.q.Keep(m)
		s.msgs[name] = m
		return "unexpected " + name, nil
	case "cancel": // cancel r1
		r := s.recvs[name]
		if r == nil {
			return "", fmt.Errorf("no receive %s", name)
		}
		if s.q.Cancel(r) {
			return "cancelled " + name, nil
		}
		return "not cancelled " + name + ": no longer posted", nil
	case "probe", "mprobe": // probe ctx=0 src=any tag=any
		a, err := args(f[1:])
		if err != nil {
			return "", err
		}
		k, err := s.key(a)
		if err != nil {
			return "", err
		}
		var m *Msg[string]
		if f[0] == "probe" {
			m = s.q.Probe(k)
		} else {
			m = s.q.Take(k)
		}
		if m == nil {
			return "none", nil
		}
		if f[0] == "mprobe" {
			s.taken[m.Owner] = true
		}
		return fmt.Sprintf("found %s src=%d tag=%d size=%d", m.Owner, m.Src, m.Tag, m.Size), nil
	case "mrecv": // mrecv m1 r9 cap=4: receive a message taken by mprobe
		m := s.msgs[name]
		if m == nil || !s.taken[name] {
			return "", fmt.Errorf("%s was not taken by mprobe", name)
		}
		if len(f) < 3 {
			return "", fmt.Errorf("mrecv needs a message and a receive name")
		}
		a, err := args(f[3:])
		if err != nil {
			return "", err
		}
		c, err := num(a, "cap", 0)
		if err != nil {
			return "", err
		}
		s.caps[f[2]] = int(c)
		delete(s.msgs, name)
		delete(s.taken, name)
		return s.deliver(m, f[2]), nil
	case "lost": // lost 2
		w, err := strconv.Atoi(name)
		if err != nil {
			return "", err
		}
		failed := s.q.PeerLost(int32(w), nil)
		if len(failed) == 0 {
			return "no receive fails", nil
		}
		var out []string
		for _, r := range failed {
			out = append(out, fmt.Sprintf("fail %s error=peer-lost", r.Owner))
		}
		return strings.Join(out, "\n"), nil
	case "state": // the queues, oldest first
		var out []string
		s.q.EachPosted(func(r *Recv[string]) {
			out = append(out, fmt.Sprintf("posted %s ctx=%d src=%s tag=%s", r.Owner, r.Ctx, wild(r.Src), wild(r.Tag)))
		})
		s.q.EachUnexpected(func(m *Msg[string]) {
			out = append(out, fmt.Sprintf("unexpected %s ctx=%d src=%d tag=%d size=%d", m.Owner, m.Ctx, m.Src, m.Tag, m.Size))
		})
		var taken []string
		for n := range s.taken {
			taken = append(taken, n)
		}
		sort.Strings(taken)
		for _, n := range taken {
			out = append(out, "taken "+n)
		}
		if len(out) == 0 {
			return "empty", nil
		}
		return strings.Join(out, "\n"), nil
	}
	return "", fmt.Errorf("unknown command %q", f[0])
}

func wild(v int32) string {
	if v == -1 {
		return "any"
	}
	return strconv.Itoa(int(v))
}
