package engine_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/storage/inmem"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	defaultpolicy "github.com/permopa/permopa/rego"
	"github.com/permopa/permopa/settings"
)

// cacheWorld is a project, a home with a credential, and an engine with
// the decision cache on, deciding in the project.
type cacheWorld struct {
	dir, home string
	eng       *engine.Engine
}

func newCacheWorld(t *testing.T, opts ...engine.Option) *cacheWorld {
	t.Helper()
	root := t.TempDir()
	w := &cacheWorld{dir: filepath.Join(root, "proj"), home: filepath.Join(root, "home")}
	for _, d := range []string{w.dir + "/notes", w.dir + "/e", w.home + "/.ssh"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, w.dir+"/README.md", "hello")
	writeFile(t, w.home+"/.ssh/id_rsa", "secret")
	if err := os.Symlink(w.dir+"/README.md", w.dir+"/notes/link"); err != nil {
		t.Fatal(err)
	}
	opts = append([]engine.Option{engine.WithSettings(settings.Settings{Home: w.home, Cwd: w.dir}), engine.WithDecisionCache(0, 0)}, opts...)
	eng, err := engine.New(context.Background(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	w.eng = eng
	return w
}

func writeFile(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (w *cacheWorld) bash(cmd string) map[string]any {
	return map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd}, "cwd": w.dir}
}

func (w *cacheWorld) read(p string) map[string]any {
	return map[string]any{"tool_name": "Read", "tool_input": map[string]any{"file_path": p}, "cwd": w.dir}
}

func withSession(in map[string]any, id string) map[string]any {
	in["session_id"] = id
	return in
}

func mustRules(t *testing.T, rules ...string) []permission.Rule {
	t.Helper()
	out := make([]permission.Rule, len(rules))
	for i, r := range rules {
		behavior, text, _ := strings.Cut(r, " ")
		rule, err := settings.ParseRule(text, behavior)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = rule
	}
	return out
}

// Every road that changes what a call's answer depends on makes the next
// identical call decide again: rules added through each layer, settings
// files, session rules and modes, expiries, an org rules bundle, a
// recompiled policy, and the file system the path built-ins look at
// (symlinks re-pointed or removed, a bare repository appearing, a glob
// matching a new file). Each case first shows that the call was served
// from the cache (a hit), so the change is what the cache had to see.
func TestDecisionCacheInvalidation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cases := []struct {
		name          string
		input         func(w *cacheWorld) map[string]any
		change        func(t *testing.T, w *cacheWorld)
		before, after string
	}{
		{"allow rule by SetSettings", func(w *cacheWorld) map[string]any { return w.bash("npm test") },
			func(t *testing.T, w *cacheWorld) {
				s := w.eng.Settings()
				s.Rules = mustRules(t, "ALLOW Bash(npm test)")
				if err := w.eng.SetSettings(ctx, s); err != nil {
					t.Fatal(err)
				}
			}, permission.Ask, permission.Allow},
		{"deny rule by UpdateSettings", func(w *cacheWorld) map[string]any { return w.bash("ls -la") },
			func(t *testing.T, w *cacheWorld) {
				if err := w.eng.UpdateSettings(ctx, func(s *settings.Settings) error {
					s.Rules = append(s.Rules, mustRules(t, "DENY Bash(ls:*)")...)
					return nil
				}); err != nil {
					t.Fatal(err)
				}
			}, permission.Allow, permission.Deny},
		{"default mode changed", func(w *cacheWorld) map[string]any { return w.bash("npm test") },
			func(t *testing.T, w *cacheWorld) {
				if err := w.eng.UpdateSettings(ctx, func(s *settings.Settings) error { s.DefaultMode = "DONT_ASK"; return nil }); err != nil {
					t.Fatal(err)
				}
			}, permission.Ask, permission.Deny},
		{"session rule", func(w *cacheWorld) map[string]any { return withSession(w.bash("go test ./..."), "s1") },
			func(t *testing.T, w *cacheWorld) {
				if err := w.eng.AddSessionRules(ctx, "s1", mustRules(t, "ALLOW Bash(go test:*)")...); err != nil {
					t.Fatal(err)
				}
			}, permission.Ask, permission.Allow},
		{"session rule revoked", func(w *cacheWorld) map[string]any { return withSession(w.bash("make"), "s2") },
			func(t *testing.T, w *cacheWorld) {
				// Added before the first call by the setup below; revoked here.
				if n, err := w.eng.RevokeSessionRules(ctx, "s2", mustRules(t, "ALLOW Bash(make)")...); err != nil || n != 1 {
					t.Fatal(n, err)
				}
			}, permission.Allow, permission.Ask},
		{"session mode", func(w *cacheWorld) map[string]any { return withSession(w.bash("npm test"), "s3") },
			func(t *testing.T, w *cacheWorld) {
				if err := w.eng.SetSessionMode(ctx, "s3", "DONT_ASK"); err != nil {
					t.Fatal(err)
				}
			}, permission.Ask, permission.Deny},
		{"settings file edited", func(w *cacheWorld) map[string]any { return w.bash("npm run build") },
			func(t *testing.T, w *cacheWorld) {
				l := settings.NewLayers(settings.LayerOptions{ProjectDir: w.dir, ManagedDir: w.dir + "/managed", UserDir: w.home + "/cfg", Environ: []string{}, Home: w.home, Cwd: w.dir})
				if errs := l.Attach(ctx, w.eng); len(errs) > 0 {
					t.Fatal(errs)
				}
				writeFile(t, w.dir+"/.permopa/settings.yaml", "permissions:\n  allow: [\"Bash(npm run build)\"]\n")
				trustProject(t, w.home+"/cfg", w.dir)
				if errs := l.Reload(ctx); len(errs) > 0 {
					t.Fatal(errs)
				}
			}, permission.Ask, permission.Allow},
		{"rule written by rules add", func(w *cacheWorld) map[string]any { return w.bash("cargo build") },
			func(t *testing.T, w *cacheWorld) {
				l := settings.NewLayers(settings.LayerOptions{ProjectDir: w.dir, ManagedDir: w.dir + "/managed", UserDir: w.home + "/cfg", Environ: []string{}, Home: w.home, Cwd: w.dir})
				if errs := l.Attach(ctx, w.eng); len(errs) > 0 {
					t.Fatal(errs)
				}
				if _, err := l.AddRules(ctx, settings.DestinationLocal, "", mustRules(t, "DENY Bash(cargo:*)"), 0); err != nil {
					t.Fatal(err)
				}
			}, permission.Ask, permission.Deny},
		{"symlink re-pointed at a credential", func(w *cacheWorld) map[string]any { return w.read("notes/link") },
			func(t *testing.T, w *cacheWorld) { repoint(t, w.dir+"/notes/link", w.home+"/.ssh/id_rsa") },
			permission.Allow, permission.Ask},
		{"symlink re-pointed, Bash", func(w *cacheWorld) map[string]any { return w.bash("cat notes/link") },
			func(t *testing.T, w *cacheWorld) { repoint(t, w.dir+"/notes/link", w.home+"/.ssh/id_rsa") },
			permission.Allow, permission.Ask},
		{"symlink re-pointed inside the project", func(w *cacheWorld) map[string]any { return w.bash("cat notes/link") },
			func(t *testing.T, w *cacheWorld) { repoint(t, w.dir+"/notes/link", w.dir+"/README.md") },
			permission.Ask, permission.Allow},
		{"bare repository appears", func(w *cacheWorld) map[string]any { return w.bash("git -C e status") },
			func(t *testing.T, w *cacheWorld) {
				writeFile(t, w.dir+"/e/HEAD", "ref: refs/heads/main\n")
				for _, d := range []string{"objects", "refs"} {
					if err := os.MkdirAll(w.dir+"/e/"+d, 0o755); err != nil {
						t.Fatal(err)
					}
				}
			}, permission.Allow, permission.Ask},
		{"a repository whose config runs a program appears", func(w *cacheWorld) map[string]any { return w.bash("git -C r status") },
			func(t *testing.T, w *cacheWorld) {
				// A .git directory (not bare): only its configuration is new.
				writeFile(t, w.dir+"/r/.git/HEAD", "ref: refs/heads/main\n")
				writeFile(t, w.dir+"/r/.git/config", "[core]\n\tfsmonitor = touch x\n")
				for _, d := range []string{"objects", "refs"} {
					if err := os.MkdirAll(w.dir+"/r/.git/"+d, 0o755); err != nil {
						t.Fatal(err)
					}
				}
			}, permission.Allow, permission.Ask},
		{"glob meets a new file", func(w *cacheWorld) map[string]any { return w.bash("cat notes/*") },
			func(t *testing.T, w *cacheWorld) {
				if err := os.Symlink(w.home+"/.ssh/id_rsa", w.dir+"/notes/key"); err != nil {
					t.Fatal(err)
				}
			}, permission.Allow, permission.Ask},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newCacheWorld(t)
			if c.name == "symlink re-pointed inside the project" {
				repoint(t, w.dir+"/notes/link", w.home+"/.ssh/id_rsa")
			}
			if c.name == "session rule revoked" {
				if err := w.eng.AddSessionRules(ctx, "s2", mustRules(t, "ALLOW Bash(make)")...); err != nil {
					t.Fatal(err)
				}
			}
			in := c.input(w)
			first := w.eng.Decide(ctx, in)
			again := w.eng.Decide(ctx, in)
			st := w.eng.CacheStats()
			if first.Behavior != c.before || !reflect.DeepEqual(first, again) || st.Hits != 1 {
				t.Fatalf("before: %+v, again %+v (want %s, served from the cache: %+v)", first, again, c.before, st)
			}
			c.change(t, w)
			after := w.eng.Decide(ctx, in)
			if after.Behavior != c.after {
				t.Fatalf("after the change: %+v, want %s (%+v)", after, c.after, w.eng.CacheStats())
			}
			if st2 := w.eng.CacheStats(); st2.Hits != 1 {
				t.Errorf("the changed call was served from the cache: %+v", st2)
			}
		})
	}
}

