package lang

import (
	"errors"
	"strings"
	"testing"
)

const base = `
declare event send for Send, Isend parameters(in dest = peer, in tag = tag);
declare event recv for Recv parameters(in source = peer, out got = status_source);
declare event barrier for Barrier parameters(in comm = comm);
`

func TestParseTheSpecExample(t *testing.T) {
	src := base + `
declare composite event point_to_point
member(
  send as s,
  recv as r
)
when s.msg == r.msg
parameters(
  send_start_time = s.start,
  recv_wait_start_time = r.start);

declare problem for point_to_point
when
send_start_time > recv_wait_start_time
parameters(
name = "Поздняя посылка сообщения",
description = "Функция посылки сообщения вызывается
позднее функции приема.",
advice = "Улучшить синхронизацию: " + "отправлять раньше",
duration = send_start_time - recv_wait_start_time);
`
	f, err := Parse("spec.rules", src)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Check(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Problems) != 1 || r.Problems[0].Name != "Поздняя посылка сообщения" || r.Problems[0].At != "s" {
		t.Fatalf("problems %+v", r.Problems)
	}
	c := r.Composite("point_to_point")
	if len(c.Plan) != 1 || c.When != nil {
		t.Errorf("s.msg == r.msg should be a join, leaving no condition: plan %v, when %v", c.Plan, c.When)
	}
}

func TestSyntaxErrors(t *testing.T) {
	for _, c := range []struct {
		src, want string
	}{
		{"declare", `x.rules:1:8: expected "event", "composite event" or "problem", found end of file`},
		{"declare event e for Send parameters(in x = peer)", `x.rules:1:49: expected ";", found end of file`},
		{"declare event e for Send parameters(in x = )", `x.rules:1:44: expected an expression, found ")"`},
		{"declare event e for Send parameters(x = peer,\n  = 1);", `x.rules:2:3: expected a parameter name, found "="`},
		{"declare composite event c member(send s) parameters(a = 1);", `x.rules:1:39: expected "as", found "s"`},
		{"declare problem for c when 1 < parameters(a=1);", `x.rules:1:32: expected an expression, found "parameters"`},
		{`declare problem for c parameters(name = "no end);`, `x.rules:1:41: string not closed`},
		{"declare event e for Send when peer @ 1;", `x.rules:1:36: unexpected character '@'`},
		{"declare problem for c parameters(a = max(1 where));", `x.rules:1:49: expected an expression, found ")"`},
		{"hello", `x.rules:1:1: expected "declare", found "hello"`},
	} {
		_, err := Parse("x.rules", c.src)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q:\n got %v\nwant %s", c.src, err, c.want)
		}
		if err != nil && !errors.Is(err, ErrSyntax) {
			t.Errorf("%q: error is not ErrSyntax", c.src)
		}
	}
}

func TestCheckErrors(t *testing.T) {
	pp := `declare composite event pp member(send as s, recv as r) when s.msg == r.msg parameters(t = s.start, who = s.routine);
`
	for _, c := range []struct {
		src, want string
	}{
		{"declare event e for Sned;", "unknown routine Sned"},
		{"declare event e for Send parameters(x = status_source);", "status_source is known only when the call returns: declare the parameter out"},
		{"declare event e for Send parameters(x = nope);", "unknown call argument nope"},
		{"declare event e for Send parameters(start = peer);", "parameter start of event e is filled by the tracer"},
		{"declare event send for Send;", "event type send is already declared at"},
		{"declare composite event c member(sendd as s) parameters(a = 1);", "unknown event type sendd"},
		{"declare composite event c member(send as s, recv as r) parameters(a = 1);", "member r is not joined to the members before it"},
		{"declare composite event c member(send as s, recv as r) when s.msg == r.msg parameters(a = s.nope);", "unknown parameter nope of event type send: expected one of dest, duration"},
		{"declare composite event c member(send as s, recv as r) when s.msg == r.msg and s.start parameters(a = 1);", "type mismatch: the when condition must be a bool, not a number"},
		{"declare composite event c member(send as s, recv as r) when s.msg == r.msg parameters(a = s.start + true);", "type mismatch: + needs two numbers, not number and bool"},
		{"declare composite event c member(send as s, recv as r) when s.msg == r.routine parameters(a = 1);", "type mismatch: number == string"},
		{"declare composite event c member(barrier as me, all barrier as g) when g.instance == me.instance parameters(a = g.start);", "g is a group (all): use it inside sum, min, max or count"},
		{"declare composite event c member(all barrier as g) parameters(a = 1);", "the first member cannot be a group"},
		{"declare composite event c member(send as s) parameters(a = frob(s.start));", "unknown function frob"},
		{pp + `declare problem for nope parameters(name = "x");`, "unknown composite event type nope"},
		{pp + `declare problem for send parameters(name = "x");`, "send is a simple event type"},
		{pp + `declare problem for pp parameters(name = "x", description = "d", advice = "a");`, "problem for pp has no duration parameter"},
		{pp + `declare problem for pp parameters(name = "x", description = "d", advice = "a", duration = who);`, "type mismatch: duration must be a number, not a string"},
		{pp + `declare problem for pp parameters(name = "x", description = "d", advice = "a", duration = t, colour = 1);`, "unknown problem parameter colour"},
		{pp + `declare problem for pp parameters(name = "x", description = "d", advice = "a", duration = t, at = q);`, "at must name one member of pp"},
		{pp + `declare problem for pp when t > zz parameters(name = "x", description = "d", advice = "a", duration = t);`, "unknown parameter or member zz"},
		{pp + `declare problem for pp parameters(name = who, description = "d", advice = "a", duration = t);`, "name must be a string in quotes"},
	} {
		f, err := Parse("x.rules", base+c.src)
		if err != nil {
			t.Errorf("%q: %v", c.src, err)
			continue
		}
		_, err = Check(f)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q:\n got %v\nwant %s", c.src, err, c.want)
			continue
		}
		if !errors.Is(err, ErrCheck) || !strings.HasPrefix(err.Error(), "x.rules:") {
			t.Errorf("%q: %v is not a positioned ErrCheck", c.src, err)
		}
	}
}

func TestAggregatesAndJoins(t *testing.T) {
	src := base + `
declare composite event bi
member(barrier as me, shared all barrier as g)
when g.instance == me.instance and g.comm == me.comm
parameters(
  last = max(g.start),
  waits = sum(max(g.start) - g.start),
  lower = count(g where g.rank < me.rank),
  spread = abs(min(g.end) - max(me.end, me.start, 0)));
`
	f, err := Parse("x.rules", src)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Check(f)
	if err != nil {
		t.Fatal(err)
	}
	c := r.Composite("bi")
	if len(c.Plan) != 1 || len(c.Plan[0].Keys) != 2 {
		t.Fatalf("want one join on two keys, got %+v", c.Plan)
	}
}
