package settings_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// tree is a real directory tree with the layers' places: managed, project
// (.permopa/) and user directories.
type tree struct {
	root, proj, managed, user, home string
	environ                         []string
	// trusted: the user trusts proj (settings.RecordTrust), and every
	// write to its files is the user's, trusted again (docs/rules.md,
	// "Trusted projects").
	trusted bool
}

// trust records the user's trust in dir's settings files as they are now.
func (tr *tree) trust(t *testing.T, dir string) {
	t.Helper()
	digests, err := settings.ProjectFileDigests(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := settings.RecordTrust(tr.user, dir, digests); err != nil {
		t.Fatal(err)
	}
}

// trustProject makes proj a project the user trusts, now and after each write.
func (tr *tree) trustProject(t *testing.T) {
	t.Helper()
	tr.trusted = true
	tr.trust(t, tr.proj)
}

func newTree(t *testing.T) *tree {
	t.Helper()
	root := t.TempDir()
	tr := &tree{
		root: root, proj: filepath.Join(root, "proj"), managed: filepath.Join(root, "etc", "permopa"),
		user: filepath.Join(root, "home", ".config", "permopa"), home: filepath.Join(root, "home"),
		environ: []string{},
	}
	for _, d := range []string{tr.proj, tr.managed, tr.user} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// npm test, the tests' command allowed by rule, runs this script:
	// permopa reads it (docs/shell.md, "Scripts"), and one it cannot read
	// is uncertain under the deny rules.
	if err := os.WriteFile(filepath.Join(tr.proj, "package.json"), []byte(`{"scripts": {"test": "echo ok", "build": "echo built"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return tr
}

func (tr *tree) opts() settings.LayerOptions {
	return settings.LayerOptions{ManagedDir: tr.managed, ProjectDir: tr.proj, UserDir: tr.user, Home: tr.home, Cwd: tr.proj, Environ: tr.environ}
}

func (tr *tree) write(t *testing.T, path, content string) string {
	t.Helper()
	if !filepath.IsAbs(path) {
		path = filepath.Join(tr.proj, path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if tr.trusted && strings.HasPrefix(path, tr.proj+string(filepath.Separator)) {
		tr.trust(t, tr.proj)
	}
	return path
}

// attach builds an engine on the tree's layers; problems are returned, not fatal.
func (tr *tree) attach(t *testing.T) (*engine.Engine, *settings.Layers, []error) {
	t.Helper()
	eng, err := engine.New(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	l := settings.NewLayers(tr.opts())
	problems := l.Attach(context.Background(), eng)
	return eng, l, problems
}

func bashCall(dir, cmd string) map[string]any {
	return map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd}, "cwd": dir}
}

func decide(eng *engine.Engine, in map[string]any) permission.Decision {
	return eng.Decide(context.Background(), in)
}

// A deny rule in the user's settings beats an allow rule in the project's,
// and the decision names the rule and its layer.
func TestDenyInUserBeatsAllowInProject(t *testing.T) {
	tr := newTree(t)
	tr.trustProject(t)
	tr.write(t, ".permopa/settings.yaml", "permissions:\n  allow: [\"Bash(git push:*)\", \"Bash(git status:*)\"]\n")
	userFile := tr.write(t, filepath.Join(tr.user, "settings.yaml"), "permissions:\n  deny: [\"Bash(git push:*)\"]\n")
	eng, _, problems := tr.attach(t)
	// The load says the project's allow rule never allows anything.
	var f *settings.Problem
	if len(problems) != 1 || !errors.As(problems[0], &f) || f.Kind != settings.CheckShadowed || f.Rule != "Bash(git push:*)" || f.Line != 2 {
		t.Fatal(problems)
	}
	d := decide(eng, bashCall(tr.proj, "git push origin main"))
	if d.Behavior != permission.Deny || d.Step != permission.StepDenyRule {
		t.Fatalf("got %s/%s", d.Behavior, d.Step)
	}
	if d.MatchedRule.Source != settings.SourceUser || d.MatchedRule.Layer != userFile || d.MatchedRule.String() != "Bash(git push:*)" {
		t.Errorf("matched rule %+v", d.MatchedRule)
	}
	// Allow rules of the project still work where nothing denies.
	d = decide(eng, bashCall(tr.proj, "git status --short && git push"))
	if d.Behavior != permission.Deny {
		t.Errorf("compound with a denied leaf: %s", d.Behavior)
	}
}

// Lists merge across layers, YAML, JSON and TOML alike; scalars come from
// the highest layer that sets them; PERMOPA_* variables override files.
func TestLayersMergeFormatsAndEnvironment(t *testing.T) {
	tr := newTree(t)
	tr.trustProject(t)
	tr.write(t, filepath.Join(tr.user, "settings.toml"), "[permissions]\ndefaultMode = \"plan\"\nallow = [\"Bash(cargo build:*)\"]\n")
	tr.write(t, ".permopa/settings.json", `{"permissions": {"defaultMode": "dontAsk", "allow": ["Bash(npm run:*)"], "additionalDirectories": ["../shared"]}}`)
	tr.write(t, ".permopa/settings.local.yaml", "permissions:\n  allow:\n    - {tool_name: Bash, rule_content: 'make:*'}\n")
	eng, l, problems := tr.attach(t)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	for cmd, src := range map[string]string{"cargo build --release": settings.SourceUser, "npm run lint": settings.SourceProject, "make all": settings.SourceLocal} {
		d := decide(eng, bashCall(tr.proj, cmd))
		if d.Behavior != permission.Allow || d.MatchedRule.Source != src {
			t.Errorf("%s: %s via %+v", cmd, d.Behavior, d.MatchedRule)
		}
	}
	s := l.Settings()
	if s.DefaultMode != "dontAsk" {
		t.Errorf("default mode %q: the project's should beat the user's", s.DefaultMode)
	}
	if len(s.WorkingDirectories) != 1 || s.WorkingDirectories[0] != filepath.Join(tr.root, "shared") {
		t.Errorf("additionalDirectories relative to the project root: %v", s.WorkingDirectories)
	}
	if d := decide(eng, bashCall(tr.proj, "terraform apply")); d.Behavior != permission.Deny || d.Step != permission.StepModeFallback {
		t.Errorf("dontAsk fallback: %s/%s", d.Behavior, d.Step)
	}

	tr.environ = []string{
		"PERMOPA_DEFAULT_MODE=default", "PERMOPA_DENY=Bash(npm run deploy:*),Read(./secrets/**)",
		`PERMOPA_ALLOW=["Bash(docker run a, b)", {"tool_name": "deploy"}]`,
		"PERMOPA_ADDITIONAL_DIRECTORIES=/opt/a" + string(os.PathListSeparator) + "/opt/b",
		"PERMOPA_BYPASS_HONOURS_SAFETY=true",
	}
	eng, l, problems = tr.attach(t)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	s = l.Settings()
	if !s.BypassHonoursSafety || len(s.WorkingDirectories) != 3 || s.WorkingDirectories[0] != "/opt/a" {
		t.Errorf("environment knobs: %v %v", s.BypassHonoursSafety, s.WorkingDirectories)
	}
	if d := decide(eng, bashCall(tr.proj, "docker run a, b")); d.Behavior != permission.Allow || d.MatchedRule == nil || d.MatchedRule.Source != settings.SourceEnvironment {
		t.Errorf("PERMOPA_ALLOW JSON: %s via %+v", d.Behavior, d.MatchedRule)
	}
	if d := decide(eng, bashCall(tr.proj, "terraform apply")); d.Behavior != permission.Ask {
		t.Errorf("PERMOPA_DEFAULT_MODE=default: %s", d.Behavior)
	}
	d := decide(eng, bashCall(tr.proj, "npm run deploy -- --prod"))
	if d.Behavior != permission.Deny || d.MatchedRule.Source != settings.SourceEnvironment {
		t.Errorf("PERMOPA_DENY: %s via %+v", d.Behavior, d.MatchedRule)
	}
}

// Managed settings lock: non-managed allow rules (files, session, the
// input's permission_context) are ignored, managed ones work, deny rules
// from every layer still apply; disable_bypass_mode turns BYPASS into
// DEFAULT; the locks are ignored (and reported) outside managed settings.
func TestManagedLocks(t *testing.T) {
	tr := newTree(t)
	tr.trustProject(t)
	tr.write(t, filepath.Join(tr.managed, "settings.yaml"),
		"allow_managed_rules_only: true\ndisable_bypass_mode: true\npermissions:\n  allow: [\"Bash(make:*)\"]\n")
	tr.write(t, ".permopa/settings.yaml", "permissions:\n  allow: [\"Bash(npm test)\"]\n  deny: [\"Bash(make clean)\"]\n")
	eng, l, problems := tr.attach(t)
	if len(problems) != 1 || !strings.Contains(problems[0].Error(), "Bash(npm test)") {
		t.Errorf("the ignored allow rule should be reported once: %v", problems)
	}
	if d := decide(eng, bashCall(tr.proj, "npm test")); d.Behavior != permission.Ask {
		t.Errorf("project allow rule under the managed lock: %s", d.Behavior)
	}
	if d := decide(eng, bashCall(tr.proj, "make build")); d.Behavior != permission.Allow || d.MatchedRule.Source != settings.SourceManaged {
		t.Errorf("managed allow rule: %s %+v", d.Behavior, d.MatchedRule)
	}
	if d := decide(eng, bashCall(tr.proj, "make clean")); d.Behavior != permission.Deny {
		t.Errorf("project deny rule under the lock: %s", d.Behavior)
	}
	in := bashCall(tr.proj, "cargo build")
	in["permission_context"] = map[string]any{"allow_rules": map[string]any{"Bash": []any{map[string]any{"tool_name": "Bash", "rule_content": "cargo:*", "behavior": "allow", "source": "managedSettings"}}}}
	if d := decide(eng, in); d.Behavior != permission.Ask {
		t.Errorf("permission_context allow rule under the lock: %s", d.Behavior)
	}
	if err := eng.AddSessionRules(context.Background(), "", permission.Rule{ToolName: "Bash", Behavior: "allow"}); err == nil || !strings.Contains(err.Error(), "managed") {
		t.Errorf("accepting a session allow rule that would be ignored: %v", err)
	}
	locked := eng.Settings()
	locked.SessionRules = map[string][]permission.Rule{"": {{ToolName: "Bash", Behavior: "ALLOW", Source: settings.SourceSession}}}
	if err := eng.SetSettings(context.Background(), locked); err != nil {
		t.Fatal(err)
	}
	if d := decide(eng, bashCall(tr.proj, "cargo build")); d.Behavior != permission.Ask {
		t.Errorf("session allow rule under the lock: %s", d.Behavior)
	}
	if _, err := l.AddRules(context.Background(), settings.DestinationLocal, "", []permission.Rule{{ToolName: "deploy", Behavior: "allow"}}, 0); err == nil || !strings.Contains(err.Error(), "managed") {
		t.Errorf("writing an allow rule that would be ignored: %v", err)
	}
	byp := bashCall(tr.proj, "terraform apply")
	byp["permission_mode"] = "bypassPermissions"
	if d := decide(eng, byp); d.Behavior != permission.Ask {
		t.Errorf("BYPASS with disable_bypass_mode: %s", d.Behavior)
	}

	// The same switches in a project file are ignored and reported.
	tr2 := newTree(t)
	tr2.trustProject(t)
	tr2.write(t, ".permopa/settings.yaml", "allow_managed_rules_only: true\ndisable_bypass_mode: true\npermissions:\n  allow: [\"Bash(npm test)\"]\n")
	eng2, _, problems := tr2.attach(t)
	if len(problems) != 2 || !strings.Contains(problems[0].Error(), "managed settings only") {
		t.Errorf("locks outside managed settings: %v", problems)
	}
	if d := decide(eng2, bashCall(tr2.proj, "npm test")); d.Behavior != permission.Allow {
		t.Errorf("project lock must not apply: %s", d.Behavior)
	}
	byp["cwd"] = tr2.proj
	if d := decide(eng2, byp); d.Behavior != permission.Allow {
		t.Errorf("project disable_bypass_mode must not apply: %s", d.Behavior)
	}
}

// Invalid rules are reported naming the rule and the file. While a deny
// or ask rule cannot be read every call is denied (the rule could be the
// one that matters); once it is fixed, the file's valid rules work and the
// invalid allow rules are only left out.
func TestInvalidRulesNamed(t *testing.T) {
	tr := newTree(t)
	tr.trustProject(t)
	f := tr.write(t, ".permopa/settings.yaml", `permissions:
  allow: ["Bash(npm run build)", "Bash(oops", "Read(src/[a)", "WebFetch(example.com)", {tool_name: "", rule_content: x}]
  deny: ["Bash(rm:*)", {tool_name: Bash, rule_content: "curl:*", expires: "tomorrow"}]
  defaultMode: sometimes
`)
	eng, l, problems := tr.attach(t)
	want := []string{"Bash(oops", "Read(src/[a)", "WebFetch(example.com)", "tool_name", "tomorrow", "sometimes"}
	if len(problems) != len(want) {
		t.Fatalf("problems: %v", problems)
	}
	all := fmt.Sprint(problems)
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("no problem names %q: %v", w, problems)
		}
	}
	for _, p := range problems {
		if !strings.Contains(p.Error(), f) {
			t.Errorf("problem %q does not name the file", p)
		}
	}
	readme := map[string]any{"tool_name": "Read", "tool_input": map[string]any{"file_path": "README"}, "cwd": tr.proj}
	for _, in := range []map[string]any{bashCall(tr.proj, "npm run build"), bashCall(tr.proj, "curl x"), readme} {
		d := decide(eng, in)
		if d.Behavior != permission.Deny || d.Code != permission.CodeSettingsUnreadable || !strings.Contains(d.Message, "tomorrow") || !strings.Contains(d.Message, f) {
			t.Errorf("%v with an unreadable deny rule: %+v", in, d)
		}
	}

	tr.write(t, f, `permissions:
  allow: ["Bash(npm run build)", "Bash(oops", "Read(src/[a)", "WebFetch(example.com)", {tool_name: "", rule_content: x}]
  deny: ["Bash(rm:*)"]
`)
	if problems := l.Reload(context.Background()); len(problems) != 4 || len(settings.UnsafeProblems(problems)) != 0 {
		t.Fatalf("problems after the fix: %v", problems)
	}
	if d := decide(eng, bashCall(tr.proj, "npm run build")); d.Behavior != permission.Allow {
		t.Errorf("valid allow rule: %s", d.Behavior)
	}
	if d := decide(eng, bashCall(tr.proj, "rm x")); d.Behavior != permission.Deny {
		t.Errorf("valid deny rule: %s", d.Behavior)
	}
	if d := decide(eng, readme); d.Behavior != permission.Allow {
		t.Errorf("a bad Read allow rule must not break Read: %s %s", d.Behavior, d.Message)
	}
}

// A file that breaks keeps its last good settings and the error is
// reported, through Reload and through the watcher; fixing it applies the
// new rules.
func TestBrokenFileKeepsLastGoodSettings(t *testing.T) {
	tr := newTree(t)
	tr.trustProject(t)
	f := tr.write(t, ".permopa/settings.yaml", "permissions:\n  allow: [\"Bash(npm test)\"]\n  deny: [\"Bash(git push:*)\"]\n")
	eng, l, problems := tr.attach(t)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	ctx := context.Background()
	reloads := make(chan []error, 16)
	if err := l.Watch(ctx, func(p []error) { reloads <- p }); err != nil {
		t.Fatal(err)
	}
	defer l.Close()

	tr.write(t, f, "permissions:\n  allow: [\"Bash(npm test)\"\n  deny: {{{\n")
	got := waitReload(t, reloads, func(p []error) bool { return len(p) > 0 })
	if !strings.Contains(got[0].Error(), f) || !strings.Contains(got[0].Error(), "last good") {
		t.Errorf("problem %v should name the file and say the last good settings are kept", got)
	}
	if d := decide(eng, bashCall(tr.proj, "git push")); d.Behavior != permission.Deny {
		t.Errorf("deny rule lost with the broken file: %s", d.Behavior)
	}
	if d := decide(eng, bashCall(tr.proj, "npm test")); d.Behavior != permission.Allow {
		t.Errorf("allow rule lost with the broken file: %s", d.Behavior)
	}
	if p := l.Problems(); len(p) != 1 {
		t.Errorf("Problems(): %v", p)
	}

	tr.write(t, f, "permissions:\n  allow: [\"Bash(npm test)\", \"Bash(git push:*)\"]\n")
	waitReload(t, reloads, func(p []error) bool { return len(p) == 0 })
	if d := decide(eng, bashCall(tr.proj, "git push")); d.Behavior != permission.Allow {
		t.Errorf("fixed file not applied: %s", d.Behavior)
	}

	// A file created later is seen too, and so is the directory being
	// removed and created again.
	tr.write(t, ".permopa/settings.local.yaml", "permissions:\n  deny: [\"Bash(npm test)\"]\n")
	waitReload(t, reloads, func([]error) bool {
		return decide(eng, bashCall(tr.proj, "npm test")).Behavior == permission.Deny
	})
	if err := os.RemoveAll(filepath.Join(tr.proj, ".permopa")); err != nil {
		t.Fatal(err)
	}
	waitReload(t, reloads, func([]error) bool {
		return decide(eng, bashCall(tr.proj, "git push")).Behavior == permission.Ask
	})
	tr.write(t, ".permopa/settings.yaml", "permissions:\n  deny: [\"Bash(git push:*)\"]\n")
	waitReload(t, reloads, func([]error) bool {
		return decide(eng, bashCall(tr.proj, "git push")).Behavior == permission.Deny
	})
}

func waitReload(t *testing.T, ch <-chan []error, done func([]error) bool) []error {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case p := <-ch:
			if done(p) {
				return p
			}
		case <-deadline:
			t.Fatal("no reload within 5s")
		}
	}
}

// Switching a session's mode at runtime keeps its rules, and only that
// session's calls see the switch.
func TestSessionModeSwitchKeepsRules(t *testing.T) {
	tr := newTree(t)
	eng, l, _ := tr.attach(t)
	ctx := context.Background()
	if _, err := l.AddRules(ctx, settings.DestinationSession, "s1", []permission.Rule{{ToolName: "Bash", RuleContent: ptr("terraform plan"), Behavior: "allow"}}, 0); err != nil {
		t.Fatal(err)
	}
	call := func(session, cmd string) map[string]any {
		in := bashCall(tr.proj, cmd)
		in["session_id"] = session
		return in
	}
	if err := eng.SetSessionMode(ctx, "s1", "dontAsk"); err != nil {
		t.Fatal(err)
	}
	if d := decide(eng, call("s1", "terraform plan")); d.Behavior != permission.Allow {
		t.Errorf("session rule after the mode switch: %s", d.Behavior)
	}
	if d := decide(eng, call("s1", "terraform apply")); d.Behavior != permission.Deny || d.Step != permission.StepModeFallback {
		t.Errorf("s1 in dontAsk: %s/%s", d.Behavior, d.Step)
	}
	if d := decide(eng, call("s2", "terraform apply")); d.Behavior != permission.Ask {
		t.Errorf("s2 keeps the default mode: %s", d.Behavior)
	}
	explicit := call("s1", "terraform apply")
	explicit["permission_mode"] = "default"
	if d := decide(eng, explicit); d.Behavior != permission.Ask {
		t.Errorf("a mode in the input wins: %s", d.Behavior)
	}
	// A reload of the files keeps session rules and modes.
	l.Reload(ctx)
	if d := decide(eng, call("s1", "terraform apply")); d.Behavior != permission.Deny {
		t.Errorf("session mode lost on reload: %s", d.Behavior)
	}
	if d := decide(eng, call("s1", "terraform plan")); d.Behavior != permission.Allow {
		t.Errorf("session rule lost on reload: %s", d.Behavior)
	}
	if err := eng.SetSessionMode(ctx, "s1", "sometimes"); err == nil {
		t.Error("unknown mode accepted")
	}
	if err := eng.SetSessionMode(ctx, "", "plan"); err != nil {
		t.Fatal(err)
	}
	if d := decide(eng, bashCall(tr.proj, "terraform apply")); d.Behavior != permission.Deny {
		t.Errorf("process-wide mode plan: %s", d.Behavior)
	}
}

func ptr(s string) *string { return &s }

func strp(s string) *string { return &s }

// 50 goroutines accept rules into the same local settings file while 50
// decide: every rule is in the file at the end, the file always parses, and
// every accepted rule decides its call. Run with -race.
func TestConcurrentConfirmAndDecide(t *testing.T) {
	tr := newTree(t)
	tr.trustProject(t)
	eng, l, _ := tr.attach(t)
	ctx := context.Background()
	file := filepath.Join(tr.proj, ".permopa", "settings.local.yaml")
	// Deciders are few: each decides every 20 ms for as long as the
	// writers run: 50 of them cost seconds of CPU (thousands of
	// decisions) for interleavings a handful give as well.
	const writers, deciders = 50, 8
	var wg sync.WaitGroup
	errs := make(chan error, writers+deciders*20)
	stop := make(chan struct{})
	for i := 0; i < writers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			r := permission.Rule{ToolName: "Bash", RuleContent: ptr(fmt.Sprintf("tool%d:*", i)), Behavior: "allow"}
			if _, err := l.AddRules(ctx, settings.DestinationLocal, "", []permission.Rule{r}, 0); err != nil {
				errs <- err
				return
			}
			if d := decide(eng, bashCall(tr.proj, fmt.Sprintf("tool%d run", i))); d.Behavior != permission.Allow {
				errs <- fmt.Errorf("tool%d right after its confirm: %s", i, d.Behavior)
			}
		}(i)
	}
	var readers sync.WaitGroup
	for i := 0; i < deciders; i++ {
		readers.Add(1)
		go func(i int) {
			defer readers.Done()
			for {
				select {
				case <-stop:
					return
				// Every 20 ms each: the deciders still decide between
				// and during the writes, without their own CPU time
				// holding the writers back for most of the test.
				case <-time.After(20 * time.Millisecond):
				}
				d := decide(eng, bashCall(tr.proj, fmt.Sprintf("tool%d run", i)))
				if d.Behavior != permission.Allow && d.Behavior != permission.Ask {
					errs <- fmt.Errorf("decide: %s %s", d.Behavior, d.Message)
				}
				// The file is never torn: whenever it exists, it parses.
				if _, err := os.Stat(file); err == nil && i%5 == 0 {
					if _, _, err := settings.LoadSettingsFile(file, ""); err != nil {
						errs <- err
					}
				}
			}
		}(i)
	}
	wg.Wait()
	close(stop)
	readers.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	s, problems, err := settings.LoadSettingsFile(file, "")
	if err != nil || len(problems) > 0 {
		t.Fatal(err, problems)
	}
	if len(s.Rules) != writers {
		t.Fatalf("%d rules in the file, want %d: a write was lost", len(s.Rules), writers)
	}
	fresh, _, _ := tr.attach(t)
	for i := 0; i < writers; i++ {
		if d := decide(fresh, bashCall(tr.proj, fmt.Sprintf("tool%d run", i))); d.Behavior != permission.Allow {
			t.Errorf("tool%d: %s", i, d.Behavior)
		}
	}
}

// Rules can be revoked from a file and from a session; re-adding a rule
// does not duplicate it, and the longer lifetime wins.
func TestRevokeAndDeduplicate(t *testing.T) {
	tr := newTree(t)
	eng, l, _ := tr.attach(t)
	ctx := context.Background()
	r := permission.Rule{ToolName: "Bash", RuleContent: ptr("npm run build"), Behavior: "allow"}
	for _, ttl := range []time.Duration{time.Hour, 0, time.Hour} {
		if _, err := l.AddRules(ctx, settings.DestinationProject, "", []permission.Rule{r}, ttl); err != nil {
			t.Fatal(err)
		}
	}
	rules := l.Rules()
	if len(rules) != 1 || rules[0].Expires != "" {
		t.Fatalf("want one permanent rule, got %+v", rules)
	}
	if n, err := l.RevokeRules(ctx, settings.DestinationProject, "", []permission.Rule{r}); err != nil || n != 1 {
		t.Fatalf("revoke: %d %v", n, err)
	}
	if d := decide(eng, bashCall(tr.proj, "npm run build")); d.Behavior != permission.Ask {
		t.Errorf("after revoke: %s", d.Behavior)
	}
	if _, err := l.AddRules(ctx, settings.DestinationSession, "s", []permission.Rule{r}, 0); err != nil {
		t.Fatal(err)
	}
	in := bashCall(tr.proj, "npm run build")
	in["session_id"] = "s"
	if d := decide(eng, in); d.Behavior != permission.Allow {
		t.Errorf("session rule: %s", d.Behavior)
	}
	if all := eng.Settings().AllRules(); len(all) != 1 || all[0].Layer != "session:s" || all[0].Source != settings.SourceSession {
		t.Errorf("AllRules: %+v", all)
	}
	if n, _ := l.RevokeRules(ctx, settings.DestinationSession, "s", []permission.Rule{r}); n != 1 {
		t.Errorf("session revoke removed %d", n)
	}
	if d := decide(eng, in); d.Behavior != permission.Ask {
		t.Errorf("after session revoke: %s", d.Behavior)
	}
}

// Accepted rules can go to JSON and TOML files too.
func TestAddRulesToJSONAndTOML(t *testing.T) {
	for _, ext := range []string{".json", ".toml"} {
		tr := newTree(t)
		tr.trustProject(t)
		content := map[string]string{".json": `{"permissions": {"deny": ["Bash(rm:*)"]}, "bypass_honours_safety": true}`, ".toml": "bypass_honours_safety = true\n[permissions]\ndeny = [\"Bash(rm:*)\"]\n"}[ext]
		f := tr.write(t, ".permopa/settings"+ext, content)
		eng, l, _ := tr.attach(t)
		ctx := context.Background()
		if got, _ := l.DestinationFile(settings.DestinationProject); got != f {
			t.Fatalf("%s: destination %s", ext, got)
		}
		rs := []permission.Rule{{ToolName: "Bash", RuleContent: ptr("npm run build"), Behavior: "allow"}, {ToolName: "deploy", Behavior: "ask"}}
		if _, err := l.AddRules(ctx, settings.DestinationProject, "", rs, 24*time.Hour); err != nil {
			t.Fatalf("%s: %v", ext, err)
		}
		s, problems, err := settings.LoadSettingsFile(f, "")
		if err != nil || len(problems) > 0 || len(s.Rules) != 3 || !s.BypassHonoursSafety {
			t.Fatalf("%s: %+v %v %v", ext, s, problems, err)
		}
		if d := decide(eng, bashCall(tr.proj, "npm run build")); d.Behavior != permission.Allow {
			t.Errorf("%s: %s", ext, d.Behavior)
		}
	}
}

// The three rule forms read the same in a settings file: Claude Code
// strings, PermissionRule objects, and a whole AgentScope PermissionContext
// document (rules keyed by tool, whose key names the tool; its mode; its
// working directories, keyed by path).
func TestRuleFormsInSettingsFiles(t *testing.T) {
	tr := newTree(t)
	tr.trustProject(t)
	tr.write(t, ".permopa/settings.json", `{
	  "mode": "accept_edits",
	  "working_directories": {"/srv/Shared": {"path": "/ignored", "source": "session"}},
	  "allow_rules": {"Bash": [{"tool_name": "Bash", "rule_content": "git:*", "behavior": "allow", "source": "test"}],
	                  "mcp__GitHub__list": [{"tool_name": "anything", "rule_content": null, "behavior": "allow", "source": "t"}]},
	  "deny_rules": {"Bash": [{"tool_name": "Bash", "rule_content": "git push:*", "behavior": "deny", "source": "test"}]},
	  "ask_rules": {}
	}`)
	tr.write(t, ".permopa/settings.local.yaml", "permissions:\n  allow: [\"Bash(npm run build)\", {tool_name: deploy, rule_content: null}]\n")
	eng, l, problems := tr.attach(t)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	s := l.Settings()
	if s.DefaultMode != "accept_edits" || len(s.WorkingDirectories) != 1 || s.WorkingDirectories[0] != "/srv/Shared" {
		t.Errorf("mode and working directories: %q %v", s.DefaultMode, s.WorkingDirectories)
	}
	for in, want := range map[string]string{"git log -p": permission.Allow, "git push": permission.Deny, "npm run build": permission.Allow} {
		if d := decide(eng, bashCall(tr.proj, in)); d.Behavior != want {
			t.Errorf("%s: %s", in, d.Behavior)
		}
	}
	for tool, want := range map[string]string{"mcp__GitHub__list": permission.Allow, "deploy": permission.Allow} {
		if d := decide(eng, map[string]any{"tool_name": tool, "tool_input": map[string]any{}, "cwd": tr.proj}); d.Behavior != want {
			t.Errorf("%s: %s", tool, d.Behavior)
		}
	}
	// Claude Code's managed settings spelling of the bypass lock.
	tr.write(t, filepath.Join(tr.managed, "settings.json"), `{"permissions": {"disableBypassPermissionsMode": "disable"}}`)
	eng, _, _ = tr.attach(t)
	in := bashCall(tr.proj, "terraform apply")
	in["permission_mode"] = "bypassPermissions"
	if d := decide(eng, in); d.Behavior != permission.Ask {
		t.Errorf("disableBypassPermissionsMode: %s", d.Behavior)
	}
}

// Accepting a rule into a file that already holds an invalid rule works:
// the old problem is reported by Problems, not blamed on the write.
func TestAddRulesNextToAnInvalidRule(t *testing.T) {
	tr := newTree(t)
	tr.trustProject(t)
	tr.write(t, ".permopa/settings.local.yaml", "permissions:\n  allow: [\"Bash(oops\"]\n")
	eng, l, problems := tr.attach(t)
	if len(problems) != 1 {
		t.Fatalf("problems: %v", problems)
	}
	if _, err := l.AddRules(context.Background(), settings.DestinationLocal, "", []permission.Rule{{ToolName: "Bash", RuleContent: ptr("npm run build"), Behavior: "allow"}}, 0); err != nil {
		t.Fatal(err)
	}
	if d := decide(eng, bashCall(tr.proj, "npm run build")); d.Behavior != permission.Allow {
		t.Errorf("npm run build: %s", d.Behavior)
	}
	if p := l.Problems(); len(p) != 1 || !strings.Contains(p[0].Error(), "Bash(oops") {
		t.Errorf("the old problem: %v", p)
	}
}

// A file broken from the start, or a deny rule that cannot be read, is an
// unsafe problem: a host that must fail closed can tell.
func TestUnsafeProblems(t *testing.T) {
	tr := newTree(t)
	tr.write(t, filepath.Join(tr.user, "settings.yaml"), "permissions: [\n")
	tr.write(t, ".permopa/settings.yaml", "permissions:\n  allow: [\"Bash(a\"]\n  deny: [\"Bash(b\"]\n")
	_, problems := settings.LoadLayers(tr.opts())
	unsafe := settings.UnsafeProblems(problems)
	if len(problems) != 3 || len(unsafe) != 2 {
		t.Fatalf("problems %v, unsafe %v", problems, unsafe)
	}
	all := fmt.Sprint(unsafe)
	if !strings.Contains(all, "its rules are left out") || !strings.Contains(all, "Bash(b") || strings.Contains(all, "Bash(a") {
		t.Errorf("unsafe: %v", unsafe)
	}
}

// A project's settings file named again with --settings is read once, by
// the higher command-line layer: its rules and its problems come once, and
// the decision names the command-line layer.
func TestSettingsFileNamedTwiceReadOnce(t *testing.T) {
	tr := newTree(t)
	file := tr.write(t, ".permopa/settings.yaml", "permissions:\n  deny: [\"Bash(git push:*)\", \"Write(/etc/**)\"]\n")
	// Another name of the same file: relative to the project, as a user in
	// it types it.
	rel, err := filepath.Rel(tr.proj, file)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(tr.proj)
	opts := tr.opts()
	opts.CommandLine = []string{rel}
	s, problems := settings.LoadLayers(opts)
	n := 0
	for _, r := range s.Rules {
		if r.String() == "Bash(git push:*)" {
			n++
			if r.Source != settings.SourceCommandLine {
				t.Errorf("rule from %s, want the command line's layer", r.Source)
			}
		}
	}
	if n != 1 {
		t.Errorf("the deny rule is merged %d times, want once: %v", n, s.Rules)
	}
	ambiguous := 0
	for _, p := range problems {
		var f *settings.Problem
		if errors.As(p, &f) && strings.Contains(f.Rule, "/etc/**") {
			ambiguous++
		}
	}
	if ambiguous != 1 {
		t.Errorf("the ambiguous /etc/** rule is reported %d times, want once: %v", ambiguous, problems)
	}
}

// Rules are added to a file as it is read: under "Permissions" written in
// another case (no second key that would make the file unreadable), and
// not at all to a file that does not parse, which is named at its mistake.
func TestAddRulesToTheKeysAsRead(t *testing.T) {
	for _, c := range []struct{ name, text, want string }{
		{"settings.yaml", "Permissions:\n  Deny: [\"Bash(rm:*)\"]\n", ""},
		{"settings.json", `{"PERMISSIONS": {"Deny": ["Bash(rm:*)"]}}`, ""},
		{"settings.yaml", "permissions:\n  deny: [\"Bash(rm:*)\"\n  allow: []\n", ":3:3: not valid yaml: did not find expected ',' or ']' (found `allow`); not edited"},
		{"settings.json", "{\"permissions\": {\"deny\": [\"Bash(rm:*)\",]}}", ":1:40: not valid json: invalid character ']' looking for beginning of value; not edited"},
	} {
		tr := newTree(t)
		tr.trustProject(t)
		f := tr.write(t, ".permopa/"+c.name, c.text)
		l := settings.NewLayers(tr.opts())
		l.Load()
		_, err := l.AddRules(context.Background(), settings.DestinationProject, "", []permission.Rule{{ToolName: "Bash", RuleContent: ptr("ls"), Behavior: "allow"}}, 0)
		if c.want != "" {
			if err == nil || !strings.Contains(err.Error(), f+c.want) {
				t.Errorf("%q: %v, want %s%s", c.text, err, f, c.want)
			}
			if data, _ := os.ReadFile(f); string(data) != c.text {
				t.Errorf("%q: the file was changed:\n%s", c.text, data)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", c.text, err)
		}
		s, problems, err := settings.LoadSettingsFile(f, "")
		if err != nil || len(s.Rules) != 2 {
			data, _ := os.ReadFile(f)
			t.Errorf("%q: %v %v %v; the file:\n%s", c.text, s.Rules, problems, err, data)
		}
	}
}
