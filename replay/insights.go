package replay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/permopa/permopa/adapter/hookproto"
	"github.com/permopa/permopa/builtins/bash"
	"github.com/permopa/permopa/builtins/paths"
	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/internal/decisionlog"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/rego/tables"
	"github.com/permopa/permopa/settings"
)

// InsightsOptions configure Insights.
type InsightsOptions struct {
	// Engine decides the calls the log has no decision for (and every call
	// with Redecide); it is called at most once, when first needed. Nil:
	// such calls are counted as undecided.
	Engine func(context.Context) (*engine.Engine, error)
	// Redecide decides every call with Engine instead of using the log's
	// decisions.
	Redecide bool
	// Home expands ~ in the Bash analysis of commands (default: none).
	Home string
	// Top is how many rows each table keeps in the text and HTML reports
	// (the JSON report has every row up to the caps).
	Top int
	// MaxChecked bounds the distinct (suggested rules, project) pairs
	// whose rules are checked against the policy (0: 2,000); past it an
	// ASK's suggestion is not checked and the report says so.
	MaxChecked int
	// Jobs, Reader, OnError, Progress: as for Run.
	Jobs     int
	Reader   decisionlog.ReaderOptions
	OnError  func(error)
	Progress func(Progress)
}

// Row is one line of a breakdown: the calls of one key, per behavior.
type Row struct {
	Key   string `json:"key"`
	Ask   int    `json:"ask"`
	Deny  int    `json:"deny"`
	Allow int    `json:"allow"`
}

// Prompts is ASK and DENY together: the calls that stopped the agent.
func (r Row) Prompts() int { return r.Ask + r.Deny }

// Bucket is one slice of the timeline.
type Bucket struct {
	Start time.Time `json:"start"`
	Ask   int       `json:"ask"`
	Deny  int       `json:"deny"`
	Allow int       `json:"allow"`
}

// Risk is what a set of calls did: how many were not read-only, touched a
// dangerous or credential path, or ran code permopa cannot see.
type Risk struct {
	NotReadOnly int `json:"not_read_only"`
	Dangerous   int `json:"dangerous_paths"`
	RunsUnknown int `json:"runs_unknown"`
	// ErasedRead counts the calls the policy decided by a field the log
	// erased: what they did cannot be judged from the log.
	ErasedRead int `json:"erased_fields_read"`
	// DangerousPaths are examples of the dangerous paths touched.
	DangerousPaths []string `json:"dangerous_path_examples,omitempty"`
}

// Level is "high" (a dangerous path or unseen code), "medium" (writes or
// runs something) or "low" (every call read-only).
func (r Risk) Level() string {
	switch {
	case r.Dangerous > 0 || r.RunsUnknown > 0 || r.ErasedRead > 0:
		return "high"
	case r.NotReadOnly > 0:
		return "medium"
	}
	return "low"
}

// Suggestion is a set of suggested rules that would have removed ASKs:
// every ASK whose suggested rules were exactly these.
type Suggestion struct {
	Rules []string `json:"rules"`
	// Command adds the rules ('permopa rules add', to the project's local
	// settings when every call was made in one project).
	Command string `json:"command"`
	// Calls is the ASKs it would have removed.
	Calls int `json:"calls"`
	// Projects are the calls' working directories (the first few).
	Projects []string `json:"projects"`
	projects map[string]bool
	Risk     Risk     `json:"risk"`
	Level    string   `json:"risk_level"`
	Examples []string `json:"examples"`
	// Broad says why one of the rules covers far more than the calls
	// counted (a whole tool, only wildcards, code run by a wildcard); then
	// Level is "high" whatever the calls did.
	Broad string `json:"broad,omitempty"`
}

// BroadAllow is an allow rule that covers a whole tool, any input, or any
// code, and the calls it allowed.
type BroadAllow struct {
	Rule     string   `json:"rule"`
	Layer    string   `json:"layer,omitempty"`
	Why      string   `json:"why"`
	Calls    int      `json:"calls"`
	Risk     Risk     `json:"risk"`
	Level    string   `json:"risk_level"`
	Examples []string `json:"examples"`
}

