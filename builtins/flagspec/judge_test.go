package flagspec

import (
	"reflect"
	"strings"
	"testing"
)

// tc is one table case. cmd is split on blanks unless argv is given.
// reads/writes are checked when non-nil ("-" stands for an empty list).
type tc struct {
	cmd    string
	argv   []string
	ro     bool
	why    string // substring of Reason when not read-only
	sub    string
	reads  []string
	writes []string
	fs     bool
	rec    bool
	// net is the expected Verdict.Network ("-" for none; "" not checked).
	net string
	// links, when non-nil, are the Links as "name>target" (symbolic),
	// "name>>target" (symbolic, cwd-relative) or "name=target" (same).
	links []string
}

func (c tc) words() []string {
	if c.argv != nil {
		return c.argv
	}
	return strings.Fields(c.cmd)
}

func runCases(t *testing.T, cases []tc) {
	t.Helper()
	for _, c := range cases {
		name := c.cmd
		if c.argv != nil {
			name = strings.Join(c.argv, " ")
		}
		v := Judge(c.words())
		if v.ReadOnly != c.ro {
			t.Errorf("%q: ReadOnly=%v, want %v (reason %q)", name, v.ReadOnly, c.ro, v.Reason)
			continue
		}
		if v.ReadOnly && v.Reason != "" {
			t.Errorf("%q: read-only with a reason %q", name, v.Reason)
		}
		if !v.ReadOnly && v.Reason == "" {
			t.Errorf("%q: not read-only without a reason", name)
		}
		if c.why != "" && !strings.Contains(v.Reason, c.why) {
			t.Errorf("%q: reason %q does not mention %q", name, v.Reason, c.why)
		}
		if c.sub != "" && v.Subcommand != c.sub {
			t.Errorf("%q: Subcommand=%q, want %q", name, v.Subcommand, c.sub)
		}
		checkList(t, name, "Reads", v.Reads, c.reads)
		checkList(t, name, "Writes", v.Writes, c.writes)
		if v.FSCommand != c.fs {
			t.Errorf("%q: FSCommand=%v, want %v", name, v.FSCommand, c.fs)
		}
		if v.Recursive != c.rec {
			t.Errorf("%q: Recursive=%v, want %v", name, v.Recursive, c.rec)
		}
		if c.net != "" && v.Network != strings.TrimPrefix(c.net, "-") {
			t.Errorf("%q: Network=%q, want %q", name, v.Network, strings.TrimPrefix(c.net, "-"))
		}
		if c.links != nil {
			var got []string
			for _, l := range v.Links {
				op := map[LinkKind]string{LinkSymbolic: ">", LinkSymbolicCwd: ">>", LinkSame: "="}[l.Kind]
				got = append(got, l.Name+op+l.Target)
			}
			checkList(t, name, "Links", got, c.links)
		}
	}
}

func checkList(t *testing.T, name, what string, got, want []string) {
	t.Helper()
	if want == nil {
		return
	}
	if len(want) == 1 && want[0] == "-" {
		want = []string{}
	}
	if got == nil {
		got = []string{}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%q: %s=%q, want %q", name, what, got, want)
	}
}

var none = []string{"-"}

