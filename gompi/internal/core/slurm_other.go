//go:build !linux

package core

import "os"

// watchNodePeers needs pidfds (Linux); elsewhere a rank that dies under
// srun is noticed only through Slurm (--kill-on-bad-exit).
func watchNodePeers(p *Proc, stop *os.File) {}
