package jobenv

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestHostsRoundTrip(t *testing.T) {
	for _, hs := range [][]HostRanks{
		{{"a", []int{0, 1}}, {"b", []int{2, 3}}},
		{{"node-1.example", []int{0, 2, 4}}, {"node-2", []int{1, 3}}},
		{{"only", []int{0}}},
	} {
		s := FormatHosts(hs)
		got, err := ParseHosts(s)
		if err != nil || !reflect.DeepEqual(got, hs) {
			t.Errorf("%q: got %v, %v; want %v", s, got, err, hs)
		}
		j := Job{HostMap: hs}
		for _, h := range hs {
			for _, r := range h.Ranks {
				if j.HostOf(r) != h.Name {
					t.Errorf("HostOf(%d) = %q, want %q", r, j.HostOf(r), h.Name)
				}
			}
		}
	}
	for _, bad := range []string{"a", "=1", "a=x", "a=1;b"} {
		if _, err := ParseHosts(bad); err == nil {
			t.Errorf("ParseHosts(%q) accepted it", bad)
		}
	}
}

func FuzzParseHosts(f *testing.F) {
	f.Add("a=0-1;b=2-3")
	f.Add("x=5")
	f.Fuzz(func(t *testing.T, s string) {
		hs, err := ParseHosts(s)
		if err != nil || len(hs) == 0 {
			return
		}
		again, err := ParseHosts(FormatHosts(hs))
		if err != nil || !reflect.DeepEqual(again, hs) {
			t.Fatalf("%q: %v does not survive a round trip (%v, %v)", s, hs, again, err)
		}
	})
}

// pipePair returns the two ends of a loopback TCP connection.
func pipePair(t *testing.T) (dialer, listener net.Conn) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skipf("no loopback TCP: %v", err)
	}
	defer ln.Close()
	ch := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		ch <- c
	}()
	d, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	l := <-ch
	t.Cleanup(func() { d.Close(); l.Close() })
	return d, l
}

func TestProof(t *testing.T) {
	secret := bytes.Repeat([]byte{1}, SecretSize)
	other := bytes.Repeat([]byte{2}, SecretSize)
	for _, tc := range []struct {
		name         string
		dSecret      []byte
		dRole, lRole byte
		ok           bool
	}{
		{"same secret", secret, RoleRank, RoleRank, true},
		{"wrong secret", other, RoleRank, RoleRank, false},
		{"wrong role", secret, RoleKV, RoleRank, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, l := pipePair(t)
			var wg sync.WaitGroup
			var lerr error
			var id uint32
			wg.Add(1)
			go func() {
				defer wg.Done()
				id, lerr = ProveListener(l, secret, tc.lRole, 5*time.Second)
				if lerr != nil {
					l.Close()
				}
			}()
			derr := ProveDialer(d, tc.dSecret, tc.dRole, 42, 5*time.Second)
			if derr != nil {
				d.Close() // as every caller does
			}
			wg.Wait()
			if tc.ok != (derr == nil) || tc.ok != (lerr == nil) {
				t.Fatalf("dialer: %v, listener: %v; want success %v", derr, lerr, tc.ok)
			}
			if tc.ok && id != 42 {
				t.Errorf("listener got id %d, want 42", id)
			}
			if !tc.ok && !errors.Is(lerr, ErrAuth) {
				t.Errorf("listener error %v is not ErrAuth", lerr)
			}
		})
	}
	// A stranger that sends garbage, or nothing, is refused in bounded time.
	for _, junk := range []string{"GET / HTTP/1.0\r\n\r\n" + strings.Repeat("x", 100), ""} {
		d, l := pipePair(t)
		d.Write([]byte(junk))
		if _, err := ProveListener(l, secret, RoleRank, 200*time.Millisecond); !errors.Is(err, ErrAuth) {
			t.Errorf("junk %q: %v, want ErrAuth", junk, err)
		}
	}
}

func TestStoreServer(t *testing.T) {
	secret := bytes.Repeat([]byte{3}, SecretSize)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skipf("no loopback TCP: %v", err)
	}
	defer ln.Close()
	var logMu sync.Mutex
	var logs []string
	go ServeKV(ln, secret, &Store{}, 2*time.Second, func(format string, args ...any) {
		logMu.Lock()
		logs = append(logs, fmt.Sprintf(format, args...))
		logMu.Unlock()
	})
	a, err := DialKV(ln.Addr().String(), secret, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := DialKV(ln.Addr().String(), secret, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	// A get waits for the put of another client.
	got := make(chan string, 1)
	go func() {
		v, ok, err := b.Get(AddrKey(3), 10*time.Second)
		if err != nil || !ok {
			v = fmt.Sprintf("error %v %v", ok, err)
		}
		got <- v
	}()
	if err := a.Put(AddrKey(3), "10.0.0.1:5000"); err != nil {
		t.Fatal(err)
	}
	if v := <-got; v != "10.0.0.1:5000" {
		t.Errorf("get: %q", v)
	}
	if _, ok, err := a.Get("never", 50*time.Millisecond); ok || err != nil {
		t.Errorf("get of a missing key: ok %v, err %v", ok, err)
	}
	if _, err := DialKV(ln.Addr().String(), bytes.Repeat([]byte{4}, SecretSize), 5*time.Second); err == nil {
		t.Error("a client with a wrong secret was served")
	}
	time.Sleep(50 * time.Millisecond)
	logMu.Lock()
	defer logMu.Unlock()
	if len(logs) != 1 || !strings.Contains(logs[0], "refused") {
		t.Errorf("refusals logged: %q", logs)
	}
}
