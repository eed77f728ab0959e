package opaplugin

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/metrics"
	"github.com/open-policy-agent/opa/v1/plugins"
	"github.com/open-policy-agent/opa/v1/server/authorizer"
	"github.com/open-policy-agent/opa/v1/storage"

	"github.com/permopa/permopa/adapter"
	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/internal/decisionlog"
	"github.com/permopa/permopa/internal/engineops"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// Routes served on OPA's HTTP server.
const (
	RouteCheck   = "POST /v1/permission/check"
	RouteConfirm = "POST /v1/permission/confirm"
	RouteRules   = "GET /v1/permission/rules"
)

// refusal is a request refused with code: writeError answers it with the
// code's HTTP status (permission.Error.HTTPStatus, docs/api.md) and the
// error as its body, {"code": "...", "message": "..."}.
func refusal(code, message string) *permission.Error {
	return &permission.Error{Code: code, Message: message}
}

var routed sync.Map // *plugins.Manager → true

// registerRoutes adds the API to the manager's server once. The handlers
// look the plugin up on each request, so a plugin rebuilt by the manager
// serves the same routes.
func registerRoutes(m *plugins.Manager) {
	if _, loaded := routed.LoadOrStore(m, true); loaded {
		return
	}
	handle := func(route, prom string, f func(*Plugin, http.ResponseWriter, *http.Request)) {
		m.ExtraRoute(route, prom, func(w http.ResponseWriter, r *http.Request) {
			p := Lookup(m)
			if p == nil {
				writeError(w, refusal(permission.CodePluginNotRunning, "the permopa plugin is not running"))
				return
			}
			f(p, w, r)
		})
	}
	// Every route, OPA's own included, goes through the guard (guard.go).
	m.ExtraMiddleware(guardMiddleware(m))
	handle(RouteCheck, "v1/permission/check", (*Plugin).serveCheck)
	handle(RouteConfirm, "v1/permission/confirm", (*Plugin).serveConfirm)
	handle(RouteRules, "v1/permission/rules", (*Plugin).serveRules)
	// The hook route answers in Claude Code's hook protocol, even when the
	// plugin is not running: a block, never an error status (hook.go).
	m.ExtraRoute(RouteHookClaude, "v1/permission/hook/claude", func(w http.ResponseWriter, r *http.Request) {
		p := Lookup(m)
		if p == nil {
			refuseHook(w, r, defaultConfig, refusal(permission.CodePluginNotRunning, "the permopa plugin is not running"))
			return
		}
		p.serveHookClaude(w, r)
	})
	// system.authz sees the body of check and confirm as input.body (to
	// allow an agent its own session only, say). The authorizer then reads
	// the body before the handler: readBody takes it from the context.
	m.ExtraAuthorizerRoute(func(method string, path []any) bool {
		if method != http.MethodPost || len(path) < 3 || path[0] != "v1" || path[1] != "permission" {
			return false
		}
		return len(path) == 3 && (path[2] == "check" || path[2] == "confirm") ||
			len(path) == 4 && path[2] == "hook" && path[3] == "claude"
	})
}

func (p *Plugin) serveCheck(w http.ResponseWriter, r *http.Request) {
	cfg := p.cfg.Load()
	if !jsonContentType(r) {
		writeError(w, unsupportedMedia(r))
		return
	}
	started := time.Now()
	ctx, cancel := context.WithTimeout(r.Context(), cfg.Timeout())
	defer cancel()
	id := decisionlog.NewDecisionID()
	// A slot is taken before the body is read: bodies waiting for one are
	// not in memory, and large ones (or of unknown length) have their own,
	// smaller pool, so they cannot take every CPU from ordinary checks.
	release, busy := p.checkSlot(ctx, cfg, r.ContentLength)
	if busy != nil {
		busy.DecisionID = id
		p.logDecision(r, nil, cfg, map[string]any{}, *busy, metrics.New(), started, id)
		writeJSON(w, http.StatusOK, *busy)
		return
	}
	input, aerr := readBody(w, r, cfg.MaxBodyBytes)
	if aerr != nil {
		release()
		writeError(w, aerr)
		return
	}
	d, err := p.evaluate(ctx, r, cfg, input, id, started, release)
	if err != nil {
		writeError(w, refusal(permission.CodePolicyUnavailable, err.Error()))
		return
	}
	writeJSON(w, http.StatusOK, d)
}

