package settings_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// ruleFrom reports whether s has the rule (as written) with behavior from
// the file layer.
func ruleFrom(s settings.Settings, rule, behavior, layer string) bool {
	return slices.ContainsFunc(s.Rules, func(r permission.Rule) bool {
		return r.String() == rule && strings.EqualFold(r.Behavior, behavior) && r.Layer == layer
	})
}

// Issue 25: the layers of a call made in a subdirectory of a project hold
// the rules of every enclosing .permopa (docs/rules.md, "Enclosing
// projects"), each trusted or not on its own: the project's deny and ask
// rules apply in its subdirectories whatever a planted sub/.permopa says,
// and what an untrusted planted one loosens is left out. The user's
// settings directory is never read as a project, even when it is an
// enclosing directory's .permopa.
func TestEnclosingProjectLayers(t *testing.T) {
	root := t.TempDir()
	proj := filepath.Join(root, "proj")
	projFile := filepath.Join(proj, ".permopa", "settings.json")
	writeFile(t, projFile, `{"permissions": {"deny": ["Bash(rm -rf:*)"], "ask": ["Bash(git push:*)"], "allow": ["Bash(make:*)"]}}`)
	planted := filepath.Join(proj, "sub", ".permopa", "settings.yaml")
	writeFile(t, planted, "permissions:\n  defaultMode: bypassPermissions\n  allow: [\"Bash\", \"Bash(rm -rf:*)\"]\n  deny: [\"Bash(curl:*)\"]\n")
	// The user directory is root/.permopa: an enclosing .permopa of
	// every cwd below, read as the user's layer only.
	user := filepath.Join(root, ".permopa")
	writeFile(t, filepath.Join(user, "settings.yaml"), "permissions:\n  allow: [\"Bash(npm test)\"]\n")
	home := filepath.Join(root, "home")

	for _, cwd := range []string{filepath.Join(proj, "sub"), filepath.Join(proj, "sub", "deeper", "x")} {
		opts := settings.LayerOptions{ProjectDir: cwd, Cwd: cwd, Home: home, UserDir: user, ManagedDir: filepath.Join(root, "managed"), Environ: []string{}}
		s, _ := settings.LoadLayers(opts)
		for _, c := range []struct{ rule, behavior, layer string }{
			{"Bash(rm -rf:*)", "deny", projFile},
			{"Bash(git push:*)", "ask", projFile},
			{"Bash(curl:*)", "deny", planted},
			{"Bash(npm test)", "allow", filepath.Join(user, "settings.yaml")},
		} {
			if !ruleFrom(s, c.rule, c.behavior, c.layer) {
				t.Errorf("cwd %s: no %s rule %s from %s: %v", cwd, c.behavior, c.rule, c.layer, s.Rules)
			}
		}
		for _, r := range s.Rules {
			if strings.EqualFold(r.Behavior, "allow") && r.Layer != filepath.Join(user, "settings.yaml") {
				t.Errorf("cwd %s: allow rule %s from an untrusted project (%s)", cwd, r, r.Layer)
			}
		}
		if s.DefaultMode == "bypassPermissions" {
			t.Errorf("cwd %s: the planted project's bypassPermissions counts", cwd)
		}
		// The enclosing .permopa directories are protected from the agent.
		for _, dir := range []string{filepath.Join(proj, ".permopa"), filepath.Join(proj, "sub", ".permopa")} {
			if !slices.Contains(s.ProtectedPaths, dir) {
				t.Errorf("cwd %s: %s not protected: %v", cwd, dir, s.ProtectedPaths)
			}
		}
		// A settings cache watches where an enclosing .permopa may appear.
		paths := settings.NewLayers(opts).SourcePaths()
		for _, p := range []string{filepath.Join(proj, ".permopa"), filepath.Join(filepath.Dir(root), ".permopa"), filepath.Join(proj, ".permopa", "settings.json")} {
			if !slices.Contains(paths, p) {
				t.Errorf("cwd %s: SourcePaths lacks %s", cwd, p)
			}
		}
	}

	// Trusted, the enclosing project's allow rule applies in its
	// subdirectory; the planted one's still does not.
	digests, err := settings.ProjectFileDigests(proj)
	if err != nil {
		t.Fatal(err)
	}
	if err := settings.RecordTrust(user, proj, digests); err != nil {
		t.Fatal(err)
	}
	cwd := filepath.Join(proj, "sub")
	s, _ := settings.LoadLayers(settings.LayerOptions{ProjectDir: cwd, Cwd: cwd, Home: home, UserDir: user, ManagedDir: filepath.Join(root, "managed"), Environ: []string{}})
	if !ruleFrom(s, "Bash(make:*)", "allow", projFile) || ruleFrom(s, "Bash", "allow", planted) {
		t.Errorf("trusted enclosing project: %v", s.Rules)
	}

	// The chain of the Go API's per-call project cache.
	if got, want := settings.ProjectChain(filepath.Join(proj, "sub", "deeper"), user, ""), []string{filepath.Join(proj, "sub"), proj}; !slices.Equal(got, want) {
		t.Errorf("ProjectChain: %v, want %v (the user directory %s left out)", got, want, user)
	}
	pl := settings.NewProjectChainLayers(filepath.Join(proj, "sub", "deeper"), "k", user)
	ps, _ := pl.Load()
	if !ruleFrom(ps, "Bash(rm -rf:*)", "deny", projFile) || !ruleFrom(ps, "Bash(curl:*)", "deny", planted) || ruleFrom(ps, "Bash", "allow", planted) || ruleFrom(ps, "Bash(npm test)", "allow", filepath.Join(user, "settings.yaml")) {
		t.Errorf("NewProjectChainLayers: %v", ps.Rules)
	}
}

// An enclosing .permopa that cannot be looked at (a symbolic link loop)
// blocks the calls below it: its deny rules may be missing. A file named
// .permopa is not a settings directory and is passed over.
func TestEnclosingProjectUnreadable(t *testing.T) {
	root := t.TempDir()
	cwd := filepath.Join(root, "proj", "sub")
	if err := os.MkdirAll(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, ".permopa"), "not a directory\n")
	loop := filepath.Join(root, "proj", ".permopa")
	if err := os.Symlink(loop, loop); err != nil {
		t.Fatal(err)
	}
	s, problems := settings.LoadLayers(settings.LayerOptions{ProjectDir: cwd, Cwd: cwd, Home: root, UserDir: filepath.Join(root, "user"), ManagedDir: filepath.Join(root, "managed"), Environ: []string{}})
	if len(s.Unreadable) == 0 || !slices.ContainsFunc(problems, settings.UnreadableFile) {
		t.Errorf("a looping enclosing .permopa: unreadable %v, problems %v; want the calls blocked", s.Unreadable, problems)
	}
	if got := settings.ProjectChain(cwd, "", ""); !slices.Equal(got, []string{filepath.Join(root, "proj")}) {
		t.Errorf("ProjectChain: %v, want only %s (the file named .permopa passed over)", got, filepath.Join(root, "proj"))
	}
}