// Insights is where a log's prompts and denials come from.
type Insights struct {
	Files   []string `json:"files"`
	Calls   int      `json:"calls"`
	Skipped int      `json:"skipped"`
	Errors  int      `json:"errors"`
	// Undecided counts calls without a decision (no recorded one, no engine).
	Undecided int `json:"undecided"`
	// AsksWithoutRule counts the ASKs no suggested rule would remove: the
	// policy no longer asks, suggests no rule, or its rules, added, would
	// still leave an ASK (an ask rule, a safety check); and the ASKs past
	// the suggestions insights can check (maxVerified).
	AsksWithoutRule int `json:"asks_without_rule"`
	// Unchecked counts the ASKs whose suggested rules were not checked
	// because the log holds more distinct (rules, project) pairs than
	// insights checks (UncheckedLimit); UncheckedFrom is the first of
	// them, file:line. They are among AsksWithoutRule.
	Unchecked      int    `json:"unchecked"`
	UncheckedLimit int    `json:"unchecked_limit,omitempty"`
	UncheckedFrom  string `json:"unchecked_from,omitempty"`
	// TimedOut counts the calls the policy gave no decision for within
	// the deadline (--timeout): they are in no breakdown.
	TimedOut int `json:"timed_out"`

	Behaviors map[string]int `json:"behaviors"`
	From      time.Time      `json:"from,omitzero"`
	To        time.Time      `json:"to,omitzero"`

	ByTool    []Row `json:"by_tool"`
	ByProgram []Row `json:"by_program"`
	ByRule    []Row `json:"by_step_and_rule"`
	ByMode    []Row `json:"by_mode"`
	ByProject []Row `json:"by_project"`

	BucketSeconds int64    `json:"bucket_seconds"`
	Timeline      []Bucket `json:"timeline"`

	Suggestions []Suggestion `json:"suggestions"`
	BroadAllows []BroadAllow `json:"broad_allows"`
	Seconds     float64      `json:"seconds"`
}

// maxKeyBytes caps a key or example kept for the report: a log value may
// be 64 MiB, and memory must not grow with the length of its strings.
const maxKeyBytes = 512

// capKey is s cut to maxKeyBytes, at a rune boundary, marked with "…".
func capKey(s string) string {
	if len(s) <= maxKeyBytes {
		return s
	}
	cut := maxKeyBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// maxKeys caps the distinct keys of each breakdown: past it, calls count
// under "(other)", so memory stays bounded whatever the log holds.
const maxKeys = 20000

type table struct {
	rows  map[string]*Row
	order []string
}

func newTable() *table { return &table{rows: map[string]*Row{}} }

func (t *table) add(key, behavior string) {
	key = capKey(key)
	r, ok := t.rows[key]
	if !ok {
		if len(t.rows) >= maxKeys {
			key = "(other)"
			r = t.rows[key]
		}
		if r == nil {
			r = &Row{Key: key}
			t.rows[key] = r
		}
	}
	switch behavior {
	case permission.Ask:
		r.Ask++
	case permission.Deny:
		r.Deny++
	case permission.Allow:
		r.Allow++
	}
}

// sorted is the rows by prompts (ASK + DENY), then calls, then key.
func (t *table) sorted() []Row {
	out := make([]Row, 0, len(t.rows))
	for _, r := range t.rows {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Prompts() != b.Prompts() {
			return a.Prompts() > b.Prompts()
		}
		if a.Allow != b.Allow {
			return a.Allow > b.Allow
		}
		return a.Key < b.Key
	})
	return out
}

// observation is what one call adds to the insights.
type observation struct {
	pos      decisionlog.Pos
	time     time.Time
	tool     string
	mode     string
	project  string
	subject  string
	d        *permission.Decision
	programs []string
	risk     Risk
	undec    bool
	// suggested are the rules that would remove this ASK, sorted: the
	// policy's own suggestion, checked (verify); nil when none would.
	suggested      []string
	suggestedRules []permission.Rule
	// erasedRead: the policy's decision read a field the log erased.
	erasedRead bool
	// timedOut: the policy gave no decision within the deadline.
	timedOut bool
	// unchecked: its suggestion was past the pairs insights checks.
	unchecked bool
}

type insightsRun struct {
	opts InsightsOptions
	out  *Insights

	tools, programs, rules, modes, projects *table

	bucket  int64 // seconds
	buckets map[int64]*Bucket

	suggestions map[string]*Suggestion
	broad       map[string]*BroadAllow

	engOnce sync.Once
	eng     *engine.Engine
	engErr  error

	// an decides calls with erased fields as replay does, telling when a
	// decision read one (masked.go).
	an runner

	// The engine that checks suggested rules, each set added to a session
	// of its own for the one check (verify).
	verOnce  sync.Once
	ver      *engine.Engine
	verErr   error
	verMu    sync.Mutex
	verified map[string]*verified
}

