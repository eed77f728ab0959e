package main_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Issue 24: `permopa run --server --addr 127.0.0.1:PORT`, a real server on
// loopback. Another local user who reaches the port without the token gets
// 401 on OPA's data, query, policy, config and status routes and the rules
// list, so the user's rules and settings stay private; with server-token
// they answer 200. The quick start's check and /health stay open.
func TestServerTCPReadRoutesNeedToken(t *testing.T) {
	t.Parallel()
	srv := startPermopaServer(t, "tcp-reads", nil, "error")
	other := &http.Client{Timeout: 10 * time.Second} // no token
	send := func(c *http.Client, method, path, body, token string) (int, string) {
		t.Helper()
		r, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if body != "" {
			r.Header.Set("Content-Type", "application/json")
		}
		if token != "" {
			r.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := c.Do(r)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(raw)
	}
	for _, q := range []struct{ method, path, body string }{
		{"GET", "/v1/data/permopa/settings", ""},
		{"GET", "/v1/data", ""},
		{"POST", "/v1/data", `{}`},
		{"POST", "/v1/data/permopa/policy/decision", `{"input": {"tool_name": "Read", "tool_input": {"file_path": "/etc/hosts"}}}`},
		{"POST", "/v1/query", `{"query": "data.permopa.settings"}`},
		{"POST", "/", `{}`},
		{"GET", "/v1/policies", ""},
		{"GET", "/v1/config", ""},
		{"GET", "/v1/permission/rules", ""},
	} {
		code, body := send(other, q.method, q.path, q.body, "")
		if code != http.StatusUnauthorized || !strings.Contains(body, `"unauthorized"`) {
			t.Errorf("%s %s without a token: %d %.200s", q.method, q.path, code, body)
		}
	}
	for _, path := range []string{"/v1/data/permopa/settings", "/v1/data", "/v1/permission/rules"} {
		if code, body := send(other, "GET", path, "", srv.Token); code != http.StatusOK {
			t.Errorf("GET %s with server-token: %d %.200s", path, code, body)
		}
	}
	if code, body := send(other, "GET", "/v1/data/permopa/settings", "", srv.Token); !strings.Contains(body, `"protected_paths"`) {
		t.Errorf("GET /v1/data/permopa/settings with server-token: %d, not the settings: %.200s", code, body)
	}
	// docs/opa.md's quick start: /health and a check, no token.
	if code, body := send(other, "GET", "/health?bundles", "", ""); code != http.StatusOK {
		t.Errorf("GET /health?bundles without a token: %d %s", code, body)
	}
	code, body := send(other, "POST", "/v1/permission/check", `{"tool_name":"Bash","tool_input":{"command":"make test ./..."},"cwd":"/tmp"}`, "")
	if code != http.StatusOK || !strings.Contains(body, `"behavior"`) {
		t.Errorf("check without a token: %d %s", code, body)
	}
}
