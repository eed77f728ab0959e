package opaplugin

import (
	"context"
	"crypto/subtle"
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/open-policy-agent/opa/v1/plugins"

	"github.com/permopa/permopa/adapter/hookproto"
	"github.com/permopa/permopa/permission"
)

var opaAuthorization atomic.Bool

// SetOPAAuthorization tells the plugin that OPA's server runs with
// --authorization=basic: system.authz then decides who may use every
// route, and the plugin's own tokens are not asked for (OPA's
// --authentication=token Bearer tokens are system.authz's to judge).
// `permopa run` sets it from its flags; an OPA distribution embedding the
// plugin must call it when it enables authorization.
func SetOPAAuthorization(on bool) { opaAuthorization.Store(on) }

// OPAAuthorization reports what SetOPAAuthorization was told.
func OPAAuthorization() bool { return opaAuthorization.Load() }

// Roles of a caller.
type role int

const (
	roleNone  role = iota // no token
	roleAgent             // the agents' token
	roleAdmin             // the administrators' token, or system.authz
)

// caller is what the guard learned about a request.
type caller struct {
	// private: a unix socket that only the server's user can connect to.
	private bool
	role    role
	// opaAuthz: system.authz has already allowed the request.
	opaAuthz bool
}

// mayWrite says whether the caller may use confirm: the socket's file
// permissions, a token, or system.authz.
func (c *caller) mayWrite() bool { return c.private || c.opaAuthz || c.role != roleNone }

// isAdmin says whether the caller may act as an administrator: the
// administrators' token or system.authz (which sees the request's body,
// "admin": true included, and decides who may send it).
func (c *caller) isAdmin() bool { return c.opaAuthz || c.role == roleAdmin }

type callerKey struct{}

func callerOf(r *http.Request) *caller {
	if c, ok := r.Context().Value(callerKey{}).(*caller); ok {
		return c
	}
	return &caller{}
}

// tokens are the server's tokens; nil fields could not be read (the
// routes that need them are refused).
type tokens struct {
	agent, admin string
}

// loadTokens reads the token files named by the configuration (or the
// defaults in userDir), creating them at the first start.
func loadTokens(cfg *Config, userDir string) (*tokens, []error) {
	var problems []error
	t := &tokens{}
	for _, f := range []struct {
		path, name string
		dst        *string
	}{
		{cfg.HTTP.TokenFile, hookproto.TokenFileName, &t.agent},
		{cfg.HTTP.AdminTokenFile, hookproto.AdminTokenFileName, &t.admin},
	} {
		path := f.path
		if path == "" && userDir != "" {
			path = filepath.Join(userDir, f.name)
		}
		if path == "" {
			problems = append(problems, fmt.Errorf("no %s file (no user directory: set plugins.permopa.http.token_file or HOME): over TCP, confirm and OPA's write routes are refused", f.name))
			continue
		}
		tok, err := hookproto.EnsureTokenFile(path)
		if err != nil {
			problems = append(problems, fmt.Errorf("%v: over TCP, the routes that need it are refused", err))
			continue
		}
		*f.dst = tok
	}
	return t, problems
}

// roleOf checks a presented token.
func (t *tokens) roleOf(tok string) role {
	if t == nil || tok == "" {
		return roleNone
	}
	if t.admin != "" && subtle.ConstantTimeCompare([]byte(tok), []byte(t.admin)) == 1 {
		return roleAdmin
	}
	if t.agent != "" && subtle.ConstantTimeCompare([]byte(tok), []byte(t.agent)) == 1 {
		return roleAgent
	}
	return -1
}

