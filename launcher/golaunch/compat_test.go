package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// flags is golaunch's flag set, as run defines it, for mpirunArgs to ask
// which flags take a value.
func flags() *pflag.FlagSet {
	fs := pflag.NewFlagSet("golaunch", pflag.ContinueOnError)
	fs.IntP("np", "n", 0, "")
	fs.IntP("npernode", "N", 0, "")
	fs.StringArrayP("env", "x", nil, "")
	fs.StringP("host", "H", "", "")
	fs.String("hostfile", "", "")
	fs.String("wdir", "", "")
	fs.Duration("timeout", 0, "")
	fs.Bool("tag-output", false, "")
	fs.Bool("oversubscribe", false, "")
	fs.StringArray("mca", nil, "")
	return fs
}

func TestMpirunArgs(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		notes    int
		err      string
	}{
		{in: "-np 4 prog -np 2", want: "--np 4 prog -np 2"},
		{in: "-c 2 -ppn 2 -wdir /tmp prog", want: "--np 2 --npernode 2 --wdir /tmp prog"},
		{in: "-f hosts -hosts a,b -l prog", want: "--hostfile hosts --host a,b --tag-output prog"},
		{in: "--mca btl self,vader -mca=pml=ob1 prog", want: "--mca=btl=self,vader --mca=pml=ob1 prog", notes: 2},
		{in: "-genv A 1 -env B=2 prog", want: "--env=A=1 --env=B=2 prog"},
		{in: "--timeout 30 --timeout=5 --timeout 2m prog", want: "--timeout 30s --timeout=5s --timeout 2m prog"},
		{in: "--prefix /opt/ompi --display-map -genvall prog", want: "prog", notes: 3},
		{in: "-x A -- prog --app", want: "-x A -- prog --app"},
		{in: "--app file", err: "--app is not supported"},
		{in: "-n 1 a : -n 1 b", err: ": is not supported"},
		{in: "-launcher ssh prog", err: "--launch-agent"},
		{in: "--mca btl", err: "needs NAME VALUE"},
	} {
		out, notes, err := mpirunArgs(flags(), strings.Fields(tc.in))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want one with %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || strings.Join(out, " ") != tc.want || len(notes) != tc.notes {
			t.Errorf("%q = %q, %d notes, %v; want %q, %d notes", tc.in, strings.Join(out, " "), len(notes), err, tc.want, tc.notes)
		}
	}
}

// FuzzMpirunArgs: no input makes it panic, and PROGRAM with its arguments
// comes out as it went in.
func FuzzMpirunArgs(f *testing.F) {
	for _, s := range []string{"-np 4 prog a b", "--mca a b prog", "-genv X", "-x", "-- -n", "-n 1 a : -n 1 b", "--timeout=7 p"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		args := strings.Fields(s)
		out, _, err := mpirunArgs(flags(), args)
		if err != nil {
			return
		}
		if i := slices.Index(args, "prog"); i >= 0 && slices.Index(out, "prog") >= 0 {
			if tail := out[slices.Index(out, "prog"):]; len(tail) > len(args[i:]) {
				t.Errorf("%q: PROGRAM's arguments grew: %q", s, tail)
			}
		}
	})
}