// verified is the check of one set of suggested rules for one project.
type verified struct {
	once sync.Once
	ok   bool
}

// maxVerified bounds the (rules, project) pairs checked, and so the work
// and memory of the checks: each adds a session to the checking engine and
// takes it out again (two writes of its settings document, whose size does
// not grow with the log). Past it, an ASK's suggestion is not checked, and
// the report says how many and from where (Insights.Unchecked).
const maxVerified = 2000

// maxBuckets bounds the timeline: past it, buckets double in width.
const maxBuckets = 4000

func (r *insightsRun) maxChecked() int {
	if r.opts.MaxChecked > 0 {
		return r.opts.MaxChecked
	}
	return maxVerified
}

// RunInsights reads the sources and says where their prompts and denials
// come from.
func RunInsights(ctx context.Context, sources []Source, opts InsightsOptions) (*Insights, error) {
	jobs := opts.Jobs
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	r := &insightsRun{
		opts: opts, out: &Insights{Behaviors: map[string]int{}},
		tools: newTable(), programs: newTable(), rules: newTable(), modes: newTable(), projects: newTable(),
		bucket: 60, buckets: map[int64]*Bucket{}, suggestions: map[string]*Suggestion{}, broad: map[string]*BroadAllow{},
	}
	started := time.Now()
	err := pipeline(ctx, sources, opts.Reader, jobs, func(ctx context.Context, rec *decisionlog.Record) *result {
		obs, err := r.observe(ctx, rec)
		return &result{obs: obs, err: err}
	}, func(res *result) error {
		if res.err != nil {
			var le *decisionlog.LineError
			if !errors.As(res.err, &le) {
				return res.err
			}
			r.out.Errors++
			if opts.OnError != nil {
				opts.OnError(res.err)
			}
			return nil
		}
		r.add(res.obs)
		if opts.Progress != nil && r.out.Calls%1000 == 0 {
			opts.Progress(Progress{Calls: r.out.Calls, Elapsed: time.Since(started)})
		}
		return nil
	}, func(name string) { r.out.Files = append(r.out.Files, name) }, func(n int) { r.out.Skipped += n })
	if err != nil {
		return nil, err
	}
	r.finish()
	r.out.Seconds = time.Since(started).Seconds()
	return r.out, nil
}

func (r *insightsRun) engine(ctx context.Context) (*engine.Engine, error) {
	r.engOnce.Do(func() {
		if r.opts.Engine != nil {
			r.eng, r.engErr = r.opts.Engine(ctx)
		}
	})
	return r.eng, r.engErr
}

// observe reads one record (in a worker): its decision and, for the calls
// the report looks into, the Bash analysis.
func (r *insightsRun) observe(ctx context.Context, rec *decisionlog.Record) (*observation, error) {
	call, input, err := callOf(rec)
	if err != nil {
		return nil, &decisionlog.LineError{Pos: rec.Pos, Err: err}
	}
	o := &observation{pos: rec.Pos, time: rec.Time, tool: call.Tool, mode: call.Mode, project: call.Cwd, subject: call.Subject}
	switch {
	case rec.Result != nil && !r.opts.Redecide:
		var d permission.Decision
		if err := json.Unmarshal(rec.Result, &d); err != nil {
			return nil, &decisionlog.LineError{Pos: rec.Pos, Err: fmt.Errorf("result: %v", err)}
		}
		o.d = &d
	case rec.Error != "" && !r.opts.Redecide:
		d := permission.FailClosed(permission.CodeEvalError, rec.Error)
		o.d = &d
	default:
		eng, err := r.engine(ctx)
		if err != nil {
			return nil, fmt.Errorf("building the policy: %w", err)
		}
		if eng == nil {
			o.undec = true
			return o, nil
		}
		d, hits := r.an.decide(ctx, eng, input, rec.Erased)
		if isTimeout(d) {
			// No decision within the deadline: not a DENY of the policy.
			o.timedOut = true
			return o, nil
		}
		if len(hits) > 0 {
			// No policy, or its decision read a field the log erased:
			// what it would decide is not known.
			o.undec = true
			return o, nil
		}
		o.d = &d
	}
	if o.d.Behavior == permission.Ask {
		if err := r.suggest(ctx, o, input, call.Cwd, rec.Erased, rec.Result == nil || r.opts.Redecide); err != nil {
			return nil, err
		}
	}
	interesting := o.d.Behavior != permission.Allow || broadWhy(o.d) != ""
	if interesting {
		var doc map[string]any
		_ = json.Unmarshal(rec.Input, &doc)
		o.programs, o.risk = riskOf(call.Tool, doc, r.opts.Home)
		if o.erasedRead {
			o.risk.ErasedRead = 1
		}
	}
	return o, nil
}

