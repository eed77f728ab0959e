package opaplugin

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/open-policy-agent/opa/v1/bundle"
	"github.com/open-policy-agent/opa/v1/plugins"
	bundleplugin "github.com/open-policy-agent/opa/v1/plugins/bundle"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/storage/inmem"

	"github.com/permopa/permopa/internal/decisionlog"
	"github.com/permopa/permopa/internal/engineops"
	"github.com/permopa/permopa/permission"
)

// bundleServer serves bundles over HTTP on loopback; set replaces one.
type bundleServer struct {
	mu      sync.Mutex
	bundles map[string][]byte
	srv     *httptest.Server
}

func newBundleServer(t testing.TB) *bundleServer {
	bs := &bundleServer{bundles: map[string][]byte{}}
	bs.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		bs.mu.Lock()
		b, ok := bs.bundles[strings.TrimPrefix(r.URL.Path, "/")]
		bs.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(b)
	}))
	t.Cleanup(bs.srv.Close)
	return bs
}

// set builds a bundle of Rego modules (file name → source) and data, with
// the given manifest roots (nil: no roots, the bundle owns everything).
func (bs *bundleServer) set(t *testing.T, name, revision string, roots []string, modules map[string]string, data map[string]any) {
	t.Helper()
	b := bundle.Bundle{Manifest: bundle.Manifest{Revision: revision}, Data: data}
	if roots != nil {
		b.Manifest.Roots = &roots
	}
	if b.Data == nil {
		b.Data = map[string]any{}
	}
	for file, src := range modules {
		b.Modules = append(b.Modules, bundle.ModuleFile{URL: "/" + file, Path: "/" + file, Raw: []byte(src)})
	}
	var buf bytes.Buffer
	if err := bundle.NewWriter(&buf).Write(b); err != nil {
		t.Fatal(err)
	}
	bs.mu.Lock()
	bs.bundles[name] = buf.Bytes()
	bs.mu.Unlock()
}

type harness struct {
	m      *plugins.Manager
	p      *Plugin
	bundle *bundleplugin.Plugin
}

// start runs a real plugins.Manager over an inmem store with the bundle
// plugin (manual trigger, one bundle "org" from bs) and the permopa plugin
// configured by pluginConfig.
func start(t testing.TB, bs *bundleServer, pluginConfig string, before ...func(*plugins.Manager)) *harness {
	t.Helper()
	ctx := context.Background()
	raw := `{"services": {"s": {"url": "` + bs.srv.URL + `"}},
		"bundles": {"org": {"service": "s", "resource": "org", "trigger": "manual"}},
		"plugins": {"permopa": ` + pluginConfig + `}}`
	m, err := plugins.New([]byte(raw), "test", inmem.New())
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Init(ctx); err != nil {
		t.Fatal(err)
	}
	for _, f := range before {
		f(m)
	}
	manual := plugins.TriggerManual
	bcfg, err := bundleplugin.NewConfigBuilder().WithBytes(m.Config.Bundles).WithServices(m.Services()).WithTriggerMode(&manual).Parse()
	if err != nil {
		t.Fatal(err)
	}
	bp := bundleplugin.New(bcfg, m)
	m.Register(bundleplugin.Name, bp)
	cfg, err := Factory{}.Validate(m, m.Config.Plugins[Name])
	if err != nil {
		t.Fatal(err)
	}
	p := Factory{}.New(m, cfg).(*Plugin)
	m.Register(Name, p)
	if err := m.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Stop(ctx) })
	return &harness{m: m, p: p, bundle: bp}
}

