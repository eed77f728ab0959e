package flagspec

import (
	"strings"
	"testing"
)

// TestEveryDeniedFlag walks every spec in the registry and checks that each
// denied option, written in full, with =value, abbreviated (where the prefix
// is unique) and glued (short options), makes the call not read-only.
func TestEveryDeniedFlag(t *testing.T) {
	t.Parallel()
	n := 0
	for prog := range registry {
		s := lookup(prog)
		walkSpecs(s, func(s *spec) {
			if s.anyArgs || s.never != "" {
				return
			}
			prefix := []string{prog}
			if s.subPath != "" {
				prefix = append(prefix, strings.Fields(s.subPath)...)
			}
			for _, d := range s.defs {
				if d.deny == "" {
					continue
				}
				for _, form := range flagForms(s, d) {
					n++
					argv := append(append([]string(nil), prefix...), form...)
					argv = append(argv, "operand1", "operand2")
					if v := Judge(argv); v.ReadOnly {
						t.Errorf("%q is read-only", argv)
					}
				}
			}
		})
	}
	t.Logf("%d denied-option forms checked", n)
}

func walkSpecs(s *spec, f func(*spec)) {
	f(s)
	for word := range s.subs {
		walkSpecs(s.kid(word), f)
	}
}

// flagForms returns the ways an option can be written.
func flagForms(s *spec, d flagDef) [][]string {
	var forms [][]string
	long := strings.HasPrefix(d.name, "--") || s.single || len(d.name) > 2
	switch d.arity {
	case argNone:
		forms = append(forms, []string{d.name})
	case argReq, argLast:
		forms = append(forms, []string{d.name, "v"})
		if long {
			forms = append(forms, []string{d.name + "=v"})
		} else {
			forms = append(forms, []string{d.name + "v"})
		}
	case argOpt:
		forms = append(forms, []string{d.name})
		if long {
			forms = append(forms, []string{d.name + "=v"})
		} else {
			forms = append(forms, []string{d.name + "v"})
		}
	case argTwo:
		forms = append(forms, []string{d.name, "a", "b"})
	}
	if strings.HasPrefix(d.name, "--") && !s.noAbbrev && !s.single {
		// every prefix that still resolves (uniquely or ambiguously) must fail
		for l := len(d.name) - 1; l >= 3; l-- {
			p := d.name[:l]
			if got, _ := s.lookupLong(p, false); got != nil && got.deny == "" {
				// the prefix names an allowed option exactly or uniquely
				continue
			}
			forms = append(forms, []string{p, "v"})
		}
	}
	if !long && d.arity == argNone {
		// in a cluster after another option
		for _, o := range s.defs {
			if len(o.name) == 2 && o.name[1] != '-' && o.arity == argNone && o.deny == "" && !s.single {
				forms = append(forms, []string{o.name + d.name[1:]})
				break
			}
		}
	}
	return forms
}

// FuzzJudge checks that Judge never panics and that a read-only verdict
// never carries writes.
func FuzzJudge(f *testing.F) {
	for _, s := range []string{
		"git log --oneline -20", "sed -n s/a/b/w", "find . -exec", "sort -o", "git -C",
		"rm -rf /", "jq --arg a", "awk -v", "xxd -c", "git branch --contains",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		v := Judge(strings.Fields(cmd))
		if v.ReadOnly && (len(v.Writes) > 0 || v.Reason != "" || v.FSCommand) {
			t.Fatalf("%q: inconsistent verdict %+v", cmd, v)
		}
	})
}