// suggest finds the rules that would remove an ASK. A log's own suggested
// rules are never offered: a log is written by whoever could write to it,
// and a rule there may cover far more than its call. The rules are those
// the policy suggests for the call now (decided again unless decided just
// now), and they count only when the policy, with them added for the
// call's project, allows the call: an ask rule or a safety check that no
// allow rule silences leaves the ASK, and is no suggestion.
func (r *insightsRun) suggest(ctx context.Context, o *observation, input ast.Value, cwd string, erased []string, decidedNow bool) error {
	eng, err := r.engine(ctx)
	if err != nil {
		return fmt.Errorf("building the policy: %w", err)
	}
	if eng == nil {
		return nil
	}
	d := *o.d
	if !decidedNow {
		var hits []MaskedRead
		if d, hits = r.an.decide(ctx, eng, input, erased); len(hits) > 0 {
			// The policy read a field the log erased: neither its
			// suggestion nor the call's risk can be judged from the log.
			o.erasedRead = true
			return nil
		}
	}
	if d.Behavior != permission.Ask || len(d.SuggestedRules) == 0 {
		return nil
	}
	rules := make([]string, 0, len(d.SuggestedRules))
	forms := make([]permission.Rule, 0, len(d.SuggestedRules))
	for _, s := range d.SuggestedRules {
		f, ok := fileForm(s)
		if !ok {
			return nil
		}
		forms = append(forms, f)
		rules = append(rules, f.String())
	}
	sort.Strings(rules)
	ok, checked, err := r.verify(ctx, rules, forms, cwd, input, erased)
	if err != nil || !ok {
		o.unchecked = !checked
		return err
	}
	o.suggested, o.suggestedRules = rules, forms
	return nil
}

// fileForm is a suggested rule as 'permopa rules add' takes it on its
// command line, a Claude Code rule: the policy suggests path rules as
// AgentScope patterns ("/repo/src/**", docs/rules.md), which a settings
// file holds as the Claude Code pattern covering the same files
// ("//repo/src/**"). ok is false for a path pattern without one.
func fileForm(r permission.Rule) (permission.Rule, bool) {
	r.Syntax, r.Behavior = permission.SyntaxClaude, permission.Allow
	if r.RuleContent == nil || *r.RuleContent == "" || !settings.PathRuleTools()[r.ToolName] {
		return r, true
	}
	c, ok := paths.FnmatchToClaude(*r.RuleContent)
	if !ok {
		return r, false
	}
	r.RuleContent = &c
	return r, true
}