func TestEngine(t *testing.T) {
	t.Parallel()
	runCases(t, []tc{
		// clusters, glued and separate values, numeric options
		{cmd: "ls -la", ro: true},
		{cmd: "ls -laR src", ro: true, reads: []string{"src"}},
		{cmd: "head -n5 a", ro: true, reads: []string{"a"}},
		{cmd: "head -n 5 a", ro: true, reads: []string{"a"}},
		{cmd: "head -20 a", ro: true, reads: []string{"a"}},
		{cmd: "head --lines=5 a", ro: true, reads: []string{"a"}},
		{cmd: "head --lines 5 a", ro: true, reads: []string{"a"}},
		{cmd: "head --li=5 a", ro: true, reads: []string{"a"}},
		{cmd: "head -n", why: "needs a value"},
		{cmd: "head -x a", why: "option -x"},
		{cmd: "head --frobnicate a", why: "--frobnicate"},
		{cmd: "head --quiet=1 a", why: "takes no value"},
		// -- ends options
		{cmd: "cat -- -n", ro: true, reads: []string{"-n"}},
		{cmd: "sort -- --output=x", ro: true, reads: []string{"--output=x"}},
		{cmd: "cat - a", ro: true, reads: []string{"a"}},
		// GNU abbreviation, including of denied options, and ambiguity
		{cmd: "sort --outp=f a", why: "--outp (--output)", writes: []string{"f"}},
		{cmd: "sort --o f a", why: "--o (--output)", writes: []string{"f"}},
		{cmd: "sort --comp=sh a", why: "--compress-program"},
		{cmd: "sort --ch a", ro: true},
		{cmd: "ls --co", why: "ambiguous"},
		{cmd: "ls --colo", ro: true},
		// options after operands (GNU permutation)
		{cmd: "grep foo a -o", ro: true, reads: []string{"a"}},
		{cmd: "sort a -o b", why: "option -o", writes: []string{"b"}},
		// dynamic words
		{argv: []string{"sort", Dynamic}, why: "run time"},
		{argv: []string{"sort", "--", Dynamic}, ro: true, reads: []string{Dynamic}},
		{argv: []string{"cat", Dynamic}, ro: true, reads: []string{Dynamic}},
		{argv: []string{"cat", "src/" + Dynamic + ".go"}, ro: true, reads: []string{"src/" + Dynamic + ".go"}},
		{argv: []string{"git", Dynamic}, why: "run time"},
		{argv: []string{Dynamic, "x"}, why: "run time"},
		{argv: []string{"sed", Dynamic, "f"}, why: "run time"},
		{argv: []string{"awk", Dynamic, "f"}, why: "run time"},
		// gawk's network special files: a data file /inet/tcp/0/HOST/PORT
		// connects (strace: connect to HOST:PORT); a regular expression
		// /inet.../ names no file.
		{cmd: "gawk {print} /inet/tcp/0/127.0.0.1/9", why: "network egress"},
		{cmd: "awk {print} /inet4/tcp/0/example.com/80", why: "network egress"},
		{cmd: "awk {print} /inet6/udp/0/h/53", why: "network egress"},
		{cmd: "awk {print} x /inet/tcp/0/h/80", why: "network egress"},
		{argv: []string{"awk", `BEGIN{getline<"/inet/tcp/0/h/80"}`}, why: "getline"},
		{argv: []string{"awk", `BEGIN{x="/inet/tcp/0/h/80"}`}, why: "special network files"},
		{argv: []string{"awk", `/inet addr/{print substr($2,6)}`}, ro: true},
		{argv: []string{"awk", `/inet6?/`, "f"}, ro: true, reads: []string{"f"}},
		// program names
		{cmd: "./ls", why: "path"},
		{cmd: "/bin/ls", why: "path"},
		{cmd: "frobnicate --help", why: "not in the read-only vocabulary"},
		{argv: []string{}, why: "empty"},
	})
}

func TestKnown(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		cmd   string
		known bool
	}{
		{"ls", true}, {"curl -s x", true}, {"npm install", true}, {"git push", true},
		{"frobnicate", false}, {"python x.py", true}, {"tar -cf x y", true},
	} {
		if v := Judge(strings.Fields(c.cmd)); v.Known != c.known {
			t.Errorf("%q: Known=%v, want %v", c.cmd, v.Known, c.known)
		}
	}
}

func TestHasSubcommands(t *testing.T) {
	t.Parallel()
	for _, p := range []string{"git", "npm", "pnpm", "yarn", "gh", "docker", "kubectl", "cargo", "go", "pip", "pip3", "brew", "apt", "apt-get", "systemctl"} {
		if !HasSubcommands(p) {
			t.Errorf("HasSubcommands(%q) = false", p)
		}
	}
	for _, p := range []string{"ls", "grep", "sed", "python", "curl", "rm"} {
		if HasSubcommands(p) {
			t.Errorf("HasSubcommands(%q) = true", p)
		}
	}
}