// checkSlot takes a slot of the check pools for a body of length n (-1:
// unknown) and returns the function that gives it back. When none frees
// up before ctx ends, it returns the DENY to answer instead.
func (p *Plugin) checkSlot(ctx context.Context, cfg *Config, n int64) (func(), *permission.Decision) {
	ln := p.lanes.Load()
	if ln == nil {
		ln = newLanes(cfg)
		p.lanes.CompareAndSwap(nil, ln)
		ln = p.lanes.Load()
	}
	sem := ln.normal
	if n < 0 || n > cfg.Limits.LargeBodyBytes {
		sem = ln.large
	}
	select {
	case sem <- struct{}{}:
	case <-ctx.Done():
		d := permission.FailClosed(permission.CodeTimeout, fmt.Sprintf("no decision within %s: the server is busy with %d checks like this one; denied to fail closed", cfg.Timeout(), cap(sem)))
		return nil, &d
	}
	acquired := time.Now()
	if sem == ln.large {
		// A large check keeps its slot for twice the time it took before
		// the next one may start: a stream of huge inputs gets at most a
		// third of a CPU per large slot, and the rest stays for ordinary
		// checks. Its own answer is not delayed.
		return func() {
			go func() {
				time.Sleep(min(2*time.Since(acquired), cfg.Timeout()))
				<-sem
			}()
		}, nil
	}
	return func() { <-sem }, nil
}

// evaluate decides input as a check does, holding the slot that release
// gives back, and returns the decision with its decision_id: past ctx's
// deadline a DENY at once, while the evaluation (which keeps its slot)
// stops at its next step. The decision is logged once, and an ASK is kept
// for a confirm. The error is only for a store that cannot open a
// transaction.
func (p *Plugin) evaluate(ctx context.Context, r *http.Request, cfg *Config, input any, id string, started time.Time, release func()) (permission.Decision, error) {
	// Whoever claims first, the evaluation or the deadline, is what is
	// logged and answered.
	var claimed atomic.Bool
	type result struct {
		d   permission.Decision
		err error
	}
	done := make(chan result, 1)
	m := metrics.New()
	// On a kept goroutine whose stack has grown to what an evaluation
	// needs (engineops.Go), not a new one per check.
	engineops.Go(func() {
		defer release()
		m.Timer(metricCheck).Start()
		ctx, hit := engineops.WithCacheHitReport(ctx)
		d, err := p.decide(ctx, input, func(txn storage.Transaction, d permission.Decision) {
			m.Timer(metricCheck).Stop()
			if hit() {
				m.Counter(metricCacheHit).Incr()
			}
			if claimed.CompareAndSwap(false, true) {
				d.DecisionID = id
				p.logDecision(r, txn, cfg, input, d, m, started, id)
			}
		})
		done <- result{d, err}
	})
	var res result
	select {
	case res = <-done:
	case <-ctx.Done():
		if !claimed.CompareAndSwap(false, true) {
			res = <-done // the evaluation finished as the deadline passed
			break
		}
		res.d = permission.FailClosed(permission.CodeTimeout, fmt.Sprintf("no decision within %s (plugins.permopa.decision_timeout); denied to fail closed", cfg.Timeout()))
		if r.Context().Err() != nil {
			res.d.Message = "the client went away before the decision; denied"
		}
		res.d.DecisionID = id
		p.logDecision(r, nil, cfg, input, res.d, m, started, id)
	}
	if res.err != nil {
		return permission.Decision{}, res.err
	}
	d := res.d
	d.DecisionID = id
	if d.Behavior == permission.Ask {
		if ps := p.pending.Load(); ps != nil {
			ps.add(id, input, d.SuggestedRules, time.Now())
		}
	}
	return d, nil
}

func unsupportedMedia(r *http.Request) *permission.Error {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		ct = "none"
	}
	return refusal(permission.CodeUnsupportedMediaType, fmt.Sprintf("Content-Type %s: want application/json", ct))
}

const (
	metricCheck = "permopa_check"
	// metricCacheHit counts a check the decision cache answered (decision
	// logs: counter_permopa_cache_hit).
	metricCacheHit = "permopa_cache_hit"
)

