package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// documentedCheckIDs are the ids of docs/api.md's "Check ids" tables.
func documentedCheckIDs(t *testing.T) map[string]bool {
	t.Helper()
	data, err := os.ReadFile("../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	start := strings.Index(doc, "\n### Check ids\n")
	if start < 0 {
		t.Fatal(`docs/api.md has no "### Check ids" section`)
	}
	section := doc[start+len("\n### Check ids\n"):]
	if end := strings.Index(section, "\n##"); end >= 0 {
		section = section[:end]
	}
	ids := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z_]+)` \\|").FindAllStringSubmatch(section, -1) {
		ids[m[1]] = true
	}
	if len(ids) == 0 {
		t.Fatal(`docs/api.md's "Check ids" lists no id`)
	}
	return ids
}

// checkIDCase is a call and the decision it must get: its behavior, step
// and check id.
type checkIDCase struct {
	name               string
	tool               string
	input              map[string]any
	mode               string
	extra              map[string]any // more input fields
	behavior, step, id string
	custom, noImmunity bool // decided by the engine with the custom policy; not a safety outcome
}

// TestEveryCheckIdIsDecided decides a call for every branch of the tool
// checks (and the uncertain deny rule) and holds each decision's check id:
// every documented id is decided by some call here, every id a call gets
// is documented, a safety outcome (bypass_immune) always names its check,
// and the same check keeps its id whatever the mode makes of it (ASK,
// DONT_ASK's DENY, BYPASS's self-protection ASK).
func TestEveryCheckIdIsDecided(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home, w := filepath.Join(root, "home"), filepath.Join(root, "w")
	// A work tree whose .git config runs a program on git status
	// (project_config), and a repository laid out without a .git segment
	// (git_repository).
	writeModeFile(t, filepath.Join(w, ".git/HEAD"), "ref: refs/heads/main\n", 0o644)
	writeModeFile(t, filepath.Join(w, ".git/config"), "[core]\n\tfsmonitor = touch /tmp/never\n", 0o644)
	for _, d := range []string{".git/objects", ".git/refs"} {
		if err := os.MkdirAll(filepath.Join(w, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	bareRepository(t, filepath.Join(root, "e"), "/tmp/never")
	opts := engine.WithSettings(settings.Settings{Home: home, Cwd: w})
	eng, err := newEngine(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	// Policy packages for custom tools (docs/opa.md §6): one whose check
	// denies, one that asks for safety, one whose behavior is not one of
	// the four.
	dir := t.TempDir()
	writeModeFile(t, filepath.Join(dir, "custom.rego"), `package permopa.custom

deploy.check := {"behavior": "deny", "message": "no deploys on Fridays"}

migrate.check := {"behavior": "ASK", "bypass_immune": true, "message": "a schema migration"}

weird.check := {"behavior": "maybe"}
`, 0o644)
	custom, err := engine.New(ctx, opts, engine.WithPolicyPaths(dir))
	if err != nil {
		t.Fatal(err)
	}
	uncertain := map[string]any{"permission_context": map[string]any{"deny_rules": map[string]any{
		"Bash": []any{map[string]any{"tool_name": "Bash", "rule_content": "rm -rf:*", "behavior": "DENY"}},
	}}}
	// A tree too large to walk to its end under a Read deny rule that only
	// a path beyond the walk could match (unseen_tree).
	bigHome, _ := readsFixture(t, true)
	unseenTree := map[string]any{"permission_context": map[string]any{"deny_rules": map[string]any{
		"Read": []any{map[string]any{"tool_name": "Read", "rule_content": "/nowhere/**", "behavior": "DENY"}},
	}}}
	grepBig := map[string]any{"pattern": "x", "path": bigHome + "/big"}
	bash := func(c string) map[string]any { return map[string]any{"command": c} }
	file := func(p string) map[string]any { return map[string]any{"file_path": p, "content": "x"} }
	const ask, deny, allow, tc = permission.Ask, permission.Deny, permission.Allow, permission.StepToolCheck
	cases := []checkIDCase{
		{name: "Bash writes settings", tool: "Bash", input: bash("echo {} > .permopa/settings.json"), behavior: ask, step: tc, id: "self_protection"},
		{name: "Bash writes settings in BYPASS", tool: "Bash", input: bash("echo {} > .permopa/settings.json"), mode: "bypassPermissions", behavior: ask, step: tc, id: "self_protection"},
		{name: "Bash removes settings", tool: "Bash", input: bash("mv .permopa /tmp/old"), behavior: ask, step: tc, id: "self_protection"},
		{name: "Write of settings", tool: "Write", input: file(filepath.Join(w, ".permopa/settings.yaml")), behavior: ask, step: tc, id: "self_protection"},
		{name: "Edit of settings in DONT_ASK", tool: "Edit", input: map[string]any{"file_path": ".permopa/settings.yaml", "old_string": "a", "new_string": "b"}, mode: "dontAsk", behavior: deny, step: tc, id: "self_protection"},
		{name: "eval", tool: "Bash", input: bash(`eval "$X"`), behavior: ask, step: tc, id: "unanalysable"},
		{name: "eval in DONT_ASK", tool: "Bash", input: bash(`eval "$X"`), mode: "dontAsk", behavior: deny, step: tc, id: "unanalysable"},
		{name: "git in a repository without .git", tool: "Bash", input: bash("git -C " + filepath.Join(root, "e") + " status"), behavior: ask, step: tc, id: "git_repository"},
		{name: "git with core.fsmonitor", tool: "Bash", input: bash("git status"), behavior: ask, step: tc, id: "project_config"},
		{name: "Bash appends to .bashrc", tool: "Bash", input: bash("echo x >> ~/.bashrc"), behavior: ask, step: tc, id: "dangerous_write"},
		{name: "Write of .bashrc", tool: "Write", input: file("~/.bashrc"), behavior: ask, step: tc, id: "dangerous_write"},
		{name: "NotebookEdit in .git", tool: "NotebookEdit", input: map[string]any{"notebook_path": filepath.Join(w, ".git/x.ipynb"), "new_source": "x"}, behavior: ask, step: tc, id: "dangerous_write"},
		{name: "vim of .bashrc", tool: "Bash", input: bash("vim ~/.bashrc"), behavior: ask, step: tc, id: "dangerous_operand"},
		{name: "Bash reads a key", tool: "Bash", input: bash("cat ~/.ssh/id_rsa"), behavior: ask, step: tc, id: "credential_read"},
		{name: "Read of .env", tool: "Read", input: map[string]any{"file_path": ".env"}, behavior: ask, step: tc, id: "credential_read"},
		{name: "Grep of ~/.ssh", tool: "Grep", input: map[string]any{"pattern": "x", "path": "~/.ssh"}, behavior: ask, step: tc, id: "credential_read"},
		{name: "Glob of ~/.aws", tool: "Glob", input: map[string]any{"pattern": "~/.aws/*"}, mode: "dontAsk", behavior: deny, step: tc, id: "credential_read"},
		{name: "printenv", tool: "Bash", input: bash("printenv"), behavior: ask, step: tc, id: "environment_dump"},
		{name: "rm -rf ~", tool: "Bash", input: bash("rm -rf ~"), behavior: ask, step: tc, id: "critical_removal"},
		{name: "mkfs", tool: "Bash", input: bash("mkfs disk.img"), behavior: ask, step: tc, id: "dangerous_pattern"},
		{name: "chmod -R /", tool: "Bash", input: bash("chmod -R 777 /"), behavior: ask, step: tc, id: "dangerous_pattern"},
		{name: "WebFetch of a numeric host", tool: "WebFetch", input: map[string]any{"url": "http://0x7f.1/"}, behavior: ask, step: tc, id: "uncertain_host"},
		{name: "inline code under a deny rule", tool: "Bash", input: bash("node -e 1"), extra: uncertain, behavior: ask, step: permission.StepDenyRuleUncertain, id: "unseen_code"},
		{name: "inline code under a deny rule in DONT_ASK", tool: "Bash", input: bash("node -e 1"), extra: uncertain, mode: "dontAsk", behavior: deny, step: permission.StepDenyRuleUncertain, id: "unseen_code"},
		{name: "Grep of a tree too large to check under a deny rule", tool: "Grep", input: grepBig, extra: unseenTree, behavior: ask, step: permission.StepDenyRuleUncertain, id: "unseen_tree"},
		{name: "Grep of a tree too large to check under a deny rule in DONT_ASK", tool: "Grep", input: grepBig, extra: unseenTree, mode: "dontAsk", behavior: deny, step: permission.StepDenyRuleUncertain, id: "unseen_tree"},
		{name: "mkdir inside", tool: "Bash", input: bash("mkdir src"), mode: "acceptEdits", behavior: allow, step: tc, id: "edits_inside", noImmunity: true},
		{name: "Write inside", tool: "Write", input: file("src/a.go"), mode: "acceptEdits", behavior: allow, step: tc, id: "edits_inside", noImmunity: true},
		{name: "host check allows", tool: "deploy", input: map[string]any{}, extra: map[string]any{"tool_check": map[string]any{"behavior": "allow"}}, behavior: allow, step: tc, id: "host_check", noImmunity: true},
		{name: "host check asks for safety", tool: "mcp__db__query", input: map[string]any{}, extra: map[string]any{"tool_check": map[string]any{"behavior": "ASK", "bypass_immune": true}}, behavior: ask, step: tc, id: "host_check"},
		{name: "policy package denies", tool: "deploy", input: map[string]any{}, custom: true, behavior: deny, step: tc, id: "custom_policy", noImmunity: true},
		{name: "policy package asks for safety", tool: "migrate", input: map[string]any{}, custom: true, behavior: ask, step: tc, id: "custom_policy"},
		{name: "policy package's behavior is unknown", tool: "weird", input: map[string]any{}, custom: true, behavior: deny, step: tc, id: "invalid_behavior", noImmunity: true},
	}
	documented := documentedCheckIDs(t)
	decided := map[string]bool{}
	for _, c := range cases {
		in := map[string]any{"tool_name": c.tool, "tool_input": c.input, "cwd": w}
		if c.mode != "" {
			in["permission_mode"] = c.mode
		}
		for k, v := range c.extra {
			in[k] = v
		}
		e := eng
		if c.custom {
			e = custom
		}
		d := e.Decide(ctx, in)
		if d.Behavior != c.behavior || d.Step != c.step || d.Check != c.id {
			t.Errorf("%s: %s at %s, check %q (%s); want %s at %s, check %q", c.name, d.Behavior, d.Step, d.Check, d.Message, c.behavior, c.step, c.id)
			continue
		}
		if d.BypassImmune == c.noImmunity {
			t.Errorf("%s: bypass_immune %v", c.name, d.BypassImmune)
		}
		if !documented[d.Check] {
			t.Errorf("%s: check %q is not in docs/api.md's Check ids", c.name, d.Check)
		}
		decided[d.Check] = true
	}
	for id := range documented {
		if !decided[id] {
			t.Errorf("docs/api.md documents check id %q, which no call here is decided with", id)
		}
	}
}

// TestCheckIdOnlyWhereACheckDecided holds the field to its steps over
// every cell of the decision matrix: a decision at tool_check or
// deny_rule_uncertain names a documented check, and no other decision
// names one.
func TestCheckIdOnlyWhereACheckDecided(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eng, err := newEngine(ctx, engine.WithSettings(settings.Settings{Home: "/root", Cwd: "/tmp/permopa-ws"}))
	if err != nil {
		t.Fatal(err)
	}
	documented := documentedCheckIDs(t)
	steps := map[string]int{}
	// The first case of each tool and deciding step quick; every case
	// with -tags slow (.ci/run).
	quick := quickFirst{}
	for _, c := range loadMatrix(t) {
		if !quick.take(matrixKind(c)) {
			continue
		}
		d := eng.Decide(ctx, c.raw)
		switch d.Step {
		case permission.StepToolCheck, permission.StepDenyRuleUncertain:
			steps[d.Step]++
			if !documented[d.Check] {
				t.Errorf("%s: %s at %s with check %q, not a documented check id", c.ID, d.Behavior, d.Step, d.Check)
			}
		default:
			if d.Check != "" {
				t.Errorf("%s: %s at %s names check %q", c.ID, d.Behavior, d.Step, d.Check)
			}
		}
	}
	if steps[permission.StepToolCheck] == 0 || steps[permission.StepDenyRuleUncertain] == 0 {
		t.Errorf("the matrix decided %v at the checks' steps; the test is blind", steps)
	}
}
