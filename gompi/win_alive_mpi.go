//go:build mpi || mpich

package gompi

// peerGone: under the MPI backend no window takes the direct path.
func (w *window) peerGone() bool { return false }
