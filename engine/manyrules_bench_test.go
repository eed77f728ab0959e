package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// ruleKinds are the rule shapes of BENCHMARKS.md "Many rules": rule i of a
// kind, as a settings file writes it. None of them matches the calls of
// manyRulesCalls, so every decision meets every list of its tool and falls
// through to the mode's fallback: the worst case for a lookup.
var ruleKinds = map[string]func(i int) string{
	"bash": func(i int) string { return fmt.Sprintf("Bash(tool%d:*)", i) },
	"toolglob": func(i int) string {
		if i%2 == 0 {
			return fmt.Sprintf("mcp__srv%d__*", i)
		}
		return fmt.Sprintf("custom%d_*", i)
	},
	"webfetch": func(i int) string {
		if i%2 == 0 {
			return fmt.Sprintf("WebFetch(domain:host%d.example.com)", i)
		}
		return fmt.Sprintf("WebFetch(domain:*.d%d.example.org)", i)
	},
	"custom": func(i int) string {
		if i%2 == 0 {
			return fmt.Sprintf(`deploy({"target":"env%d"})`, i)
		}
		return fmt.Sprintf(`deploy({"target":"stag%d*"})`, i)
	},
	"path": func(i int) string {
		switch i % 5 {
		case 0:
			return fmt.Sprintf("Read(/data/d%d/**)", i)
		case 1:
			return fmt.Sprintf("Edit(src/gen%d/**)", i)
		case 2:
			return fmt.Sprintf("Write(/out/o%d/*)", i)
		case 3:
			return fmt.Sprintf("Glob(~/g%d/**)", i)
		}
		return fmt.Sprintf("Grep(//abs%d/**)", i)
	},
}

// manyRulesMixed cycles through every kind.
var manyRulesKindOrder = []string{"bash", "toolglob", "webfetch", "custom", "path"}

// manyRulesCalls are the calls each kind is measured with (mixed: all).
var manyRulesCalls = map[string][]string{
	"bash":     {`{"tool_name":"Bash","tool_input":{"command":"make build && npm test"},"cwd":"/w","session_id":"s1"}`},
	"toolglob": {`{"tool_name":"mcp__zzz__do","tool_input":{"q":1},"cwd":"/w","session_id":"s1"}`},
	"webfetch": {`{"tool_name":"WebFetch","tool_input":{"url":"https://api.github.com/repos"},"cwd":"/w","session_id":"s1"}`},
	"custom":   {`{"tool_name":"deploy","tool_input":{"target":"prod"},"cwd":"/w","session_id":"s1"}`},
	"path": {
		`{"tool_name":"Read","tool_input":{"file_path":"/w/src/main.go"},"cwd":"/w","session_id":"s1"}`,
		`{"tool_name":"Edit","tool_input":{"file_path":"/w/src/a.go","old_string":"a","new_string":"b"},"cwd":"/w","session_id":"s1"}`,
	},
}

// manyRulesSettings spreads n rules of a kind ("mixed": every kind in
// turn) over every layer: user, project and local settings, the call's
// session and an organisation's rules bundle (returned as a rules
// document); a third of them deny, a third ask, a third allow.
func manyRulesSettings(b testing.TB, kind string, n int) (settings.Settings, settings.RuleSet) {
	s := settings.Settings{Home: "/home/u", Cwd: "/w", SessionRules: map[string][]permission.Rule{}}
	var org settings.Settings
	behaviors := []string{"allow", "deny", "ask"}
	sources := []string{settings.SourceUser, settings.SourceProject, settings.SourceLocal, settings.SourceSession, settings.SourceOrg}
	for i := 0; i < n; i++ {
		k := kind
		if k == "mixed" {
			k = manyRulesKindOrder[i%len(manyRulesKindOrder)]
		}
		r, err := settings.ParseRule(ruleKinds[k](i), behaviors[i%3])
		if err != nil {
			b.Fatal(err)
		}
		r.Source = sources[(i/3)%len(sources)]
		switch r.Source {
		case settings.SourceSession:
			s.SessionRules["s1"] = append(s.SessionRules["s1"], r)
		case settings.SourceOrg:
			org.Rules = append(org.Rules, r)
		default:
			s.Rules = append(s.Rules, r)
		}
	}
	return s, settings.RulesDocument(org, time.Now())
}

// orgBundle writes an organisation's rules document as a bundle directory.
func orgBundle(b testing.TB, doc settings.RuleSet) string {
	dir := b.TempDir()
	p := filepath.Join(dir, "permopa", "rules")
	if err := os.MkdirAll(p, 0o755); err != nil {
		b.Fatal(err)
	}
	data, err := json.Marshal(doc)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p, "data.json"), data, 0o644); err != nil {
		b.Fatal(err)
	}
	return dir
}

// BenchmarkDecideManyRules measures each rule kind (and all together) with
// 10 and with 10,000 rules in every layer, the session and an org bundle:
// every kind is looked up, so the two should cost about the same
// (BENCHMARKS.md "Many rules": ≤ 1.5×). The machine is shared and loaded,
// so each iteration decides the call with both engines, in turns, and the
// benchmark reports the median of each (rules10-ns, rules10000-ns) and
// their ratio, measured side by side.
func BenchmarkDecideManyRules(b *testing.B) {
	ctx := context.Background()
	for _, kind := range append(append([]string(nil), manyRulesKindOrder...), "mixed") {
		calls := manyRulesCalls[kind]
		if kind == "mixed" {
			calls = nil
			for _, k := range manyRulesKindOrder {
				calls = append(calls, manyRulesCalls[k]...)
			}
		}
		var engs [2]*engine.Engine
		for j, n := range []int{10, 10000} {
			s, org := manyRulesSettings(b, kind, n)
			eng, err := engine.New(ctx, engine.WithSettings(s), engine.WithBundles(orgBundle(b, org)))
			if err != nil {
				b.Fatal(err)
			}
			engs[j] = eng
		}
		for ci, call := range calls {
			in := parsed(b, call)
			for _, eng := range engs {
				if d := eng.Decide(ctx, in); d.Step != permission.StepModeFallback && d.Step != permission.StepReadOnly {
					b.Fatalf("%s: %s: want no rule to decide, got %+v", kind, call, d)
				}
			}
			b.Run(fmt.Sprintf("kind=%s/call=%d", kind, ci), func(b *testing.B) {
				b.ReportAllocs()
				side := sideBySide(b, func(j int) { engs[j].Decide(ctx, in) })
				b.ReportMetric(side[0], "rules10-ns")
				b.ReportMetric(side[1], "rules10000-ns")
				b.ReportMetric(side[1]/side[0], "ratio")
			})
		}
	}
}

// sideBySide runs f(0) and f(1) in turns (alternating which goes first)
// for the benchmark's iterations and returns the median time of each.
func sideBySide(b *testing.B, f func(j int)) [2]float64 {
	var ts [2][]float64
	i := 0
	for b.Loop() {
		for k := range 2 {
			j := (i + k) % 2
			t0 := time.Now()
			f(j)
			ts[j] = append(ts[j], float64(time.Since(t0).Nanoseconds()))
		}
		i++
	}
	var med [2]float64
	for j := range ts {
		slices.Sort(ts[j])
		if len(ts[j]) > 0 {
			med[j] = ts[j][len(ts[j])/2]
		}
	}
	return med
}
