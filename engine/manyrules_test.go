package engine_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// manyRulesTargets are calls no rule of manyRulesSettings matches, one per
// rule kind, with a deny rule and an allow rule each that do, and a call
// the allow rule must not cover (allow rules never widen).
var manyRulesTargets = []struct {
	kind, deny, allow string
	denied, allowed   map[string]any
	notCovered        map[string]any
}{
	{
		kind: "tool-name glob", deny: "mcp__target__*", allow: "mcp__okay__*",
		denied:     map[string]any{"tool_name": "mcp__target__x", "tool_input": map[string]any{}},
		allowed:    map[string]any{"tool_name": "mcp__okay__x", "tool_input": map[string]any{}},
		notCovered: map[string]any{"tool_name": "mcp__okay__x.y", "tool_input": map[string]any{}},
	},
	{
		kind: "WebFetch domain glob", deny: "WebFetch(domain:*.EVIL.test)", allow: "WebFetch(domain:*.okay.test)",
		denied:     map[string]any{"tool_name": "WebFetch", "tool_input": map[string]any{"url": "https://Api.Evil.TEST/x"}},
		allowed:    map[string]any{"tool_name": "WebFetch", "tool_input": map[string]any{"url": "https://docs.okay.test/x"}},
		notCovered: map[string]any{"tool_name": "WebFetch", "tool_input": map[string]any{"url": "https://a.docs.okay.test/x"}},
	},
	{
		kind: "WebFetch domain", deny: "WebFetch(domain:evil.test)", allow: "WebFetch(domain:okay.test)",
		denied:     map[string]any{"tool_name": "WebFetch", "tool_input": map[string]any{"url": "https://evil.test/x"}},
		allowed:    map[string]any{"tool_name": "WebFetch", "tool_input": map[string]any{"url": "https://okay.test/x"}},
		notCovered: map[string]any{"tool_name": "WebFetch", "tool_input": map[string]any{"url": "https://okay.test.evil/x"}},
	},
	{
		kind: "custom-tool content", deny: `deploy({"target":"prod*"})`, allow: `deploy({"target":"stag*"})`,
		denied:     map[string]any{"tool_name": "deploy", "tool_input": map[string]any{"target": "prod-eu"}},
		allowed:    map[string]any{"tool_name": "deploy", "tool_input": map[string]any{"target": "staging"}},
		notCovered: map[string]any{"tool_name": "deploy", "tool_input": map[string]any{"target": "stag", "then": "prod"}},
	},
	{
		kind: "path", deny: "Read(~/.secret/**)", allow: "Edit(//w/gen/**)",
		denied:     map[string]any{"tool_name": "Read", "tool_input": map[string]any{"file_path": "/home/u/.secret/k"}},
		allowed:    map[string]any{"tool_name": "Edit", "tool_input": map[string]any{"file_path": "/w/gen/a.go", "old_string": "a", "new_string": "b"}},
		notCovered: map[string]any{"tool_name": "Edit", "tool_input": map[string]any{"file_path": "/w/other/a.go", "old_string": "a", "new_string": "b"}},
	},
	{
		kind: "Bash prefix", deny: "Bash(shred:*)", allow: "Bash(make build:*)",
		denied:     map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "ls && shred -u x"}},
		allowed:    map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "make build -j4"}},
		notCovered: map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "make build && make install"}},
	},
}

// manyRulesCount is how many generated rules surround the ones a test adds.
// The full suite (-tags slow, as CI runs it) uses 10,000, as the benchmarks
// do; the quick suite uses 1,000. The generator (manyRulesSettings) repeats
// the same mix of rule kinds, behaviours and layers every 15 rules, so both
// sizes hold the same mix many times over; the larger one costs ~10x per
// engine built and per settings write.
func manyRulesCount() int {
	if slowTests {
		return 10000
	}
	return 1000
}

// withCall fills in the fields every call here shares.
func withCall(in map[string]any) map[string]any {
	out := map[string]any{"cwd": "/w", "session_id": "s1", "permission_mode": "default"}
	for k, v := range in {
		out[k] = v
	}
	return out
}

func parsedRule(t testing.TB, spec, behavior, source string) permission.Rule {
	t.Helper()
	r, err := settings.ParseRule(spec, behavior)
	if err != nil {
		t.Fatal(err)
	}
	r.Source = source
	return r
}

