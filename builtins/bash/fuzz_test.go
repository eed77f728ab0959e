package bash

import (
	"os"
	"strings"
	"testing"

	"github.com/permopa/permopa/builtins/flagspec"
	"mvdan.cc/sh/v3/syntax"
)

// issue10Seeds are the constructs of issue 10 for the fuzzer to start from:
// find values that look like actions, archivers' read and write modes,
// compressors, pagers' initial commands, openssl, ip abbreviations, network
// egress and network reads, env -i, watch, kill -l.
var issue10Seeds = []string{
	"find . -name '-delete'", "find . -name -exec -print", "find . -path '*/-execdir/*' -newer -ok",
	"find . -regex '-fprint' -o -iname '-fls'", "find . -name x -delete", "find . -newer -delete -delete",
	"tar tvf a.tar", "tar xOf a.tar x", "tar xf a.tar", "tar -tf host:a.tar", "tar -tf a.tar --to-command=sh",
	"tar cvf - src", "gzip -l f.gz", "gzip f", "xz -dc f.xz > out", "zstd -dc f.zst -o x", "unzip -l a.zip",
	"unzip a.zip", "unzip -Z -1 a.zip", "less +G f", "less '+!id' f", "less -p 'x' -o log f", "more +/x f",
	"openssl x509 -in c.pem -noout -text", "openssl x509 -in c.pem -out x", "openssl s_client -connect h:443",
	"ip a s", "ip l s eth0 up", "ip -b cmds", "ip r g 1.1.1.1", "ss dst evil.com", "ss -tlnp",
	"curl -s https://example.com", "dig @1.1.1.1 x.example", "ping -c1 example.com", "git ls-remote https://x/r",
	"git ls-remote origin", "kubectl get pods", "gh pr view 1", "npm view react", "pip list --outdated",
	"env -i cat f", "env -u HOME cat f", "env -S 'rm x' cat", "watch -n 1 ls", "watch rm x", "kill -l", "kill -9 1",
	"sysctl -w a=b", "blkid -o list", "git hash-object -w f", "git clean -n", "git clean -f", "yq -i '.a=1' f.yaml",
	"fd x -x rm", "timeout 5 tar tf a.tar", "echo $(tar xf a.tar)", "tee /dev/tty < f", "ldd bin/app",
}