// decide decides input in one read transaction and calls logf with it and
// the decision before the transaction ends (the decision log reads bundle
// revisions from the same snapshot). Faults are DENY decisions; the error
// is only for a store that cannot open a transaction.
func (p *Plugin) decide(ctx context.Context, input any, logf func(storage.Transaction, permission.Decision)) (permission.Decision, error) {
	for attempt := 0; ; attempt++ {
		eng, f := p.ready()
		// The project's rules are written before the read transaction
		// opens (a write inside it would wait for it forever).
		var projectFault *permission.Decision
		if ps := p.projects.Load(); f == nil && ps != nil {
			if ps.eng != eng {
				d := permission.FailClosed(permission.CodePolicyUnavailable, "the permopa plugin is being reconfigured")
				projectFault = &d
			} else {
				projectFault = ps.prepare(ctx, input)
			}
		}
		txn, err := p.m.Store.NewTransaction(ctx)
		if err != nil {
			return permission.Decision{}, fmt.Errorf("opening a store transaction: %w", err)
		}
		var d permission.Decision
		if _, ok := input.(map[string]any); !ok {
			d = permission.FailClosed(permission.CodeInputError, fmt.Sprintf("input: want a JSON object (a tool call), got %s", jsonKind(input)))
		} else if f != nil {
			d = permission.FailClosed(f.code, f.message)
		} else if pending := p.pendingBundles(ctx, txn); len(pending) > 0 {
			d = permission.FailClosed(permission.CodeBundlesNotReady, fmt.Sprintf(
				"bundles not activated yet: %s; their rules could be missing, so the call is denied until they are", strings.Join(pending, ", ")))
		} else if _, err := p.m.Store.Read(ctx, txn, engineops.SettingsPath); storage.IsNotFound(err) {
			// A bundle activation erased the settings after ready() looked:
			// write them again and decide again, rather than decide
			// without the deny rules.
			if attempt == 0 {
				p.m.Store.Abort(ctx, txn)
				p.gen.Add(1)
				continue
			}
			d = permission.FailClosed(permission.CodePolicyUnavailable, "data.permopa.settings is missing from the store")
		} else if projectFault != nil {
			d = *projectFault
		} else {
			d = shared.DecideIn(eng, ctx, txn, input)
		}
		if logf != nil {
			logf(txn, d)
		}
		p.m.Store.Abort(ctx, txn)
		return d, nil
	}
}

func (p *Plugin) serveConfirm(w http.ResponseWriter, r *http.Request) {
	cfg := p.cfg.Load()
	if !jsonContentType(r) {
		writeError(w, unsupportedMedia(r))
		return
	}
	c := callerOf(r)
	if !c.mayWrite() {
		writeError(w, refusal(permission.CodeUnauthorized,
			"over TCP, confirm needs a token: Authorization: Bearer <the server's server-token> (or use the server's unix socket)"))
		return
	}
	body, aerr := readBody(w, r, cfg.MaxBodyBytes)
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	raw, err := json.Marshal(body)
	if err != nil {
		writeError(w, refusal(permission.CodeInvalidJSON, err.Error()))
		return
	}
	var res adapter.ConfirmResult
	if err := json.Unmarshal(raw, &res); err != nil {
		writeError(w, confirmDecodeError(err))
		return
	}
	fields, _ := body.(map[string]any)
	pa, aerr := p.bindConfirm(c, fields, &res)
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	if res.Destination == "" {
		res.Destination = cfg.ConfirmDestination
	}
	eng, f := p.ready()
	if f != nil {
		writeError(w, refusal(permission.CodeUnavailable, f.code+": "+f.message))
		return
	}
	layers := p.layers.Load()
	if ps := p.projects.Load(); ps != nil && ps.eng == eng &&
		(res.Destination == settings.DestinationLocal || res.Destination == settings.DestinationProject) {
		// The call's project (settings.projects): its files are the
		// destination, as `permopa rules add` run in that cwd writes them.
		pl, blocked := ps.layersFor(r.Context(), res.ToolCall)
		if blocked != nil {
			writeError(w, refusal(permission.CodeUnavailable, blocked.Code+": "+blocked.Message))
			return
		}
		if pl != nil {
			if err := managedOnly(eng, res); err != nil {
				writeError(w, refusal(permission.CodeRulesNotSaved, err.Error()))
				return
			}
			layers = pl
		}
	}
	conf, err := adapter.Confirm(r.Context(), eng, layers, res)
	if err != nil {
		var ce *permission.Error
		if !errors.As(err, &ce) {
			err = permission.NewError(permission.CodeRulesNotSaved, err)
		}
		writeError(w, err)
		return
	}
	if len(conf.Rules) > 0 {
		names := make([]string, len(conf.Rules))
		for i, rule := range conf.Rules {
			names[i] = rule.Behavior + " " + rule.String() + " → " + rule.Layer
		}
		p.m.Logger().WithFields(map[string]any{"session_id": res.ToolCall.SessionID, "remote_addr": r.RemoteAddr}).
			Info("permopa: rules accepted: %s", strings.Join(names, ", "))
	}
	if pa != nil {
		// One answer per question: the ASK cannot be confirmed again.
		p.pending.Load().remove(pa)
	}
	writeJSON(w, http.StatusOK, conf)
}

