package trace

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"unicode/utf8"
)

// WritePerfetto writes t as Chrome/Perfetto trace-event JSON (the format
// ui.perfetto.dev and chrome://tracing open): a process per host, a thread
// track per rank, a slice per call with its arguments and call site, and a
// flow arrow from each send to the receive that got it. The output is
// written as it goes, one event per line, never built in memory.
func WritePerfetto(out io.Writer, t *Trace) error {
	w := bufio.NewWriterSize(out, 1<<16)
	pj := newPerfettoJSON(w, t)
	var buf []byte
	for r, rt := range t.Ranks {
		for i := range rt.Events {
			buf = appendSlice(buf[:0], rt, &rt.Events[i], pj.pid[r], r)
			pj.event(buf)
		}
	}
	for k, m := range t.Messages {
		s, d := t.Event(m.Send), t.Event(m.RecvDone)
		pj.flowStart(uint64(k+1), m.Src, s.T0)
		pj.flowEnd(uint64(k+1), m.Dst, d.T0, d.T1)
	}
	return pj.close()
}

// perfettoJSON writes trace-event JSON one event at a time.
type perfettoJSON struct {
	w     *bufio.Writer
	pid   []int // by world rank: the process (host) of its track
	first bool
}

// newPerfettoJSON starts the JSON of t's ranks (their Info, not their
// events): a process per host, a named thread track per rank.
func newPerfettoJSON(w *bufio.Writer, t *Trace) *perfettoJSON {
	pj := &perfettoJSON{w: w, pid: make([]int, len(t.Ranks)), first: true}
	hostIndex := map[string]int{}
	var hosts []string
	for r, rt := range t.Ranks {
		h := rt.Info["host"]
		if r < len(t.Manifest.Hosts) && t.Manifest.Hosts[r] != "" {
			h = t.Manifest.Hosts[r]
		}
		i, ok := hostIndex[h]
		if !ok {
			hosts = append(hosts, h)
			i = len(hosts)
			hostIndex[h] = i
		}
		pj.pid[r] = i
	}
	w.WriteString("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n")
	for i, h := range hosts {
		pj.sep()
		fmt.Fprintf(w, `{"ph":"M","name":"process_name","pid":%d,"args":{"name":%s}}`, i+1, quote("host "+h))
	}
	for r := range t.Ranks {
		pj.sep()
		fmt.Fprintf(w, `{"ph":"M","name":"thread_name","pid":%d,"tid":%d,"args":{"name":"rank %d"}}`, pj.pid[r], r, r)
		pj.sep()
		fmt.Fprintf(w, `{"ph":"M","name":"thread_sort_index","pid":%d,"tid":%d,"args":{"sort_index":%d}}`, pj.pid[r], r, r)
	}
	return pj
}

func (pj *perfettoJSON) sep() {
	if !pj.first {
		pj.w.WriteString(",\n")
	}
	pj.first = false
}

// event writes one event, encoded.
func (pj *perfettoJSON) event(b []byte) {
	pj.sep()
	pj.w.Write(b)
}

// flowStart writes the start of message id's arrow: on rank's track at t0
// (seconds), the start of the call that posted the send.
func (pj *perfettoJSON) flowStart(id uint64, rank int, t0 float64) {
	pj.sep()
	fmt.Fprintf(pj.w, `{"ph":"s","cat":"message","name":"message","id":%d,"pid":%d,"tid":%d,"ts":%s}`,
		id, pj.pid[rank], rank, micros(t0))
}

// flowEnd writes the end of message id's arrow on rank's track, inside the
// call (t0 to t1, seconds) that completed the receive: just inside its end.
func (pj *perfettoJSON) flowEnd(id uint64, rank int, t0, t1 float64) {
	pj.sep()
	fmt.Fprintf(pj.w, `{"ph":"f","bp":"e","cat":"message","name":"message","id":%d,"pid":%d,"tid":%d,"ts":%s}`,
		id, pj.pid[rank], rank, micros(math.Max(t0, t1-1e-9)))
}

func (pj *perfettoJSON) close() error {
	pj.w.WriteString("\n]}\n")
	return pj.w.Flush()
}

// appendSlice appends the complete-event ("X") of e.
func appendSlice(b []byte, rt *RankTrace, e *Event, pid, tid int) []byte {
	b = append(b, `{"ph":"X","name":`...)
	b = appendJSONString(b, rt.Name(e))
	b = append(b, `,"cat":"gompi","pid":`...)
	b = strconv.AppendInt(b, int64(pid), 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendInt(b, int64(tid), 10)
	b = append(b, `,"ts":`...)
	b = append(b, micros(e.T0)...)
	b = append(b, `,"dur":`...)
	b = append(b, micros(e.T1-e.T0)...)
	b = append(b, `,"args":{"comm":`...)
	b = strconv.AppendUint(b, uint64(e.Comm), 10)
	if e.Peer >= 0 {
		b = append(b, `,"peer":`...)
		b = strconv.AppendInt(b, int64(e.Peer), 10)
	} else if e.Peer == PeerAny {
		b = append(b, `,"peer":"any"`...)
	}
	if e.Tag >= 0 {
		b = append(b, `,"tag":`...)
		b = strconv.AppendInt(b, int64(e.Tag), 10)
	}
	if e.Bytes >= 0 {
		b = append(b, `,"bytes":`...)
		b = strconv.AppendInt(b, e.Bytes, 10)
	}
	if e.Req != 0 {
		b = append(b, `,"request":"`...)
		b = strconv.AppendUint(b, e.Req, 16)
		b = append(b, '"')
	}
	if e.StSource >= 0 {
		b = append(b, `,"status_source":`...)
		b = strconv.AppendInt(b, int64(e.StSource), 10)
		b = append(b, `,"status_tag":`...)
		b = strconv.AppendInt(b, int64(e.StTag), 10)
		b = append(b, `,"status_bytes":`...)
		b = strconv.AppendInt(b, e.StCount, 10)
	}
	if e.Algo != 0 {
		b = append(b, `,"algorithm":`...)
		b = appendJSONString(b, rt.String(e.Algo))
	}
	if e.Flags&FlagError != 0 {
		b = append(b, `,"error":true`...)
	}
	if e.Site != 0 {
		b = append(b, `,"site":`...)
		b = appendJSONString(b, rt.Site(e))
	}
	return append(b, "}}"...)
}

// micros formats seconds as microseconds with nanosecond precision.
func micros(s float64) string { return strconv.FormatFloat(s*1e6, 'f', 3, 64) }

func quote(s string) string { return string(appendJSONString(nil, s)) }

// appendJSONString appends s as a JSON string.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', byte(c))
		case c < 0x20:
			b = append(b, `\u00`...)
			b = append(b, "0123456789abcdef"[c>>4], "0123456789abcdef"[c&15])
		case c == utf8.RuneError:
			b = append(b, `\ufffd`...)
		default:
			b = utf8.AppendRune(b, c)
		}
	}
	return append(b, '"')
}
