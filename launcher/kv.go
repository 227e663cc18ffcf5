package launcher

import (
	"fmt"
	"net"
	"os"
	"time"

	"github.com/gompi/gompi/internal/jobenv"
)

// kvServer is a rendezvous store listening on this host's loopback for the
// ranks of this host, with the job secret in a memory file for them to
// inherit.
type kvServer struct {
	addr       string
	secretFile *os.File
	ln         net.Listener
}

// serveKV listens on 127.0.0.1 and answers store requests from kv, for
// connections that prove secret; refused connections are logged on logTo.
func serveKV(secret []byte, kv jobenv.KV, timeout time.Duration, logf func(string, ...any)) (*kvServer, error) {
	f, err := jobenv.SecretFile(secret)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("rendezvous store: %w", err)
	}
	if timeout <= 0 {
		timeout = jobenv.DefaultConnectTimeout
	}
	go jobenv.ServeKV(ln, secret, kv, timeout, logf)
	return &kvServer{addr: ln.Addr().String(), secretFile: f, ln: ln}, nil
}

func (k *kvServer) close() {
	k.ln.Close()
	k.secretFile.Close()
}

// startLocalKV makes the secret and store of a one-host TCP job.
func startLocalKV(cfg Config, jobID, host string) (*kvServer, error) {
	secret, err := jobenv.NewSecret()
	if err != nil {
		return nil, err
	}
	return serveKV(secret, &jobenv.Store{}, cfg.ConnectTimeout, func(format string, args ...any) {
		fmt.Fprintf(cfg.Log, "golaunch: "+format+"\n", args...)
	})
}
