package engine_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// BenchmarkDecideSessionRules shows that session rules are looked up by
// session and tool like layer rules: 10,000 rules in the layers and 10,000
// in the call's session should cost about what 10 do.
func BenchmarkDecideSessionRules(b *testing.B) {
	ctx := context.Background()
	for _, n := range []int{10, 10000} {
		s := settings.Settings{Home: "/home/u", Cwd: "/w", SessionRules: map[string][]permission.Rule{}}
		for i := 0; i < n; i++ {
			c := fmt.Sprintf("tool%d:*", i)
			s.Rules = append(s.Rules, permission.Rule{ToolName: "Bash", RuleContent: &c, Behavior: "ALLOW", Source: settings.SourceProject})
			s.SessionRules["s1"] = append(s.SessionRules["s1"], permission.Rule{ToolName: "Bash", RuleContent: &c, Behavior: "ALLOW", Source: settings.SourceSession})
			s.SessionRules[fmt.Sprintf("other%d", i)] = []permission.Rule{{ToolName: "Bash", RuleContent: &c, Behavior: "DENY"}}
		}
		eng, err := engine.New(ctx, engine.WithSettings(s))
		if err != nil {
			b.Fatal(err)
		}
		in := parsed(b, `{"tool_name":"Bash","tool_input":{"command":"tool5 run && make"},"cwd":"/w","session_id":"s1"}`)
		b.Run(fmt.Sprintf("rules=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if d := eng.Decide(ctx, in); d.Step == permission.StepError {
					b.Fatal(d.Message)
				}
			}
		})
	}
}
