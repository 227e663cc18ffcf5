package core

import (
	"errors"
	"net"
	"syscall"

	"github.com/gompi/gompi/gompi/internal/base"
	"github.com/gompi/gompi/internal/jobenv"
)

// classifyNetInit gives a failure to join the job over TCP its class: the
// secret refused by the store or a peer, the store (golaunch) or the
// network unreachable, or else a job description that cannot work (no
// store address, no secret).
func classifyNetInit(err error) error {
	var ne net.Error
	var errno syscall.Errno
	switch {
	case errors.Is(err, jobenv.ErrAuth):
		return base.Classify(base.ErrSecretRefused, err)
	case errors.As(err, &ne), errors.As(err, &errno):
		return base.Classify(base.ErrLauncherUnreachable, err)
	}
	return base.Classify(base.ErrEnvironment, err)
}