func (h *harness) decide(t *testing.T, input string) permission.Decision {
	t.Helper()
	var in any
	if err := json.Unmarshal([]byte(input), &in); err != nil {
		t.Fatal(err)
	}
	d, err := h.p.decide(context.Background(), in, nil)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func (h *harness) trigger(t *testing.T) {
	t.Helper()
	if err := h.bundle.Trigger(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func (h *harness) embeddedInstalled() bool {
	_, ok := h.m.GetCompiler().Modules[EmbeddedPolicyPrefix+"permopa/policy/decision.rego"]
	return ok
}

func settingsDir(t *testing.T, yaml string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".permopa"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".permopa", "settings.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	// The server's user (layersConfig's user_dir) trusts the project.
	trustProjects(t, filepath.Join(dir, "user"), dir)
	return dir
}

func layersConfig(dir string) string {
	return `{"settings": {"managed_dir": "` + dir + `/managed", "project_dir": "` + dir + `", "user_dir": "` + dir + `/user"}}`
}

// noWait turns wait_for_bundles off in a plugin configuration, for tests
// whose harness bundle is never served.
func noWait(config string) string {
	return strings.Replace(config, "{", `{"wait_for_bundles": false, `, 1)
}

const rmCall = `{"tool_name": "Bash", "tool_input": {"command": "rm -rf build"}, "cwd": "/tmp", "tool_use_id": "t1"}`

// A bundle whose roots own permopa/policy replaces the embedded policy
// when it is activated (OPA erases store policies under its roots), and
// the plugin's query follows the new compiler: activating it does not
// deadlock in the compiler trigger, and the next decision is the bundle's.
func TestPolicyBundleReplacesEmbeddedPolicy(t *testing.T) {
	t.Parallel()
	bs := newBundleServer(t)
	h := start(t, bs, `{"wait_for_bundles": false}`)
	if !h.embeddedInstalled() {
		t.Fatal("the embedded policy is not installed")
	}
	if d := h.decide(t, rmCall); d.Behavior != permission.Ask || d.Step != permission.StepModeFallback {
		t.Fatalf("embedded policy: %+v", d)
	}
	bs.set(t, "org", "org-1", []string{"permopa/policy"}, map[string]string{"org.rego": `package permopa.policy
decision := {"behavior": "DENY", "message": "org policy: everything denied", "reason": "org", "step": "deny_rule", "suggested_rules": []}
`}, nil)
	h.trigger(t)
	if h.embeddedInstalled() {
		t.Error("the embedded policy survived a bundle owning permopa/policy")
	}
	d := h.decide(t, rmCall)
	if d.Behavior != permission.Deny || d.Message != "org policy: everything denied" {
		t.Fatalf("after the org bundle: %+v", d)
	}
}

// A bundle with another root (a custom tool's checks) extends the
// embedded policy.
func TestCustomToolBundleExtendsEmbeddedPolicy(t *testing.T) {
	t.Parallel()
	bs := newBundleServer(t)
	bs.set(t, "org", "custom-1", []string{"permopa/custom/deploy"}, map[string]string{"deploy.rego": `package permopa.custom.deploy
check := {"behavior": "ASK", "bypass_immune": true, "message": "production deploy"} if input.tool_input.target == "prod"
`}, nil)
	h := start(t, bs, `{}`)
	h.trigger(t)
	if !h.embeddedInstalled() {
		t.Fatal("the custom tool bundle erased the embedded policy")
	}
	d := h.decide(t, `{"tool_name": "deploy", "tool_input": {"target": "prod"}, "permission_mode": "acceptEdits"}`)
	if d.Behavior != permission.Ask || d.Step != permission.StepToolCheck || d.Message != "production deploy" {
		t.Fatalf("deploy prod: %+v", d)
	}
	if d := h.decide(t, rmCall); d.Behavior != permission.Ask {
		t.Fatalf("Bash under the extended policy: %+v", d)
	}
}

// A bundle without roots owns the whole data tree: each activation erases
// the embedded policy and the settings document. The plugin puts both
// back, so the settings' deny rule still holds after the activation.
func TestRootlessBundleKeepsSettingsDenyRules(t *testing.T) {
	t.Parallel()
	dir := settingsDir(t, "permissions:\n  deny: [\"Bash(rm:*)\"]\n")
	bs := newBundleServer(t)
	bs.set(t, "org", "rootless-1", nil, map[string]string{"extra.rego": "package permopa.custom.noop\nread_only := false\n"}, map[string]any{"other": map[string]any{"x": 1}})
	h := start(t, bs, noWait(layersConfig(dir)))
	if d := h.decide(t, rmCall); d.Behavior != permission.Deny || d.Step != permission.StepDenyRule || d.MatchedRule.Layer != filepath.Join(dir, ".permopa", "settings.yaml") {
		t.Fatalf("before the bundle: %+v", d)
	}
	// Decisions made while the bundle is activated never lose the deny rule.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var bad []permission.Decision
	var badMu sync.Mutex
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var in any
			_ = json.Unmarshal([]byte(rmCall), &in)
			for {
				select {
				case <-stop:
					return
				default:
				}
				d, err := h.p.decide(context.Background(), in, nil)
				if err != nil || d.Behavior != permission.Deny || d.Step != permission.StepDenyRule {
					badMu.Lock()
					bad = append(bad, d)
					badMu.Unlock()
				}
			}
		}()
	}
	h.trigger(t)
	close(stop)
	wg.Wait()
	if len(bad) > 0 {
		t.Fatalf("%d decisions during the activation were not the deny rule's, e.g. %+v", len(bad), bad[0])
	}
	d := h.decide(t, rmCall)
	if d.Behavior != permission.Deny || d.Step != permission.StepDenyRule {
		t.Fatalf("after a rootless bundle: %+v", d)
	}
	if !h.embeddedInstalled() {
		t.Error("the embedded policy was not put back")
	}
	// OPA's own data API reads the same document.
	err := storage.Txn(context.Background(), h.m.Store, storage.TransactionParams{}, func(txn storage.Transaction) error {
		_, err := h.m.Store.Read(context.Background(), txn, engineops.SettingsPath)
		return err
	})
	if err != nil {
		t.Fatalf("data.permopa.settings after the activation: %v", err)
	}
	if st := h.m.PluginStatus()[Name]; st == nil || st.State != plugins.StateOK {
		t.Errorf("plugin status %+v", st)
	}
}

// A bundle whose roots cover permopa/settings would replace the rules:
// the plugin refuses, in an ERROR state where every decision is DENY.
func TestBundleOwningSettingsFailsClosed(t *testing.T) {
	t.Parallel()
	bs := newBundleServer(t)
	h := start(t, bs, `{}`)
	bs.set(t, "org", "bad-1", []string{"permopa/settings"}, nil, map[string]any{
		"permopa": map[string]any{"settings": map[string]any{"default_mode": "bypassPermissions"}},
	})
	h.trigger(t)
	d := h.decide(t, `{"tool_name": "Read", "tool_input": {"file_path": "/tmp/x"}}`)
	if d.Behavior != permission.Deny || d.Step != permission.StepError || d.Code != permission.CodeSettingsOwnedByBundle || !strings.Contains(d.Message, `"org"`) {
		t.Fatalf("decision under a bundle owning settings: %+v", d)
	}
	st := h.m.PluginStatus()[Name]
	if st == nil || st.State != plugins.StateErr || !strings.Contains(st.Message, permission.CodeSettingsOwnedByBundle) {
		t.Fatalf("plugin status %+v", st)
	}
}

// default_policy off leaves the policy to bundles: with none, every
// decision fails closed.
func TestDefaultPolicyOff(t *testing.T) {
	t.Parallel()
	bs := newBundleServer(t)
	h := start(t, bs, `{"default_policy": "off", "wait_for_bundles": false}`)
	if h.embeddedInstalled() {
		t.Fatal("installed with default_policy off")
	}
	d := h.decide(t, `{"tool_name": "Read", "tool_input": {"file_path": "/tmp/x"}}`)
	if d.Behavior != permission.Deny || d.Code != permission.CodeUndefinedDecision {
		t.Fatalf("no policy: %+v", d)
	}
}

func TestParseConfig(t *testing.T) {
	t.Parallel()
	c, err := ParseConfig(nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.DefaultPolicy != PolicyAuto || c.ConfirmDestination != "session" || c.MaxBodyBytes != DefaultMaxBodyBytes ||
		c.Path != DefaultPath || c.Query() != "data.permopa.policy.decision" || !reflect.DeepEqual(len(c.mask()), len(DefaultMask)) {
		t.Fatalf("defaults: %+v", c)
	}
	for raw, field := range map[string]string{
		`{"default_policy": "yes"}`:                "plugins.permopa.default_policy",
		`{"confirm_destination": "disk"}`:          "plugins.permopa.confirm_destination",
		`{"max_body_bytes": -1}`:                   "plugins.permopa.max_body_bytes",
		`{"max_body_bytes": "1MB"}`:                "plugins.permopa.max_body_bytes",
		`{"decision_logs": {"mask": ["/result"]}}`: "plugins.permopa.decision_logs.mask[0]",
		`{"settings": {"files": [""]}}`:            "plugins.permopa.settings.files[0]",
		`{"settings": {"watch": "yes"}}`:           "plugins.permopa.settings.watch",
		`{"path": "//"}`:                           "plugins.permopa.path",
		`{"settigns": {}}`:                         `unknown field "settigns"`,
		`{"settings": {"project": "/x"}}`:          `unknown field "project"`,
		`["not", "an", "object"]`:                  "plugins.permopa",
		`{"decision_logs": {"mask": "/input/x"}}`:  "plugins.permopa.decision_logs.mask",
		`{"confirm_destination": "project"} trail`: "trailing",
	} {
		_, err := ParseConfig([]byte(raw))
		if err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("%s: error %v, want one naming %s", raw, err, field)
		}
	}
	c, err = ParseConfig([]byte(`{"path": "acme/permissions/decision", "decision_logs": {"mask": []}}`))
	if err != nil || c.Query() != "data.acme.permissions.decision" || len(c.mask()) != 0 {
		t.Fatalf("custom: %+v %v", c, err)
	}
}

// Masking erases content fields from a copy; the evaluated input keeps them.
func TestMaskInput(t *testing.T) {
	t.Parallel()
	in := map[string]any{"tool_name": "Write", "tool_input": map[string]any{"file_path": "/a", "content": "secret"}}
	out, erased := decisionlog.MaskSegments(in, (&Config{}).mask())
	if got := out.(map[string]any)["tool_input"].(map[string]any); got["content"] != nil || got["file_path"] != "/a" {
		t.Fatalf("masked %v", got)
	}
	if !reflect.DeepEqual(erased, []string{"/input/tool_input/content"}) {
		t.Fatalf("erased %v", erased)
	}
	if in["tool_input"].(map[string]any)["content"] != "secret" {
		t.Fatal("the input was changed")
	}
}

// Settings problems are reported in the plugin status: WARN for an
// invalid allow rule (the rules that could be read apply), ERROR for an
// invalid deny rule, where every check is DENY (a deny rule may be
// missing).
func TestSettingsProblemsStatus(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		yaml  string
		state plugins.State
	}{
		{"permissions:\n  deny: [\"Bash(git push:*)\"]\n  allow: [\"Bash(bad\"]\n", plugins.StateWarn},
		{"permissions:\n  deny: [\"Bash(git push:*)\", \"Bash(bad\"]\n", plugins.StateErr},
	} {
		dir := settingsDir(t, c.yaml)
		h := start(t, newBundleServer(t), noWait(layersConfig(dir)))
		st := h.m.PluginStatus()[Name]
		if st == nil || st.State != c.state || !strings.Contains(st.Message, "Bash(bad") {
			t.Errorf("%q: status %+v, want %s naming the rule", c.yaml, st, c.state)
		}
		d := h.decide(t, `{"tool_name": "Bash", "tool_input": {"command": "git push"}, "cwd": "/tmp"}`)
		if d.Behavior != permission.Deny || d.Step != permission.StepDenyRule && (c.state != plugins.StateErr || d.Code != permission.CodeSettingsUnreadable) {
			t.Errorf("%q: the valid deny rule: %+v", c.yaml, d)
		}
		d = h.decide(t, `{"tool_name": "Read", "tool_input": {"file_path": "/tmp/x"}, "cwd": "/tmp"}`)
		if (d.Behavior == permission.Allow) != (c.state == plugins.StateWarn) {
			t.Errorf("%q: a read-only call: %+v", c.yaml, d)
		}
	}
}

