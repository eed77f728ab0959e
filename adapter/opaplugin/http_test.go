package opaplugin

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/plugins"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/server"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/types"

	"github.com/permopa/permopa/adapter/hookproto"
	"github.com/permopa/permopa/builtins"
	"github.com/permopa/permopa/permission"
)

// opaServer is OPA's own HTTP server (the server package, with the
// plugin's routes and guard) over a plugins.Manager, listening on loopback
// TCP or a unix socket.
type opaServer struct {
	url    string // http://127.0.0.1:port, or http://permopa for the socket
	addr   string // the address a hook client is given: the url, or unix:///path
	client *http.Client
}

type serveOpts struct {
	socket   bool // listen on a unix socket instead of 127.0.0.1
	sockMode os.FileMode
	authz    bool // --authentication=token --authorization=basic
}

// serve starts OPA's server for the harness's manager.
func (h *harness) serve(t testing.TB, o serveOpts) *opaServer {
	t.Helper()
	if o.authz {
		// Process-wide, as in a real server: a test that sets it must not
		// be parallel (it then runs before every parallel test, which
		// expects the tokens to be checked).
		SetOPAAuthorization(true)
		t.Cleanup(func() { SetOPAAuthorization(false) })
		// The plugin reads OPAAuthorization at setup, as at a real start.
		h.p.Reconfigure(context.Background(), h.p.Config())
	}
	s := server.New().WithStore(h.m.Store).WithManager(h.m).WithRuntime(h.m.Info)
	if o.authz {
		s = s.WithAuthentication(server.AuthenticationToken).WithAuthorization(server.AuthorizationBasic)
	}
	s, err := s.Init(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !o.socket {
		ts := httptest.NewServer(s.Handler)
		t.Cleanup(ts.Close)
		return &opaServer{url: ts.URL, addr: ts.URL, client: ts.Client()}
	}
	dir, err := os.MkdirTemp("", "pso")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "s.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	if o.sockMode != 0 {
		_ = os.Chmod(dir, 0o755)
		_ = os.Chmod(sock, o.sockMode)
		socketCache.Delete(sock)
	}
	hs := &http.Server{Handler: s.Handler}
	go func() { _ = hs.Serve(l) }()
	t.Cleanup(func() { hs.Close() })
	return &opaServer{url: "http://permopa", addr: "unix://" + sock, client: &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", sock)
		},
	}}}
}

// req is one HTTP request; zero fields take the defaults of a well-behaved
// client (JSON content type, no token, the server's own Host).
type req struct {
	method, path, body string
	contentType        string // "-" for none
	token, host        string
	origin             string
	header             map[string]string
}

// do sends a request and returns the status and the decoded JSON answer.
func (s *opaServer) do(t testing.TB, q req) (int, map[string]any) {
	t.Helper()
	status, raw := s.send(t, q)
	var out map[string]any
	if len(bytes.TrimSpace(raw)) > 0 {
		_ = json.Unmarshal(raw, &out)
	}
	return status, out
}

// send sends a request and returns the status and the body as it came.
func (s *opaServer) send(t testing.TB, q req) (int, []byte) {
	t.Helper()
	if q.method == "" {
		q.method = http.MethodPost
	}
	r, err := http.NewRequest(q.method, s.url+q.path, strings.NewReader(q.body))
	if err != nil {
		t.Fatal(err)
	}
	switch q.contentType {
	case "":
		if q.method == http.MethodPost || q.method == http.MethodPut {
			r.Header.Set("Content-Type", "application/json")
		}
	case "-":
	default:
		r.Header.Set("Content-Type", q.contentType)
	}
	if q.token != "" {
		r.Header.Set("Authorization", "Bearer "+q.token)
	}
	if q.host != "" {
		r.Host = q.host
	}
	if q.origin != "" {
		r.Header.Set("Origin", q.origin)
	}
	for k, v := range q.header {
		r.Header.Set(k, v)
	}
	resp, err := s.client.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body) // a cut body fails the caller's comparison
	return resp.StatusCode, raw
}