// FuzzAnalyze: no panic (the recover in analyze would hide one, so an
// "internal error" fails), never read-only when bash cannot parse the
// input, a limit is never read-only, code in strings bash evaluates is
// never read-only, the matching functions hold up, and suggestions
// round-trip. Seeds include the evaluated strings and pathological shapes.
func FuzzAnalyze(f *testing.F) {
	for _, c := range rmBypasses {
		f.Add(c)
	}
	for _, c := range evaluatedStrings {
		f.Add(c.with("rm -rf x"))
	}
	for _, p := range pathologicalShapes {
		f.Add(p.make(200)) // small: the fuzzer grows them
	}
	for _, c := range issue10Seeds {
		f.Add(c)
	}
	// PERMOPA_FUZZ_STRACE=1 runs every command found read-only under strace
	// in the dynamic check's fixture (slow; see dynamic_test.go).
	var tracer *dynamicTracer
	var template string
	if os.Getenv("PERMOPA_FUZZ_STRACE") != "" {
		if d, _ := newDynamicTracer(); d != nil {
			tracer, template = d, fixtureTemplate(f, d)
		}
	}
	pats := []*Pattern{}
	for _, c := range []string{"rm:*", "git status", "npm run *", "* --force", "", "sudo:*", "a*b c"} {
		p, err := CompilePattern(c)
		if err != nil {
			f.Fatal(err)
		}
		pats = append(pats, p)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		a := analyze(cmd, conformanceOpts)
		for _, r := range a.Reasons {
			if r == "internal error" {
				t.Fatalf("analyze panicked on %q", cmd)
			}
		}
		_, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
		if err != nil && a.ReadOnly {
			t.Fatalf("%q does not parse (%v) but was judged read-only", cmd, err)
		}
		if a.ReadOnly && !a.Analysable {
			t.Fatalf("%q read-only but not analysable", cmd)
		}
		if a.LimitExceeded != "" && (a.ReadOnly || a.Analysable || !a.Truncated) {
			t.Fatalf("%q exceeds %s but read-only=%v analysable=%v", cmd, a.LimitExceeded, a.ReadOnly, a.Analysable)
		}
		// A string bash evaluates that holds a substitution is never read-only.
		if a.ReadOnly && strings.Contains(cmd, "$(") {
			for _, l := range a.Leaves {
				for _, wr := range l.Wrappers {
					if wr == labelSubscript || wr == labelArith || strings.HasPrefix(wr, "value of ") {
						t.Fatalf("%q read-only with code in an evaluated string", cmd)
					}
				}
			}
		}
		// Read-only means: no write, no egress, and a network read is
		// named as such.
		if a.ReadOnly {
			if len(a.Writes) > 0 {
				t.Fatalf("%q read-only but writes %q", cmd, a.Writes)
			}
			for _, l := range a.Leaves {
				if l.Network == flagspec.NetEgress {
					t.Fatalf("%q read-only but leaf %q sends to a destination of its own", cmd, l.Argv)
				}
				if l.Network == flagspec.NetRead && !a.NetworkRead {
					t.Fatalf("%q: a network read leaf but the analysis does not say so", cmd)
				}
			}
			if tracer != nil && len(cmd) < 300 {
				ra := analyze(cmd, realWorldOpts(template))
				if ra.ReadOnly {
					res := tracer.run(t, template, cmd, ra.CacheWrites, helpersFor(ra), dynamicTimeout)
					for _, e := range res.effects {
						if !strings.Contains(e, " "+ipcPrefix) && !(ra.NetworkRead && strings.Contains(e, " network ")) {
							t.Fatalf("%q judged read-only but under strace: %s", cmd, e)
						}
					}
				}
			}
		}
		a.MatchAny(pats)
		a.MatchAnySet(NewPatternSet(pats))
		a.Covered(pats)
		checkRoundTrip(t, cmd, a)
		if p, err := CompilePattern(cmd); err == nil {
			for _, l := range a.Leaves {
				p.Match(l.Argv)
			}
			p.Match(strings.Fields(cmd))
		}
	})
}

// FuzzFindValues: whatever word stands as the value of a find test
// (-name, -iname, -path, -regex, -newer, ...), it is a value: it never makes
// find delete, run or write, and the parse agrees with the analyser.
func FuzzFindValues(f *testing.F) {
	for _, s := range []string{"-delete", "-exec", "-execdir", "-ok", "-fprint", "-fls", "(", ";", "+", "{}", "-print0", "*.go", ""} {
		f.Add("-name", s)
		f.Add("-newer", s)
	}
	f.Fuzz(func(t *testing.T, test, value string) {
		switch test {
		case "-name", "-iname", "-path", "-ipath", "-wholename", "-regex", "-iregex", "-lname", "-ilname", "-newer",
			"-user", "-group", "-perm", "-size", "-type", "-mtime":
		default:
			test = "-name"
		}
		argv := []string{"find", ".", test, value, "-print"}
		e := flagspec.ParseFind(argv)
		if len(e.Primaries) != 2 || e.Primaries[0].Name != test || len(e.Primaries[0].Values) != 1 || e.Primaries[0].Values[0] != value {
			t.Fatalf("%q: parsed as %+v", argv, e.Primaries)
		}
		if e.Has("-delete") || e.Has("-exec") || e.Has("-fprint") {
			t.Fatalf("%q: the value %q taken for an action", argv, value)
		}
		if strings.ContainsAny(value, "'\x00") {
			return
		}
		cmd := "find . " + test + " '" + value + "' -print"
		a := analyze(cmd, conformanceOpts)
		for _, l := range a.Leaves {
			if len(l.Writes) > 0 || len(l.Wrappers) > 0 {
				t.Fatalf("%q: the value made find write or run: %+v", cmd, l)
			}
		}
	})
}
