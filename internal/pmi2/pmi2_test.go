package pmi2_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/gompi/gompi/internal/pmi2"
	"github.com/gompi/gompi/internal/pmi2/pmi2test"
)

func TestEncode(t *testing.T) {
	for _, tc := range []struct {
		m    pmi2.Message
		want string
		err  error
	}{
		{pmi2.Message{Cmd: "kvs-fence"}, "14    cmd=kvs-fence;", nil},
		{pmi2.Message{Cmd: "kvs-put", Pairs: []pmi2.Pair{{"key", "a"}, {"value", "x=1,y"}}},
			"30    cmd=kvs-put;key=a;value=x=1,y;", nil},
		{pmi2.Message{Cmd: "kvs-put", Pairs: []pmi2.Pair{{"key", "a"}, {"value", ""}}}, "25    cmd=kvs-put;key=a;value=;", nil},
		{pmi2.Message{Cmd: "kvs-put", Pairs: []pmi2.Pair{{"key", "a"}, {"value", "x;y"}}}, "", pmi2.ErrInvalid},
		{pmi2.Message{Cmd: "kvs-put", Pairs: []pmi2.Pair{{"k=y", "a"}}}, "", pmi2.ErrInvalid},
		{pmi2.Message{Cmd: "kvs-put", Pairs: []pmi2.Pair{{"", "a"}}}, "", pmi2.ErrInvalid},
		{pmi2.Message{Cmd: ""}, "", pmi2.ErrInvalid},
		{pmi2.Message{Cmd: "a;b"}, "", pmi2.ErrInvalid},
	} {
		b, err := pmi2.Encode(tc.m)
		if !errors.Is(err, tc.err) || string(b) != tc.want {
			t.Errorf("Encode(%+v) = %q, %v; want %q, %v", tc.m, b, err, tc.want, tc.err)
		}
	}
}

func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want pmi2.Message
		err  bool
	}{
		{"cmd=kvs-fence-response;rc=0;", pmi2.Message{Cmd: "kvs-fence-response", Pairs: []pmi2.Pair{{"rc", "0"}}}, false},
		{"cmd=kvs-get-response;rc=0;found=TRUE;value=a=b,c;",
			pmi2.Message{Cmd: "kvs-get-response", Pairs: []pmi2.Pair{{"rc", "0"}, {"found", "TRUE"}, {"value", "a=b,c"}}}, false},
		{"cmd=x;value=a;;b;", pmi2.Message{Cmd: "x", Pairs: []pmi2.Pair{{"value", "a;b"}}}, false}, // MPICH's escape
		{"cmd=x;value=;", pmi2.Message{Cmd: "x", Pairs: []pmi2.Pair{{"value", ""}}}, false},
		{"cmd=x;k=v", pmi2.Message{Cmd: "x", Pairs: []pmi2.Pair{{"k", "v"}}}, false}, // last ';' missing
		{"cmd=x", pmi2.Message{Cmd: "x"}, false},
		{"", pmi2.Message{}, true},
		{"rc=0;cmd=x;", pmi2.Message{}, true},
		{"cmd=;", pmi2.Message{}, true},
		{"cmd=x;novalue;", pmi2.Message{}, true},
		{"cmd=x;=v;", pmi2.Message{}, true},
	} {
		m, err := pmi2.Decode([]byte(tc.in))
		if (err != nil) != tc.err {
			t.Errorf("Decode(%q): error %v, want error %v", tc.in, err, tc.err)
			continue
		}
		if err != nil {
			if !errors.Is(err, pmi2.ErrProtocol) {
				t.Errorf("Decode(%q): error %v is not ErrProtocol", tc.in, err)
			}
			continue
		}
		if !reflect.DeepEqual(m, tc.want) {
			t.Errorf("Decode(%q) = %+v, want %+v", tc.in, m, tc.want)
		}
	}
}

func TestReadMessage(t *testing.T) {
	for _, tc := range []struct {
		in  string
		cmd string
		err bool
	}{
		{"14    cmd=kvs-fence;", "kvs-fence", false},
		{"14    cmd=kvs-fence;rest", "kvs-fence", false},
		{"10", "", true},
		{"abcdefcmd=x;", "", true},
		{"0     ", "", true},
		{"-5    ", "", true},
		{"99    cmd=x;", "", true}, // short body
	} {
		m, err := pmi2.ReadMessage(strings.NewReader(tc.in))
		if (err != nil) != tc.err || m.Cmd != tc.cmd {
			t.Errorf("ReadMessage(%q) = %q, %v", tc.in, m.Cmd, err)
		}
	}
}

// FuzzDecode checks that the decoder never panics, and that what it reads
// from an encoded message is that message.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{"cmd=kvs-get-response;rc=0;found=TRUE;value=a=b;", "cmd=x;v=a;;b;", "cmd=", ";;;", "cmd=x;k=v", "=;="} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := pmi2.Decode(b)
		if err != nil {
			return
		}
		if m.Cmd == "" {
			t.Fatalf("Decode(%q) gave an empty command", b)
		}
		enc, err := pmi2.Encode(m)
		if err != nil {
			return // values with ';' decode but are never sent
		}
		m2, err := pmi2.ReadMessage(bytes.NewReader(enc))
		if err != nil || !reflect.DeepEqual(m, m2) {
			t.Fatalf("round trip of %q: %+v, then %+v (%v)", b, m, m2, err)
		}
	})
}

// connectAll starts n clients against srv concurrently.
func connectAll(t *testing.T, srv *pmi2test.Server) []*pmi2.Client {
	t.Helper()
	cls := make([]*pmi2.Client, srv.Size)
	errs := make([]error, srv.Size)
	var wg sync.WaitGroup
	for r := range cls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cls[r], errs[r] = pmi2.Connect(srv.Pipe(r), r, srv.JobID)
		}()
	}
	wg.Wait()
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	return cls
}