// token reads one of the plugin's token files from its user directory.
func (h *harness) token(t testing.TB, name string) string {
	t.Helper()
	tok, err := hookproto.ReadTokenFile(filepath.Join(h.p.Layers().UserDir(), name))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// guardHarness is a plugin with isolated settings layers (its tokens in
// dir/user) behind OPA's server.
func guardHarness(t *testing.T, o serveOpts) (*harness, *opaServer) {
	t.Helper()
	dir := settingsDir(t, "permissions:\n  deny: [\"Bash(rm:*)\"]\n")
	h := start(t, newBundleServer(t), noWait(layersConfig(dir)))
	return h, h.serve(t, o)
}

const npmCall = `{"tool_name": "Bash", "tool_input": {"command": "npm install"}, "cwd": "/tmp", "session_id": "s1"}`

// check asks for a decision and returns it (fatal unless 200).
func (s *opaServer) check(t *testing.T, call, token string) map[string]any {
	t.Helper()
	code, d := s.do(t, req{path: "/v1/permission/check", body: call, token: token})
	if code != http.StatusOK {
		t.Fatalf("check %s: %d %v", call, code, d)
	}
	return d
}

func confirmBody(id string, rules string) string {
	return `{"confirmed": true, "decision_id": "` + id + `", "rules": ` + rules + `}`
}

// The attack of issue 12: a web page in the user's browser posts a
// text/plain body to confirm on loopback, to persist allow: [Bash]. Every
// form of it is refused, on every route, and nothing is written.
func TestBrowserRequestsRefused(t *testing.T) {
	t.Parallel()
	h, s := guardHarness(t, serveOpts{})
	agent := h.token(t, hookproto.TokenFileName)
	evil := `{"confirmed": true, "admin": true, "tool_call": {"tool_name": "Bash", "tool_input": {"command": "x"}}, "rules": ["Bash"], "destination": "user"}`
	for name, c := range map[string]struct {
		q      req
		status int
		code   string
	}{
		"text/plain confirm from a page": {req{path: "/v1/permission/confirm", body: evil, contentType: "text/plain;charset=UTF-8", origin: "http://evil.example"}, 403, permission.CodeCrossOrigin},
		"text/plain confirm, no Origin":  {req{path: "/v1/permission/confirm", body: evil, contentType: "text/plain", token: agent}, 415, permission.CodeUnsupportedMediaType},
		"form-encoded confirm":           {req{path: "/v1/permission/confirm", body: evil, contentType: "application/x-www-form-urlencoded", token: agent}, 415, permission.CodeUnsupportedMediaType},
		"Blob without a type":            {req{path: "/v1/permission/confirm", body: evil, contentType: "-", token: agent}, 415, permission.CodeUnsupportedMediaType},
		"JSON confirm from a page":       {req{path: "/v1/permission/confirm", body: evil, origin: "http://evil.example"}, 403, permission.CodeCrossOrigin},
		"Origin null":                    {req{path: "/v1/permission/confirm", body: evil, origin: "null"}, 403, permission.CodeCrossOrigin},
		"check from a page":              {req{path: "/v1/permission/check", body: npmCall, origin: "https://evil.example"}, 403, permission.CodeCrossOrigin},
		"text/plain check":               {req{path: "/v1/permission/check", body: npmCall, contentType: "text/plain"}, 415, permission.CodeUnsupportedMediaType},
		"rules read by a page":           {req{method: "GET", path: "/v1/permission/rules", origin: "http://evil.example"}, 403, permission.CodeCrossOrigin},
		"navigation to rules":            {req{method: "GET", path: "/v1/permission/rules", header: map[string]string{"Sec-Fetch-Site": "cross-site"}}, 403, permission.CodeCrossOrigin},
		"OPA data API from a page":       {req{path: "/v1/data/permopa/policy/decision", body: `{"input": ` + npmCall + `}`, contentType: "text/plain", origin: "http://evil.example"}, 403, permission.CodeCrossOrigin},
		"OPA policy write from a page":   {req{method: "PUT", path: "/v1/policies/x", body: "package x", contentType: "text/plain", origin: "http://evil.example"}, 403, permission.CodeCrossOrigin},
		"DNS rebinding confirm":          {req{path: "/v1/permission/confirm", body: evil, host: "evil.example:" + port(s)}, 403, permission.CodeForbiddenHost},
		"DNS rebinding check":            {req{path: "/v1/permission/check", body: npmCall, host: "evil.example:" + port(s)}, 403, permission.CodeForbiddenHost},
		"DNS rebinding data API":         {req{method: "GET", path: "/v1/data/permopa/settings", host: "evil.example:" + port(s)}, 403, permission.CodeForbiddenHost},
		"DNS rebinding, no port":         {req{method: "GET", path: "/v1/permission/rules", host: "evil.example"}, 403, permission.CodeForbiddenHost},
		"localhost with another port":    {req{method: "GET", path: "/v1/permission/rules", host: "localhost:1"}, 403, permission.CodeForbiddenHost},
	} {
		code, e := s.do(t, c.q)
		if code != c.status || e["code"] != c.code {
			t.Errorf("%s: %d %v, want %d %s", name, code, e, c.status, c.code)
		}
	}
	if rules := h.p.Engine().Settings().AllRules(); len(rules) != 1 {
		t.Errorf("rules after the attacks: %v", rules)
	}
	// The server's own names are accepted.
	for _, host := range []string{"", "localhost:" + port(s), "127.0.0.1:" + port(s), "[::1]:" + port(s)} {
		if code, d := s.do(t, req{path: "/v1/permission/check", body: npmCall, host: host}); code != 200 || d["behavior"] != "ASK" {
			t.Errorf("Host %q: %d %v", host, code, d)
		}
	}
}

func port(s *opaServer) string { return s.url[strings.LastIndexByte(s.url, ':')+1:] }

// Over TCP, confirm needs a token: none, or a wrong one, is 401; the
// agents' token may confirm what a check suggested. A wrong token is
// refused on every route, a check without one is answered.
func TestConfirmNeedsTokenOverTCP(t *testing.T) {
	t.Parallel()
	h, s := guardHarness(t, serveOpts{})
	agent := h.token(t, hookproto.TokenFileName)
	d := s.check(t, npmCall, "")
	id, _ := d["decision_id"].(string)
	if d["behavior"] != "ASK" || id == "" {
		t.Fatalf("check: %v", d)
	}
	body := confirmBody(id, `["Bash(npm install:*)"]`)
	for name, tok := range map[string]string{"no token": "", "wrong token": "not-the-token-0123456789", "agent token with a space": agent + " x"} {
		code, e := s.do(t, req{path: "/v1/permission/confirm", body: body, token: tok})
		if code != http.StatusUnauthorized || e["code"] != permission.CodeUnauthorized {
			t.Errorf("%s: %d %v", name, code, e)
		}
	}
	if code, e := s.do(t, req{path: "/v1/permission/check", body: npmCall, token: "wrong-token-0123456789"}); code != http.StatusUnauthorized {
		t.Errorf("check with a wrong token: %d %v", code, e)
	}
	code, c := s.do(t, req{path: "/v1/permission/confirm", body: body, token: agent})
	if code != http.StatusOK || c["approved"] != true {
		t.Fatalf("confirm with the agents' token: %d %v", code, c)
	}
	if d := s.check(t, npmCall, agent); d["behavior"] != "ALLOW" || d["step"] != "allow_rule" {
		t.Errorf("after the confirm: %v", d)
	}
	// OPA's write routes need the administrators' token.
	code, e := s.do(t, req{method: "PUT", path: "/v1/data/permopa/settings", body: `{}`, token: agent})
	if code != http.StatusForbidden || e["code"] != permission.CodeAdminRequired {
		t.Errorf("PUT data with the agents' token: %d %v", code, e)
	}
	code, e = s.do(t, req{method: "PUT", path: "/v1/policies/evil", body: "package permopa.policy\ndecision := {}", contentType: "text/plain"})
	if code != http.StatusForbidden || e["code"] != permission.CodeAdminRequired {
		t.Errorf("PUT policy without a token: %d %v", code, e)
	}
	if d := s.check(t, `{"tool_name": "Bash", "tool_input": {"command": "rm x"}, "cwd": "/tmp"}`, ""); d["behavior"] != "DENY" {
		t.Errorf("the deny rule after the refused writes: %v", d)
	}
	admin := h.token(t, hookproto.AdminTokenFileName)
	if code, e := s.do(t, req{method: "PUT", path: "/v1/data/scratch", body: `{"x": 1}`, token: admin}); code != http.StatusNoContent {
		t.Errorf("PUT data with the administrators' token: %d %v", code, e)
	}
}

// A confirm must name a checked ASK and may accept only its suggested
// rules; an admin confirm may do anything. Each ASK is answered once.
func TestConfirmBoundToCheckedCall(t *testing.T) {
	t.Parallel()
	h, s := guardHarness(t, serveOpts{socket: true})
	d := s.check(t, npmCall, "")
	id := d["decision_id"].(string)
	other := s.check(t, `{"tool_name": "Bash", "tool_input": {"command": "make build"}, "cwd": "/tmp", "session_id": "s1"}`, "")
	for name, c := range map[string]struct {
		body   string
		status int
		code   string
	}{
		"no decision_id":                {`{"confirmed": true, "tool_call": ` + npmCall + `, "rules": ["Bash(npm install:*)"]}`, 400, permission.CodeDecisionRequired},
		"an unchecked call":             {confirmBody("00000000-0000-4000-8000-000000000000", `["Bash(npm install:*)"]`), 409, permission.CodeUnknownDecision},
		"a rule that was not suggested": {confirmBody(id, `["Bash"]`), 403, permission.CodeRuleNotSuggested},
		"a wider rule":                  {confirmBody(id, `["Bash(npm:*)"]`), 403, permission.CodeRuleNotSuggested},
		"another ASK's rule":            {confirmBody(id, `["Bash(make:*)"]`), 403, permission.CodeRuleNotSuggested},
		"another call":                  {`{"confirmed": true, "decision_id": "` + id + `", "tool_call": {"tool_name": "Bash", "tool_input": {"command": "curl x | sh"}, "session_id": "s1"}, "rules": []}`, 409, permission.CodeToolCallMismatch},
		"another session":               {`{"confirmed": true, "decision_id": "` + id + `", "tool_call": ` + strings.Replace(npmCall, "s1", "s2", 1) + `, "rules": ["Bash(npm install:*)"]}`, 409, permission.CodeToolCallMismatch},
		"admin without the admin token": {`{"confirmed": true, "admin": true, "tool_call": ` + npmCall + `, "rules": ["Bash"]}`, 403, permission.CodeAdminRequired},
	} {
		code, e := s.do(t, req{path: "/v1/permission/confirm", body: c.body})
		if code != c.status || e["code"] != c.code {
			t.Errorf("%s: %d %v, want %d %s", name, code, e, c.status, c.code)
		}
	}
	if rules := h.p.Engine().Settings().AllRules(); len(rules) != 1 {
		t.Fatalf("rules after the refused confirms: %v", rules)
	}
	// The suggested rule, with the tool_call left out (the checked call is used).
	code, c := s.do(t, req{path: "/v1/permission/confirm", body: confirmBody(id, `["Bash(npm install:*)"]`)})
	if code != 200 || c["approved"] != true {
		t.Fatalf("bound confirm: %d %v", code, c)
	}
	if dec, _ := c["decision"].(map[string]any); dec["behavior"] != "ALLOW" {
		t.Errorf("decided again: %v", c["decision"])
	}
	code, e := s.do(t, req{path: "/v1/permission/confirm", body: confirmBody(id, `["Bash(npm install:*)"]`)})
	if code != http.StatusConflict || e["code"] != permission.CodeUnknownDecision {
		t.Errorf("a second confirm of the same ASK: %d %v", code, e)
	}
	// Declining keeps a suggestion as a deny rule ("never ask again").
	code, c = s.do(t, req{path: "/v1/permission/confirm", body: `{"confirmed": false, "decision_id": "` + other["decision_id"].(string) + `", "rules": [{"tool_name": "Bash", "rule_content": "make build", "behavior": "DENY"}]}`})
	if code != 200 || c["approved"] != false {
		t.Fatalf("declined: %d %v", code, c)
	}
	if d := s.check(t, `{"tool_name": "Bash", "tool_input": {"command": "make build"}, "cwd": "/tmp", "session_id": "s1"}`, ""); d["behavior"] != "DENY" {
		t.Errorf("after declining with a deny rule: %v", d)
	}
	// An admin confirm: any rule, any call.
	admin := h.token(t, hookproto.AdminTokenFileName)
	code, c = s.do(t, req{path: "/v1/permission/confirm", token: admin,
		body: `{"confirmed": true, "admin": true, "tool_call": {"tool_name": "Bash", "tool_input": {"command": "terraform plan"}, "session_id": "s9"}, "rules": ["Bash(terraform:*)"]}`})
	if code != 200 || c["approved"] != true {
		t.Fatalf("admin confirm: %d %v", code, c)
	}
}

// A unix socket that other users can connect to is not private: confirm
// over it needs a token, as over TCP.
func TestOpenSocketIsNotPrivate(t *testing.T) {
	t.Parallel()
	h, s := guardHarness(t, serveOpts{socket: true, sockMode: 0o777})
	id := s.check(t, npmCall, "")["decision_id"].(string)
	body := confirmBody(id, `["Bash(npm install:*)"]`)
	if code, e := s.do(t, req{path: "/v1/permission/confirm", body: body}); code != http.StatusUnauthorized {
		t.Errorf("confirm over a socket others can use, without a token: %d %v", code, e)
	}
	if code, c := s.do(t, req{path: "/v1/permission/confirm", body: body, token: h.token(t, hookproto.TokenFileName)}); code != 200 || c["approved"] != true {
		t.Errorf("with the agents' token: %d %v", code, c)
	}
}

// With OPA's authentication and authorization, system.authz judges every
// route (it sees confirm's body, "admin" included); the plugin asks for no
// token of its own, and binding still holds for non-admin confirms.
//
// Not parallel: it turns on the process-wide SetOPAAuthorization, and a
// package's parallel tests start only after its sequential ones end (a
// parallel run of it met a parallel test's reset in one CI run).
func TestOPAAuthzGuardsRoutes(t *testing.T) {
	dir := settingsDir(t, "permissions: {}\n")
	h := start(t, newBundleServer(t), noWait(layersConfig(dir)), func(m *plugins.Manager) {
		authz, err := os.ReadFile("testdata/authz/authz.rego")
		if err != nil {
			t.Fatal(err)
		}
		putPolicy(t, m, "authz.rego", authz)
	})
	s := h.serve(t, serveOpts{authz: true})
	d := s.check(t, npmCall, "agent-token")
	id, _ := d["decision_id"].(string)
	if code, _ := s.do(t, req{path: "/v1/permission/check", body: npmCall}); code != http.StatusUnauthorized {
		t.Errorf("check without a token: %d", code)
	}
	if code, _ := s.do(t, req{path: "/v1/permission/confirm", body: confirmBody(id, `["Bash(npm install:*)"]`), token: "agent-token"}); code != http.StatusUnauthorized {
		t.Errorf("agent confirm (system.authz forbids it): %d", code)
	}
	if code, e := s.do(t, req{path: "/v1/permission/confirm", body: confirmBody(id, `["Bash"]`), token: "admin-token"}); code != http.StatusForbidden || e["code"] != permission.CodeRuleNotSuggested {
		t.Errorf("admin's bound confirm of an unsuggested rule: %d %v", code, e)
	}
	if code, c := s.do(t, req{path: "/v1/permission/confirm", body: `{"confirmed": true, "admin": true, "tool_call": ` + npmCall + `, "rules": ["Bash"]}`, token: "admin-token"}); code != 200 || c["approved"] != true {
		t.Errorf("admin confirm: %d %v", code, c)
	}
	if code, e := s.do(t, req{path: "/v1/permission/check", body: npmCall, token: "agent-token", origin: "http://evil.example"}); code != http.StatusForbidden || e["code"] != permission.CodeCrossOrigin {
		t.Errorf("a page with the agents' token: %d %v", code, e)
	}
}

func putPolicy(t testing.TB, m *plugins.Manager, id string, src []byte) {
	t.Helper()
	ctx := context.Background()
	err := storage.Txn(ctx, m.Store, storage.WriteParams, func(txn storage.Transaction) error {
		return m.Store.UpsertPolicy(ctx, txn, id, src)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// permopa's built-ins and the test's are registered when the package's tests
// start, before any runs, as the binary does first thing: registering
// changes OPA's global built-in and interning tables, which the parsing and
// decisions of tests running in parallel (and evaluations a deadline
// abandoned) read.
func init() {
	builtins.Register()
	registerStall()
}

var registerStall = sync.OnceFunc(func() {
	// A built-in that ignores its context, as an analyser busy with a huge
	// input does.
	rego.RegisterBuiltin1(&rego.Function{
		Name: "permopa_test.stall",
		Decl: types.NewFunction(types.Args(types.N), types.B),
	}, func(_ rego.BuiltinContext, a *ast.Term) (*ast.Term, error) {
		ms, _ := a.Value.(ast.Number).Int()
		time.Sleep(time.Duration(ms) * time.Millisecond)
		return ast.BooleanTerm(true), nil
	})
})

const stallPolicy = `package permopa.policy

decision := {"behavior": "ALLOW", "message": "answered", "reason": "r", "step": "read_only", "suggested_rules": [], "tool_use_id": null} if permopa_test.stall(input.stall_ms)
`

// A check that takes longer than decision_timeout is a DENY with code
// timeout at its deadline, even while a built-in is busy; checks with
// large bodies wait for their own, smaller pool, so ordinary checks are
// answered while the large ones stall.
func TestCheckDeadlineAndLanes(t *testing.T) {
	t.Parallel()
	registerStall()
	dir := settingsDir(t, "permissions: {}\n")
	cfg := strings.Replace(noWait(layersConfig(dir)), "{", `{"decision_timeout": "300ms", "limits": {"large_body_bytes": 1024, "max_large_concurrent": 1}, `, 1)
	h := start(t, newBundleServer(t), cfg, func(m *plugins.Manager) {
		putPolicy(t, m, "stall.rego", []byte(stallPolicy))
	})
	s := h.serve(t, serveOpts{})
	if code, d := s.do(t, req{path: "/v1/permission/check", body: `{"stall_ms": 0}`}); code != 200 || d["behavior"] != "ALLOW" {
		t.Fatalf("a quick check: %d %v", code, d)
	}
	code, d := s.do(t, req{path: "/v1/permission/check", body: `{"stall_ms": 1500}`})
	if code != 200 || d["behavior"] != "DENY" || d["code"] != "timeout" || d["decision_id"] == nil {
		t.Fatalf("a stalled check: %d %v", code, d)
	}
	pad := `"pad": "` + strings.Repeat("x", 2048) + `"`
	// One large check stalls in the only large slot...
	var wg sync.WaitGroup
	wg.Go(func() {
		if _, d := s.do(t, req{path: "/v1/permission/check", body: `{"stall_ms": 1200, ` + pad + `}`}); d["code"] != "timeout" {
			t.Errorf("the stalled large check: %v", d)
		}
	})
	// Bounded wait until it holds the slot, not a timing assertion.
	for i := 0; len(h.p.lanes.Load().large) == 0; i++ {
		if i == 500 {
			t.Fatal("the large check never took its slot")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// ...so the next large one is refused at its deadline without being read...
	if _, d := s.do(t, req{path: "/v1/permission/check", body: `{"stall_ms": 0, ` + pad + `}`}); d["code"] != "timeout" || !strings.Contains(d["message"].(string), "busy") {
		t.Errorf("a large check while the large pool is full: %v", d)
	}
	// ...while ordinary checks are answered.
	for range 5 {
		if _, d := s.do(t, req{path: "/v1/permission/check", body: `{"stall_ms": 0}`}); d["behavior"] != "ALLOW" {
			t.Errorf("an ordinary check while large ones stall: %v", d)
		}
	}
	wg.Wait()
}

// Issue 24: over TCP, another local user who reaches the port must not read
// the user's rules and settings through OPA's data, query or status routes
// or the rules list; the agents' and administrators' tokens may. A check
// and /health stay open; a private unix socket needs no token.
func TestReadRoutesNeedTokenOverTCP(t *testing.T) {
	t.Parallel()
	h, s := guardHarness(t, serveOpts{})
	agent := h.token(t, hookproto.TokenFileName)
	admin := h.token(t, hookproto.AdminTokenFileName)
	closed := []req{
		{method: "GET", path: "/v1/data/permopa/settings"},
		{method: "GET", path: "/v1/data"},
		{method: "GET", path: "/v1/data/permopa"},
		{path: "/v1/data", body: `{}`},
		{path: "/v1/data/permopa/settings", body: `{"input": {}}`},
		{path: "/v1/data/permopa/policy/decision", body: `{"input": ` + npmCall + `}`},
		{path: "/v1/query", body: `{"query": "data.permopa.settings"}`},
		{method: "GET", path: "/v1/query?q=data.permopa.settings"},
		{path: "/v1/compile", body: `{"query": "data.permopa.settings = x"}`},
		{path: "/", body: `{}`},
		{method: "GET", path: "/v1/policies"},
		{method: "GET", path: "/v1/config"},
		{method: "GET", path: "/v1/status"},
		{method: "GET", path: "/v1/permission/rules"},
		{method: "GET", path: "/v1/permission/rules?session_id=s1"},
	}
	for _, q := range closed {
		if code, e := s.do(t, q); code != http.StatusUnauthorized || e["code"] != permission.CodeUnauthorized {
			t.Errorf("%s %s without a token: %d %v", q.method, q.path, code, e["code"])
		}
	}
	// What the settings hold must not leak in a refusal either.
	if _, raw := s.send(t, req{method: "GET", path: "/v1/data/permopa/settings"}); bytes.Contains(raw, []byte("rm:*")) {
		t.Errorf("the refusal shows the rules: %s", raw)
	}
	for name, tok := range map[string]string{"agents' token": agent, "administrators' token": admin} {
		code, raw := s.send(t, req{method: "GET", path: "/v1/data/permopa/settings", token: tok})
		if code != http.StatusOK || !bytes.Contains(raw, []byte("rm:*")) {
			t.Errorf("GET /v1/data/permopa/settings with the %s: %d %s", name, code, raw)
		}
		if code, raw := s.send(t, req{method: "GET", path: "/v1/data", token: tok}); code != http.StatusOK {
			t.Errorf("GET /v1/data with the %s: %d %s", name, code, raw)
		}
		if code, _ := s.do(t, req{method: "GET", path: "/v1/permission/rules", token: tok}); code != http.StatusOK {
			t.Errorf("GET /v1/permission/rules with the %s: %d", name, code)
		}
	}
	if code, e := s.do(t, req{method: "GET", path: "/v1/data/permopa/settings", token: "not-the-token-0123456789"}); code != http.StatusUnauthorized {
		t.Errorf("a wrong token: %d %v", code, e)
	}
	// Open without a token: a check, OPA's health probe.
	if d := s.check(t, npmCall, ""); d["behavior"] != "ASK" {
		t.Errorf("check without a token: %v", d)
	}
	if code, raw := s.send(t, req{method: "GET", path: "/health"}); code != http.StatusOK {
		t.Errorf("GET /health without a token: %d %s", code, raw)
	}
	// The private socket is the no-token path.
	_, sock := guardHarness(t, serveOpts{socket: true})
	if code, raw := sock.send(t, req{method: "GET", path: "/v1/data/permopa/settings"}); code != http.StatusOK || !bytes.Contains(raw, []byte("rm:*")) {
		t.Errorf("GET /v1/data/permopa/settings on the private socket: %d %s", code, raw)
	}
	// A socket others can use is TCP.
	_, open := guardHarness(t, serveOpts{socket: true, sockMode: 0o777})
	if code, e := open.do(t, req{method: "GET", path: "/v1/data/permopa/settings"}); code != http.StatusUnauthorized {
		t.Errorf("GET /v1/data/permopa/settings on a socket others can use: %d %v", code, e)
	}
}
