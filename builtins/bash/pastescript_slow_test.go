//go:build slow

package bash

import (
	"strings"
	"testing"
)

// TestPastedScriptAgainstHostileNames runs, under strace, every way a
// path is pasted into a script over plain names (read-only: no effect),
// and the hostile names and scripts that are not read-only where they
// bite (pastescript.go; the quick suite runs
// TestPastedScriptAgainstHostileNamesQuick).
func TestPastedScriptAgainstHostileNames(t *testing.T) {
	t.Parallel()
	var cases []pastedRun
	for _, form := range pastedForms {
		cases = append(cases, pastedRun{cmd: strings.ReplaceAll(form, "DIR", "plain"), ro: true})
	}
	cases = append(cases,
		pastedRun{cmd: `find . -maxdepth 1 -type d -name plain -print0 | xargs -0 -I {} sh -c 'echo -e $(find "{}" -printf "\n" | wc -l) "{}"' | sort -n`, ro: true},
		pastedRun{cmd: `find plain -maxdepth 1 -type d -print0 | xargs -0 -I {} sh -c 'echo  $(find {} | wc -l) {}' | sort -n`, ro: true},
		pastedRun{cmd: `find plain -type d -name "*u*" | xargs -I {} sh -c "echo {};ls -la {} | tail -2"`, ro: true},
		pastedRun{cmd: `find plain -type l -exec sh -c "cat {} | grep -q ^broken" \; -print`, ro: true},
		pastedRun{cmd: `find plain -execdir bash -c 'head -c 1 {}' \;`, ro: true},
	)
	// Names that are code, pasted into the text: each bites.
	for _, c := range []struct{ name, script string }{
		{"$(touch pwned)", `echo {}`},
		{"`touch pwned`", `echo {}`},
		{"a;touch pwned", `echo {}`},
		{"a|touch pwned", `echo {}`},
		{"a&&touch${IFS}pwned", `echo {}`},
		{"a\ntouch pwned", `echo {}`},
		{"$(touch pwned)", `echo "{}"`},
	} {
		cases = append(cases, pastedRun{cmd: `find h/` + pasteDirOf(c.name) + ` -exec sh -c '` + c.script + `' \;`, bites: true})
		cases = append(cases, pastedRun{cmd: `find h/` + pasteDirOf(c.name) + ` -print0 | xargs -0 -I{} bash -c '` + c.script + `'`, bites: true})
	}
	cases = append(cases,
		// A quote in the name ends the quotes around the place.
		pastedRun{cmd: `find h/` + pasteDirOf("'$(touch pwned)'") + ` -exec sh -c "echo '{}'" \;`, bites: true},
		// A blank splits the path: the rest is an option.
		pastedRun{cmd: `find h/` + pasteDirOf("a -opwned") + ` -type f -exec sh -c 'sort {}' \;`, bites: true},
		// Names that are shell syntax but bite nowhere a path starts
		// with its starting point: refused all the same.
		pastedRun{cmd: `find h/` + pasteDirOf("~root") + ` -exec sh -c 'echo {}' \;`},
		pastedRun{cmd: `find h/` + pasteDirOf("{a,b}") + ` -exec bash -c 'echo {}' \;`},
		pastedRun{cmd: `find h/` + pasteDirOf("#x") + ` -exec sh -c 'echo {}' \;`},
		// The name as the command, sourced, or the script writes.
		pastedRun{cmd: `find run -type f -exec sh -c '{}' \;`, bites: true},
		pastedRun{cmd: `find run -type f -exec bash -c 'source {}' \;`, bites: true},
		pastedRun{cmd: `find plain -type f -exec sh -c 'cat {} > out' \;`, bites: true},
		// The command creates a name that is code before find runs.
		pastedRun{cmd: `touch 'plain/a;touch pwned'; find plain -exec sh -c 'echo {}' \;`, bites: true},
	)
	pastedProof(t, cases)
}