func repoint(t *testing.T, link, target string) {
	t.Helper()
	tmp := link + ".tmp"
	if err := os.Symlink(target, tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, link); err != nil {
		t.Fatal(err)
	}
}

// A session rule that expires stops matching at its time, cached or not.
func TestDecisionCacheRuleExpiry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newCacheWorld(t)
	// Started just after a whole second, so that the two decisions before
	// the expiry have that second (under load, from late in a second they
	// came after it).
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second)))
	rules, err := settings.WithExpiry(mustRules(t, "ALLOW Bash(npm test)"), time.Millisecond) // the next whole second
	if err != nil {
		t.Fatal(err)
	}
	if err := w.eng.AddSessionRules(ctx, "s", rules...); err != nil {
		t.Fatal(err)
	}
	in := withSession(w.bash("npm test"), "s")
	for range 2 {
		if d := w.eng.Decide(ctx, in); d.Behavior != permission.Allow {
			t.Fatalf("before expiry: %+v", d)
		}
	}
	if st := w.eng.CacheStats(); st.Hits != 1 {
		t.Fatalf("not served from the cache: %+v", st)
	}
	at, err := time.Parse(time.RFC3339, rules[0].Expires)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Until(at) + 20*time.Millisecond)
	if d := w.eng.Decide(ctx, in); d.Behavior != permission.Ask {
		t.Fatalf("after expiry: %+v", d)
	}
}

