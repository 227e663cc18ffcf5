package gompi

import "os"

// HostOf returns the name of the host world rank r runs on, as golaunch
// names it (the names given to -H or --hostfile, else this host's name);
// "" for a rank out of range. Ranks of Run all run on this host.
func HostOf(r int) string {
	global.mu.Lock()
	job, inJob := global.job, global.r != nil
	global.mu.Unlock()
	if inJob && len(job.HostMap) > 0 {
		return job.HostOf(r)
	}
	if inJob && (r < 0 || r >= job.Size) {
		return ""
	}
	return Host()
}

// HostOf returns the name of the host rank r of c runs on.
func (c *Comm) HostOf(r int) string {
	if r < 0 || r >= c.Size() {
		return ""
	}
	if c.r.inRun {
		h, _ := os.Hostname()
		return h
	}
	return HostOf(c.WorldRank(r))
}

// Transport says how the calling rank reaches rank r of c: "self", "shm"
// (shared memory, the same host) or "tcp" (another host, or
// GOMPI_TRANSPORT=tcp). Benchmarks print it in their headers.
func (c *Comm) Transport(r int) string {
	if r < 0 || r >= c.Size() {
		return ""
	}
	return c.r.proc.Transport(c.WorldRank(r))
}
