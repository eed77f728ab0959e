package main_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// permopaProc is one `permopa run --server` process on a loopback port.
type permopaProc struct {
	Name   string
	URL    string
	client *http.Client // sends the agents' token (Token)
	// Token is the server's server-token: on TCP every route but a check,
	// a confirm, Claude Code's hook and /health needs one (docs/opa.md §7).
	Token string
	// Pid is the server process (its CPU time: /proc/PID/stat).
	Pid int
}

// bearer adds a token to every request that has none.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Header.Get("Authorization") == "" {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+b.token)
	}
	return b.next.RoundTrip(r)
}

// startPermopaServer starts `permopa run --server` with the given OPA
// configuration (nil for none) and extra arguments (policy or data paths),
// waits until it answers /health, and stops it in tb.Cleanup. Its HOME and
// working directory are empty temporary directories, so no settings of the
// machine's user or of this repository reach it, nor PERMOPA_* variables.
func startPermopaServer(tb testing.TB, name string, config map[string]any, logLevel string, args ...string) *permopaProc {
	tb.Helper()
	dir := tb.TempDir()
	home, cwd := filepath.Join(dir, "home"), filepath.Join(dir, "cwd")
	for _, d := range []string{home, cwd} {
		if err := os.Mkdir(d, 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	base := []string{"run", "--server", "--log-level", logLevel, "--log-format", "json"}
	if config != nil {
		raw, err := json.MarshalIndent(config, "", "  ")
		if err != nil {
			tb.Fatal(err)
		}
		file := filepath.Join(dir, "config.yaml") // JSON is YAML
		if err := os.WriteFile(file, raw, 0o644); err != nil {
			tb.Fatal(err)
		}
		base = append(base, "--config-file", file)
	}
	var lastLogs string
	for range 3 {
		port, err := distFreePort()
		if err != nil {
			tb.Fatal(err)
		}
		addr := "127.0.0.1:" + strconv.Itoa(port)
		cmd := exec.Command(permopaBin, append(append(base, "--addr", addr), args...)...)
		cmd.Dir = cwd
		cmd.Env = append(withoutPermopaVars(os.Environ()), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"))
		logs := &distLog{}
		cmd.Stdout, cmd.Stderr = logs, logs
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			tb.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { _ = cmd.Wait(); close(exited) }()
		url := "http://" + addr
		if err := waitHealthy(url, exited, 60*time.Second); err != nil {
			stopProcess(cmd, exited, syscall.SIGTERM)
			lastLogs = logs.String()
			if strings.Contains(lastLogs, "address already in use") {
				continue
			}
			tb.Fatalf("permopa run --server (%s): %v\n%s", name, err, lastLogs)
		}
		tb.Cleanup(func() {
			stopProcess(cmd, exited, syscall.SIGTERM)
			if tb.Failed() {
				tb.Logf("%s log:\n%s", name, tail(logs.String(), 4000))
			}
		})
		token, err := os.ReadFile(filepath.Join(home, ".config", "permopa", "server-token"))
		if err != nil {
			tb.Fatalf("permopa run --server (%s): its token: %v", name, err)
		}
		tok := strings.TrimSpace(string(token))
		return &permopaProc{Name: name, URL: url, Token: tok, Pid: cmd.Process.Pid, client: &http.Client{Timeout: 10 * time.Second, Transport: bearer{tok, http.DefaultTransport}}}
	}
	tb.Fatalf("permopa run --server (%s): no free port: %s", name, lastLogs)
	return nil
}

// waitHealthy waits for OPA's GET /health to answer 200: the server is up.
func waitHealthy(url string, exited <-chan struct{}, limit time.Duration) error {
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(limit)
	for {
		select {
		case <-exited:
			return fmt.Errorf("the process exited")
		default:
		}
		if resp, err := client.Get(url + "/health"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("GET %s/health: no 200 within %v", url, limit)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func withoutPermopaVars(env []string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "PERMOPA_") {
			out = append(out, kv)
		}
	}
	return out
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}

// post sends a JSON body and decodes the JSON answer.
func (p *permopaProc) post(tb testing.TB, path string, body any) (int, map[string]any) {
	tb.Helper()
	raw, err := json.Marshal(body)
	if err != nil {
		tb.Fatal(err)
	}
	resp, err := p.client.Post(p.URL+path, "application/json", bytes.NewReader(raw))
	if err != nil {
		tb.Fatalf("%s: POST %s: %v", p.Name, path, err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	var doc map[string]any
	if err := json.Unmarshal(out, &doc); err != nil {
		tb.Fatalf("%s: POST %s: %d, not JSON: %q", p.Name, path, resp.StatusCode, out)
	}
	return resp.StatusCode, doc
}

// check asks POST /v1/permission/check for the decision on a call.
func (p *permopaProc) check(tb testing.TB, call map[string]any) map[string]any {
	tb.Helper()
	code, d := p.post(tb, "/v1/permission/check", call)
	if code != http.StatusOK {
		tb.Fatalf("%s: /v1/permission/check: %d %v", p.Name, code, d)
	}
	return d
}

// decides reports whether the process, asked now, decides the call with
// the behavior and step by the organisation's rule npm publish:*. An error
// answer (say, while the plugin starts) is a no, not a failure: waiting
// callers ask again.
func (p *permopaProc) decides(tb testing.TB, call map[string]any, behavior, step string) bool {
	tb.Helper()
	code, d := p.post(tb, "/v1/permission/check", call)
	return code == http.StatusOK && d["behavior"] == behavior && d["step"] == step &&
		dig(d, "matched_rule", "rule_content") == "npm publish:*" && dig(d, "matched_rule", "behavior") == behavior &&
		dig(d, "matched_rule", "source") == orgSource && dig(d, "matched_rule", "layer") == orgLayer
}

// bundleRevision is the revision of the named bundle the server has
// activated, as OPA keeps it at data.system.bundles[name].manifest
// (GET /v1/data/system/bundles/<name>/manifest/revision); "" when none.
func (p *permopaProc) bundleRevision(tb testing.TB, name string) string {
	tb.Helper()
	resp, err := p.client.Get(p.URL + "/v1/data/system/bundles/" + name + "/manifest/revision")
	if err != nil {
		tb.Fatalf("%s: %v", p.Name, err)
	}
	defer resp.Body.Close()
	var doc struct {
		Result *string `json:"result"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil || resp.StatusCode != http.StatusOK {
		tb.Fatalf("%s: GET /v1/data/system/bundles/%s/manifest/revision: %d %v", p.Name, name, resp.StatusCode, err)
	}
	if doc.Result == nil {
		return ""
	}
	return *doc.Result
}

// The organisation's rules file and how `permopa rules export` labels its
// rules: decisions name the source and the layer (bundle root and file).
const (
	orgFile   = "org.yaml"
	orgSource = "orgRules"
	orgLayer  = "permopa/rules:" + orgFile
)

// buildRulesBundle makes an organisation's rules data bundle as its docs
// say: `permopa rules export` turns a settings file into the document the
// policy reads at data.permopa.rules, saved as permopa/rules/data.json next
// to a .manifest with root permopa/rules, and `permopa build -b` packs it
// with the revision. It returns the tarball.
func buildRulesBundle(t *testing.T, revision, settings string) []byte {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	if err := os.MkdirAll(filepath.Join(src, "permopa", "rules"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, orgFile), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, ".manifest"), []byte(`{"roots": ["permopa/rules"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(src, "permopa", "rules", "data.json")
	if stdout, stderr, code := permopaAt(t, dir, "", nil, "rules", "export", "-o", data, orgFile); code != 0 {
		t.Fatalf("permopa rules export: exit %d: %s%s", code, stdout, stderr)
	}
	out := filepath.Join(dir, "rules.tar.gz")
	if stdout, stderr, code := runPermopa(t, dir, "", nil, "build", "-b", src, "-o", out, "--revision", revision); code != 0 {
		t.Fatalf("permopa build: exit %d: %s%s", code, stdout, stderr)
	}
	tarball, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return tarball
}

// logCollector is a decision-log service on loopback: it accepts OPA's
// batches (POST <url>/logs, a gzip JSON array of events) and keeps them.
type logCollector struct {
	URL    string
	mu     sync.Mutex
	events []map[string]any
	raw    [][]byte
}

func startLogCollector(t *testing.T) *logCollector {
	c := &logCollector{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/logs" {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		var body io.Reader = r.Body
		if r.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			body = zr
		}
		var batch []json.RawMessage
		if err := json.NewDecoder(body).Decode(&batch); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		for _, ev := range batch {
			var m map[string]any
			if json.Unmarshal(ev, &m) == nil {
				c.events = append(c.events, m)
				c.raw = append(c.raw, ev)
			}
		}
	}))
	t.Cleanup(srv.Close)
	c.URL = srv.URL
	return c
}

// find returns the first event for which match holds, with its JSON text.
func (c *logCollector) find(match func(map[string]any) bool) (map[string]any, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, ev := range c.events {
		if match(ev) {
			return ev, string(c.raw[i])
		}
	}
	return nil, ""
}

// dig reads a nested field of a decoded JSON document (nil when absent).
func dig(doc any, keys ...string) any {
	for _, k := range keys {
		m, ok := doc.(map[string]any)
		if !ok {
			return nil
		}
		doc = m[k]
	}
	return doc
}

// waitFor polls cond until it holds, failing the test with what after limit.
func waitFor(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %v: %s", limit, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// distWait bounds every wait of the distribution test: with polling every
// second a revision is live within a few seconds; 30 s means it never came.
const distWait = 30 * time.Second

// TestDistRulesBundleReachesFleet is the central service of docs/opa.md
// §2, end to end: an organisation publishes its rules as a data
// bundle (root permopa/rules) on a static HTTP server; two `permopa run
// --server` processes poll it; a new revision that turns an ASK into a DENY
// reaches both without a restart, each says which revision it runs, and one
// of them ships its decision logs (with the rule, the layer and the bundle
// revision, and the written content masked) to a collector.
func TestDistRulesBundleReachesFleet(t *testing.T) {
	slowOnly(t) // nginx and a fleet of servers
	bundles := startBundleServer(t)
	collector := startLogCollector(t)

	// r1: publishing to npm needs approval (an ask rule of the organisation).
	bundles.publish(t, "rules.tar.gz", buildRulesBundle(t, "r1", "permissions:\n  ask: [\"Bash(npm publish:*)\"]\n"))

	config := func(logs bool) map[string]any {
		c := map[string]any{
			"services": map[string]any{
				"bundles":   map[string]any{"url": bundles.URL},
				"collector": map[string]any{"url": collector.URL},
			},
			"bundles": map[string]any{
				"rules": map[string]any{
					"service":  "bundles",
					"resource": "rules.tar.gz",
					"polling":  map[string]any{"min_delay_seconds": 1, "max_delay_seconds": 1},
				},
			},
			"plugins": map[string]any{"permopa": map[string]any{}},
		}
		if logs {
			c["decision_logs"] = map[string]any{
				"service":   "collector",
				"reporting": map[string]any{"min_delay_seconds": 1, "max_delay_seconds": 1},
			}
		}
		return c
	}
	fleet := []*permopaProc{
		startPermopaServer(t, "permopa-a", config(true), "info"),
		startPermopaServer(t, "permopa-b", config(false), "info"),
	}

	publishCall := map[string]any{
		"tool_name": "Bash", "tool_input": map[string]any{"command": "npm publish --tag beta"},
		"tool_use_id": "toolu_dist_publish", "permission_mode": "default", "cwd": "/work/app", "session_id": "dist",
	}

	// Both processes fetch r1: the call is an ASK by the organisation's rule.
	for _, p := range fleet {
		waitFor(t, distWait, p.Name+" deciding by rules revision r1 (ASK by the org's ask rule)", func() bool {
			return p.decides(t, publishCall, "ASK", "ask_rule")
		})
		if rev := p.bundleRevision(t, "rules"); rev != "r1" {
			t.Fatalf("%s reports rules revision %q, want r1", p.Name, rev)
		}
	}

	// Polling does not download an unchanged bundle again: each process
	// fetched r1 once, and later polls got 304 Not Modified.
	waitFor(t, distWait, "two polls answered 304 by the bundle server", func() bool {
		return bundles.count(t, "/rules.tar.gz", http.StatusNotModified) >= 2
	})
	if n := bundles.count(t, "/rules.tar.gz", http.StatusOK); n != len(fleet) {
		t.Errorf("the bundle server sent r1 %d times to %d processes; polls must get 304 (%s: %v)",
			n, len(fleet), bundles.Kind, bundles.statuses(t, "/rules.tar.gz"))
	}
	t.Logf("bundle server answers for r1 so far: %v", bundles.statuses(t, "/rules.tar.gz"))

	// r2: the organisation denies it. The tarball is replaced atomically.
	r2 := buildRulesBundle(t, "r2", "permissions:\n  deny: [\"Bash(npm publish:*)\"]\n")
	bundles.publish(t, "rules.tar.gz", r2)
	published := time.Now()
	seen := map[string]time.Duration{}
	waitFor(t, distWait, "both processes deciding by rules revision r2 (DENY by the org's deny rule)", func() bool {
		for _, p := range fleet {
			if _, ok := seen[p.Name]; !ok && p.decides(t, publishCall, "DENY", "deny_rule") {
				seen[p.Name] = time.Since(published)
			}
		}
		return len(seen) == len(fleet)
	})
	slowest := max(seen[fleet[0].Name], seen[fleet[1].Name])
	t.Logf("rules revision r2 propagated (bundle server %s, polling every 1 s): %s after %v, %s after %v; fleet %v",
		bundles.Kind, fleet[0].Name, seen[fleet[0].Name].Round(time.Millisecond),
		fleet[1].Name, seen[fleet[1].Name].Round(time.Millisecond), slowest.Round(time.Millisecond))
	for _, p := range fleet {
		if rev := p.bundleRevision(t, "rules"); rev != "r2" {
			t.Errorf("%s decides by r2 but reports rules revision %q", p.Name, rev)
		}
	}

	// The decision log of process a: a check of the denied call, and a
	// Write whose content must not leave the machine.
	a := fleet[0]
	logged := map[string]any{}
	for k, v := range publishCall {
		logged[k] = v
	}
	logged["tool_use_id"] = "toolu_dist_logged"
	if !a.decides(t, logged, "DENY", "deny_rule") {
		t.Fatalf("%s: %v", a.Name, a.check(t, logged))
	}
	const secret = "AWS_SECRET_ACCESS_KEY=dist-test-secret"
	write := map[string]any{
		"tool_name": "Write", "tool_input": map[string]any{"file_path": "/work/app/.env", "content": secret},
		"tool_use_id": "toolu_dist_write", "permission_mode": "default", "cwd": "/work/app", "session_id": "dist",
	}
	a.check(t, write)
	byToolUse := func(id string) func(map[string]any) bool {
		return func(ev map[string]any) bool {
			return dig(ev, "input", "tool_use_id") == id || dig(ev, "result", "tool_use_id") == id
		}
	}
	var ev map[string]any
	waitFor(t, distWait, "the collector receiving the logged checks", func() bool {
		ev, _ = collector.find(byToolUse("toolu_dist_logged"))
		w, _ := collector.find(byToolUse("toolu_dist_write"))
		return ev != nil && w != nil
	})
	if got := dig(ev, "bundles", "rules", "revision"); got != "r2" {
		t.Errorf("logged check: bundles.rules.revision = %v, want r2", got)
	}
	if dig(ev, "result", "behavior") != "DENY" || dig(ev, "result", "step") != "deny_rule" ||
		dig(ev, "result", "matched_rule", "layer") != orgLayer || dig(ev, "result", "matched_rule", "rule_content") != "npm publish:*" {
		t.Errorf("logged check does not carry the decision (step, matched rule and its layer): result = %v", ev["result"])
	}
	if dig(ev, "input", "tool_use_id") != "toolu_dist_logged" || dig(ev, "result", "tool_use_id") != "toolu_dist_logged" {
		t.Errorf("logged check: input.tool_use_id = %v, result.tool_use_id = %v, want toolu_dist_logged",
			dig(ev, "input", "tool_use_id"), dig(ev, "result", "tool_use_id"))
	}
	w, wraw := collector.find(byToolUse("toolu_dist_write"))
	if strings.Contains(wraw, "dist-test-secret") {
		t.Errorf("the decision log carries the written content; /input/tool_input/content must be masked: %s", wraw)
	}
	// OPA's own mask policy reports in erased/masked; the plugin's
	// default mask reports in custom.permopa_erased.
	masked := fmt.Sprint(w["erased"], w["masked"], dig(w, "custom", "permopa_erased"))
	if !strings.Contains(masked, "/input/tool_input/content") {
		t.Errorf("the logged Write does not say that /input/tool_input/content was masked (erased %v, masked %v, custom %v)", w["erased"], w["masked"], w["custom"])
	}
	if dig(w, "input", "tool_input", "file_path") != "/work/app/.env" {
		t.Errorf("the mask erased more than the content: input %v", w["input"])
	}
}
