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
	hostIndex := map[string]int{}
	pid := make([]int, len(t.Ranks))
	for r, rt := range t.Ranks {
		h := rt.Info["host"]
		if r < len(t.Manifest.Hosts) && t.Manifest.Hosts[r] != "" {
			h = t.Manifest.Hosts[r]
		}
		i, ok := hostIndex[h]
		if !ok {
			i = len(hostIndex) + 1
			hostIndex[h] = i
		}
		pid[r] = i
	}
	w.WriteString("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n")
	first := true
	sep := func() {
		if !first {
			w.WriteString(",\n")
		}
		first = false
	}
	for h, i := range hostIndex {
		sep()
		fmt.Fprintf(w, `{"ph":"M","name":"process_name","pid":%d,"args":{"name":%s}}`, i, quote("host "+h))
	}
	for r := range t.Ranks {
		sep()
		fmt.Fprintf(w, `{"ph":"M","name":"thread_name","pid":%d,"tid":%d,"args":{"name":"rank %d"}}`, pid[r], r, r)
		sep()
		fmt.Fprintf(w, `{"ph":"M","name":"thread_sort_index","pid":%d,"tid":%d,"args":{"sort_index":%d}}`, pid[r], r, r)
	}
	var buf []byte
	for r, rt := range t.Ranks {
		for i := range rt.Events {
			e := &rt.Events[i]
			sep()
			buf = appendSlice(buf[:0], rt, e, pid[r], r)
			w.Write(buf)
		}
	}
	for k, m := range t.Messages {
		s, d := t.Event(m.Send), t.Event(m.RecvDone)
		sep()
		fmt.Fprintf(w, `{"ph":"s","cat":"message","name":"message","id":%d,"pid":%d,"tid":%d,"ts":%s}`,
			k+1, pid[m.Src], m.Src, micros(s.T0))
		sep()
		// The arrow ends just inside the end of the receive that completed.
		ts := math.Max(d.T0, d.T1-1e-9)
		fmt.Fprintf(w, `{"ph":"f","bp":"e","cat":"message","name":"message","id":%d,"pid":%d,"tid":%d,"ts":%s}`,
			k+1, pid[m.Dst], m.Dst, micros(ts))
	}
	w.WriteString("\n]}\n")
	return w.Flush()
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