// A shared engine (the OPA plugin's) sees every commit to its store: an
// org rules bundle activated, data written by anyone; and a recompiled
// policy.
func TestDecisionCacheSharedStore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srcs := map[string]string{}
	if err := fs.WalkDir(defaultpolicy.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".rego") || strings.HasSuffix(p, "_test.rego") {
			return err
		}
		b, err := fs.ReadFile(defaultpolicy.FS, p)
		srcs[p] = string(b)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	compiler, err := ast.CompileModulesWithOpt(srcs, ast.CompileOpts{})
	if err != nil {
		t.Fatal(err)
	}
	store := inmem.NewWithOpts(inmem.OptReturnASTValuesOnRead(true))
	eng, err := shared.New(ctx, store, compiler, engine.WithSettings(settings.Settings{Home: "/home/u", Cwd: "/w"}), engine.WithDecisionCache(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	in := map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "curl -s https://x.example"}, "cwd": "/w", "tool_use_id": "t1"}
	first := eng.Decide(ctx, in)
	in["tool_use_id"] = "t2"
	again := eng.Decide(ctx, in)
	if st := eng.CacheStats(); first.Behavior != permission.Ask || again.Behavior != permission.Ask || st.Hits != 1 || again.ToolUseID != "t2" {
		t.Fatalf("before: %+v %+v %+v", first, again, st)
	}
	dir := t.TempDir()
	writeFile(t, dir+"/org.yaml", "permissions:\n  deny: [\"Bash(curl:*)\"]\n")
	doc, _, err := settings.ExportRules([]string{dir + "/org.yaml"}, settings.ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// What a bundle activation does to the store: write its data.
	if err := storage.Txn(ctx, store, storage.WriteParams, func(txn storage.Transaction) error {
		return store.Write(ctx, txn, storage.AddOp, storage.MustParsePath("/permopa/rules"), doc)
	}); err != nil {
		t.Fatal(err)
	}
	if d := eng.Decide(ctx, in); d.Behavior != permission.Deny || d.Step != permission.StepDenyRule {
		t.Fatalf("after the org bundle: %+v", d)
	}
	// Through a read transaction as the plugin decides.
	var d permission.Decision
	_ = storage.Txn(ctx, store, storage.TransactionParams{}, func(txn storage.Transaction) error {
		d = shared.DecideIn(eng, ctx, txn, in)
		return nil
	})
	if d.Behavior != permission.Deny {
		t.Fatalf("DecideIn: %+v", d)
	}
	// A recompiled policy that answers otherwise.
	srcs["extra.rego"] = "package permopa.policy.extra\n\nx := 1\n"
	c2, err := ast.CompileModulesWithOpt(srcs, ast.CompileOpts{})
	if err != nil {
		t.Fatal(err)
	}
	if err := shared.Recompile(eng, ctx, c2); err != nil {
		t.Fatal(err)
	}
	if st := eng.CacheStats(); st.Disabled != "" {
		t.Fatalf("default policy plus a module: %+v", st)
	}
	custom := map[string]string{"t.rego": "package t\n\ndecision := {\"behavior\": \"ALLOW\", \"message\": \"m\", \"reason\": \"r\", \"step\": \"allow_rule\", \"bypass_immune\": false, \"matched_rule\": null, \"suggested_rules\": []}\n"}
	ceng, err := shared.New(ctx, inmem.New(), ast.MustCompileModules(custom), engine.WithQuery("data.t.decision"), engine.WithDecisionCache(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if d := ceng.Decide(ctx, in); d.Behavior != permission.Allow || d.ToolUseID != nil {
			t.Fatalf("custom policy: %+v", d)
		}
	}
	custom["t.rego"] = strings.Replace(custom["t.rego"], "ALLOW", "DENY", 1)
	if err := shared.Recompile(ceng, ctx, ast.MustCompileModules(custom)); err != nil {
		t.Fatal(err)
	}
	if d := ceng.Decide(ctx, in); d.Behavior != permission.Deny {
		t.Fatalf("after recompiling: %+v (%+v)", d, ceng.CacheStats())
	}
}

// The key: the same call spelt with its keys in another order is the
// same entry; calls differing in any field the policy reads (mode, cwd,
// session, working directories, the command) are other entries, each
// with its own right answer; a tool_use_id only comes back in its own
// decision.
func TestDecisionCacheKey(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newCacheWorld(t)
	a := fmt.Sprintf(`{"tool_name":"Bash","tool_input":{"command":"npm test"},"cwd":%q,"tool_use_id":"a"}`, w.dir)
	b := fmt.Sprintf(`{"cwd":%q,"tool_use_id":"b","tool_input":{"command":"npm test"},"tool_name":"Bash"}`, w.dir)
	da, db := w.eng.DecideJSON(ctx, []byte(a)), w.eng.DecideJSON(ctx, []byte(b))
	if st := w.eng.CacheStats(); st.Hits != 1 || da.ToolUseID != "a" || db.ToolUseID != "b" || da.Behavior != db.Behavior {
		t.Fatalf("reordered keys: %+v %+v %+v", da, db, st)
	}
	fresh, err := engine.New(ctx, engine.WithSettings(settings.Settings{Home: w.home, Cwd: w.dir}))
	if err != nil {
		t.Fatal(err)
	}
	variants := []map[string]any{
		w.bash("npm test"),
		{"tool_name": "Bash", "tool_input": map[string]any{"command": "npm test"}, "cwd": w.dir, "permission_mode": "bypassPermissions"},
		{"tool_name": "Bash", "tool_input": map[string]any{"command": "npm test"}, "cwd": w.dir, "permission_mode": "dontAsk"},
		{"tool_name": "Bash", "tool_input": map[string]any{"command": "npm test"}, "cwd": w.dir, "permission_mode": "plan"},
		{"tool_name": "Bash", "tool_input": map[string]any{"command": "cat ../home/.ssh/id_rsa"}, "cwd": w.dir},
		{"tool_name": "Bash", "tool_input": map[string]any{"command": "cat .ssh/id_rsa"}, "cwd": w.home},
		{"tool_name": "Bash", "tool_input": map[string]any{"command": "cat ../home/.ssh/id_rsa"}, "cwd": w.dir, "working_directories": []any{w.home}},
		{"tool_name": "Read", "tool_input": map[string]any{"file_path": "README.md"}, "cwd": w.dir},
		{"tool_name": "Read", "tool_input": map[string]any{"file_path": "README.md"}, "cwd": w.home},
		{"tool_name": "Read", "tool_input": map[string]any{"file_path": "README.md", "limit": 1}, "cwd": w.dir},
		{"tool_name": "Write", "tool_input": map[string]any{"file_path": "README.md", "content": "x"}, "cwd": w.dir},
		{"tool_name": "Write", "tool_input": map[string]any{"file_path": "README.md", "content": "x"}, "cwd": w.dir, "permission_mode": "acceptEdits"},
		{"tool_name": "Bash", "tool_input": map[string]any{"command": "npm test"}, "cwd": w.dir, "session_id": "x",
			"permission_context": map[string]any{"allow_rules": map[string]any{"Bash": []any{map[string]any{"tool_name": "Bash", "rule_content": "npm test", "behavior": "ALLOW"}}}}},
		{"tool_name": "Bash", "tool_input": map[string]any{"command": "npm test"}, "cwd": w.dir, "permission_context": map[string]any{"mode": "DONT_ASK"}},
		{"tool_name": "mcp__x__y", "tool_input": map[string]any{}, "read_only": true},
		{"tool_name": "mcp__x__y", "tool_input": map[string]any{}, "read_only": false},
		{"tool_name": "mcp__x__y", "tool_input": map[string]any{}, "tool_check": map[string]any{"behavior": "DENY", "message": "no"}},
	}
	for round := range 2 {
		for _, in := range variants {
			got, want := w.eng.Decide(ctx, in), fresh.Decide(ctx, in)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("round %d, %v: cached engine %+v, fresh engine %+v", round, in, got, want)
			}
		}
	}
	if st := w.eng.CacheStats(); st.Hits < uint64(len(variants)) {
		t.Errorf("the second round was not served from the cache: %+v", st)
	}
	// Changing a decision handed out does not change the cache's.
	d := w.eng.Decide(ctx, variants[0])
	if len(d.SuggestedRules) > 0 {
		d.SuggestedRules[0].ToolName = "changed"
	}
	if d2 := w.eng.Decide(ctx, variants[0]); len(d2.SuggestedRules) > 0 && d2.SuggestedRules[0].ToolName == "changed" {
		t.Errorf("a caller changed the cached decision: %+v", d2)
	}
}

