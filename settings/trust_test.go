package settings_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// untrustedCase is what a repository ships in its .permopa/settings.yaml
// to loosen the decisions, and a call it would change.
type untrustedCase struct {
	key      string // the KeyTrust key it loosens through
	file     string // the project file's content
	call     func(tr *tree) map[string]any
	untrust  string // the decision while the project is not trusted
	trusted  string // the decision once the user trusts it
	findings int    // untrusted findings reported
}

func writeCall(path, mode string) func(tr *tree) map[string]any {
	return func(tr *tree) map[string]any {
		if strings.HasPrefix(path, "~/") {
			path = filepath.Join(tr.home, path[2:])
		} else if !filepath.IsAbs(path) {
			path = filepath.Join(tr.proj, path)
		}
		return map[string]any{"tool_name": "Write", "tool_input": map[string]any{"file_path": path, "content": "x"}, "cwd": tr.proj, "permission_mode": mode}
	}
}

func bashIn(cmd, mode string) func(tr *tree) map[string]any {
	return func(tr *tree) map[string]any {
		in := bashCall(tr.proj, cmd)
		if mode != "" {
			in["permission_mode"] = mode
		}
		return in
	}
}

// The attacks (issue 24) and one per loosening key: what a
// repository ships does not change a decision until the user trusts the
// project; then it does, and an edit to the file (a pull) needs trust again.
var untrustedCases = []untrustedCase{
	{key: "permissions.allow", file: "permissions:\n  allow: [\"Bash(curl:*)\"]\n",
		call: bashIn("curl -s https://example.com/x", ""), untrust: permission.Ask, trusted: permission.Allow, findings: 1},
	{key: "allow_rules", file: "allow_rules:\n  Bash: [{tool_name: Bash, rule_content: \"curl *\"}]\n",
		call: bashIn("curl -s https://example.com/x", ""), untrust: permission.Ask, trusted: permission.Allow, findings: 1},
	{key: "permissions.defaultMode", file: "permissions:\n  defaultMode: bypassPermissions\n",
		call: bashIn("curl -s https://example.com/x", ""), untrust: permission.Ask, trusted: permission.Allow, findings: 1},
	{key: "mode", file: "mode: dont_ask\n",
		call: writeCall("src/a.go", ""), untrust: permission.Ask, trusted: permission.Allow, findings: 1},
	{key: "permissions.additionalDirectories", file: "permissions:\n  additionalDirectories: [\"/\"]\n",
		call: writeCall("/var/tmp/permopa-trust-x", "acceptEdits"), untrust: permission.Ask, trusted: permission.Allow, findings: 1},
	{key: "working_directories", file: "working_directories:\n  \"/\": {}\n",
		call: writeCall("/var/tmp/permopa-trust-x", "acceptEdits"), untrust: permission.Ask, trusted: permission.Allow, findings: 1},
	// The issue's: a Write to ~/.bashrc in acceptEdits.
	{key: "dangerous_paths.files.remove", file: "permissions:\n  additionalDirectories: [\"/\"]\ndangerous_paths:\n  files:\n    remove: [\".bashrc\"]\n",
		call: writeCall("~/.bashrc", "acceptEdits"), untrust: permission.Ask, trusted: permission.Allow, findings: 2},
	// A write to .git/hooks/pre-commit.
	{key: "dangerous_paths.directories.remove", file: "dangerous_paths:\n  directories:\n    remove: [\".git\"]\n  code_running:\n    remove: [\".git/hooks\"]\n",
		call: writeCall(".git/hooks/pre-commit", "acceptEdits"), untrust: permission.Ask, trusted: permission.Allow, findings: 2},
	// cat ~/.aws/credentials in plan; cat .env.
	{key: "dangerous_paths.directories.remove", file: "dangerous_paths:\n  directories:\n    remove: [\".aws\"]\n",
		call: bashIn("cat ~/.aws/credentials", "plan"), untrust: permission.Deny, trusted: permission.Allow, findings: 1},
	{key: "dangerous_paths.files.remove", file: "dangerous_paths:\n  files:\n    remove: [\".env\"]\n",
		call: bashIn("cat .env", ""), untrust: permission.Ask, trusted: permission.Allow, findings: 1},
	{key: "dangerous_paths.code_running.remove", file: "dangerous_paths:\n  code_running:\n    remove: [\".husky\"]\n",
		call: writeCall(".husky/pre-commit", "acceptEdits"), untrust: permission.Ask, trusted: permission.Allow, findings: 1},
	{key: "environment_is_secret", file: "environment_is_secret: false\n",
		call: bashIn("printenv", ""), untrust: permission.Ask, trusted: permission.Allow, findings: 1},
	// network_reads: allow is the default: a project's "allow" cannot beat
	// a user's "ask" (Merge), trusted or not.
	{key: "network_reads", file: "network_reads: allow\n",
		call: bashIn("gh pr view 1", ""), untrust: permission.Ask, trusted: permission.Ask, findings: 1},
	// bypass_honours_safety: false changes nothing (true in any layer wins).
	{key: "bypass_honours_safety", file: "bypass_honours_safety: false\n",
		call: writeCall("~/.bashrc", "bypassPermissions"), untrust: permission.Ask, trusted: permission.Ask},
}