// Every rule kind is found with many rules of every kind beside it (see
// manyRulesCount), in
// whichever layer it is: the user's, project, local and managed settings,
// a project directory's rules, the session's (its own and session ""'s)
// and an organisation's rules bundle. The deny rule denies, the allow rule
// allows, and the allow rule covers no more than it did with no others.
func TestEveryRuleKindFoundAmongManyRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	layers := []string{settings.SourceUser, settings.SourceProject, settings.SourceLocal, settings.SourceManaged, "project dir", "session s1", `session ""`, settings.SourceOrg}
	for _, layer := range layers {
		t.Run(layer, func(t *testing.T) {
			s, org := manyRulesSettings(t, "mixed", manyRulesCount())
			var extra []permission.Rule
			for _, k := range manyRulesTargets {
				extra = append(extra, parsedRule(t, k.deny, "deny", settings.SourceUser), parsedRule(t, k.allow, "allow", settings.SourceUser))
			}
			var orgRules settings.Settings
			for i := range extra {
				switch layer {
				case "project dir":
					extra[i].Source = settings.SourceProject
					s.Projects = map[string][]permission.Rule{"/w": append(s.Projects["/w"], extra[i])}
				case "session s1":
					extra[i].Source = settings.SourceSession
					s.SessionRules["s1"] = append(s.SessionRules["s1"], extra[i])
				case `session ""`:
					extra[i].Source = settings.SourceSession
					s.SessionRules[""] = append(s.SessionRules[""], extra[i])
				case settings.SourceOrg:
					extra[i].Source = settings.SourceOrg
					orgRules.Rules = append(orgRules.Rules, extra[i])
				default:
					extra[i].Source = layer
					s.Rules = append(s.Rules, extra[i])
				}
			}
			if layer == settings.SourceOrg {
				// The organisation's rules after the bundle's many others.
				doc := settings.RulesDocument(settings.Settings{Rules: append(orgRulesOf(t, org), orgRules.Rules...)}, time.Now())
				org = doc
			}
			eng, err := engine.New(ctx, engine.WithSettings(s), engine.WithBundles(orgBundle(t, org)))
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range manyRulesTargets {
				if d := eng.Decide(ctx, withCall(k.denied)); d.Behavior != permission.Deny || d.Step != permission.StepDenyRule || d.MatchedRule == nil || d.MatchedRule.Source != extra[0].Source {
					t.Errorf("%s: deny %s: %+v", k.kind, k.deny, d)
				}
				if d := eng.Decide(ctx, withCall(k.allowed)); d.Behavior != permission.Allow || d.Step != permission.StepAllowRule || d.MatchedRule == nil || d.MatchedRule.Source != extra[0].Source {
					t.Errorf("%s: allow %s: %+v", k.kind, k.allow, d)
				}
				if d := eng.Decide(ctx, withCall(k.notCovered)); d.Behavior != permission.Ask || d.Step != permission.StepModeFallback {
					t.Errorf("%s: %v is not covered by %s: %+v", k.kind, k.notCovered, k.allow, d)
				}
			}
		})
	}
}

// orgRulesOf reads back the rules of an org rules document (its index).
func orgRulesOf(t *testing.T, set settings.RuleSet) []permission.Rule {
	t.Helper()
	var doc map[string]any
	if b, err := json.Marshal(set); err != nil {
		t.Fatal(err)
	} else if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	var out []permission.Rule
	rules := doc["rules"].(map[string]any)
	for _, b := range []string{"deny", "ask", "allow"} {
		for _, list := range rules[b].(map[string]any) {
			for _, x := range list.([]any) {
				r, err := settings.RuleFrom(x, b)
				if err != nil {
					t.Fatal(err)
				}
				r.Source = settings.SourceOrg
				out = append(out, r)
			}
		}
	}
	for _, b := range []string{"deny", "ask", "allow"} {
		for _, x := range doc["tool_pattern_rules"].(map[string]any)[b].([]any) {
			r, err := settings.RuleFrom(x, b)
			if err != nil {
				t.Fatal(err)
			}
			r.Source = settings.SourceOrg
			out = append(out, r)
		}
	}
	return out
}