// verify decides the call with rules added, as 'permopa rules add
// --project CWD' would add them: ok when it is then an ALLOW. checked is
// false when the pair (rules, cwd) was past maxVerified and not checked.
//
// The rules live in a session of their own only for the check: a session
// left in the engine would stay in its settings document, which every
// later check rewrites, and the work would grow with the square of the
// number of projects in the log (BENCHMARKS.md, "Insights").
func (r *insightsRun) verify(ctx context.Context, key []string, rules []permission.Rule, cwd string, input ast.Value, erased []string) (ok, checked bool, err error) {
	r.verOnce.Do(func() {
		if r.opts.Engine != nil {
			r.ver, r.verErr = r.opts.Engine(ctx)
		}
	})
	if r.verErr != nil {
		return false, true, fmt.Errorf("building the policy: %w", r.verErr)
	}
	obj, isObj := input.(ast.Object)
	if r.ver == nil || !isObj {
		return false, true, nil
	}
	k := strings.Join(key, "\x00") + "\x00\x00" + cwd
	r.verMu.Lock()
	if r.verified == nil {
		r.verified = map[string]*verified{}
	}
	v, seen := r.verified[k]
	if !seen {
		if len(r.verified) >= r.maxChecked() {
			r.verMu.Unlock()
			return false, false, nil
		}
		v = &verified{}
		r.verified[k] = v
	}
	id := fmt.Sprintf("\x00permopa-insights-%d", len(r.verified))
	r.verMu.Unlock()
	v.once.Do(func() {
		add := make([]permission.Rule, 0, len(rules))
		for _, s := range rules {
			add = append(add, permission.Rule{ToolName: s.ToolName, RuleContent: s.RuleContent, Behavior: permission.Allow, Syntax: s.Syntax, Project: cwd})
		}
		// Not a session id a host sends: the rules apply to this check only.
		if r.ver.AddSessionRules(ctx, id, add...) != nil {
			// Rules the settings would not take (allow_managed_rules_only):
			// adding them would remove nothing.
			return
		}
		defer func() {
			_ = r.ver.UpdateSettings(context.WithoutCancel(ctx), func(s *settings.Settings) error {
				delete(s.SessionRules, id)
				return nil
			})
		}()
		in := obj.Copy()
		in.Insert(ast.StringTerm("session_id"), ast.StringTerm(id))
		// A custom tool's rule matches its whole input: with a field erased,
		// an ALLOW that read it is no evidence.
		d, hits := r.an.decide(ctx, r.ver, in, erased)
		v.ok = len(hits) == 0 && d.Behavior == permission.Allow
	})
	return v.ok, true, nil
}