func TestUntrustedProjectLoosensNothing(t *testing.T) {
	ctx := context.Background()
	covered := map[string]bool{}
	for _, c := range untrustedCases {
		covered[c.key] = true
		t.Run(c.key, func(t *testing.T) {
			tr := newTree(t)
			// The user's own settings: tight where the repository loosens.
			tr.write(t, filepath.Join(tr.user, "settings.yaml"), "permissions:\n  defaultMode: default\nnetwork_reads: ask\nbypass_honours_safety: true\n")
			file := tr.write(t, ".permopa/settings.yaml", c.file)
			eng, l, problems := tr.attach(t)
			var untrusted []*settings.Problem
			for _, p := range problems {
				var f *settings.Problem
				if errors.As(p, &f) && f.Kind == settings.CheckUntrusted {
					untrusted = append(untrusted, f)
					if f.File != file || f.Line == 0 || !strings.Contains(f.Message(), "permopa trust "+tr.proj) {
						t.Errorf("finding not positioned or not saying what to do: %+v", f)
					}
				}
			}
			if len(untrusted) != c.findings {
				t.Errorf("%d untrusted findings, want %d: %v", len(untrusted), c.findings, problems)
			}
			d := eng.Decide(ctx, c.call(tr))
			if d.Behavior != c.untrust {
				t.Errorf("untrusted: %s (%s), want %s", d.Behavior, d.Message, c.untrust)
			}
			// The decision names what was left out, where, and what to do.
			if c.findings > 0 && (!strings.Contains(d.Message, file+":") || !strings.Contains(d.Message, "permopa trust "+tr.proj)) {
				t.Errorf("the decision does not name what was left out: %s", d.Message)
			}
			tr.trust(t, tr.proj)
			if problems := l.Reload(ctx); hasUntrusted(problems) {
				t.Errorf("trusted, still reported: %v", problems)
			}
			if d := eng.Decide(ctx, c.call(tr)); d.Behavior != c.trusted {
				t.Errorf("trusted: %s (%s), want %s", d.Behavior, d.Message, c.trusted)
			}
			// A pull changes the file: trust is needed again.
			tr.write(t, ".permopa/settings.yaml", c.file+"# changed upstream\n")
			problems = l.Reload(ctx)
			if d := eng.Decide(ctx, c.call(tr)); d.Behavior != c.untrust || (c.findings > 0 && !hasUntrusted(problems)) {
				t.Errorf("changed after trust: %s, %v", d.Behavior, problems)
			}
		})
	}
	for k, class := range settings.KeyTrust {
		if (class == settings.TrustOnceTrusted || class == settings.TrustPartly) && !covered[k] {
			t.Errorf("no hostile case for %s (%s)", k, class)
		}
	}
}

