package bash

import (
	"strings"
	"testing"
)

// A program that runs its data as a command is as unknowable as eval of a
// string only known at run time: not analysable (a safety ASK that a
// tool-wide Bash allow rule does not lift), its leaf runs unknown code
// (every deny rule hits it). Programs that only run a command written in
// the command line stay analysable (issue 23).
func TestRunsDataIsUnanalysable(t *testing.T) {
	opts := Options{Cwd: "/w", Home: "/home/u"}
	for _, c := range []struct {
		cmd  string
		data bool
	}{
		{`sed 's/.*/x/e' f`, true},
		{`sed -n 's/^/rm /e' f`, true},
		{`sed 's/a/b/ge' f`, true},
		{`sed -e 's/a/b/' -e 's/.*/&/e' f`, true},
		{`sed e f`, true},
		{`sed '1e' f`, true},
		{`sed -n '/x/{e
p}' f`, true},
		{`sed --expression=e f`, true},
		{`cat f | sed e`, true},
		{`awk '{system($0)}' f`, true},
		{`awk '{ print | "sh" }' f`, true},
		{`awk '{ print $0 |& "sh" }' f`, true},
		{`awk '{ $0 | getline x }' f`, true},
		{`awk '{ cmd = $1; cmd | getline }' f`, true},
		{`gawk '{ f = "sys" "tem"; @f($0) }' f`, true},
		{`mawk 'BEGIN { system("date") }'`, true},
		{`awk -e '{system($2)}' f`, true},
		{`xargs sh -c`, true},
		{`xargs -0 bash -c`, true},
		{`xargs -n1 sh -c`, true},
		{`ls | xargs -I{} sh -c 'echo {}'`, true},
		{`find . -exec sh -c '{}' \;`, true},
		{`find . -name '*.txt' -exec sh -c 'cat $x{}' \;`, true},
		{`find . -name '*.txt' -exec zsh -c 'cat {}' \;`, true},
		{`find . -execdir bash -c 'x {}' +`, true},
		{`find . -exec sh -c '$1' _ {} \;`, true},
		{`xargs sh -c 'eval "$1"' _`, true},

		{`sed 's/a/b/' f`, false},
		{`sed '1e date' f`, false},
		{`sed 's/e/E/g' f`, false},
		{`awk '{print $1}' f`, false},
		{`awk '$1 == "a" || $2 == "b"' f`, false},
		{`find . -exec sh -c 'cat "$1"' _ {} \;`, false},
		// Paths of plain shell text pasted where they stay one word
		// (pastescript.go; here find hands on nothing).
		{`find . -name '*.txt' -exec sh -c 'cat {}' \;`, false},
		{`xargs sh -c 'echo "$@"' _`, false},
		{`find . -exec cat {} \;`, false},
	} {
		a := Analyze(c.cmd, opts)
		if got := !a.Analysable; got != c.data {
			t.Errorf("%q: unanalysable = %v, want %v (reasons %v)", c.cmd, got, c.data, a.Reasons)
			continue
		}
		if c.data {
			if a.ReadOnly {
				t.Errorf("%q: read-only", c.cmd)
			}
			runs := false
			for _, l := range a.Leaves {
				runs = runs || l.RunsUnknown != ""
			}
			if !runs && !strings.Contains(strings.Join(a.Reasons, ";"), "command name is not static") {
				t.Errorf("%q: no leaf runs unknown code", c.cmd)
			}
		}
	}
}

// man reads its options, search path, pager and troff pipeline from the
// environment (MANOPT can carry -C, MANPATH a project directory whose
// pages include any file): an assignment of any of them in the command is
// not read-only, and a command-valued one is walked for deny rules.
func TestManEnvironmentIsNotReadOnly(t *testing.T) {
	opts := Options{Cwd: "/w", Home: "/home/u"}
	if a := Analyze("man ls", opts); !a.ReadOnly {
		t.Fatalf("man ls: not read-only: %v", a.NotReadOnly)
	}
	for _, cmd := range []string{
		"MANPATH=mp man ls", "MANOPT=-Cman.conf man ls", "MANPAGER='sh -c x' man ls", "PAGER=cat man ls",
		"MANROFFSEQ=et man ls", "MANROFFOPT=-U man ls", "MANSECT=1 man ls", "MANWIDTH=80 man ls",
		"env MANOPT=-Cx man ls", "export MANOPT=-Cx; man ls", "MAN_KEEP_FORMATTING=1 man ls", "GROFF_TMAC_PATH=. man ls",
	} {
		if a := Analyze(cmd, opts); a.ReadOnly {
			t.Errorf("%q: read-only", cmd)
		}
	}
}

// Interpreters whose inline code is the data xargs appends or the path
// find -exec supplies run their data too.
func TestInterpreterCodeFromDataIsUnanalysable(t *testing.T) {
	opts := Options{Cwd: "/w", Home: "/home/u"}
	for _, c := range []struct {
		cmd  string
		data bool
	}{
		{`xargs python3 -c`, true},
		{`xargs -0 node -e`, true},
		{`xargs perl -e`, true},
		{`xargs -n1 ruby -e`, true},
		{`find . -exec python3 -c {} \;`, true},
		{`find . -name '*.py' -exec python3 -c 'import {}' \;`, true},
		{`ls | xargs -I% node -e 'require("%")'`, true},
		{`xargs python3 -c 'import sys; print(sys.argv)'`, false},
		{`find . -exec python3 -c 'import sys; print(sys.argv)' {} \;`, false},
		{`xargs cat`, false},
	} {
		a := Analyze(c.cmd, opts)
		if got := !a.Analysable; got != c.data {
			t.Errorf("%q: unanalysable = %v, want %v (reasons %v)", c.cmd, got, c.data, a.Reasons)
		}
	}
}

// A package manager's rc file written earlier in the same command is read
// after the decision looked at the project: not read-only.
func TestPackageManagerConfigWrittenInTheCommand(t *testing.T) {
	opts := Options{Cwd: "/w", Home: "/home/u"}
	for _, cmd := range []string{
		`echo 'yarn-path "./x.js"' > .yarnrc && yarn list`,
		`printf 'yarnPath: x.cjs\n' > sub/.yarnrc.yml; cd sub && yarn why x`,
		`cp /tmp/rc .npmrc && npm ls`,
		`echo x > .pnpmfile.cjs; pnpm list`,
		`tar xf a.tar; yarn list`,
		`echo x > "$F"; npm ls`,
	} {
		a := Analyze(cmd, opts)
		for _, l := range a.Leaves {
			if p := l.Program; (p == "yarn" || p == "npm" || p == "pnpm") && l.ReadOnly {
				t.Errorf("%q: %s is read-only", cmd, p)
			}
		}
		if a.ReadOnly {
			t.Errorf("%q: read-only", cmd)
		}
	}
	if a := Analyze("yarn list && npm ls", opts); !a.ReadOnly || len(a.ProjectConfigs) != 2 {
		t.Errorf("yarn list && npm ls: read-only %v, project configs %v", a.ReadOnly, a.ProjectConfigs)
	}
}