func TestExchange(t *testing.T) {
	const n = 4
	srv := pmi2test.New(n)
	srv.NodeOf = func(r int) int { return r / 2 }
	cls := connectAll(t, srv)
	for r, cl := range cls {
		if cl.Rank != r || cl.Size != n || cl.JobID != srv.JobID {
			t.Fatalf("client %d: rank %d size %d job %q", r, cl.Rank, cl.Size, cl.JobID)
		}
	}
	var wg sync.WaitGroup
	got := make([][]string, n)
	errs := make([]error, n)
	for r, cl := range cls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[r] = func() error {
				if err := cl.Put(fmt.Sprintf("addr.%d", r), fmt.Sprintf("127.0.0.1:%d", 1000+r)); err != nil {
					return err
				}
				// Not visible before the fence.
				if _, ok, err := cl.Get(fmt.Sprintf("addr.%d", r)); ok || err != nil {
					return fmt.Errorf("own value visible before the fence (%v)", err)
				}
				if err := cl.Fence(); err != nil {
					return err
				}
				for w := 0; w < n; w++ {
					v, ok, err := cl.Get(fmt.Sprintf("addr.%d", w))
					if err != nil || !ok {
						return fmt.Errorf("get addr.%d: %q %v %v", w, v, ok, err)
					}
					got[r] = append(got[r], v)
				}
				if _, ok, err := cl.Get("nobody"); ok || err != nil {
					return fmt.Errorf("get of a missing key: ok %v err %v", ok, err)
				}
				// The node's first rank publishes, the other waits for it.
				if r%2 == 0 {
					if err := cl.PutNodeAttr("seg", fmt.Sprint("node", r/2)); err != nil {
						return err
					}
				}
				v, ok, err := cl.GetNodeAttr("seg", true)
				if err != nil || !ok || v != fmt.Sprint("node", r/2) {
					return fmt.Errorf("node attribute: %q %v %v", v, ok, err)
				}
				return cl.Finalize()
			}()
		}()
	}
	wg.Wait()
	for r, err := range errs {
		if err != nil {
			t.Errorf("rank %d: %v", r, err)
		}
	}
	for r := range got {
		if len(got[r]) != n || got[r][n-1] != fmt.Sprintf("127.0.0.1:%d", 1000+n-1) {
			t.Errorf("rank %d read %v", r, got[r])
		}
	}
}

func TestLimits(t *testing.T) {
	srv := pmi2test.New(1)
	cl := connectAll(t, srv)[0]
	defer cl.Close()
	for _, tc := range []struct{ k, v string }{
		{"", "x"}, {strings.Repeat("k", pmi2.MaxKeyLen+1), "x"}, {"k", strings.Repeat("v", pmi2.MaxValueLen+1)}, {"k", "a;b"},
	} {
		if err := cl.Put(tc.k, tc.v); !errors.Is(err, pmi2.ErrInvalid) {
			t.Errorf("Put(%.10q, %.10q) = %v, want ErrInvalid", tc.k, tc.v, err)
		}
	}
	if err := cl.Put("k", strings.Repeat("v", pmi2.MaxValueLen)); err != nil {
		t.Errorf("Put of the longest value: %v", err)
	}
}

func TestAbort(t *testing.T) {
	srv := pmi2test.New(2)
	aborted := make(chan string, 1)
	srv.OnAbort = func(rank int, msg string) { aborted <- fmt.Sprint(rank, " ", msg) }
	cls := connectAll(t, srv)
	if err := cls[1].Abort("rank 1 called Abort(3); sorry"); err != nil {
		t.Fatal(err)
	}
	if got := <-aborted; got != "1 rank 1 called Abort(3), sorry" {
		t.Errorf("server saw abort %q", got)
	}
	cls[0].Close()
}

// A server that answers wrongly: each case is an error of the right class,
// never a hang or a panic.
func TestBadServer(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer string // after the init line
		err    error
	}{
		{"refused init", "cmd=response_to_init rc=1 pmi_version=2 pmi_subversion=0\n", pmi2.ErrFailed},
		{"pmi1 only", "cmd=response_to_init rc=0 pmi_version=1 pmi_subversion=1\n", pmi2.ErrProtocol},
		{"garbage", "hello\n", pmi2.ErrProtocol},
		{"closed", "", pmi2.ErrProtocol},
		{"fullinit refused", "cmd=response_to_init rc=0 pmi_version=2 pmi_subversion=0\n" + frame("cmd=fullinit-response;rc=3;"), pmi2.ErrFailed},
		{"wrong response", "cmd=response_to_init rc=0 pmi_version=2 pmi_subversion=0\n" + frame("cmd=kvs-put-response;rc=0;"), pmi2.ErrProtocol},
		{"rank out of range", "cmd=response_to_init rc=0 pmi_version=2 pmi_subversion=0\n" + frame("cmd=fullinit-response;rc=0;rank=5;size=2;"), pmi2.ErrProtocol},
		{"no size", "cmd=response_to_init rc=0 pmi_version=2 pmi_subversion=0\n" + frame("cmd=fullinit-response;rc=0;rank=0;"), pmi2.ErrProtocol},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, s := net.Pipe()
			go func() {
				defer s.Close()
				buf := make([]byte, 64)
				s.Read(buf)
				io.WriteString(s, tc.answer)
				if tc.answer != "" {
					io.Copy(io.Discard, s)
				}
			}()
			_, err := pmi2.Connect(c, 0, "1.0")
			if !errors.Is(err, tc.err) {
				t.Errorf("Connect = %v, want %v", err, tc.err)
			}
		})
	}
}

func frame(body string) string { return fmt.Sprintf("%-6d%s", len(body), body) }