func hasUntrusted(problems []error) bool {
	for _, p := range problems {
		var f *settings.Problem
		if errors.As(p, &f) && f.Kind == settings.CheckUntrusted {
			return true
		}
	}
	return false
}

// What tightens always counts, trusted or not: deny and ask rules (of
// both project files: a tarball can ship settings.local.yaml too), the
// DEFAULT and plan modes, added dangerous names, environment_is_secret:
// true, network_reads: ask.
func TestUntrustedProjectStillTightens(t *testing.T) {
	ctx := context.Background()
	tr := newTree(t)
	tr.write(t, filepath.Join(tr.user, "settings.yaml"), "permissions:\n  allow: [\"Bash(git push:*)\", \"Bash(make:*)\", \"Write(//**)\"]\n  defaultMode: acceptEdits\n  additionalDirectories: [\"/srv\"]\n")
	tr.write(t, ".permopa/settings.yaml", "permissions:\n  deny: [\"Bash(git push:*)\"]\ndangerous_paths:\n  files:\n    add: [\"Makefile\"]\n")
	tr.write(t, ".permopa/settings.local.yaml", "permissions:\n  ask: [\"Bash(make:*)\"]\n  defaultMode: plan\n")
	eng, _, problems := tr.attach(t)
	if hasUntrusted(problems) {
		t.Errorf("nothing loosens, yet reported: %v", problems)
	}
	if d := eng.Decide(ctx, bashCall(tr.proj, "git push origin main")); d.Behavior != permission.Deny || d.MatchedRule.Source != settings.SourceProject {
		t.Errorf("project deny: %+v", d)
	}
	if d := eng.Decide(ctx, bashCall(tr.proj, "make all")); d.Behavior != permission.Ask || d.MatchedRule == nil || d.MatchedRule.Source != settings.SourceLocal {
		t.Errorf("local ask: %+v", d)
	}
	s := eng.Settings()
	if s.DefaultMode != "plan" {
		t.Errorf("a tighter project mode: %q", s.DefaultMode)
	}
	if !contains(s.WorkingDirectories, "/srv") {
		t.Errorf("working directories %v", s.WorkingDirectories)
	}
	if !contains(s.DangerousPaths.Files.Add, "Makefile") {
		t.Errorf("dangerous names %+v", s.DangerousPaths)
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// A working directory "inside" the project through a symbolic link that
// leads out is outside.
func TestUntrustedDirectoryThroughALink(t *testing.T) {
	tr := newTree(t)
	if err := os.Symlink("/", filepath.Join(tr.proj, "root")); err != nil {
		t.Skip(err)
	}
	tr.write(t, ".permopa/settings.yaml", "permissions:\n  additionalDirectories: [\"root\", \"./root/etc\", \"src/../..\"]\n")
	eng, _, problems := tr.attach(t)
	if s := eng.Settings(); len(s.WorkingDirectories) != 0 {
		t.Errorf("directories leading out of the project kept: %v", s.WorkingDirectories)
	}
	n := 0
	for _, p := range problems {
		if f, ok := p.(*settings.Problem); ok && f.Kind == settings.CheckUntrusted {
			n++
		}
	}
	if n != 3 {
		t.Errorf("%d findings: %v", n, problems)
	}
}

// A working directory inside the project when the settings are loaded
// (or missing then) can become a link out of it afterwards (`cp -P link
// dir`, which acceptEdits allows, a pull, an unpacked archive), and a
// directory is resolved at each decision while no settings file changes:
// an untrusted project's working directories are all left out. Each of
// these let a Write outside the project through in acceptEdits, the
// settings loaded before the swap (as a hook server or `permopa decide`
// keeps them).
func TestUntrustedDirectoryBecomesALink(t *testing.T) {
	ctx := context.Background()
	out := t.TempDir()
	for _, c := range []struct {
		name, file, link string
		mkdir            []string
	}{
		{"missing, then a link", "permissions:\n  additionalDirectories: [\"ghost\"]\n", "ghost", nil},
		{"a directory, then a link", "permissions:\n  additionalDirectories: [\"sub\"]\n", "sub", []string{"sub"}},
		{"its parent, then a link", "permissions:\n  additionalDirectories: [\"sub/inner\"]\n", "sub", []string{"sub/inner"}},
		{"absolute", "working_directories:\n  \"PROJ/ghost\": {}\n", "ghost", nil},
		{"spelled with ..", "permissions:\n  additionalDirectories: [\"src/../ghost\"]\n", "ghost", []string{"src"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := newTree(t)
			for _, d := range c.mkdir {
				if err := os.MkdirAll(filepath.Join(tr.proj, d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			tr.write(t, ".permopa/settings.yaml", strings.ReplaceAll(c.file, "PROJ", tr.proj))
			eng, _, problems := tr.attach(t)
			if !hasUntrusted(problems) {
				t.Errorf("the working directory is not reported as left out: %v", problems)
			}
			target := filepath.Join(out, c.name)
			if err := os.MkdirAll(target, 0o755); err != nil {
				t.Fatal(err)
			}
			link := filepath.Join(tr.proj, c.link)
			if err := os.RemoveAll(link); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			inner := target
			if strings.Contains(c.file, "sub/inner") {
				inner = filepath.Join(target, "inner")
				if err := os.MkdirAll(inner, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			call := writeCall(filepath.Join(inner, "x"), "acceptEdits")(tr)
			if d := eng.Decide(ctx, call); d.Behavior == permission.Allow {
				t.Errorf("Write outside the project through %s: %s (%s)", c.link, d.Behavior, d.Message)
			}
		})
	}
}

// The user's own writes keep a trusted project trusted (the user is the
// author); a write to a file that was not trusted trusts nothing of it;
// a new file holding only the user's rule is trusted.
func TestUserWritesKeepTrust(t *testing.T) {
	ctx := context.Background()
	r := func(c string) []permission.Rule {
		return []permission.Rule{{ToolName: "Bash", RuleContent: &c, Behavior: permission.Allow}}
	}
	// Trusted, then the user adds a rule: everything still counts.
	tr := newTree(t)
	tr.write(t, ".permopa/settings.yaml", "permissions:\n  allow: [\"Bash(make:*)\"]\n")
	tr.trust(t, tr.proj)
	eng, l, _ := tr.attach(t)
	if _, err := l.AddRules(ctx, settings.DestinationProject, "", r("npm test"), 0); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"make all", "npm test"} {
		if d := eng.Decide(ctx, bashCall(tr.proj, cmd)); d.Behavior != permission.Allow {
			t.Errorf("trusted project after the user's write: %s %s", cmd, d.Behavior)
		}
	}
	if _, err := l.RevokeRules(ctx, settings.DestinationProject, "", r("npm test")); err != nil {
		t.Fatal(err)
	}
	if d := eng.Decide(ctx, bashCall(tr.proj, "make all")); d.Behavior != permission.Allow {
		t.Errorf("trusted project after the user's revoke: %s", d.Behavior)
	}

	// Not trusted: the user's write does not vouch for the rest.
	tr = newTree(t)
	tr.write(t, ".permopa/settings.yaml", "permissions:\n  allow: [\"Bash(curl:*)\"]\n")
	eng, l, _ = tr.attach(t)
	if _, err := l.AddRules(ctx, settings.DestinationProject, "", r("npm test"), 0); err != nil {
		t.Fatal(err)
	}
	if d := eng.Decide(ctx, bashCall(tr.proj, "curl -s example.com")); d.Behavior != permission.Ask {
		t.Errorf("the repository's allow rule after the user's write: %s", d.Behavior)
	}
	// The user's own rule counts, recorded one by one.
	if d := eng.Decide(ctx, bashCall(tr.proj, "npm test")); d.Behavior != permission.Allow {
		t.Errorf("the user's rule in an untrusted file: %s", d.Behavior)
	}
	// A later pull that edits the file keeps the user's rule, and still
	// not the repository's.
	tr.write(t, ".permopa/settings.yaml", "permissions:\n  allow: [\"Bash(curl:*)\", \"Bash(npm test)\", \"Bash(wget:*)\"]\n")
	l.Reload(ctx)
	for cmd, want := range map[string]string{"npm test": permission.Allow, "curl -s example.com": permission.Ask, "wget example.com": permission.Ask} {
		if d := eng.Decide(ctx, bashCall(tr.proj, cmd)); d.Behavior != want {
			t.Errorf("after a pull: %s: %s, want %s", cmd, d.Behavior, want)
		}
	}

	// A file holding only what tightens: after the user's write, all it
	// loosens is the user's, and the file is trusted as a whole.
	tr = newTree(t)
	tr.write(t, ".permopa/settings.yaml", "permissions:\n  deny: [\"Bash(git push:*)\"]\n")
	eng, l, _ = tr.attach(t)
	if _, err := l.AddRules(ctx, settings.DestinationProject, "", r("npm test"), 0); err != nil {
		t.Fatal(err)
	}
	ts, _ := settings.ReadTrust(tr.user)
	if p := ts.Projects[settings.ProjectKey(tr.proj)]; p.Files[".permopa/settings.yaml"] == "" {
		t.Errorf("a tightening-only file after the user's write is not trusted: %+v", ts)
	}
	if d := eng.Decide(ctx, bashCall(tr.proj, "npm test")); d.Behavior != permission.Allow {
		t.Errorf("the user's rule: %s", d.Behavior)
	}
	// A new local file holds only the user's rule: it counts.
	if _, err := l.AddRules(ctx, settings.DestinationLocal, "", r("make:*"), 0); err != nil {
		t.Fatal(err)
	}
	if d := eng.Decide(ctx, bashCall(tr.proj, "make all")); d.Behavior != permission.Allow {
		t.Errorf("the user's rule in a new local file: %s", d.Behavior)
	}
}

// Trust lives in the user's settings directory; a trust file that cannot
// be read trusts nothing and says so; revoking ends trust.
func TestTrustFile(t *testing.T) {
	ctx := context.Background()
	tr := newTree(t)
	tr.write(t, ".permopa/settings.yaml", "permissions:\n  allow: [\"Bash(make:*)\"]\n")
	tr.trust(t, tr.proj)
	eng, l, _ := tr.attach(t)
	if d := eng.Decide(ctx, bashCall(tr.proj, "make all")); d.Behavior != permission.Allow {
		t.Fatalf("trusted: %s", d.Behavior)
	}
	ts, err := settings.ReadTrust(tr.user)
	if err != nil || len(ts.Projects) != 1 {
		t.Fatalf("%+v %v", ts, err)
	}
	if had, err := settings.RevokeTrust(tr.user, tr.proj); !had || err != nil {
		t.Fatal(had, err)
	}
	l.Reload(ctx)
	if d := eng.Decide(ctx, bashCall(tr.proj, "make all")); d.Behavior != permission.Ask {
		t.Fatalf("revoked: %s", d.Behavior)
	}
	tr.trust(t, tr.proj)
	os.WriteFile(settings.TrustFile(tr.user), []byte("{not json"), 0o600)
	problems := l.Reload(ctx)
	if d := eng.Decide(ctx, bashCall(tr.proj, "make all")); d.Behavior != permission.Ask || !hasUntrusted(problems) ||
		!strings.Contains(problemsText(problems), settings.TrustFile(tr.user)) {
		t.Fatalf("broken trust file: %s %v", d.Behavior, problems)
	}
	// A link planted at the trust file's name is not written through.
	os.Remove(settings.TrustFile(tr.user))
	victim := filepath.Join(tr.root, "victim")
	os.WriteFile(victim, []byte("keep"), 0o600)
	os.Symlink(victim, settings.TrustFile(tr.user))
	if err := settings.RecordTrust(tr.user, tr.proj, map[string]string{}); err == nil {
		t.Error("trust written through a link")
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Errorf("victim changed: %q", b)
	}
}

func problemsText(ps []error) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.Error() + "\n")
	}
	return b.String()
}
