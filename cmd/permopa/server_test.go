package main_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/permopa/permopa/adapter/hookproto"
)

// lockedBuffer collects a process's output while the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// server is a `permopa run --server` process listening on a unix socket.
type server struct {
	t      *testing.T
	client *http.Client
	out    *lockedBuffer
	exited chan struct{}
}

// startServer starts `permopa run --server` in dir with args and waits
// (bounded) until /health answers. The process is stopped when the test ends.
func startServer(t *testing.T, dir string, env []string, args ...string) *server {
	t.Helper()
	// Socket paths are limited to ~100 bytes: t.TempDir() can be longer.
	sockDir, err := os.MkdirTemp("", "pso")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(sockDir) })
	sock := filepath.Join(sockDir, "s.sock")
	cmd := exec.Command(permopaBin, append([]string{"run", "--server", "--addr", "unix://" + sock, "--shutdown-grace-period", "1"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	s := &server{t: t, out: &lockedBuffer{}, exited: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = s.out, s.out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = cmd.Wait(); close(s.exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.exited:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			<-s.exited
		}
	})
	s.client = &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", sock)
		},
	}}
	// Readiness, not a timing assertion: poll /health for up to a minute.
	for i := 0; ; i++ {
		select {
		case <-s.exited:
			t.Fatalf("permopa run exited early:\n%s", s.out.String())
		default:
		}
		resp, err := s.client.Get("http://permopa/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s
			}
		}
		if i == 600 {
			t.Fatalf("permopa run not healthy after a minute:\n%s", s.out.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// do sends a request and returns the status and the decoded JSON answer.
func (s *server) do(method, path, token, body string) (int, map[string]any) {
	s.t.Helper()
	req, err := http.NewRequest(method, "http://permopa"+path, strings.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	if method == "POST" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		s.t.Fatalf("%s %s: %v\n%s", method, path, err, s.out.String())
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if len(bytes.TrimSpace(raw)) > 0 {
		if err := json.Unmarshal(raw, &out); err != nil {
			s.t.Fatalf("%s %s: answer %q is not a JSON object", method, path, raw)
		}
	}
	return resp.StatusCode, out
}

// check asks /v1/permission/check and OPA's own data API for the same
// input and requires the same decision from both.
func (s *server) check(input string) map[string]any {
	s.t.Helper()
	code, d := s.do("POST", "/v1/permission/check", "", input)
	if code != http.StatusOK {
		s.t.Fatalf("check %s: %d %v", input, code, d)
	}
	code, opa := s.do("POST", "/v1/data/permopa/policy/decision", "", `{"input": `+input+`}`)
	if code != http.StatusOK {
		s.t.Fatalf("data API %s: %d %v", input, code, opa)
	}
	res, _ := opa["result"].(map[string]any)
	for _, k := range []string{"behavior", "step", "message", "reason", "matched_rule", "suggested_rules", "tool_use_id"} {
		if !reflect.DeepEqual(d[k], res[k]) {
			s.t.Errorf("check %s: %s is %v on /v1/permission/check, %v on /v1/data", input, k, d[k], res[k])
		}
	}
	return d
}

func want(t *testing.T, what string, d map[string]any, behavior, step string) {
	t.Helper()
	if d["behavior"] != behavior || d["step"] != step {
		t.Fatalf("%s: got %v/%v, want %s/%s: %v", what, d["behavior"], d["step"], behavior, step, d)
	}
}

func layerOf(d map[string]any) any {
	m, _ := d["matched_rule"].(map[string]any)
	return m["layer"]
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// adminToken reads the administrators' token a server started with
// isolatedEnv(dir) made at its first start.
func adminToken(t *testing.T, dir string) string {
	t.Helper()
	tok, err := hookproto.ReadTokenFile(filepath.Join(dir, "xdg", "permopa", hookproto.AdminTokenFileName))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// isolatedEnv keeps the server away from the machine's managed and user
// settings. PERMOPA_MANAGED_DIR names only a directory root owns: for
// another user it is left out (the variable would be refused, with a
// warning that turns the plugin's status to WARN), and the machine's
// /etc/permopa, absent on test machines, is read.
func isolatedEnv(dir string) []string {
	env := []string{"HOME=" + dir, "XDG_CONFIG_HOME=" + filepath.Join(dir, "xdg"), "PERMOPA_CONFIG_DIR=", "PERMOPA_PROJECT_DIR="}
	if os.Geteuid() == 0 {
		env = append(env, "PERMOPA_MANAGED_DIR="+filepath.Join(dir, "managed"))
	} else {
		env = append(env, "PERMOPA_MANAGED_DIR=")
	}
	return env
}

// `permopa run --server` with no other flag serves the embedded policy on
// both APIs.
func TestServerDefaults(t *testing.T) {
	t.Parallel()
	s := sharedPlainServer(t)
	d := s.check(`{"tool_name": "Bash", "tool_input": {"command": "git status && rm -rf build"}, "cwd": "/tmp", "tool_use_id": "toolu_1"}`)
	want(t, "rm -rf", d, "ASK", "mode_fallback")
	if d["tool_use_id"] != "toolu_1" {
		t.Errorf("tool_use_id: %v", d["tool_use_id"])
	}
	d = s.check(`{"tool_name": "Read", "tool_input": {"file_path": "/etc/hosts"}}`)
	want(t, "Read", d, "ALLOW", "read_only")
	code, st := s.do("GET", "/v1/permission/rules", "", "")
	if code != http.StatusOK || len(st["rules"].([]any)) != 0 {
		t.Errorf("rules: %d %v", code, st)
	}
	code, _ = s.do("GET", "/health?plugins", "", "")
	if code != http.StatusOK {
		t.Errorf("/health?plugins: %d (a plugin is not OK)\n%s", code, s.out.String())
	}
}

// One server with a configuration file, project settings, a bundle that
// extends the embedded policy (a custom tool and organisation rules) and
// console decision logs: the API end to end.
func TestServerAPI(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	project := filepath.Join(dir, "project")
	writeFile(t, filepath.Join(project, ".permopa", "settings.yaml"), "permissions:\n  deny: [\"Bash(git push:*)\"]\n")
	bundleDir := filepath.Join(dir, "bundle")
	writeFile(t, filepath.Join(bundleDir, ".manifest"), `{"revision": "custom-7", "roots": ["permopa/custom/deploy", "permopa/rules"]}`)
	writeFile(t, filepath.Join(bundleDir, "deploy.rego"), `package permopa.custom.deploy

check := {"behavior": "ASK", "bypass_immune": true, "message": "production deploy"} if input.tool_input.target == "prod"
`)
	orgRule := `{"tool_name": "Bash", "rule_content": "curl:*", "behavior": "DENY", "source": "org", "layer": "acme-org"}`
	writeFile(t, filepath.Join(bundleDir, "permopa", "rules", "data.json"), `{"rules": {"deny": {"Bash": [`+orgRule+`]}, "ask": {}, "allow": {}},
		"index": {"deny": {"Bash": {"wide": [], "rules": [`+orgRule+`], "contents": ["curl:*"]}}, "ask": {}, "allow": {}},
		"tool_pattern_rules": {"deny": [], "ask": [], "allow": []}}`)
	config := filepath.Join(dir, "config.yaml")
	writeFile(t, config, `decision_logs:
  console: true
plugins:
  permopa:
    max_body_bytes: 4096
    settings:
      project_dir: `+project+`
`)
	s := startServer(t, dir, isolatedEnv(dir), "--config-file", config, "--bundle", bundleDir)

	t.Run("check", func(t *testing.T) {
		d := s.check(`{"tool_name": "Bash", "tool_input": {"command": "git push origin main"}, "cwd": "/tmp"}`)
		want(t, "git push", d, "DENY", "deny_rule")
		if layerOf(d) != filepath.Join(project, ".permopa", "settings.yaml") {
			t.Errorf("git push layer: %v", d["matched_rule"])
		}
		d = s.check(`{"tool_name": "Bash", "tool_input": {"command": "curl https://example.com"}, "cwd": "/tmp"}`)
		want(t, "curl (org rule)", d, "DENY", "deny_rule")
		if layerOf(d) != "acme-org" {
			t.Errorf("curl layer: %v", d["matched_rule"])
		}
		d = s.check(`{"tool_name": "deploy", "tool_input": {"target": "prod"}, "permission_mode": "acceptEdits"}`)
		want(t, "deploy prod (bundle's custom tool)", d, "ASK", "tool_check")
		d = s.check(`{"tool_name": "Read", "tool_input": {"file_path": "/etc/hosts"}}`)
		want(t, "Read", d, "ALLOW", "read_only")
	})

	t.Run("confirm session", func(t *testing.T) {
		call := `{"tool_name": "Bash", "tool_input": {"command": "npm install"}, "cwd": "/tmp", "session_id": "s1"}`
		d := s.check(call)
		want(t, "npm install", d, "ASK", "mode_fallback")
		rules, _ := json.Marshal(d["suggested_rules"])
		code, c := s.do("POST", "/v1/permission/confirm", "", `{"confirmed": true, "decision_id": "`+d["decision_id"].(string)+`", "tool_call": `+call+`, "rules": `+string(rules)+`}`)
		if code != http.StatusOK || c["approved"] != true {
			t.Fatalf("confirm: %d %v", code, c)
		}
		if dec, _ := c["decision"].(map[string]any); dec["behavior"] != "ALLOW" {
			t.Errorf("confirm's decision: %v", c["decision"])
		}
		d = s.check(call)
		want(t, "npm install after confirm", d, "ALLOW", "allow_rule")
		if layerOf(d) != "session:s1" {
			t.Errorf("layer: %v", d["matched_rule"])
		}
		d = s.check(strings.Replace(call, `"s1"`, `"s2"`, 1))
		want(t, "npm install in another session", d, "ASK", "mode_fallback")

		code, list := s.do("GET", "/v1/permission/rules?session_id=s1", "", "")
		if code != http.StatusOK || !hasRule(list, "Bash", "npm install:*", "ALLOW", "session:s1") {
			t.Errorf("rules of s1: %d %v", code, list)
		}
		if !hasRule(list, "Bash", "curl:*", "DENY", "acme-org") || !hasRule(list, "Bash", "git push:*", "DENY", filepath.Join(project, ".permopa", "settings.yaml")) {
			t.Errorf("rules miss the org or project rule: %v", list)
		}
		_, list = s.do("GET", "/v1/permission/rules?session_id=s2", "", "")
		if hasRule(list, "Bash", "npm install:*", "ALLOW", "session:s1") {
			t.Errorf("s1's rule listed for s2: %v", list)
		}
	})

	t.Run("confirm project file", func(t *testing.T) {
		call := `{"tool_name": "Bash", "tool_input": {"command": "make build"}, "cwd": "/tmp"}`
		want(t, "make", s.check(call), "ASK", "mode_fallback")
		// An administrator's confirm: a rule of their choosing.
		code, c := s.do("POST", "/v1/permission/confirm", adminToken(t, dir), `{"confirmed": true, "admin": true, "tool_call": `+call+`, "rules": ["Bash(make:*)"], "destination": "project", "ttl": "24h"}`)
		if code != http.StatusOK || c["approved"] != true {
			t.Fatalf("confirm: %d %v", code, c)
		}
		file := filepath.Join(project, ".permopa", "settings.yaml")
		raw, _ := os.ReadFile(file)
		if !strings.Contains(string(raw), "make:*") || !strings.Contains(string(raw), "git push:*") {
			t.Errorf("project settings after confirm:\n%s", raw)
		}
		d := s.check(call)
		want(t, "make after confirm", d, "ALLOW", "allow_rule")
		if layerOf(d) != file {
			t.Errorf("layer: %v", d["matched_rule"])
		}
		_, list := s.do("GET", "/v1/permission/rules", "", "")
		found := false
		for _, r := range list["rules"].([]any) {
			r := r.(map[string]any)
			if r["rule_content"] == "make:*" && r["layer"] == file && r["source"] == "projectSettings" && r["expires"] != nil {
				found = true
			}
		}
		if !found {
			t.Errorf("rules list misses the confirmed project rule with its expiry: %v", list)
		}
	})

	t.Run("errors", func(t *testing.T) {
		for _, c := range []struct {
			path, body string
			status     int
			code       string
		}{
			{"/v1/permission/check", `{"tool_name": "Bash",`, 400, "invalid_json"},
			{"/v1/permission/check", ``, 400, "invalid_json"},
			{"/v1/permission/confirm", `not json`, 400, "invalid_json"},
			{"/v1/permission/check", `{"tool_name": "Write", "tool_input": {"content": "` + strings.Repeat("x", 5000) + `"}}`, 413, "body_too_large"},
			{"/v1/permission/confirm", `{"confirmed": true, "tool_call": {"tool_input": {}}}`, 400, "invalid_tool_call"},
			{"/v1/permission/confirm", `{"confirmed": true, "tool_call": {"tool_name": "Bash"}, "destination": "disk"}`, 400, "invalid_destination"},
			{"/v1/permission/confirm", `{"confirmed": true, "tool_call": {"tool_name": "Bash"}, "rules": ["Bash(unclosed"]}`, 400, "invalid_rule"},
			{"/v1/permission/confirm", `{"confirmed": true, "tool_call": {"tool_name": "Bash"}, "ttl": "soon"}`, 400, "invalid_ttl"},
			{"/v1/permission/confirm", `{"confirmed": true, "tool_call": {"tool_name": "Bash", "tool_input": "ls"}}`, 400, "invalid_tool_call"},
		} {
			// Administrators' confirms, so that every field is checked.
			body := strings.Replace(c.body, `{"confirmed": true,`, `{"confirmed": true, "admin": true,`, 1)
			code, e := s.do("POST", c.path, adminToken(t, dir), body)
			if code != c.status || e["code"] != c.code || e["message"] == "" {
				t.Errorf("%s %.60q: %d %v, want %d %s", c.path, c.body, code, e, c.status, c.code)
			}
		}
		// Unknown fields are ignored.
		d := s.check(`{"tool_name": "Read", "tool_input": {"file_path": "/etc/hosts", "extra": 1}, "hook_event_name": "PreToolUse", "future": {"x": [1]}}`)
		want(t, "Read with unknown fields", d, "ALLOW", "read_only")
		// Input that is not a tool call is a DENY decision naming the problem.
		code, d := s.do("POST", "/v1/permission/check", "", `["Bash"]`)
		if code != http.StatusOK || d["behavior"] != "DENY" || d["code"] != "input_error" {
			t.Errorf("an array as input: %d %v", code, d)
		}
		// A policy error is a DENY decision, not an HTTP error.
		d = s.check(`{"tool_name": "Bash", "tool_input": {"command": ["ls"]}}`)
		want(t, "Bash with a non-string command", d, "DENY", "error")
	})

	t.Run("decision log", func(t *testing.T) {
		code, d := s.do("POST", "/v1/permission/check", "", `{"tool_name": "Write", "tool_input": {"file_path": "/tmp/p/notes.txt", "content": "TOP-SECRET"}, "tool_use_id": "log-1", "cwd": "/tmp/p", "permission_mode": "acceptEdits"}`)
		if code != http.StatusOK {
			t.Fatalf("check: %d %v", code, d)
		}
		code, d = s.do("POST", "/v1/permission/check", "", `{"tool_name": "Bash", "tool_input": {"command": "git push"}, "tool_use_id": "log-2", "cwd": "/tmp"}`)
		if code != http.StatusOK {
			t.Fatalf("check: %d %v", code, d)
		}
		write := s.waitLog(t, "log-1")
		if strings.Contains(write.raw, "TOP-SECRET") {
			t.Errorf("the content reached the decision log: %s", write.raw)
		}
		in, _ := write.ev["input"].(map[string]any)
		ti, _ := in["tool_input"].(map[string]any)
		if ti["file_path"] != "/tmp/p/notes.txt" {
			t.Errorf("logged input: %v", in)
		}
		push := s.waitLog(t, "log-2")
		res, _ := push.ev["result"].(map[string]any)
		mr, _ := res["matched_rule"].(map[string]any)
		if res["step"] != "deny_rule" || res["tool_use_id"] != "log-2" || mr["layer"] != filepath.Join(project, ".permopa", "settings.yaml") {
			t.Errorf("logged result: %v", res)
		}
		if push.ev["path"] != "permopa/policy/decision" || push.ev["decision_id"] == "" {
			t.Errorf("logged path and id: %v %v", push.ev["path"], push.ev["decision_id"])
		}
		bundles, _ := push.ev["bundles"].(map[string]any)
		rev := ""
		for _, b := range bundles {
			if m, ok := b.(map[string]any); ok && m["revision"] == "custom-7" {
				rev = "custom-7"
			}
		}
		if rev == "" {
			t.Errorf("logged bundles: %v", push.ev["bundles"])
		}
	})

	// After all the errors above, the server still decides.
	want(t, "final check", s.check(`{"tool_name": "Read", "tool_input": {"file_path": "/etc/hosts"}}`), "ALLOW", "read_only")
}

type logEvent struct {
	raw string
	ev  map[string]any
}

// waitLog finds the console decision log event of a check by its
// tool_use_id (the process writes it before it answers, but the output
// reaches the test through a pipe); bounded wait.
func (s *server) waitLog(t *testing.T, toolUseID string) logEvent {
	t.Helper()
	for i := 0; i < 200; i++ {
		sc := bufio.NewScanner(strings.NewReader(s.out.String()))
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var ev map[string]any
			if json.Unmarshal(sc.Bytes(), &ev) != nil || ev["decision_id"] == nil {
				continue
			}
			if in, _ := ev["input"].(map[string]any); in["tool_use_id"] == toolUseID {
				return logEvent{raw: sc.Text(), ev: ev}
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no decision log event for %s:\n%s", toolUseID, s.out.String())
	return logEvent{}
}

func hasRule(list map[string]any, tool, content, behavior, layer string) bool {
	rules, _ := list["rules"].([]any)
	for _, r := range rules {
		r, _ := r.(map[string]any)
		c, _ := r["rule_content"].(string)
		if r["tool_name"] == tool && c == content && r["behavior"] == behavior && r["layer"] == layer {
			return true
		}
	}
	return false
}

// A bundle owning permopa/policy replaces the embedded policy; with
// token authentication and basic authorization (the example system.authz
// in a second bundle), agents may check but only administrators confirm,
// and the body read by OPA's authorizer reaches the check.
func TestServerPolicyBundleAndAuthz(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	policy := filepath.Join(dir, "policy")
	writeFile(t, filepath.Join(policy, ".manifest"), `{"revision": "org-3", "roots": ["permopa/policy"]}`)
	writeFile(t, filepath.Join(policy, "decision.rego"), `package permopa.policy

decision := {
	"behavior": "DENY",
	"message": sprintf("org policy denies %s", [input.tool_name]),
	"reason": "org",
	"step": "deny_rule",
	"suggested_rules": [],
	"tool_use_id": object.get(input, "tool_use_id", null),
}
`)
	authz, err := filepath.Abs("../../adapter/opaplugin/testdata/authz")
	if err != nil {
		t.Fatal(err)
	}
	s := startServer(t, dir, isolatedEnv(dir), "--authentication=token", "--authorization=basic", "--bundle", policy, authz)

	call := `{"tool_name": "Read", "tool_input": {"file_path": "/etc/hosts"}, "session_id": "s1"}`
	code, d := s.do("POST", "/v1/permission/check", "agent-token", call)
	if code != http.StatusOK || d["behavior"] != "DENY" || d["message"] != "org policy denies Read" {
		t.Fatalf("agent check: %d %v", code, d)
	}
	code, _ = s.do("POST", "/v1/permission/check", "", call)
	if code != http.StatusUnauthorized {
		t.Errorf("check without a token: %d", code)
	}
	confirm := `{"confirmed": true, "admin": true, "tool_call": ` + call + `, "rules": ["Read"]}`
	code, e := s.do("POST", "/v1/permission/confirm", "agent-token", confirm)
	if code != http.StatusUnauthorized {
		t.Errorf("agent confirm: %d %v", code, e)
	}
	code, c := s.do("POST", "/v1/permission/confirm", "admin-token", confirm)
	if code != http.StatusOK {
		t.Fatalf("admin confirm: %d %v", code, c)
	}
	// The org policy ignores rules: the call stays denied, and confirm says so.
	if c["approved"] != false || !strings.Contains(c["message"].(string), "org policy denies Read") {
		t.Errorf("admin confirm under a deny-all policy: %v", c)
	}
	code, list := s.do("GET", "/v1/permission/rules?session_id=s1", "admin-token", "")
	if code != http.StatusOK || !hasRule(list, "Read", "", "ALLOW", "session:s1") {
		t.Errorf("rules: %d %v", code, list)
	}
	// The embedded policy is gone: OPA's data API gives the bundle's decision too.
	code, opa := s.do("POST", "/v1/data/permopa/policy/decision", "admin-token", `{"input": `+call+`}`)
	if res, _ := opa["result"].(map[string]any); code != http.StatusOK || res["message"] != "org policy denies Read" {
		t.Errorf("data API: %d %v", code, opa)
	}
	code, d = s.do("POST", "/v1/permission/check", "agent-token", `{"tool_name": "Bash", "tool_input": {"command": "ls"}}`)
	if code != http.StatusOK || d["message"] != "org policy denies Bash" {
		t.Errorf("final check: %d %v", code, d)
	}
}

// A configuration that sets plugins.permopa is taken as is: with
// default_policy off and no bundle there is no policy, and every check
// fails closed.
func TestServerDefaultPolicyOff(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	config := filepath.Join(dir, "config.yaml")
	writeFile(t, config, "plugins:\n  permopa:\n    default_policy: \"off\"\n")
	s := startServer(t, dir, isolatedEnv(dir), "-c", config)
	code, d := s.do("POST", "/v1/permission/check", "", `{"tool_name": "Read", "tool_input": {"file_path": "/etc/hosts"}}`)
	if code != http.StatusOK || d["behavior"] != "DENY" || d["step"] != "error" || d["code"] != "undefined_decision" {
		t.Fatalf("check without a policy: %d %v", code, d)
	}
	code, opa := s.do("POST", "/v1/data/permopa/policy/decision", "", `{"input": {"tool_name": "Read"}}`)
	if code != http.StatusOK || opa["result"] != nil {
		t.Fatalf("data API without a policy: %d %v", code, opa)
	}
}
