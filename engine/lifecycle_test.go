package engine_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// Package managers' lifecycle scripts (issue 27): under Bash(rm -rf:*) and
// an allow rule for the whole manager, npm install, ci, pack, version, and
// yarn's, pnpm's and bun's install, whose package runs rm -rf in a
// lifecycle script, are DENY in every mode naming the script; installing
// runs the dependencies' install scripts, the uncertain safety ASK (DENY
// where nobody answers); --ignore-scripts, or ignore-scripts=true in the
// package's .npmrc, leaves the allow rule to decide.
func TestLifecycleScriptsEveryMode(t *testing.T) {
	t.Parallel()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home, p := filepath.Join(root, "home"), filepath.Join(root, "p")
	for name, body := range map[string]string{
		"package.json": "{\n  \"name\": \"p\",\n  \"version\": \"1.0.0\",\n  \"scripts\": {\n" +
			"    \"postinstall\": \"rm -rf victim\",\n    \"prepack\": \"rm -rf out\",\n    \"version\": \"rm -rf tags\"\n  }\n}\n",
		"clean/package.json": `{"name": "c", "scripts": {"build": "tsc"}}`,
		// a package with no package.json above it: npm reads its .npmrc
		"../off/package.json": `{"name": "o", "scripts": {"postinstall": "rm -rf victim"}}`,
		"../off/.npmrc":       "//registry.npmjs.org/:_authToken=secret\nignore-scripts=true\n",
	} {
		writeModeFile(t, filepath.Join(p, name), body, 0o644)
	}
	writeModeFile(t, filepath.Join(home, ".keep"), "", 0o644)
	ctx := context.Background()
	var rules []permission.Rule
	for _, r := range []string{"Bash(npm:*)", "Bash(yarn:*)", "Bash(pnpm:*)", "Bash(bun:*)"} {
		rules = append(rules, mustRule(t, r))
	}
	deny := mustRule(t, "Bash(rm -rf:*)")
	deny.Behavior = permission.Deny
	rules = append(rules, deny)
	eng, err := newEngine(ctx, engine.WithSettings(settings.Settings{Home: home, Cwd: p, Rules: rules}))
	if err != nil {
		t.Fatal(err)
	}
	decide := func(cmd, mode string) permission.Decision {
		dir := p
		if sub, rest, ok := strings.Cut(cmd, ": "); ok {
			dir, cmd = filepath.Join(p, sub), rest
		}
		return eng.Decide(ctx, map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd},
			"cwd": dir, "permission_mode": mode})
	}
	const postinstall = "package.json:5 script postinstall runs rm -rf victim"
	denied := map[string]string{
		"npm install":                     postinstall,
		"npm ci":                          postinstall,
		"npm i":                           postinstall,
		"npm rebuild":                     postinstall,
		"npm link":                        postinstall,
		"npm pack":                        "package.json:6 script prepack runs rm -rf out",
		"npm publish":                     "script prepack runs rm -rf out",
		"npm version patch":               "package.json:7 script version runs rm -rf tags",
		"yarn":                            postinstall,
		"yarn install":                    postinstall,
		"yarn add left-pad":               postinstall,
		"pnpm install":                    postinstall,
		"bun install":                     postinstall,
		"npm ci && npm test":              postinstall,
		"npm install --no-audit":          postinstall,
		"npm pack --ignore-scripts=false": "script prepack",
	}
	uncertain := map[string]string{
		"npm install lodash":       "npm install runs the install scripts of the packages it installs",
		"clean: npm install":       "npm install runs the install scripts",
		"clean: npm ci":            "npm ci runs the install scripts",
		"clean: yarn":              "yarn install runs the install scripts",
		"clean: pnpm add esbuild":  "pnpm add runs the install scripts",
		"clean: bun add esbuild":   "bun add runs the install scripts",
		"clean: npm rebuild sharp": "npm rebuild runs the install scripts",
	}
	allowed := []string{"npm install --ignore-scripts", "npm ci --ignore-scripts", "npm i -D lodash --ignore-scripts",
		"npm pack --ignore-scripts", "npm version patch --ignore-scripts", "yarn install --ignore-scripts",
		"pnpm install --ignore-scripts", "../off: npm install", "../off: npm ci", "clean: npm pack"}
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
		for _, cmd := range allowed {
			d := decide(cmd, mode)
			want, step := permission.Allow, permission.StepAllowRule
			if mode == "plan" {
				// EXPLORE allows only read-only calls; installing is not.
				want, step = permission.Deny, permission.StepModeFallback
			}
			if d.Behavior != want || d.Step != step {
				t.Errorf("%s: %q: %s/%s (%s), want %s/%s", mode, cmd, d.Behavior, d.Step, d.Message, want, step)
			}
			if strings.Contains(d.Message, "secret") {
				t.Errorf("%s: %q: the .npmrc's token reached the message: %s", mode, cmd, d.Message)
			}
		}
	}
}