// A tool name that several patterns match, across layers: deny wins over
// ask, ask over allow, wherever each is, and an allow rule naming the tool
// exactly in the highest layer does not lift a deny pattern in the lowest.
func TestToolNamePatternsAcrossLayers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	call := withCall(map[string]any{"tool_name": "mcp__target__x", "tool_input": map[string]any{}})
	for _, c := range []struct {
		name string
		org  []string // deny rules of the org bundle
		user []string // ask rules of the user's settings
		sess []string // allow rules of the session
		want string
	}{
		{"deny pattern in the org, exact allow in the session", []string{"mcp__tar*"}, nil, []string{"mcp__target__x"}, permission.Deny},
		{"deny and ask patterns, allow pattern", []string{"mcp__*__x"}, []string{"mcp__target__*"}, []string{"*"}, permission.Deny},
		{"ask pattern, exact allow", nil, []string{"mcp__*"}, []string{"mcp__target__x"}, permission.Ask},
		{"allow patterns only", nil, nil, []string{"mcp__other__*", "mcp__{target,x}__?"}, permission.Allow},
		{"patterns that stop at a dot", []string{"mcp__target.*"}, []string{"*.x"}, []string{"mcp__target__*"}, permission.Allow},
		{"case differs: tool names are exact", []string{"MCP__TARGET__*"}, nil, []string{"mcp__target__*"}, permission.Allow},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, orgDoc := manyRulesSettings(t, "mixed", manyRulesCount())
			orgs := orgRulesOf(t, orgDoc)
			for _, p := range c.org {
				orgs = append(orgs, parsedRule(t, p, "deny", settings.SourceOrg))
			}
			for _, p := range c.user {
				s.Rules = append(s.Rules, parsedRule(t, p, "ask", settings.SourceUser))
			}
			for _, p := range c.sess {
				s.SessionRules["s1"] = append(s.SessionRules["s1"], parsedRule(t, p, "allow", settings.SourceSession))
			}
			doc := settings.RulesDocument(settings.Settings{Rules: orgs}, time.Now())
			eng, err := engine.New(ctx, engine.WithSettings(s), engine.WithBundles(orgBundle(t, doc)))
			if err != nil {
				t.Fatal(err)
			}
			if d := eng.Decide(ctx, call); d.Behavior != c.want {
				t.Errorf("%+v, want %s", d, c.want)
			}
		})
	}
}

// Rules added at runtime (session rules, a settings change as `permopa
// rules add` makes) are seen at the next decision: the lookups follow the
// data revision, among many rules of every kind (manyRulesCount).
func TestRulesAddedAtRuntimeAreSeenAmongManyRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := manyRulesSettings(t, "mixed", manyRulesCount())
	eng, err := engine.New(ctx, engine.WithSettings(s))
	if err != nil {
		t.Fatal(err)
	}
	for i, k := range manyRulesTargets {
		if d := eng.Decide(ctx, withCall(k.denied)); d.Step == permission.StepDenyRule || d.Step == permission.StepError {
			t.Fatalf("%s: denied before the rule: %+v", k.kind, d)
		}
		var err error
		if i%2 == 0 {
			err = eng.AddSessionRules(ctx, "s1", parsedRule(t, k.deny, "deny", settings.SourceSession))
		} else {
			err = eng.UpdateSettings(ctx, func(s *settings.Settings) error {
				s.Rules = append(s.Rules, parsedRule(t, k.deny, "deny", settings.SourceLocal))
				return nil
			})
		}
		if err != nil {
			t.Fatal(err)
		}
		if d := eng.Decide(ctx, withCall(k.denied)); d.Behavior != permission.Deny || d.Step != permission.StepDenyRule {
			t.Errorf("%s: %s added at runtime: %+v", k.kind, k.deny, d)
		}
		// A revoked session rule stops denying at the next decision too.
		if i%2 == 0 {
			if _, err := eng.RevokeSessionRules(ctx, "s1", parsedRule(t, k.deny, "deny", settings.SourceSession)); err != nil {
				t.Fatal(err)
			}
			if d := eng.Decide(ctx, withCall(k.denied)); d.Step == permission.StepDenyRule {
				t.Errorf("%s: %s revoked: %+v", k.kind, k.deny, d)
			}
		}
	}
}

// The generated rules match none of the calls above (so each test sees
// only the rules it adds).
func TestManyRulesMatchNoTarget(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, org := manyRulesSettings(t, "mixed", 1000)
	eng, err := engine.New(ctx, engine.WithSettings(s), engine.WithBundles(orgBundle(t, org)))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range manyRulesTargets {
		for _, in := range []map[string]any{k.denied, k.allowed, k.notCovered} {
			if d := eng.Decide(ctx, withCall(in)); d.MatchedRule != nil || d.Step == permission.StepError {
				t.Errorf("%s: %v: %+v", k.kind, in, d)
			}
		}
	}
}