// Faults are never cached, nor a policy whose answers the cache cannot
// check again, nor an input beyond the size bound; the entries stay
// within their bound.
func TestDecisionCacheBounds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newCacheWorld(t, engine.WithDecisionCache(3, 0))
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if d := w.eng.Decide(cancelled, w.bash("ls")); d.Code != permission.CodeTimeout {
		t.Fatalf("cancelled: %+v", d)
	}
	if d := w.eng.Decide(ctx, w.bash("ls")); d.Behavior != permission.Allow {
		t.Fatalf("after a timeout, the call's own answer: %+v", d)
	}
	if d := w.eng.Decide(ctx, map[string]any{"tool_name": "Bash"}); d.Code != permission.CodeInputError {
		t.Fatalf("bad input: %+v", d)
	}
	before := w.eng.CacheStats()
	big := w.bash("echo " + strings.Repeat("x", engine.DefaultCacheMaxInput))
	for range 2 {
		w.eng.Decide(ctx, big)
	}
	st := w.eng.CacheStats()
	if st.Hits != before.Hits || st.Uncacheable < before.Uncacheable+2 {
		t.Errorf("a huge input was cached: %+v then %+v", before, st)
	}
	for i := range 10 {
		w.eng.Decide(ctx, w.bash(fmt.Sprintf("echo %d", i)))
	}
	if st := w.eng.CacheStats(); st.Entries > 3 {
		t.Errorf("entries beyond the bound: %+v", st)
	}

	dir := t.TempDir()
	writeFile(t, dir+"/p.rego", "package t\n\ndecision := {\"behavior\": \"ALLOW\", \"message\": sprintf(\"%d\", [time.now_ns()]), \"reason\": \"r\", \"step\": \"allow_rule\"}\n")
	eng, err := engine.New(ctx, engine.WithoutDefaultPolicy(), engine.WithPolicyPaths(dir+"/p.rego"), engine.WithQuery("data.t.decision"), engine.WithDecisionCache(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	a, b := eng.Decide(ctx, w.bash("ls")), eng.Decide(ctx, w.bash("ls"))
	if st := eng.CacheStats(); st.Hits != 0 || !strings.Contains(st.Disabled, "time.now_ns") || a.Message == b.Message {
		t.Errorf("a policy reading the clock was cached: %+v %+v %+v", a, b, st)
	}
}

// Many goroutines deciding the same calls while the rules change: every
// answer is one the rules in force at some point give, and once the
// changes stop every answer is the final rules' (go test -race).
func TestDecisionCacheConcurrent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newCacheWorld(t)
	allow, none := mustRules(t, "ALLOW Bash(npm test)"), []permission.Rule(nil)
	in := w.bash("npm test")
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if d := w.eng.Decide(ctx, in); d.Behavior != permission.Allow && d.Behavior != permission.Ask {
					t.Errorf("%+v", d)
				}
			}
		}()
	}
	for i := range 40 {
		rules := none
		if i%2 == 0 {
			rules = allow
		}
		if err := w.eng.UpdateSettings(ctx, func(s *settings.Settings) error { s.Rules = rules; return nil }); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond)
	}
	close(stop)
	wg.Wait()
	for range 3 {
		if d := w.eng.Decide(ctx, in); d.Behavior != permission.Ask {
			t.Fatalf("after the last change (no rules): %+v", d)
		}
	}
}