// bindConfirm holds a confirm to a checked call: it must name the
// decision_id of a check answered ASK (not yet confirmed, within
// confirm.window), its tool_call (when it names one) must be that call,
// and its rules must be among those the check suggested. An admin confirm
// ("admin": true, the administrators' token or system.authz) may name any
// call and any rules.
func (p *Plugin) bindConfirm(c *caller, fields map[string]any, res *adapter.ConfirmResult) (*pendingAsk, *permission.Error) {
	if admin, _ := fields["admin"].(bool); admin {
		if !c.isAdmin() {
			return nil, refusal(permission.CodeAdminRequired, `"admin": true needs the administrators' token (Authorization: Bearer <server-admin-token>) or system.authz`)
		}
		return nil, nil
	}
	id, _ := fields["decision_id"].(string)
	if id == "" {
		return nil, refusal(permission.CodeDecisionRequired, "decision_id: missing: name the decision_id of the check that answered ASK (only an admin confirm may name none)")
	}
	ps := p.pending.Load()
	var pa *pendingAsk
	if ps != nil {
		pa = ps.get(id, time.Now())
	}
	if pa == nil {
		return nil, refusal(permission.CodeUnknownDecision, fmt.Sprintf("decision_id %q: no ASK waiting for an answer has it (never checked here, already answered, or older than confirm.window): check the call again", id))
	}
	if tc, ok := fields["tool_call"]; ok && tc != nil {
		if got, ok := normalizedCall(tc); !ok || !bytes.Equal(got, pa.call) {
			return nil, refusal(permission.CodeToolCallMismatch, fmt.Sprintf("tool_call: not the call decision %s was made for", id))
		}
	} else {
		var call adapter.Call
		if err := json.Unmarshal(pa.call, &call); err != nil {
			return nil, refusal(permission.CodeInvalidRequest, err.Error())
		}
		res.ToolCall = call
	}
	for _, r := range res.Rules {
		if !pa.suggestedRule(r) {
			return nil, refusal(permission.CodeRuleNotSuggested, fmt.Sprintf("rule %s was not suggested for decision %s: accept its suggested rules, or have an administrator confirm (\"admin\": true)", r, id))
		}
	}
	return pa, nil
}

// managedOnly refuses a confirmed allow rule for a project's files while
// the server's managed settings allow only managed allow rules (the
// project's layers alone do not know the lock): it would have no effect.
func managedOnly(eng *engine.Engine, res adapter.ConfirmResult) error {
	if !res.Confirmed || !eng.Settings().AllowManagedRulesOnly {
		return nil
	}
	for _, r := range res.Rules {
		if r.Behavior == "" || strings.EqualFold(r.Behavior, permission.Allow) {
			return fmt.Errorf("rule %s: managed settings allow only managed allow rules; writing it to the project's settings would have no effect", r)
		}
	}
	return nil
}

