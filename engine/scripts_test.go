package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// Rules see through the scripts a command runs (issue 27): under
// Bash(rm -rf:*) and Bash(git push:*), a script that holds a denied command
// is DENY in every mode, through every runner, named by file and line,
// even under an allow rule for the script's name; a script permopa cannot
// read is the uncertain safety ASK (DENY where nobody can answer); an
// allow rule for the script's name allows it when nothing inside matches a
// deny rule.
func TestScriptsDenyRulesEveryMode(t *testing.T) {
	t.Parallel()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home, p := filepath.Join(root, "home"), filepath.Join(root, "p")
	files := map[string]string{
		"package.json": `{
  "name": "p",
  "scripts": {
    "clean": "rm -rf dist",
    "lint": "eslint . && tsc --noEmit",
    "prerelease": "git push origin main --tags",
    "release": "echo released",
    "jest": "jest --ci",
    "rm": "rm"
  }
}
`,
		"clean.sh":               "#!/bin/sh\necho cleaning\nrm -fr build\n",
		"ok.sh":                  "#!/bin/sh\necho fine\n",
		"tool.py":                "import shutil\n",
		"node_modules/.bin/jest": "#!/usr/bin/env node\n",
	}
	for name, body := range files {
		writeModeFile(t, filepath.Join(p, name), body, 0o755)
	}
	writeModeFile(t, filepath.Join(home, ".keep"), "", 0o644)
	ctx := context.Background()
	var rules []permission.Rule
	for _, r := range []string{"Bash(npm run clean)", "Bash(npm run lint)", "Bash(npm run release)", "Bash(yarn clean)",
		"Bash(bash clean.sh)", "Bash(./clean.sh)", "Bash(bash ok.sh)", "Bash(python3 tool.py)", "Bash(npm run jest)"} {
		rules = append(rules, mustRule(t, r))
	}
	for _, r := range []string{"Bash(rm -rf:*)", "Bash(git push:*)"} {
		rule := mustRule(t, r)
		rule.Behavior = permission.Deny
		rules = append(rules, rule)
	}
	eng, err := newEngine(ctx, engine.WithSettings(settings.Settings{Home: home, Cwd: p, Rules: rules}))
	if err != nil {
		t.Fatal(err)
	}
	decide := func(cmd, mode string) permission.Decision {
		return eng.Decide(ctx, map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd},
			"cwd": p, "permission_mode": mode})
	}
	denied := map[string]string{
		"npm run clean":             "package.json:4 script clean runs rm -rf dist",
		"npm run release":           "package.json:6 script prerelease runs git push origin main --tags",
		"npm run rm -- -rf /":       "script rm runs rm -rf /",
		"yarn clean":                "script clean runs rm -rf dist",
		"pnpm run clean":            "script clean runs rm -rf dist",
		"bun run clean":             "script clean runs rm -rf dist",
		"bash clean.sh":             "clean.sh:3 runs rm -fr build",
		"./clean.sh":                "clean.sh:3 runs rm -fr build",
		". ./clean.sh":              "clean.sh:3 runs rm -fr build",
		"timeout 600 npm run clean": "script clean runs rm -rf dist",
		"bash -c 'sh clean.sh'":     "clean.sh:3",
	}
	uncertain := map[string]string{
		"python3 tool.py":                   "python3 runs tool.py, a program permopa does not read",
		"npm run jest":                      "runs jest, the project's",
		"npm run $S":                        "only known at run time",
		"npm run nothere":                   "no such script",
		"echo 'rm -rf x' > s.sh && sh s.sh": "written earlier in this command",
		"npm pkg set scripts.lint='rm -rf x' && npm run lint":         "may have changed package.json",
		"cat > package.json <<'EOF'\n{\"scripts\":{}}\nEOF\nnpm test": "written earlier",
	}
	for _, mode := range allModes {
		for cmd, why := range denied {
			d := decide(cmd, mode)
			if d.Behavior != permission.Deny || d.Step != permission.StepDenyRule || !strings.Contains(d.Message, why) {
				t.Errorf("%s: %q: %s/%s (%s), want DENY naming %q", mode, cmd, d.Behavior, d.Step, d.Message, why)
			}
		}
		for cmd, why := range uncertain {
			d := decide(cmd, mode)
			if d.Behavior != uncertainDenyBehavior[mode] || d.Step != permission.StepDenyRuleUncertain || !d.BypassImmune ||
				!strings.Contains(d.Message, why) || !strings.Contains(d.Message, "permopa cannot tell whether it runs") {
				t.Errorf("%s: %q: %s/%s (%s), want %s saying %q", mode, cmd, d.Behavior, d.Step, d.Message, uncertainDenyBehavior[mode], why)
			}
		}
	}
	// Nothing inside matches a deny rule: the allow rule for the name
	// decides; without one the script is never read-only.
	for _, mode := range allModes {
		for _, cmd := range []string{"npm run lint", "bash ok.sh"} {
			d := decide(cmd, mode)
			if mode == "plan" {
				// EXPLORE allows only read-only calls, and a script is never.
				if d.Behavior != permission.Deny || d.Step != permission.StepModeFallback {
					t.Errorf("%s: %q: %s/%s (%s), want DENY: not read-only", mode, cmd, d.Behavior, d.Step, d.Message)
				}
				continue
			}
			if d.Behavior != permission.Allow || d.Step != permission.StepAllowRule {
				t.Errorf("%s: %q: %s/%s (%s), want ALLOW by the allow rule", mode, cmd, d.Behavior, d.Step, d.Message)
			}
		}
	}
	for _, cmd := range []string{"sh ok.sh", "npm run lint -- --fix"} {
		if d := decide(cmd, "plan"); d.Behavior == permission.Allow {
			t.Errorf("plan: %q: ALLOW (%s/%s): a script is never read-only", cmd, d.Step, d.Message)
		}
	}
	// The person asked sees what the script runs.
	for cmd, want := range map[string]string{
		"yarn lint":        "it runs package.json:5 script lint: eslint ., tsc --noEmit",
		"sh ok.sh && ls x": "it runs ok.sh:2: echo fine",
	} {
		if d := decide(cmd, "default"); d.Behavior != permission.Ask || !strings.Contains(d.Message, want) {
			t.Errorf("default: %q: %s/%s (%s), want an ASK saying %q", cmd, d.Behavior, d.Step, d.Message, want)
		}
	}
	// A script changed after a decision is decided again.
	writeModeFile(t, filepath.Join(p, "ok.sh"), "#!/bin/sh\ngit push -f\n", 0o755)
	if d := decide("bash ok.sh", "default"); d.Behavior != permission.Deny {
		t.Errorf("bash ok.sh after the script changed: %s/%s (%s), want DENY", d.Behavior, d.Step, d.Message)
	}
	if _, err := os.Stat(filepath.Join(p, "dist")); err == nil {
		t.Fatal("a script ran")
	}
}