// riskOf analyses a call: the programs of a Bash command, whether it is
// read-only, and the dangerous paths it touches.
func riskOf(tool string, doc map[string]any, home string) ([]string, Risk) {
	var risk Risk
	ti, _ := doc["tool_input"].(map[string]any)
	cwd, _ := doc["cwd"].(string)
	if cwd == "" {
		cwd = "/"
	}
	dangerous := func(p string) {
		if p == "" {
			return
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		if d, _, _ := paths.Classify(filepath.Clean(p), nil); d {
			if risk.Dangerous == 0 {
				risk.Dangerous = 1
			}
			if len(risk.DangerousPaths) < 3 {
				risk.DangerousPaths = append(risk.DangerousPaths, capKey(p))
			}
		}
	}
	switch {
	case tool == "Bash":
		cmd, ok := ti["command"].(string)
		if !ok {
			// Erased by the log's mask, or not a string: nothing is seen.
			risk.NotReadOnly, risk.RunsUnknown = 1, 1
			return nil, risk
		}
		a := bash.Analyze(cmd, bash.Options{Cwd: cwd, Home: home})
		seen := map[string]bool{}
		var programs []string
		for _, l := range a.Leaves {
			p := filepath.Base(l.Program)
			if p == "" || p == "." {
				continue
			}
			if !seen[p] {
				seen[p] = true
				programs = append(programs, p)
			}
			if l.RunsUnknown != "" {
				risk.RunsUnknown = 1
			}
		}
		if !a.ReadOnly || !a.Analysable {
			risk.NotReadOnly = 1
		}
		if !a.Analysable {
			risk.RunsUnknown = 1
		}
		for _, list := range [][]string{a.Writes, a.Reads, a.Touches} {
			for _, p := range list {
				dangerous(p)
			}
		}
		for _, t := range a.RecursiveReads {
			dangerous(t.Path)
		}
		return programs, risk
	case tables.FileReadTools()[tool]:
	default:
		// Every other tool writes, runs or sends something; WebFetch and
		// WebSearch send their URL or query off the machine (what a call
		// read can leave in them), which the policy asks about too.
		risk.NotReadOnly = 1
	}
	for _, k := range []string{"file_path", "notebook_path", "path"} {
		if s, ok := ti[k].(string); ok {
			dangerous(s)
		}
	}
	return nil, risk
}

func (rk *Risk) add(o Risk) {
	rk.NotReadOnly += o.NotReadOnly
	rk.Dangerous += o.Dangerous
	rk.RunsUnknown += o.RunsUnknown
	rk.ErasedRead += o.ErasedRead
	for _, p := range o.DangerousPaths {
		if len(rk.DangerousPaths) < 5 && !contains(rk.DangerousPaths, p) {
			rk.DangerousPaths = append(rk.DangerousPaths, p)
		}
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// add counts one observation (in log order).
func (r *insightsRun) add(o *observation) {
	out := r.out
	out.Calls++
	if o.timedOut {
		out.TimedOut++
		return
	}
	if o.undec {
		out.Undecided++
		return
	}
	d := o.d
	b := d.Behavior
	out.Behaviors[b]++
	if !o.time.IsZero() {
		if out.From.IsZero() || o.time.Before(out.From) {
			out.From = o.time
		}
		if o.time.After(out.To) {
			out.To = o.time
		}
		r.addTime(o.time, b)
	}
	r.tools.add(orNone(o.tool), b)
	mode := o.mode
	if mode == "" {
		mode = "(the settings' default)"
	}
	r.modes.add(mode, b)
	r.projects.add(orNone(o.project), b)
	r.rules.add(ruleKey(d), b)
	if b != permission.Allow {
		for _, p := range o.programs {
			r.programs.add(p, b)
		}
	}
	if b == permission.Ask && len(o.suggested) == 0 {
		out.AsksWithoutRule++
	}
	if o.unchecked {
		if out.Unchecked == 0 {
			out.UncheckedFrom, out.UncheckedLimit = o.pos.String(), r.maxChecked()
		}
		out.Unchecked++
	}
	if b == permission.Ask && len(o.suggested) > 0 {
		rules := o.suggested
		key := strings.Join(rules, "\x00")
		s, ok := r.suggestions[key]
		if !ok && len(r.suggestions) < maxKeys {
			s = &Suggestion{Rules: rules}
			for _, sr := range o.suggestedRules {
				if why := broadRuleWhy(sr); why != "" && s.Broad == "" {
					s.Broad = sr.String() + ": " + why
				}
			}
			r.suggestions[key] = s
		}
		if s != nil {
			s.Calls++
			s.Risk.add(o.risk)
			if s.projects == nil {
				s.projects = map[string]bool{}
			}
			if len(s.projects) <= 10 {
				s.projects[o.project] = true
			}
			if len(s.Examples) < 3 && !contains(s.Examples, o.subject) {
				s.Examples = append(s.Examples, capKey(o.subject))
			}
		}
	}
	if why := broadWhy(d); why != "" {
		key := d.MatchedRule.String() + "\x00" + d.MatchedRule.Layer
		ba, ok := r.broad[key]
		if !ok && len(r.broad) < maxKeys {
			ba = &BroadAllow{Rule: d.MatchedRule.String(), Layer: d.MatchedRule.Layer, Why: why}
			r.broad[key] = ba
		}
		if ba != nil {
			ba.Calls++
			ba.Risk.add(o.risk)
			if len(ba.Examples) < 3 && !contains(ba.Examples, o.subject) {
				ba.Examples = append(ba.Examples, capKey(o.subject))
			}
		}
	}
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// ruleKey is the step and what decided in it: the rule and its layer, the
// error code, the check id (docs/api.md, "Check ids": credential reads,
// environment dumps and unanalysable commands are apart, where the reason
// says "safety check" for each), or else the reason (a log written before
// decisions named their check).
func ruleKey(d *permission.Decision) string {
	switch {
	case d.MatchedRule != nil:
		k := d.Step + ": " + d.MatchedRule.String()
		if d.MatchedRule.Layer != "" {
			k += " (" + d.MatchedRule.Layer + ")"
		}
		return k
	case d.Step == permission.StepError:
		return d.Step + ": " + d.Code
	case d.Step == permission.StepModeFallback:
		return d.Step
	case d.Check != "":
		return d.Step + ": " + d.Check
	}
	return d.Step + ": " + d.Reason
}

var onlyWildcards = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[\s*:/~.]*$`) })

// broadWhy says why the allow rule that allowed d is broad, "" when it is
// not (or d is not an ALLOW by an allow rule).
func broadWhy(d *permission.Decision) string {
	if d.Behavior != permission.Allow || d.MatchedRule == nil || !strings.EqualFold(d.MatchedRule.Behavior, permission.Allow) {
		return ""
	}
	return broadRuleWhy(*d.MatchedRule)
}

// broadRuleWhy says why an allow rule is broad, "" when it is not.
func broadRuleWhy(r permission.Rule) string {
	if strings.ContainsAny(r.ToolName, "*?[") {
		return "its tool name is a pattern: every call of every tool it names"
	}
	if r.RuleContent == nil || *r.RuleContent == "" {
		return "covers every call of the tool"
	}
	c := strings.TrimSpace(*r.RuleContent)
	if onlyWildcards().MatchString(c) {
		return "its content is only wildcards"
	}
	if r.ToolName == "Bash" {
		// The judgement of rules lint's wide check: a prefix rule for a
		// program that runs code (the vocabulary's table), or a bare prefix
		// of git, rm, docker, ... (settings.WideBashRule).
		return settings.WideBashRule(c)
	}
	return ""
}

// addTime counts a call in the timeline, widening the buckets when there
// are too many.
func (r *insightsRun) addTime(t time.Time, behavior string) {
	k := t.Unix() / r.bucket * r.bucket
	b, ok := r.buckets[k]
	if !ok {
		b = &Bucket{Start: time.Unix(k, 0).UTC()}
		r.buckets[k] = b
	}
	switch behavior {
	case permission.Ask:
		b.Ask++
	case permission.Deny:
		b.Deny++
	default:
		b.Allow++
	}
	for len(r.buckets) > maxBuckets {
		r.bucket *= 2
		merged := map[int64]*Bucket{}
		for k, b := range r.buckets {
			nk := k / r.bucket * r.bucket
			m, ok := merged[nk]
			if !ok {
				m = &Bucket{Start: time.Unix(nk, 0).UTC()}
				merged[nk] = m
			}
			m.Ask += b.Ask
			m.Deny += b.Deny
			m.Allow += b.Allow
		}
		r.buckets = merged
	}
}

func (r *insightsRun) finish() {
	out := r.out
	out.ByTool, out.ByProgram, out.ByRule = r.tools.sorted(), r.programs.sorted(), r.rules.sorted()
	out.ByMode, out.ByProject = r.modes.sorted(), r.projects.sorted()
	// The timeline, without gaps, in at most ~60 buckets.
	if len(r.buckets) > 0 {
		first, last := int64(-1), int64(0)
		for k := range r.buckets {
			if first < 0 || k < first {
				first = k
			}
			if k > last {
				last = k
			}
		}
		width := r.bucket
		for (last-first)/width+1 > 60 {
			width *= 2
		}
		first = first / width * width
		for k := first; k <= last; k += width {
			out.Timeline = append(out.Timeline, Bucket{Start: time.Unix(k, 0).UTC()})
		}
		for k, b := range r.buckets {
			i := (k/width*width - first) / width
			out.Timeline[i].Ask += b.Ask
			out.Timeline[i].Deny += b.Deny
			out.Timeline[i].Allow += b.Allow
		}
		out.BucketSeconds = width
	}
	for _, s := range r.suggestions {
		s.Level = s.Risk.Level()
		if s.Broad != "" {
			s.Level = "high"
		}
		for p := range s.projects {
			s.Projects = append(s.Projects, p)
		}
		sort.Strings(s.Projects)
		s.Command = "permopa rules add "
		if len(s.Projects) == 1 && s.Projects[0] != "" {
			s.Command += "--project " + hookproto.ShellQuote(s.Projects[0]) + " "
		}
		s.Command += strings.Join(quoteAll(s.Rules), " ")
		out.Suggestions = append(out.Suggestions, *s)
	}
	sort.Slice(out.Suggestions, func(i, j int) bool {
		a, b := out.Suggestions[i], out.Suggestions[j]
		if a.Calls != b.Calls {
			return a.Calls > b.Calls
		}
		return strings.Join(a.Rules, " ") < strings.Join(b.Rules, " ")
	})
	for _, b := range r.broad {
		b.Level = b.Risk.Level()
		out.BroadAllows = append(out.BroadAllows, *b)
	}
	sort.Slice(out.BroadAllows, func(i, j int) bool {
		a, b := out.BroadAllows[i], out.BroadAllows[j]
		if a.Calls != b.Calls {
			return a.Calls > b.Calls
		}
		return a.Rule+a.Layer < b.Rule+b.Layer
	})
	if out.Suggestions == nil {
		out.Suggestions = []Suggestion{}
	}
	if out.BroadAllows == nil {
		out.BroadAllows = []BroadAllow{}
	}
}

func quoteAll(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = hookproto.ShellQuote(x)
	}
	return out
}
