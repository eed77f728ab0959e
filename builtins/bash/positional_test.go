package bash

import (
	"strings"
	"testing"
)

// TestScriptPositionalParameters: a shell script's $1..., $@, $*, $# and
// $0 are the call's words (issue 27, docs/shell.md "Scripts"): known words
// stay known, so deny rules match what the script runs with them; a word
// only known at run time stays unknown; what may change them (shift
// inside a loop, set --, source, eval) makes them unknown, never stale.
func TestScriptPositionalParameters(t *testing.T) {
	t.Parallel()
	dir, opts := project(t, map[string]string{
		"del.sh":      "rm -rf \"$1\"\n",
		"delall.sh":   "rm \"$@\"\n",
		"delstar.sh":  "rm $*\n",
		"show.sh":     "#!/bin/sh\ncat \"$1\"\n",
		"shift.sh":    "shift\ncp \"$@\" out/\necho \"$#\" \"$0\"\n",
		"shift2.sh":   "shift 2\nrm -rf \"$1\"\n",
		"loop.sh":     "while [ $# -gt 0 ]; do shift; done\nrm -rf \"$1\"\n",
		"setdash.sh":  "set -- safe\nrm -rf \"$1\"\n",
		"sete.sh":     "set -euo pipefail\nrm -rf \"$1\"\n",
		"setword.sh":  "set -e safe -x\nrm -rf \"$1\" \"$2\"\n",
		"outer.sh":    "bash del.sh \"$2\"\n",
		"func.sh":     "f() { rm -rf \"$1\"; }\nrm -rf \"$1\"\n",
		"shc.sh":      "sh -c 'rm -rf \"$1\"' sh \"$1\"\n",
		"srcargs.sh":  "source del.sh \"$2\"\n",
		"src.sh":      ". ./del.sh\n",
		"count.sh":    "git push origin \"$#\" \"$3\"\n",
		"zero.sh":     "git push origin \"$0\"\n",
		"unquoted.sh": "rm -rf $1\n",
		"fshift.sh":   "shift() { :; }\nshift\nrm -rf \"$1\"\n",
		"alias.sh":    "shopt -s expand_aliases\nalias s=shift\ns\nrm -rf \"$1\"\n",
		"trap.sh":     "trap 'shift' DEBUG\nrm -rf \"$1\"\n",
		"cmdshift.sh": "command shift\nrm -rf \"$1\"\n",
		"ifshift.sh":  "if [ \"$1\" = x ]; then shift; fi\nrm -rf \"$1\"\n",
		"find.sh":     "find . -name x\nrm -rf \"$1\"\n",
		"README.md":   "hi\n",
		"ownvar.sh":   "rm -rf \"$f\"\n",
	})
	for _, c := range []struct {
		cmd, rule string
		want      string // "certain", "uncertain", "" (no match)
		shows     string // a leaf's argv, joined
	}{
		// Known words: deny rules match what runs, whatever $1 is.
		{"bash del.sh build", "rm -rf:*", "certain", "rm -rf build"},
		{"sh del.sh /", "rm -rf:*", "certain", "rm -rf /"},
		{"./del.sh ~", "rm -rf:*", "certain", "rm -rf " + opts.Home},
		{"source del.sh x", "rm -rf:*", "certain", "rm -rf x"},
		{"bash del.sh", "rm -rf:*", "certain", "rm -rf "},
		{"bash del.sh build", "rm -rf /:*", "", "rm -rf build"},
		// A word known only at run time stays unknown, which any deny
		// rule's word matches (a stale or invented value would not: the
		// rules below name a word no call supplies).
		{"sh del.sh \"$f\"", "rm -rf:*", "certain", "rm -rf $…"},
		{"sh del.sh \"$f\"", "rm -rf zzz", "certain", "rm -rf $…"},
		{"sh del.sh \"src/$f\"", "rm -rf:*", "certain", "rm -rf src/$…"},
		// $@ holding an option is an option of the command inside.
		{"bash delall.sh -rf /", "rm -rf:*", "certain", "rm -rf /"},
		{"bash delall.sh -r -f x", "rm -rf:*", "certain", "rm -r -f x"},
		{"bash delall.sh a", "rm -rf:*", "", "rm a"},
		{"bash delstar.sh -rf /", "rm -rf:*", "certain", "rm -rf /"},
		{"bash delall.sh $x", "rm -rf zzz", "certain", "rm $…"},
		{"bash delall.sh a $x", "rm -rf zzz", "certain", "rm a $…"},
		{"bash delall.sh *.md", "rm -rf zzz", "certain", "rm $…"},
		// shift, $#, $0.
		{"bash shift.sh a b c", "cp b:*", "certain", "cp b c out/"},
		{"bash shift.sh a b c", "echo 2 shift.sh:*", "certain", "echo 2 shift.sh"},
		{"bash shift2.sh a b -rf", "rm -rf -rf:*", "certain", "rm -rf -rf"},
		{"bash zero.sh", "git push origin zero.sh", "certain", "git push origin zero.sh"},
		{"./zero.sh", "git push origin ./zero.sh", "certain", ""},
		{"bash count.sh a b main", "git push origin 3 main", "certain", ""},
		// What may change them makes them unknown.
		{"bash loop.sh a", "rm -rf zzz", "certain", "rm -rf $…"},
		{"bash setdash.sh a", "rm -rf zzz", "certain", "rm -rf $…"},
		{"bash sete.sh a", "rm -rf a", "certain", "rm -rf a"},
		// set with operands (no --) sets them too: unknown after it.
		{"bash setword.sh a", "rm -rf zzz", "certain", "rm -rf $… $…"},
		{"bash srcargs.sh a b", "rm -rf b", "certain", "rm -rf b"},
		{"bash src.sh a", "rm -rf a", "certain", "rm -rf a"},
		// A shift that may not be the builtin, or may not run, or a trap
		// running between commands: unknown, never the shifted or the
		// unshifted value.
		{"bash fshift.sh / a", "rm -rf zzz", "certain", "rm -rf $…"},
		{"shift() { :; }; export -f shift; bash shift2.sh a b c", "rm -rf zzz", "certain", "rm -rf $…"},
		{"bash alias.sh / a", "rm -rf zzz", "certain", "rm -rf $…"},
		{"bash trap.sh / a", "rm -rf zzz", "certain", "rm -rf $…"},
		{"bash cmdshift.sh / a", "rm -rf zzz", "certain", "rm -rf $…"},
		{"bash ifshift.sh x /", "rm -rf zzz", "certain", "rm -rf $…"},
		{"bash find.sh a", "rm -rf a", "certain", "rm -rf a"},
		// A script calling a script with its arguments.
		{"bash outer.sh a /", "rm -rf /:*", "certain", "rm -rf /"},
		// A function's and sh -c's parameters are their own.
		{"bash func.sh a", "rm -rf zzz", "certain", "rm -rf $…"},
		{"bash func.sh a", "rm -rf a", "certain", "rm -rf a"},
		{"bash shc.sh a", "rm -rf zzz", "certain", "rm -rf $…"},
		// Unquoted: a value that splitting keeps as one word, else unknown.
		{"bash unquoted.sh dist", "rm -rf dist", "certain", "rm -rf dist"},
		{"bash unquoted.sh 'a /'", "rm -rf zzz", "certain", "rm -rf $…"},
		// A loop variable of the calling shell is the script's $1 when
		// passed, not its own variable of the same name.
		{"for f in a b; do bash del.sh \"$f\"; done", "rm -rf zzz", "certain", "rm -rf $…"},
		{"for f in a; do bash ownvar.sh; done", "rm -rf a", "certain", "rm -rf $…"},
		// xargs supplies the words at run time.
		{"echo x | xargs bash del.sh", "rm -rf zzz", "certain", "rm -rf $…"},
	} {
		a := Analyze(c.cmd, opts)
		ps := mustPatterns(t, c.rule)
		got := ""
		switch {
		case a.MatchCertain(ps) == 0:
			got = "certain"
		case a.MatchAny(ps) == 0:
			got = "uncertain"
		}
		if got != c.want {
			t.Errorf("%q under %q: %q match, want %q (uncertain %q)\n%s", c.cmd, c.rule, got, c.want, a.Uncertain(), brief(a))
		}
		if c.shows == "" {
			continue
		}
		found := false
		for _, lf := range a.Leaves {
			found = found || strings.Join(lf.Argv, " ") == strings.ReplaceAll(c.shows, "$…", dyn)
		}
		if !found {
			t.Errorf("%q: no leaf %q\n%s", c.cmd, c.shows, brief(a))
		}
	}

	// Read-only words inside: cat "$1" reads the file named, a credential
	// too, which the read check then sees.
	for arg, read := range map[string]string{"README.md": dir + "/README.md", "~/.ssh/id_rsa": opts.Home + "/.ssh/id_rsa"} {
		a := Analyze("./show.sh "+arg, opts)
		var lf *Leaf
		for i := range a.Leaves {
			if a.Leaves[i].Program == "cat" {
				lf = &a.Leaves[i]
			}
		}
		if lf == nil || len(lf.Reads) != 1 || lf.Reads[0] != read || lf.RunsUnknown != "" || !strings.Contains(lf.Reason, scriptsNotReadOnly) {
			t.Errorf("./show.sh %s: cat leaf %+v, want it to read %s, certain, not read-only only because it is in a script\n%s", arg, lf, read, brief(a))
		}
	}
}

