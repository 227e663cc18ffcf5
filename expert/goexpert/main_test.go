//go:build !mpi && !mpich

package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gompi/gompi/gompi"
)

// capture runs f with os.Stdout and os.Stderr going to strings.
func capture(t *testing.T, f func() int) (code int, stdout, stderr string) {
	t.Helper()
	outR, outW, _ := os.Pipe()
	errR, errW, _ := os.Pipe()
	so, se := os.Stdout, os.Stderr
	os.Stdout, os.Stderr = outW, errW
	done := make(chan [2]string)
	go func() {
		o, _ := io.ReadAll(outR)
		e, _ := io.ReadAll(errR)
		done <- [2]string{string(o), string(e)}
	}()
	code = f()
	os.Stdout, os.Stderr = so, se
	outW.Close()
	errW.Close()
	r := <-done
	return code, r[0], r[1]
}

// lateSenderTrace records a run where rank 0 sends 30 ms late.
func lateSenderTrace(t *testing.T) string {
	dir := t.TempDir()
	t.Setenv("GOMPI_TRACE", dir)
	err := gompi.Run(2, func(c *gompi.Comm) error {
		b := make([]byte, 8)
		if c.Rank() == 0 {
			time.Sleep(30 * time.Millisecond)
			return c.Send(b, 1, 0)
		}
		_, err := c.Recv(b, 0, 0)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	os.Unsetenv("GOMPI_TRACE")
	return dir
}

func TestReport(t *testing.T) {
	dir := lateSenderTrace(t)
	svg := filepath.Join(t.TempDir(), "t.svg")
	code, out, errs := capture(t, func() int { return runReport([]string{dir, "--svg", svg}) })
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"Late sender", "Advice:", "Recv in github.com/gompi/gompi/expert/goexpert.lateSenderTrace", "main_test.go:"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if b, err := os.ReadFile(svg); err != nil || !strings.Contains(string(b), "<svg") || !strings.Contains(string(b), "Late sender") {
		t.Errorf("svg: %v", err)
	}
	code, out, errs = capture(t, func() int { return runReport([]string{dir, "--format", "json"}) })
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep struct {
		Ranks    int
		Problems []struct {
			Name    string
			Percent float64
			Sites   []struct{ Site string }
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Ranks != 2 || len(rep.Problems) == 0 || rep.Problems[0].Name != "Late sender" || rep.Problems[0].Percent <= 0 {
		t.Errorf("json report %+v", rep)
	}
}

func TestBadInputsGiveClearErrors(t *testing.T) {
	dir := lateSenderTrace(t)
	tmp := t.TempDir()
	bad := filepath.Join(tmp, "bad.rules")
	os.WriteFile(bad, []byte("declare problem for point_to_point\nwhen send_start_time > \nparameters(name = \"x\");\n"), 0o644)
	unknown := filepath.Join(tmp, "unknown.rules")
	os.WriteFile(unknown, []byte("declare problem for point_to_point when send_start_tme > 0\nparameters(name = \"x\", description = \"d\", advice = \"a\", duration = 1);\n"), 0o644)
	good := filepath.Join(tmp, "good.rules")
	os.WriteFile(good, []byte(`declare problem for point_to_point when recv_end_time - recv_wait_start_time > 0.001
parameters(name = "Slow receive", description = "d", advice = "a", duration = recv_end_time - recv_wait_start_time);
`), 0o644)
	corrupt := filepath.Join(tmp, "corrupt")
	os.MkdirAll(corrupt, 0o755)
	for _, name := range []string{"manifest.json", "rank-00000.gtr", "rank-00001.gtr"} {
		b, _ := os.ReadFile(filepath.Join(dir, name))
		if name == "rank-00001.gtr" {
			b = b[:len(b)/2]
		}
		os.WriteFile(filepath.Join(corrupt, name), b, 0o644)
	}
	for _, c := range []struct {
		name string
		args []string
		run  func([]string) int
		code int
		want string
	}{
		{"syntax", []string{"check", bad}, runRules, 1, bad + ":3:1: expected an expression, found \"parameters\""},
		{"unknown parameter", []string{"check", unknown}, runRules, 1, unknown + ":1:41: unknown parameter or member send_start_tme"},
		{"good rules", []string{"check", good}, runRules, 0, ""},
		{"report with a bad rule file", []string{dir, "--rules", bad}, runReport, 1, bad + ":3:1:"},
		{"report with a user rule", []string{dir, "--rules", good}, runReport, 0, ""},
		{"corrupt trace", []string{corrupt}, runReport, 1, "rank-00001.gtr: offset"},
		{"no trace", []string{filepath.Join(tmp, "none")}, runReport, 1, "trace directory is incomplete"},
		{"bad format", []string{dir, "--format", "xml"}, runReport, 2, `--format "xml": expected text or json`},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := capture(t, func() int { return c.run(c.args) })
			if code != c.code || !strings.Contains(errs, c.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errs, c.code, c.want)
			}
			if c.name == "report with a user rule" && !strings.Contains(out, "Slow receive") {
				t.Errorf("the user's problem is not in the report:\n%s", out)
			}
		})
	}
}

func TestRulesList(t *testing.T) {
	code, out, _ := capture(t, func() int { return runRules([]string{"list"}) })
	if code != 0 || !strings.Contains(out, "Late sender") || !strings.Contains(out, "kb/2-point-to-point.rules") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	code, out, _ = capture(t, func() int { return runRules([]string{"list", "--source"}) })
	if code != 0 || !strings.Contains(out, "declare composite event point_to_point") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}
