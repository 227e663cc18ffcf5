package gompi

import "github.com/gompi/gompi/gompi/internal/backend"

// isShmNBC reports whether r is a nonblocking collective on a shared-memory
// step (nbcshm.go).
func isShmNBC(r *Request) bool { return (*backend.Request)(r).NBC() }