// BenchmarkDecideScripts measures a decision on a command that runs a
// package script (read from disk, analysis cached by the files' stamps)
// against one of the same shape that runs none (BENCHMARKS.md, "Scripts"),
// with and without the decision cache.
func BenchmarkDecideScripts(b *testing.B) {
	root, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	p := filepath.Join(root, "p")
	if err := os.MkdirAll(filepath.Join(p, "node_modules/.bin"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p, "package.json"),
		[]byte(`{"scripts": {"pretest": "tsc --noEmit", "test": "jest --ci && eslint .", "posttest": "echo ok"}}`), 0o644); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	deny := mustRule(b, "Bash(git push:*)")
	deny.Behavior = permission.Deny
	s := settings.Settings{Home: filepath.Join(root, "home"), Cwd: p,
		Rules: []permission.Rule{deny, mustRule(b, "Bash(npm test)"), mustRule(b, "Bash(git status:*)")}}
	for _, cached := range []bool{false, true} {
		opts := []engine.Option{engine.WithSettings(s)}
		name := "uncached"
		if cached {
			opts, name = append(opts, engine.WithDecisionCache(0, 0)), "decision-cache"
		}
		eng, err := newEngine(ctx, opts...)
		if err != nil {
			b.Fatal(err)
		}
		for _, cmd := range []string{"npm test", "git status --short"} {
			in := map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd}, "cwd": p, "permission_mode": "default"}
			b.Run(name+"/"+strings.ReplaceAll(cmd, " ", "-"), func(b *testing.B) {
				b.ReportAllocs()
				start := cpuTime()
				for b.Loop() {
					if d := eng.Decide(ctx, in); d.Behavior != permission.Allow {
						b.Fatal(d.Behavior, d.Message)
					}
				}
				reportCPU(b, start)
			})
		}
	}
}