// guardMiddleware guards every route of OPA's server, permopa's and OPA's
// own (docs/opa.md, "Authentication"):
//
//   - a Host header that names neither the listener's address (localhost,
//     127.0.0.1 or [::1] with its port on loopback) nor one of
//     http.allowed_hosts is refused (403 forbidden_host): a web page that
//     rebinds its own name to 127.0.0.1 reaches the port with its name as
//     Host;
//   - a request with an Origin (every browser POST has one) that is not in
//     http.allowed_origins is refused (403 cross_origin);
//   - a Bearer token, unless system.authz judges requests, must be one of
//     the server's (401 unauthorized);
//   - on TCP (or a unix socket others can use), every route but the open
//     ones (openRoute: check, confirm, Claude Code's hook, /health) needs
//     a token (401 unauthorized): OPA's data API would otherwise show
//     anyone the user's rules and settings;
//   - OPA's write routes (PUT, PATCH and DELETE of /v1/data and
//     /v1/policies) need the administrators' token, unless system.authz
//     judges requests (403 admin_required);
//   - OPA's evaluation routes take bodies of at most max_body_bytes.
//
// The unix socket skips the Host check (no browser reaches it); whether
// it counts as private (confirm without a token) depends on its file and
// directory modes.
func guardMiddleware(m *plugins.Manager) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if _, done := r.Context().Value(callerKey{}).(*caller); done {
				// OPA wraps both its authorizer and each route with the
				// extra middlewares: guard once.
				next.ServeHTTP(w, r)
				return
			}
			p := Lookup(m)
			cfg := defaultConfig
			var toks *tokens
			if p != nil {
				cfg = p.cfg.Load()
				toks = p.tokens.Load()
			}
			c, aerr := admit(r, cfg, toks)
			if aerr != nil && isHookPath(r) {
				// A hook host reads an error status as a failed hook,
				// which it may let through: the refusal is a block.
				refuseHook(w, r, cfg, aerr)
				return
			}
			if aerr != nil {
				writeError(w, aerr)
				return
			}
			if aerr := guardOPARoute(w, r, c, cfg); aerr != nil {
				writeError(w, aerr)
				return
			}
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), callerKey{}, c)))
		})
	}
}

var defaultConfig, _ = ParseConfig(nil)

// admit runs the checks every request passes.
func admit(r *http.Request, cfg *Config, toks *tokens) (*caller, *permission.Error) {
	c := &caller{opaAuthz: OPAAuthorization()}
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if ua, ok := local.(*net.UnixAddr); ok {
		c.private = socketPrivate(ua.Name)
	} else if !hostAllowed(r.Host, local, cfg.HTTP.AllowedHosts) {
		return nil, refusal(permission.CodeForbiddenHost, fmt.Sprintf("Host %q is not this server's address; add it to plugins.permopa.http.allowed_hosts if clients really use that name", r.Host))
	}
	if origin := r.Header.Get("Origin"); origin != "" && !originAllowed(origin, cfg.HTTP.AllowedOrigins) {
		return nil, refusal(permission.CodeCrossOrigin, fmt.Sprintf("requests from origin %q are refused (a web page cannot use this server); add it to plugins.permopa.http.allowed_origins to allow it", origin))
	}
	if site := r.Header.Get("Sec-Fetch-Site"); site == "cross-site" || site == "same-site" {
		if r.Header.Get("Origin") == "" {
			return nil, refusal(permission.CodeCrossOrigin, "a browser request from another site is refused")
		}
	}
	if c.opaAuthz {
		return c, nil
	}
	if auth := r.Header.Get("Authorization"); auth != "" {
		tok, ok := strings.CutPrefix(auth, "Bearer ")
		ro := toks.roleOf(strings.TrimSpace(tok))
		if !ok || ro < 0 || ro == roleNone {
			return nil, refusal(permission.CodeUnauthorized, "the Bearer token is not one of this server's (server-token or server-admin-token in its user directory)")
		}
		c.role = ro
	}
	return c, nil
}

// guardOPARoute applies the rules for the routes: on a listener others can
// reach, only the open routes go without a token; writes need the
// administrators' token; evaluations have the body limit.
func guardOPARoute(w http.ResponseWriter, r *http.Request, c *caller, cfg *Config) *permission.Error {
	path := r.URL.Path
	if !c.private && !c.opaAuthz && c.role == roleNone && !isWrite(r.Method) && !openRoute(r) {
		return refusal(permission.CodeUnauthorized, fmt.Sprintf("%s %s: on a TCP listener (or a unix socket others can use), OPA's data, policy, query and status routes and the rules list need a token: Authorization: Bearer <the server's server-token> (or use the server's unix socket)", r.Method, path))
	}
	if strings.HasPrefix(path, "/v1/permission/") {
		return nil
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return nil
	case http.MethodPost:
		if r.ContentLength > cfg.MaxBodyBytes {
			return refusal(permission.CodeBodyTooLarge, fmt.Sprintf("request body is over %d bytes (plugins.permopa.max_body_bytes)", cfg.MaxBodyBytes))
		}
		r.Body = http.MaxBytesReader(w, r.Body, cfg.MaxBodyBytes)
		return nil
	}
	if !c.isAdmin() {
		return refusal(permission.CodeAdminRequired, fmt.Sprintf("%s %s changes the server's data or policies: it needs the administrators' token (Authorization: Bearer <server-admin-token>) or system.authz", r.Method, path))
	}
	return nil
}