// With settings.watch, an edited settings file applies without a restart.
func TestSettingsWatch(t *testing.T) {
	t.Parallel()
	dir := settingsDir(t, "permissions:\n  deny: []\n")
	h := start(t, newBundleServer(t), `{"wait_for_bundles": false, "settings": {"watch": true, "project_dir": "`+dir+`", "managed_dir": "`+dir+`/m", "user_dir": "`+dir+`/u"}}`)
	call := `{"tool_name": "Bash", "tool_input": {"command": "git push"}, "cwd": "/tmp"}`
	if d := h.decide(t, call); d.Behavior != permission.Ask {
		t.Fatalf("before: %+v", d)
	}
	if err := os.WriteFile(filepath.Join(dir, ".permopa", "settings.yaml"), []byte("permissions:\n  deny: [\"Bash(git push:*)\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Bounded wait for the watcher, not a timing assertion.
	for i := 0; ; i++ {
		d := h.decide(t, call)
		if d.Behavior == permission.Deny && d.Step == permission.StepDenyRule {
			break
		}
		if i == 300 {
			t.Fatalf("the edited file never applied: %+v", d)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A new configuration (from discovery) rebuilds the engine and keeps the
// rules accepted at runtime.
func TestReconfigureKeepsSessionRules(t *testing.T) {
	t.Parallel()
	dir := settingsDir(t, "permissions:\n  deny: []\n")
	h := start(t, newBundleServer(t), noWait(layersConfig(dir)))
	call := `{"tool_name": "Bash", "tool_input": {"command": "npm install"}, "cwd": "/tmp", "session_id": "s1"}`
	content := "npm install:*"
	if err := h.p.Engine().AddSessionRules(context.Background(), "s1", permission.Rule{ToolName: "Bash", RuleContent: &content, Behavior: permission.Allow}); err != nil {
		t.Fatal(err)
	}
	if d := h.decide(t, call); d.Behavior != permission.Allow {
		t.Fatalf("before: %+v", d)
	}
	old := h.p.Engine()
	cfg, err := ParseConfig([]byte(`{"wait_for_bundles": false, "confirm_destination": "project", "settings": {"project_dir": "` + dir + `", "managed_dir": "` + dir + `/m", "user_dir": "` + dir + `/u"}}`))
	if err != nil {
		t.Fatal(err)
	}
	h.p.Reconfigure(context.Background(), cfg)
	if h.p.Engine() == old || h.p.Config().ConfirmDestination != "project" {
		t.Fatal("not reconfigured")
	}
	if d := h.decide(t, call); d.Behavior != permission.Allow || d.MatchedRule == nil || d.MatchedRule.Layer != "session:s1" {
		t.Fatalf("after: %+v", d)
	}
}

// BenchmarkPluginDecide measures one check inside the plugin (store
// transaction, settings presence check, prepared query), without HTTP.
func BenchmarkPluginDecide(b *testing.B) {
	h := start(b, newBundleServer(b), `{"wait_for_bundles": false}`)
	var in any
	_ = json.Unmarshal([]byte(`{"tool_name": "Bash", "tool_input": {"command": "ls -la src | grep foo && git diff --stat"}, "cwd": "/w"}`), &in)
	b.ResetTimer()
	for b.Loop() {
		if d, _ := h.p.decide(context.Background(), in, nil); d.Behavior != permission.Allow {
			b.Fatalf("%+v", d)
		}
	}
}

// default_policy on next to a module that conflicts with the embedded
// policy: the plugin reports the conflict and fails closed, and does not
// keep installing and removing the policy.
func TestEmbeddedPolicyConflict(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := start(t, newBundleServer(t), `{"default_policy": "on"}`, func(m *plugins.Manager) {
		err := storage.Txn(ctx, m.Store, storage.WriteParams, func(txn storage.Transaction) error {
			return m.Store.UpsertPolicy(ctx, txn, "mine.rego", []byte("package permopa.policy\n\ndecision(x) := x\n"))
		})
		if err != nil {
			t.Fatal(err)
		}
	})
	if h.embeddedInstalled() {
		t.Fatal("a conflicting embedded policy was left in the store")
	}
	d := h.decide(t, rmCall)
	if d.Behavior != permission.Deny || d.Code != permission.CodeEmbeddedPolicyError {
		t.Fatalf("decision: %+v", d)
	}
	gen := h.p.gen.Load()
	h.decide(t, rmCall)
	h.p.refresh()
	if h.p.gen.Load() != gen {
		t.Fatalf("the plugin keeps rewriting the store: generation %d → %d", gen, h.p.gen.Load())
	}
	if st := h.m.PluginStatus()[Name]; st == nil || st.State != plugins.StateErr || !strings.Contains(st.Message, permission.CodeEmbeddedPolicyError) {
		t.Fatalf("status %+v", st)
	}
}

// Until a configured bundle has been activated, its rules could be missing
// from a decision (an organisation's deny rules): checks fail closed.
func TestChecksWaitForBundles(t *testing.T) {
	t.Parallel()
	bs := newBundleServer(t)
	h := start(t, bs, `{}`)
	readCall := `{"tool_name": "Read", "tool_input": {"file_path": "/etc/hosts"}, "permission_mode": "default"}`
	d := h.decide(t, readCall)
	if d.Behavior != permission.Deny || d.Code != permission.CodeBundlesNotReady || !strings.Contains(d.Message, "org") {
		t.Fatalf("before the bundle arrived: %+v, want DENY %s naming org", d, permission.CodeBundlesNotReady)
	}
	bs.set(t, "org", "r1", []string{"permopa/rules"}, nil, map[string]any{"permopa": map[string]any{"rules": map[string]any{}}})
	h.trigger(t)
	if d := h.decide(t, readCall); d.Behavior != permission.Allow {
		t.Fatalf("after the bundle arrived: %+v, want ALLOW (read-only)", d)
	}

	// wait_for_bundles: false decides at once.
	h2 := start(t, newBundleServer(t), `{"wait_for_bundles": false}`)
	if d := h2.decide(t, readCall); d.Behavior != permission.Allow {
		t.Fatalf("wait_for_bundles false: %+v, want ALLOW", d)
	}
}