// confirmDecodeError names the field of a confirm body that has the wrong
// type, with the permission.Error code of that field.
func confirmDecodeError(err error) *permission.Error {
	field := ""
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field = te.Field
	}
	msg := err.Error()
	if strings.HasPrefix(msg, "rules") {
		field = "rules"
	}
	code := permission.CodeInvalidRequest
	switch {
	case strings.HasPrefix(field, "tool_call"):
		code = permission.CodeInvalidToolCall
	case strings.HasPrefix(field, "rules"):
		code = permission.CodeInvalidRule
	case field == "destination":
		code = permission.CodeInvalidDestination
	case field == "ttl":
		code = permission.CodeInvalidTTL
	}
	if te != nil {
		msg = fmt.Sprintf("%s: want a %s, got a JSON %s", field, typeName(te.Type.Kind().String()), te.Value)
		if field == "" {
			msg = fmt.Sprintf("want a JSON object, got a JSON %s", te.Value)
		}
	}
	return refusal(code, msg)
}

// RulesAnswer is the answer of GET /v1/permission/rules.
type RulesAnswer struct {
	// Rules in force, in the order the policy consults their sources: the
	// organisation's (data.permopa.rules), the settings layers' (highest
	// first), with ?cwd=DIR the rules of that project (settings.projects),
	// the sessions'. Expired rules are left out.
	Rules []permission.Rule `json:"rules"`
}

func (p *Plugin) serveRules(w http.ResponseWriter, r *http.Request) {
	eng, f := p.ready()
	if f != nil {
		writeError(w, refusal(permission.CodeUnavailable, f.code+": "+f.message))
		return
	}
	now := time.Now()
	org, err := p.orgRules(r.Context())
	if err != nil {
		writeError(w, refusal(permission.CodeUnavailable, err.Error()))
		return
	}
	s := eng.Settings()
	all := append(org, s.Rules...)
	if cwd := r.URL.Query().Get("cwd"); cwd != "" {
		// The rules of the project a call made in cwd gets (settings.projects).
		if ps := p.projects.Load(); ps != nil && ps.eng == eng {
			if blocked := ps.prepare(r.Context(), map[string]any{"cwd": cwd}); blocked != nil {
				writeError(w, refusal(permission.CodeUnavailable, blocked.Code+": "+blocked.Message))
				return
			}
			if key, _ := ps.keyOf(map[string]any{"cwd": cwd}); key != "" {
				all = append(all, eng.Settings().Projects[key]...)
			}
		}
	}
	if r.URL.Query().Has("session_id") {
		id := r.URL.Query().Get("session_id")
		all = append(all, s.SessionRules[""]...)
		if id != "" {
			all = append(all, s.SessionRules[id]...)
		}
	} else {
		sessions := settings.Settings{SessionRules: s.SessionRules}
		all = append(all, sessions.AllRules()...)
	}
	out := RulesAnswer{Rules: []permission.Rule{}}
	for _, rule := range all {
		if !rule.ExpiredAt(now) {
			out.Rules = append(out.Rules, rule)
		}
	}
	writeJSON(w, http.StatusOK, out)
}

