package sim

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/gompi/gompi/coll"
)

// Schedule is the messages of one run in the order of their logical rounds.
//
// Rounds are Lamport clocks: a rank's send gets the round after the rank's
// previous send and after the round of every message it has received before
// posting it. So a message of round k depends on a chain of k messages, and
// the number of rounds is the length of the critical path in messages (the
// α term of the cost). Messages that one rank receives in the same round are
// shown in that round, though a real network would serialize them at the
// receiver.
type Schedule struct {
	Ranks    int
	Messages []Message
}

// Rounds is the number of rounds, the round of the last message.
func (s *Schedule) Rounds() int {
	if len(s.Messages) == 0 {
		return 0
	}
	return s.Messages[len(s.Messages)-1].Round
}

// Bytes is the total of the message sizes.
func (s *Schedule) Bytes() int {
	n := 0
	for _, m := range s.Messages {
		n += m.Bytes
	}
	return n
}

// WriteText prints one line a message, "round 1: 0 → 4 (1024 B)", with the
// tag when it is not 0, then a summary line.
func (s *Schedule) WriteText(w io.Writer) error {
	b := bufio.NewWriter(w)
	rw, kw := len(fmt.Sprint(s.Rounds())), len(fmt.Sprint(s.Ranks-1))
	for _, m := range s.Messages {
		tag := ""
		if m.Tag != 0 {
			tag = fmt.Sprintf(", tag %d", m.Tag)
		}
		fmt.Fprintf(b, "round %*d: %*d → %*d (%d B%s)\n", rw, m.Round, kw, m.From, kw, m.To, m.Bytes, tag)
	}
	fmt.Fprintf(b, "%s, %s, %d bytes\n", plural(s.Rounds(), "round"), plural(len(s.Messages), "message"), s.Bytes())
	return b.Flush()
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// WriteSVG draws the schedule: one horizontal lane per rank, rounds from left
// to right, each message an arrow from its sender's lane at the start of its
// round to the receiver's lane at the end, labelled with its size.
func (s *Schedule) WriteSVG(w io.Writer, title string) error {
	const (
		left, top, bottom = 70, 40, 30 // margins
		colW, laneH       = 110, 36
	)
	rounds := max(s.Rounds(), 1)
	width, height := left+rounds*colW+20, top+(s.Ranks-1)*laneH+bottom
	x := func(round int) int { return left + round*colW }
	y := func(rank int) int { return top + rank*laneH }

	b := bufio.NewWriter(w)
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">`+"\n", width, height+10)
	fmt.Fprintln(b, `<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#1f5fa8"/></marker></defs>`)
	fmt.Fprintf(b, `<text x="%d" y="16" font-size="13">%s</text>`+"\n", left, html.EscapeString(title))
	for k := 0; k <= rounds; k++ {
		fmt.Fprintf(b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#ddd"/>`+"\n", x(k), top-12, x(k), y(s.Ranks-1)+12)
		if k > 0 {
			fmt.Fprintf(b, `<text x="%d" y="%d" text-anchor="middle" fill="#888">round %d</text>`+"\n", x(k)-colW/2, height+4, k)
		}
	}
	for r := range s.Ranks {
		fmt.Fprintf(b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#999"/>`+"\n", x(0), y(r), x(rounds), y(r))
		fmt.Fprintf(b, `<text x="%d" y="%d" text-anchor="end">rank %d</text>`+"\n", left-8, y(r)+4, r)
	}
	for _, m := range s.Messages {
		x1, y1, x2, y2 := x(m.Round-1)+6, y(m.From), x(m.Round)-6, y(m.To)
		fmt.Fprintf(b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#1f5fa8" stroke-width="1.5" marker-end="url(#arrow)"/>`+"\n", x1, y1, x2, y2)
		fmt.Fprintf(b, `<text x="%d" y="%d" text-anchor="middle" fill="#1f5fa8" font-size="9">%d B</text>`+"\n", (x1+x2)/2, (y1+y2)/2-3, m.Bytes)
	}
	fmt.Fprintln(b, `</svg>`)
	return b.Flush()
}

// Bounds writes a rule's bounds (0: none) as the selection table shows
// them: "any", "≤ 8", "≥ 3" or "4096..131072".
func Bounds(lo, hi int) string {
	switch {
	case lo == 0 && hi == 0:
		return "any"
	case lo == 0:
		return fmt.Sprintf("≤ %d", hi)
	case hi == 0:
		return fmt.Sprintf("≥ %d", lo)
	}
	return fmt.Sprintf("%d..%d", lo, hi)
}

// WriteSelectionTable prints the selection rules of the operations (all if
// none are given) as an aligned table.
func WriteSelectionTable(w io.Writer, ops ...coll.Operation) error {
	if len(ops) == 0 {
		ops = coll.Operations()
	}
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "operation\tranks\tbytes\talgorithms (the first usable; none: the next rule that matches)")
	for _, op := range ops {
		for _, r := range coll.Table(op) {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", op, Bounds(r.MinRanks, r.MaxRanks), Bounds(r.MinBytes, r.MaxBytes), strings.Join(r.Use, ", "))
		}
	}
	return tw.Flush()
}