// An ASK for a command that runs scripts suggests the rule for that
// command, exactly, and the message shows what the scripts run (issue 27,
// docs/rules.md "Scripts and suggested rules"): adding the suggestion
// makes the same call ALLOW, under deny rules too, while every other
// script of the file, and the same script with words appended, still asks.
func TestScriptSuggestionsAllowNextTime(t *testing.T) {
	t.Parallel()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home, p := filepath.Join(root, "home"), filepath.Join(root, "p")
	for name, body := range map[string]string{
		"package.json": `{
  "scripts": {
    "build": "tsc -p . && cp -r static dist",
    "prebuild": "mkdir -p dist",
    "nuke": "rm -rf ~",
    "test": "go vet ./... && go test ./...",
    "jest": "jest --ci"
  }
}
`,
		"build.sh":               "#!/bin/sh\nmkdir -p out\ncp a out/\n",
		"args.sh":                "#!/bin/sh\ncp \"$1\" \"$2\"\n",
		"Makefile":               "build:\n\tmkdir -p out\n\ttouch out/x\n",
		"node_modules/.bin/jest": "#!/usr/bin/env node\n",
	} {
		writeModeFile(t, filepath.Join(p, name), body, 0o755)
	}
	writeModeFile(t, filepath.Join(home, ".keep"), "", 0o644)
	ctx := context.Background()
	deny := mustRule(t, "Bash(git push:*)")
	deny.Behavior = permission.Deny
	decide := func(cmd string, allow ...permission.Rule) permission.Decision {
		eng, err := newEngine(ctx, engine.WithSettings(settings.Settings{Home: home, Cwd: p, Rules: append([]permission.Rule{deny}, allow...)}))
		if err != nil {
			t.Fatal(err)
		}
		return eng.Decide(ctx, map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd},
			"cwd": p, "permission_mode": "default"})
	}
	for _, c := range []struct{ cmd, rule, shows, stillAsks string }{
		{"npm run build", "npm run build", "package.json:3 script build: tsc -p ., cp -r static dist", "npm run nuke"},
		{"npm run build", "npm run build", "package.json:4 script prebuild: mkdir -p dist", "npm run build -- --watch"},
		{"npm test", "npm test", "script test: go vet ./..., go test ./...", "npm test -- -run X"},
		{"yarn build", "yarn build", "script build: tsc -p .", "yarn nuke"},
		{"pnpm run build", "pnpm run build", "script build: tsc -p .", "pnpm run nuke"},
		{"bash build.sh", "bash build.sh", "build.sh:2: mkdir -p out; build.sh:3: cp a out/", "bash args.sh a b"},
		{"./build.sh", "./build.sh", "build.sh:2: mkdir -p out", "./args.sh a b"},
		{"sh args.sh a b", "sh args.sh a b", "args.sh:2: cp a b", "sh args.sh a c"},
		{"make build", "make build", "Makefile:2 target build: mkdir -p out; Makefile:3 target build: touch out/x", "make"},
	} {
		d := decide(c.cmd)
		if d.Behavior != permission.Ask || d.Step != permission.StepModeFallback || !strings.Contains(d.Message, c.shows) {
			t.Errorf("%q: %s/%s (%s), want the fallback ASK showing %q", c.cmd, d.Behavior, d.Step, d.Message, c.shows)
			continue
		}
		var got []string
		for _, r := range d.SuggestedRules {
			got = append(got, r.String())
		}
		if len(got) != 1 || got[0] != "Bash("+c.rule+")" {
			t.Errorf("%q: suggested %q, want [Bash(%s)]", c.cmd, got, c.rule)
			continue
		}
		added := d.SuggestedRules[0]
		added.Source, added.Layer = settings.SourceUser, "user"
		if d2 := decide(c.cmd, added); d2.Behavior != permission.Allow || d2.Step != permission.StepAllowRule {
			t.Errorf("%q with the suggested %s: %s/%s (%s), want ALLOW by it", c.cmd, got[0], d2.Behavior, d2.Step, d2.Message)
		}
		if d3 := decide(c.stillAsks, added); d3.Behavior == permission.Allow {
			t.Errorf("%q with %s (suggested for %q): ALLOW (%s): the suggestion covers more than the person saw", c.stillAsks, got[0], c.cmd, d3.Message)
		}
	}
	// A script whose content cannot be read with certainty is the safety
	// ASK under deny rules: no suggestion, since no allow rule would clear it.
	if d := decide("npm run jest"); d.Step != permission.StepDenyRuleUncertain || len(d.SuggestedRules) != 0 {
		t.Errorf("npm run jest: %s/%s suggesting %v (%s), want the uncertain safety ASK without suggestions", d.Behavior, d.Step, d.SuggestedRules, d.Message)
	}
}