// orgRules reads the organisation's rules from data.permopa.rules (a data
// bundle, same shape as the settings document). A rule without a layer is
// given the bundle's name.
func (p *Plugin) orgRules(ctx context.Context) ([]permission.Rule, error) {
	path := storage.MustParsePath("/permopa/rules")
	var doc any
	var owner string
	err := storage.Txn(ctx, p.m.Store, storage.TransactionParams{}, func(txn storage.Transaction) error {
		v, err := p.m.Store.Read(ctx, txn, path)
		if storage.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		doc = v
		owner, err = engineops.BundleOwning(ctx, p.m.Store, txn, path)
		return err
	})
	if err != nil || doc == nil {
		return nil, err
	}
	if v, ok := doc.(ast.Value); ok {
		if doc, err = ast.JSON(v); err != nil {
			return nil, err
		}
	}
	top, _ := doc.(map[string]any)
	layer := "data.permopa.rules"
	if owner != "" {
		layer = "bundle:" + owner
	}
	var out []permission.Rule
	add := func(x any, list string) {
		obj, ok := x.(map[string]any)
		if !ok {
			return
		}
		// Listed as the policy sees them, without validation: a rule the
		// policy cannot read is still in force (a deny rule then covers
		// every call of its tool).
		var rule permission.Rule
		rule.ToolName, _ = obj["tool_name"].(string)
		if c, ok := obj["rule_content"].(string); ok && c != "" {
			rule.RuleContent = &c
		}
		b, _ := obj["behavior"].(string)
		rule.Behavior = strings.ToUpper(cmp.Or(b, list))
		rule.Source, _ = obj["source"].(string)
		rule.Layer, _ = obj["layer"].(string)
		rule.Expires, _ = obj["expires"].(string)
		if rule.Source == "" {
			rule.Source = "bundle"
		}
		if rule.Layer == "" {
			rule.Layer = layer
		}
		out = append(out, rule)
	}
	rules, _ := top["rules"].(map[string]any)
	patterns, _ := top["tool_pattern_rules"].(map[string]any)
	for _, b := range []string{"deny", "ask", "allow"} {
		byTool, _ := rules[b].(map[string]any)
		for _, tool := range sortedKeys(byTool) {
			list, _ := byTool[tool].([]any)
			for _, x := range list {
				add(x, b)
			}
		}
		list, _ := patterns[b].([]any)
		for _, x := range list {
			add(x, b)
		}
	}
	return out, nil
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// readBody reads the request's JSON body: from the context when OPA's
// authorizer has already read and parsed it (authorization on), else from
// r.Body, gzip-decoded when the request says so, limited to max bytes.
func readBody(w http.ResponseWriter, r *http.Request, max int64) (any, *permission.Error) {
	tooLarge := refusal(permission.CodeBodyTooLarge, fmt.Sprintf("request body is over %d bytes (plugins.permopa.max_body_bytes)", max))
	if v, ok := authorizer.GetBodyOnContext(r.Context()); ok {
		if r.ContentLength > max {
			return nil, tooLarge
		}
		// A compressed or chunked body has no useful Content-Length.
		if b, err := json.Marshal(v); err != nil || int64(len(b)) > max {
			return nil, tooLarge
		}
		return v, nil
	}
	raw, aerr := readRawBody(w, r, max)
	if aerr != nil {
		return nil, aerr
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, refusal(permission.CodeInvalidJSON, "empty request body: want a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, refusal(permission.CodeInvalidJSON, "request body is not valid JSON: "+err.Error())
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, refusal(permission.CodeInvalidJSON, "request body is not valid JSON: data after the first JSON value")
	}
	return v, nil
}

// readRawBody reads r.Body, gzip-decoded when the request says so, limited
// to max bytes.
func readRawBody(w http.ResponseWriter, r *http.Request, max int64) ([]byte, *permission.Error) {
	tooLarge := refusal(permission.CodeBodyTooLarge, fmt.Sprintf("request body is over %d bytes (plugins.permopa.max_body_bytes)", max))
	if r.ContentLength > max {
		return nil, tooLarge
	}
	body := io.Reader(http.MaxBytesReader(w, r.Body, max))
	raw, err := io.ReadAll(body)
	if err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			return nil, tooLarge
		}
		return nil, refusal(permission.CodeInvalidJSON, "reading the request body: "+err.Error())
	}
	if strings.Contains(r.Header.Get("Content-Encoding"), "gzip") {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return nil, refusal(permission.CodeInvalidJSON, "gzip body: "+err.Error())
		}
		raw, err = io.ReadAll(io.LimitReader(zr, max+1))
		if err != nil {
			return nil, refusal(permission.CodeInvalidJSON, "gzip body: "+err.Error())
		}
		if int64(len(raw)) > max {
			return nil, tooLarge
		}
	}
	return raw, nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		e := permission.NewError(permission.CodeInternalError, err)
		status = e.HTTPStatus()
		b, _ = json.Marshal(e)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// writeError is the one writer of the server's error answers: the
// *permission.Error in err's chain, with its code's status (docs/api.md);
// any other error is an internal_error. The hook route never uses it: its
// every fault is a 200 that blocks (refuseHook).
func writeError(w http.ResponseWriter, err error) {
	var e *permission.Error
	if !errors.As(err, &e) {
		e = permission.NewError(permission.CodeInternalError, err)
	}
	writeJSON(w, e.HTTPStatus(), e)
}

func jsonKind(v any) string {
	switch v.(type) {
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return "a number"
}