// openRoute says whether a request may come without a token on a listener
// others can reach (docs/opa.md §7, "Who may read"): a check (one decision,
// nothing written; Claude Code's http hooks cannot hold a token the agent
// could not read), OPA's health probe, and a confirm, whose handler asks
// for the token itself. Everything else (OPA's data, policy, query,
// compile, config, status and metrics routes, the rules list) reads the
// user's rules and settings: it needs a token. A list of what is open, so
// a route added later is closed until it is listed here.
func openRoute(r *http.Request) bool {
	path := r.URL.Path
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		return path == "/health" || strings.HasPrefix(path, "/health/")
	case http.MethodPost:
		return path == "/v1/permission/check" || path == "/v1/permission/confirm" || path == "/v1/permission/hook/claude"
	}
	return false
}

// isWrite says whether a method is one of OPA's writes, which need the
// administrators' token on every listener (403 admin_required).
func isWrite(method string) bool {
	return method == http.MethodPut || method == http.MethodPatch || method == http.MethodDelete
}

// hostAllowed says whether a Host header names this server: its own
// listening address, on loopback any loopback name with its port, or an
// allowed host.
func hostAllowed(host string, local net.Addr, allowed []string) bool {
	if host == "" {
		return true // HTTP/1.0 without Host: no browser sends that
	}
	name, port := splitHostPort(host)
	for _, a := range allowed {
		an, ap := splitHostPort(a)
		if strings.EqualFold(an, name) && (ap == "" || ap == port) {
			return true
		}
	}
	ta, ok := local.(*net.TCPAddr)
	if !ok {
		return false
	}
	localIP, _ := netip.AddrFromSlice(ta.IP)
	localIP = localIP.Unmap()
	localPort := strconv.Itoa(ta.Port)
	if port == "" {
		port = "80"
	}
	if port != localPort {
		return false
	}
	if ip, err := netip.ParseAddr(name); err == nil {
		ip = ip.Unmap()
		return ip == localIP || (localIP.IsLoopback() && ip.IsLoopback())
	}
	return localIP.IsLoopback() && strings.EqualFold(name, "localhost")
}

// splitHostPort splits host[:port] ("[::1]:8181", "[::1]", "a:1", "a").
func splitHostPort(hp string) (string, string) {
	if h, p, err := net.SplitHostPort(hp); err == nil {
		return h, p
	}
	return strings.TrimSuffix(strings.TrimPrefix(hp, "["), "]"), ""
}

func originAllowed(origin string, allowed []string) bool {
	for _, a := range allowed {
		if strings.EqualFold(strings.TrimSuffix(a, "/"), origin) {
			return true
		}
	}
	return false
}

// jsonContentType says whether a request declares a JSON body.
func jsonContentType(r *http.Request) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && mt == "application/json"
}

// socketPrivate says whether only the server's user can connect to the
// unix socket at path: its directory lets no one else in, or the socket
// lets no one else write (connect). Answers are kept for a second.
func socketPrivate(path string) bool {
	if v, ok := socketCache.Load(path); ok {
		e := v.(socketEntry)
		if time.Since(e.at) < time.Second {
			return e.private
		}
	}
	private := false
	if sock, err := os.Stat(path); err == nil {
		if dir, err := os.Stat(filepath.Dir(path)); err == nil {
			private = dir.Mode().Perm()&0o011 == 0 || sock.Mode().Perm()&0o022 == 0
		}
	}
	socketCache.Store(path, socketEntry{private: private, at: time.Now()})
	return private
}

type socketEntry struct {
	private bool
	at      time.Time
}

var socketCache sync.Map // socket path → socketEntry
