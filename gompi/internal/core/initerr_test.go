package core

import (
	"errors"
	"fmt"
	"net"
	"syscall"
	"testing"

	"github.com/gompi/gompi/gompi/internal/base"
	"github.com/gompi/gompi/internal/jobenv"
)

func TestClassifyNetInit(t *testing.T) {
	for _, tc := range []struct {
		err   error
		class error
	}{
		{fmt.Errorf("gompi: rank 1: %w", fmt.Errorf("%w (wrong proof)", jobenv.ErrAuth)), base.ErrSecretRefused},
		{fmt.Errorf("connecting: %w", &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}), base.ErrLauncherUnreachable},
		{fmt.Errorf("x: %w", syscall.ECONNRESET), base.ErrLauncherUnreachable},
		{errors.New("gompi: golaunch gave no rendezvous store"), base.ErrEnvironment},
	} {
		got := classifyNetInit(tc.err)
		if !errors.Is(got, tc.class) || !errors.Is(got, tc.err) || got.Error() != tc.err.Error() {
			t.Errorf("%v: got %v, want class %v with the cause kept", tc.err, got, tc.class)
		}
	}
}