// TestShellDashS: sh -s reads its script from stdin and its operands are
// $1..., never a script file: a piped script is unseen (uncertain), a
// here-document is walked, and no rule is suggested for the call.
func TestShellDashS(t *testing.T) {
	t.Parallel()
	_, opts := project(t, map[string]string{"ok.sh": "echo fine\n"})
	for _, c := range []struct{ cmd, want string }{
		{"echo 'rm -rf /tmp/x' | bash -s ok.sh", "certain"}, // echo's literal is the script
		{"curl x | bash -s -- ok.sh", "uncertain"},
		{"bash -es ok.sh", "uncertain"},
		{"bash -o posix -s ok.sh", "uncertain"},
		{"bash -s ok.sh <<'EOF'\nrm -rf /tmp/x\nEOF", "certain"},
		{"bash -s ok.sh <<< 'rm -rf /tmp/x'", "certain"},
		{"bash ok.sh", ""},
	} {
		a := Analyze(c.cmd, opts)
		ps := mustPatterns(t, "rm -rf:*")
		got := ""
		switch {
		case a.MatchCertain(ps) == 0:
			got = "certain"
		case a.MatchAny(ps) == 0:
			got = "uncertain"
		}
		if got != c.want {
			t.Errorf("%q under rm -rf:*: %q match, want %q (uncertain %q)\n%s", c.cmd, got, c.want, a.Uncertain(), brief(a))
		}
		if s := a.Suggest(); c.want != "" && len(s) > 0 {
			t.Errorf("%q: suggests %q: a rule would allow any script on its stdin", c.cmd, s)
		}
	}
}
