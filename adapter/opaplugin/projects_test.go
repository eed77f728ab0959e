package opaplugin

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/permopa/permopa/adapter/hookproto"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// projectDir makes dir/.permopa with the given settings.yaml (and
// settings.local.yaml when local is not "").
func projectDir(t *testing.T, dir, settings, local string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, ".permopa"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeSettings(t, filepath.Join(dir, ".permopa", "settings.yaml"), settings)
	if local != "" {
		writeSettings(t, filepath.Join(dir, ".permopa", "settings.local.yaml"), local)
	}
	return dir
}

// trustProjects records, as `permopa trust` does, that the user of
// userDir trusts each project's settings files as they are now.
func trustProjects(t *testing.T, userDir string, projects ...string) {
	t.Helper()
	for _, p := range projects {
		digests, err := settings.ProjectFileDigests(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := settings.RecordTrust(userDir, p, digests); err != nil {
			t.Fatal(err)
		}
	}
}

func writeSettings(t *testing.T, file, content string) {
	t.Helper()
	if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// projectsConfig is a plugin configuration whose server layers live under
// server (managed in server/managed) and which reads projects under roots.
func projectsConfig(server string, roots ...string) string {
	quoted := make([]string, len(roots))
	for i, r := range roots {
		quoted[i] = `"` + r + `"`
	}
	return `{"wait_for_bundles": false, "settings": {"managed_dir": "` + server + `/managed", "project_dir": "` + server +
		`", "user_dir": "` + server + `/user", "projects": {"from_cwd": true, "roots": [` + strings.Join(quoted, ", ") + `]}}}`
}

func bashIn(cwd, command string) string {
	return fmt.Sprintf(`{"tool_name": "Bash", "tool_input": {"command": %q}, "cwd": %q, "tool_use_id": "t1"}`, command, cwd)
}

func wantRule(t *testing.T, what string, d permission.Decision, behavior, source, layer string) {
	t.Helper()
	if d.Behavior != behavior || d.MatchedRule == nil || d.MatchedRule.Source != source || d.MatchedRule.Layer != layer {
		t.Fatalf("%s: %+v (rule %+v), want %s by a %s rule of %s", what, d, d.MatchedRule, behavior, source, layer)
	}
}

// A check made in a project under the roots gets that project's rules,
// each naming its file; the same call elsewhere does not; editing the
// file changes the next decision.
func TestProjectRulesFromCwd(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	app := projectDir(t, filepath.Join(root, "app"), "permissions:\n  deny: [\"Bash(git push:*)\"]\n", "permissions:\n  allow: [\"Bash(npm install:*)\"]\n")
	outside := projectDir(t, t.TempDir(), "permissions:\n  deny: [\"Bash(git push:*)\"]\n", "")
	if err := os.Symlink(outside, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	server := t.TempDir()
	trustProjects(t, filepath.Join(server, "user"), app)
	h := start(t, newBundleServer(t), projectsConfig(server, root))

	settingsFile := filepath.Join(app, ".permopa", "settings.yaml")
	localFile := filepath.Join(app, ".permopa", "settings.local.yaml")
	wantRule(t, "project deny", h.decide(t, bashIn(app, "git push origin main")), permission.Deny, settings.SourceProject, settingsFile)
	wantRule(t, "local allow", h.decide(t, bashIn(app, "npm install --ignore-scripts left-pad")), permission.Allow, settings.SourceLocal, localFile)

	for what, cwd := range map[string]string{
		"outside the roots":          outside,
		"a symlink out of the roots": filepath.Join(root, "link"),
		"a trailing slash":           app + "/",
		"a dot-dot path":             filepath.Join(app, "src") + "/../",
		"a relative cwd":             "app",
		"no such directory":          filepath.Join(root, "gone"),
	} {
		if d := h.decide(t, bashIn(cwd, "git push origin main")); d.Behavior != permission.Ask || d.MatchedRule != nil {
			t.Errorf("%s (%s): %+v, want the server's ASK without project rules", what, cwd, d)
		}
	}

	srv := httptest.NewServer(http.HandlerFunc(h.p.serveRules))
	t.Cleanup(srv.Close)
	for cwd, want := range map[string]int{app: 2, outside: 0} {
		resp, err := http.Get(srv.URL + "?cwd=" + url.QueryEscape(cwd))
		if err != nil {
			t.Fatal(err)
		}
		var ra RulesAnswer
		err = json.NewDecoder(resp.Body).Decode(&ra)
		resp.Body.Close()
		if err != nil || len(ra.Rules) != want {
			t.Fatalf("rules for %s: %+v %v, want %d", cwd, ra, err, want)
		}
	}

	writeSettings(t, settingsFile, "permissions:\n  allow: [\"Bash(git push origin main)\"]\n")
	// An edit the user has not trusted loosens nothing; once trusted (the
	// trust file changes: the project is read again), it does.
	if d := h.decide(t, bashIn(app, "git push origin main")); d.Behavior != permission.Ask || !strings.Contains(d.Message, "not trusted") {
		t.Fatalf("an untrusted edit: %+v", d)
	}
	trustProjects(t, filepath.Join(server, "user"), app)
	wantRule(t, "after the edit", h.decide(t, bashIn(app, "git push origin main")), permission.Allow, settings.SourceProject, settingsFile)
	if err := os.Remove(settingsFile); err != nil {
		t.Fatal(err)
	}
	if d := h.decide(t, bashIn(app, "git push origin main")); d.Behavior != permission.Ask {
		t.Fatalf("after removing the file: %+v", d)
	}
	// The server's own layers and session rules are untouched.
	if s := h.p.Engine().Settings(); len(s.Projects[app]) != 1 || s.Projects[app][0].Source != settings.SourceLocal {
		t.Fatalf("projects in the settings: %+v", s.Projects)
	}
}

// A project's rules join the server's but cannot lift its managed locks:
// a managed deny stays, and under allow_managed_rules_only a project's
// allow rules do nothing. A project's mode is not taken.
func TestProjectCannotLiftManagedLocks(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	app := projectDir(t, filepath.Join(root, "app"),
		"permissions:\n  defaultMode: bypassPermissions\n  allow: [\"Bash(git push:*)\", \"Bash(npm test)\"]\nallow_managed_rules_only: false\n", "")
	server := t.TempDir()
	managed := filepath.Join(server, "managed")
	if err := os.MkdirAll(managed, 0o755); err != nil {
		t.Fatal(err)
	}
	writeSettings(t, filepath.Join(managed, "settings.yaml"), "permissions:\n  deny: [\"Bash(git push:*)\"]\n")
	// Trusted: even so, the project lifts no managed lock and sets no mode.
	trustProjects(t, filepath.Join(server, "user"), app)
	h := start(t, newBundleServer(t), projectsConfig(server, root))
	wantRule(t, "managed deny", h.decide(t, bashIn(app, "git push origin main")), permission.Deny, settings.SourceManaged, filepath.Join(managed, "settings.yaml"))
	wantRule(t, "project allow", h.decide(t, bashIn(app, "npm test")), permission.Allow, settings.SourceProject, filepath.Join(app, ".permopa", "settings.yaml"))
	if d := h.decide(t, bashIn(app, "rm -rf build")); d.Behavior != permission.Ask {
		t.Fatalf("the project's defaultMode was taken: %+v", d)
	}

	writeSettings(t, filepath.Join(managed, "settings.yaml"), "allow_managed_rules_only: true\npermissions:\n  deny: [\"Bash(git push:*)\"]\n")
	h.p.Reconfigure(context.Background(), h.p.Config())
	if d := h.decide(t, bashIn(app, "npm test")); d.Behavior != permission.Ask {
		t.Fatalf("a project allow rule under allow_managed_rules_only: %+v", d)
	}
	wantRule(t, "managed deny, locked", h.decide(t, bashIn(app, "git push origin main")), permission.Deny, settings.SourceManaged, filepath.Join(managed, "settings.yaml"))
}

// A project file whose deny rule (or whole file) cannot be read makes that
// project's checks DENY, naming the file, until it is fixed; other
// projects are not affected. An invalid allow rule is only left out.
func TestProjectUnreadableRulesBlock(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	app := projectDir(t, filepath.Join(root, "app"), "permissions:\n  deny: [\"Bash(git push\"]\n", "")
	other := projectDir(t, filepath.Join(root, "other"), "permissions:\n  allow: [\"Bash(ls)\"]\n", "")
	h := start(t, newBundleServer(t), projectsConfig(t.TempDir(), root))
	file := filepath.Join(app, ".permopa", "settings.yaml")
	blocked := func(what string) {
		t.Helper()
		d := h.decide(t, bashIn(app, "ls"))
		if d.Behavior != permission.Deny || d.Step != permission.StepError || d.Code != permission.CodeProjectSettingsUnreadable || !strings.Contains(d.Message, file) {
			t.Fatalf("%s: %+v", what, d)
		}
	}
	blocked("an unreadable deny rule")
	if d := h.decide(t, bashIn(other, "ls")); d.Behavior != permission.Allow {
		t.Fatalf("another project: %+v", d)
	}
	writeSettings(t, file, "permissions:\n  allow: [\"Bash(ls\", \"Bash(ls)\"]\n")
	if d := h.decide(t, bashIn(app, "ls")); d.Behavior != permission.Allow {
		t.Fatalf("fixed, with an invalid allow rule: %+v", d)
	}
	writeSettings(t, file, "permissions: [unclosed\n")
	blocked("a file that does not parse")
	writeSettings(t, file, "permissions:\n  deny: [\"Bash(ls)\"]\n")
	if d := h.decide(t, bashIn(app, "ls")); d.Behavior != permission.Deny || d.Step != permission.StepDenyRule {
		t.Fatalf("fixed again: %+v", d)
	}
}

// Checks from many projects at once each get their own project's rules
// (run with -race); beyond MaxProjects (quickMaxProjects without -tags
// slow) the least recently used project is dropped and read again by its
// next check.
func TestProjectsConcurrentAndBounded(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	deny := projectDir(t, filepath.Join(root, "deny"), "permissions:\n  deny: [\"Bash(git push:*)\"]\n", "")
	allow := projectDir(t, filepath.Join(root, "allow"), "permissions:\n  allow: [\"Bash(git push:*)\"]\n", "")
	server := t.TempDir()
	trustProjects(t, filepath.Join(server, "user"), allow)
	h := start(t, newBundleServer(t), projectsConfig(server, root))
	// Each new project rewrites the engine's settings document, all
	// projects in it: filling MaxProjects (256) takes seconds, so the quick
	// suite bounds this plugin at quickMaxProjects; -tags slow (.ci/run)
	// fills the real bound.
	bound := MaxProjects
	if !slowTests {
		bound = quickMaxProjects
		h.p.projects.Load().loaded.Max = bound
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for i := range 16 {
		wg.Go(func() {
			for range 8 {
				cwd, want := deny, permission.Deny
				if i%2 == 1 {
					cwd, want = allow, permission.Allow
				}
				if d := h.decide(t, bashIn(cwd, "git push")); d.Behavior != want {
					errs <- fmt.Sprintf("%s: %+v", cwd, d)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}

	for i := range bound {
		h.decide(t, bashIn(projectDir(t, filepath.Join(root, fmt.Sprint("p", i)), "permissions:\n  ask: [\"Bash(ls)\"]\n", ""), "ls"))
	}
	ps := h.p.projects.Load()
	if n, m := ps.Len(), len(h.p.Engine().Settings().Projects); n != bound || m != bound {
		t.Fatalf("%d projects cached, %d in the settings; want %d", n, m, bound)
	}
	if _, ok := h.p.Engine().Settings().Projects[deny]; ok {
		t.Fatal("the least recently used project is still in the settings")
	}
	if d := h.decide(t, bashIn(deny, "git push")); d.Behavior != permission.Deny || d.Step != permission.StepDenyRule {
		t.Fatalf("an evicted project's next check: %+v", d)
	}
}

// Configuration errors name the field.
func TestProjectsConfigErrors(t *testing.T) {
	t.Parallel()
	for raw, field := range map[string]string{
		`{"settings": {"projects": {"from_cwd": true}}}`:                   "plugins.permopa.settings.projects.roots: empty",
		`{"settings": {"projects": {"from_cwd": true, "roots": []}}}`:      "plugins.permopa.settings.projects.roots: empty",
		`{"settings": {"projects": {"from_cwd": true, "roots": ["rel"]}}}`: "plugins.permopa.settings.projects.roots[0]",
		`{"settings": {"projects": {"from_cwd": "yes"}}}`:                  "plugins.permopa.settings.projects.from_cwd",
		`{"settings": {"projects": {"roots": "/home"}}}`:                   "plugins.permopa.settings.projects.roots",
		`{"settings": {"projects": {"fromcwd": true}}}`:                    `unknown field "fromcwd"`,
	} {
		_, err := ParseConfig([]byte(raw))
		if err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("%s: error %v, want one naming %s", raw, err, field)
		}
	}
	c, err := ParseConfig([]byte(`{"settings": {"projects": {"from_cwd": true, "roots": ["/home/alice/"]}}}`))
	if err != nil || c.Settings.Projects.Roots[0] != "/home/alice" {
		t.Fatalf("%+v %v", c, err)
	}
}

// Confirming into local or project for a call made in a project under the
// roots writes that project's file, and the project's next check is ALLOW;
// under the server's allow_managed_rules_only such an allow rule is
// refused (rules_not_saved) and nothing is written. A call outside the
// roots writes the server's own project_dir, as before.
func TestProjectConfirm(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	app := projectDir(t, filepath.Join(root, "app"), "permissions:\n  ask: [\"Bash(git push:*)\"]\n", "")
	server := t.TempDir()
	h := start(t, newBundleServer(t), projectsConfig(server, root))
	// Administrators' confirms: any call, any rule (TestConfirmBoundToCheckedCall
	// holds the agents' to checked calls).
	srv := h.serve(t, serveOpts{})
	admin := h.token(t, hookproto.AdminTokenFileName)
	confirm := func(cwd, dest string) (int, map[string]any) {
		t.Helper()
		body := fmt.Sprintf(`{"confirmed": true, "admin": true, "destination": %q, "rules": ["Bash(npm install:*)"], "tool_call": {"tool_name": "Bash", "tool_input": {"command": "npm install --ignore-scripts x"}, "cwd": %q}}`, dest, cwd)
		return srv.do(t, req{path: "/v1/permission/confirm", body: body, token: admin})
	}
	if code, out := confirm(app, "project"); code != http.StatusOK || out["approved"] != true {
		t.Fatalf("confirm: %d %v", code, out)
	}
	file := filepath.Join(app, ".permopa", "settings.yaml")
	wantRule(t, "after confirm", h.decide(t, bashIn(app, "npm install --ignore-scripts y")), permission.Allow, settings.SourceProject, file)
	if d := h.decide(t, bashIn(app, "git push")); d.Behavior != permission.Ask || d.Step != permission.StepAskRule {
		t.Fatalf("the project's other rules: %+v", d)
	}

	outside := t.TempDir()
	if code, out := confirm(outside, "local"); code != http.StatusOK {
		t.Fatalf("confirm outside the roots: %d %v", code, out)
	}
	if _, err := os.Stat(filepath.Join(server, ".permopa", "settings.local.yaml")); err != nil {
		t.Fatalf("outside the roots, the server's project_dir is written: %v", err)
	}

	if err := os.MkdirAll(filepath.Join(server, "managed"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeSettings(t, filepath.Join(server, "managed", "settings.yaml"), "allow_managed_rules_only: true\n")
	h.p.Reconfigure(context.Background(), h.p.Config())
	other := projectDir(t, filepath.Join(root, "other"), "permissions: {}\n", "")
	code, out := confirm(other, "local")
	if code != http.StatusInternalServerError || out["code"] != "rules_not_saved" {
		t.Fatalf("confirm under allow_managed_rules_only: %d %v", code, out)
	}
	if _, err := os.Stat(filepath.Join(other, ".permopa", "settings.local.yaml")); err == nil {
		t.Fatal("written under allow_managed_rules_only")
	}
}

// BenchmarkPluginDecideProject is BenchmarkPluginDecide for a call made in
// a project read through settings.projects (its files stat'ed per check),
// next to the same call made outside the roots.
func BenchmarkPluginDecideProject(b *testing.B) {
	root := b.TempDir()
	app := filepath.Join(root, "app")
	if err := os.MkdirAll(filepath.Join(app, ".permopa"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(app, ".permopa", "settings.yaml"), []byte("permissions:\n  deny: [\"Bash(git push:*)\"]\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	h := start(b, newBundleServer(b), projectsConfig(b.TempDir(), root))
	for name, cwd := range map[string]string{"project": app, "outside": b.TempDir()} {
		b.Run(name, func(b *testing.B) {
			var in any
			_ = json.Unmarshal([]byte(bashIn(cwd, "ls -la src | grep foo && git diff --stat")), &in)
			for b.Loop() {
				if d, _ := h.p.decide(context.Background(), in, nil); d.Behavior != permission.Allow {
					b.Fatalf("%+v", d)
				}
			}
		})
	}
}