// A shell script's $1 is the call's word (issue 27): cat "$1" with $1 a
// credential is a credential read, whatever allow rule names the script,
// and rm -rf "$1" with $1 = / is denied by Bash(rm -rf /:*).
func TestScriptArgumentsReachTheChecks(t *testing.T) {
	t.Parallel()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home, p := filepath.Join(root, "home"), filepath.Join(root, "p")
	writeModeFile(t, filepath.Join(p, "show.sh"), "#!/bin/sh\ncat \"$1\"\n", 0o755)
	writeModeFile(t, filepath.Join(p, "del.sh"), "rm -rf \"$1\"\n", 0o755)
	writeModeFile(t, filepath.Join(p, "README.md"), "hi\n", 0o644)
	writeModeFile(t, filepath.Join(home, ".ssh", "id_rsa"), "key\n", 0o600)
	ctx := context.Background()
	deny := mustRule(t, "Bash(rm -rf /:*)")
	deny.Behavior = permission.Deny
	eng, err := newEngine(ctx, engine.WithSettings(settings.Settings{Home: home, Cwd: p,
		Rules: []permission.Rule{deny, mustRule(t, "Bash(./show.sh:*)"), mustRule(t, "Bash(bash del.sh:*)")}}))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ cmd, behavior, step, says string }{
		{"./show.sh README.md", permission.Allow, permission.StepAllowRule, ""},
		{"./show.sh ~/.ssh/id_rsa", permission.Ask, permission.StepToolCheck, "reads a credential path"},
		{"bash del.sh build", permission.Allow, permission.StepAllowRule, ""},
		{"bash del.sh /", permission.Deny, permission.StepDenyRule, "del.sh:1 runs rm -rf /"},
	} {
		d := eng.Decide(ctx, map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": c.cmd},
			"cwd": p, "permission_mode": "default"})
		if d.Behavior != c.behavior || d.Step != c.step || !strings.Contains(d.Message, c.says) {
			t.Errorf("%q: %s/%s (%s), want %s/%s saying %q", c.cmd, d.Behavior, d.Step, d.Message, c.behavior, c.step, c.says)
		}
	}
}

// npm workspaces (issue 27): a workspace's script that holds a denied
// command is DENY in every mode, named by its file, even under an allow
// rule for the call; a workspace glob leading out of the project is the
// uncertain safety ASK (DENY where nobody answers).
func TestWorkspaceScriptsDenyEveryMode(t *testing.T) {
	t.Parallel()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home, p, q := filepath.Join(root, "home"), filepath.Join(root, "p"), filepath.Join(root, "q")
	for name, body := range map[string]string{
		"p/package.json":              `{"workspaces": ["packages/*"]}`,
		"p/packages/web/package.json": `{"name": "@app/web", "scripts": {"clean": "rm -rf dist", "lint": "eslint ."}}`,
		"q/package.json":              `{"workspaces": ["packages/*", "../outside"]}`,
		"q/packages/web/package.json": `{"name": "web", "scripts": {"lint": "eslint ."}}`,
		"outside/package.json":        `{"name": "out", "scripts": {"lint": "rm -rf /"}}`,
		"home/.keep":                  "",
	} {
		writeModeFile(t, filepath.Join(root, name), body, 0o644)
	}
	ctx := context.Background()
	deny := mustRule(t, "Bash(rm -rf:*)")
	deny.Behavior = permission.Deny
	rules := []permission.Rule{deny, mustRule(t, "Bash(npm run clean -w @app/web)"), mustRule(t, "Bash(npm run lint:*)")}
	for _, c := range []struct{ dir, cmd, want string }{
		{p, "npm run clean -w @app/web", "deny"},
		{p, "npm run clean --workspaces", "deny"},
		{p, "npm run lint -w packages/web", "allow"},
		{q, "npm run lint -ws", "uncertain"},
		{q, "npm run lint -w web", "uncertain"},
	} {
		eng, err := newEngine(ctx, engine.WithSettings(settings.Settings{Home: home, Cwd: c.dir, Rules: rules}))
		if err != nil {
			t.Fatal(err)
		}
		for _, mode := range allModes {
			d := eng.Decide(ctx, map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": c.cmd},
				"cwd": c.dir, "permission_mode": mode})
			switch c.want {
			case "deny":
				if d.Behavior != permission.Deny || d.Step != permission.StepDenyRule || !strings.Contains(d.Message, "packages/web/package.json:1 script clean runs rm -rf dist") {
					t.Errorf("%s: %q: %s/%s (%s), want DENY naming the workspace's script", mode, c.cmd, d.Behavior, d.Step, d.Message)
				}
			case "uncertain":
				if d.Behavior != uncertainDenyBehavior[mode] || d.Step != permission.StepDenyRuleUncertain || !strings.Contains(d.Message, "outside the working directories") {
					t.Errorf("%s: %q: %s/%s (%s), want %s: a workspace outside the project", mode, c.cmd, d.Behavior, d.Step, d.Message, uncertainDenyBehavior[mode])
				}
			case "allow":
				want := permission.Allow
				if mode == "plan" {
					want = permission.Deny // EXPLORE: a script is never read-only
				}
				if d.Behavior != want {
					t.Errorf("%s: %q: %s/%s (%s), want %s", mode, c.cmd, d.Behavior, d.Step, d.Message, want)
				}
			}
		}
	}
}
