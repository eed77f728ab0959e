package bash

import (
	"fmt"
	"strings"
	"testing"
)

func treesOf(a *Analysis) string {
	var out []string
	for _, t := range a.RecursiveReads {
		s := t.Path
		if t.Hidden {
			s += " hidden"
		}
		if t.NamesOnly {
			s += " names"
		}
		out = append(out, s)
	}
	return strings.Join(out, "; ")
}

// The roots of recursive reads are resolved like other paths (~, $HOME,
// cd, wrappers, shells), and names handed to another program are read.
func TestAnalysisRecursiveReads(t *testing.T) {
	t.Parallel()
	cases := []struct{ cmd, trees string }{
		{"grep -r KEY ~", "/home/u hidden"},
		{`grep -r KEY "$HOME/.aws"`, "/home/u/.aws hidden"},
		{"cd .. && grep -rl KEY", "/home/u hidden; /home/u/proj/.. hidden"}, // cd may be physical (cd -P)
		{"cd /etc; rg x", "/home/u/proj; /etc"},                             // cd may fail: both directories
		{"bash -c 'rg -uu x ~'", "/home/u hidden"},
		{"timeout 5 nice grep -R x /", "/ hidden"},
		{"sudo grep -r x /root", "/root hidden"},
		{"ls -R src && du -a", "/home/u/proj/src names; /home/u/proj hidden names"},
		{"find ~ -name x", "/home/u hidden names"},
		{"find ~ -type f -exec cat {} +", "/home/u hidden"},
		{"find . -print0 | xargs -0 cat", "/home/u/proj hidden"},
		{"tree -a ~ | xargs -n1 echo", "/home/u hidden"},
		{"tar czf /tmp/x.tgz ~", "/home/u hidden"},
		{"cp -r ~/.ssh ./k", "/home/u/.ssh hidden"},
		{"grep x f; cat g", ""},
		{"rg x $(pwd)", "/home/u/proj"}, // the working directory (substPwd)
	}
	for _, c := range cases {
		a := analyze(c.cmd, conformanceOpts)
		if got := treesOf(a); got != c.trees {
			t.Errorf("%q: trees %q, want %q", c.cmd, got, c.trees)
		}
	}
	// A root only known at run time is not read-only.
	for _, cmd := range []string{`grep -r x "$D"`, `cd "$D" && rg x`, "rg x $(pwd -P)", `cd "$D" && rg x $(pwd)`} {
		if a := analyze(cmd, conformanceOpts); a.ReadOnly {
			t.Errorf("%q: read-only with a dynamic root", cmd)
		}
	}
}

func TestAnalysisEnvironment(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{
		"printenv", "env", "env | grep KEY", "bash -c printenv", "sh -c 'export -p'", "declare -p", "set",
		"x=$(printenv GITHUB_TOKEN)", "echo $(env)", "cat <(env)", "ps eww", "jq -n env",
	} {
		a := analyze(cmd, conformanceOpts)
		if len(a.Environment) == 0 {
			t.Errorf("%q: no environment read", cmd)
		}
	}
	for _, cmd := range []string{"env -i cat f", "env FOO=1 git status", "printenv HOME", "ls", "export FOO=1"} {
		a := analyze(cmd, conformanceOpts)
		if len(a.Environment) > 0 {
			t.Errorf("%q: environment read %v", cmd, a.Environment)
		}
	}
	a := analyze("printenv; ps e", conformanceOpts)
	if got := fmt.Sprint(a.Environment); !strings.Contains(got, "printenv: printenv prints the whole environment") || len(a.Environment) != 2 {
		t.Errorf("reasons: %v", a.Environment)
	}
}
