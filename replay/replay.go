// Package replay decides recorded tool calls again under a candidate
// policy and reports what changed (`permopa replay`), and says where the
// prompts and denials of a log come from (`permopa insights`). Logs are
// read with internal/decisionlog; see docs/replay.md.
//
// Nothing from a log is ever run: a recorded call is an input to the
// policy, as a live call is, and the policy does not execute commands.
package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/internal/decisionlog"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// Source is one log to read.
type Source struct {
	// Name names the log in positions ("-" reads as "stdin").
	Name string
	// Open opens it.
	Open func() (io.ReadCloser, error)
}

// Outcome is one decision, as the report shows it.
type Outcome struct {
	Behavior string `json:"behavior"`
	Step     string `json:"step"`
	// Check is the id of the check that decided (docs/api.md, "Check ids").
	Check   string `json:"check,omitempty"`
	Rule    string `json:"rule,omitempty"`
	Layer   string `json:"layer,omitempty"`
	Source  string `json:"source,omitempty"`
	Code    string `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
	// From says where the decision comes from: "recorded" (the log),
	// "base" (decided again by the base policy) or "candidate".
	From string `json:"from"`
	// Suggested are the rules an ASK suggests.
	Suggested []string `json:"suggested_rules,omitempty"`
	// BypassImmune marks a safety ASK.
	BypassImmune bool `json:"bypass_immune,omitempty"`
}

func outcome(d permission.Decision, from string) *Outcome {
	o := &Outcome{Behavior: d.Behavior, Step: d.Step, Check: d.Check, Code: d.Code, Message: d.Message, From: from, BypassImmune: d.BypassImmune}
	if d.MatchedRule != nil {
		o.Rule, o.Layer, o.Source = d.MatchedRule.String(), d.MatchedRule.Layer, d.MatchedRule.Source
	}
	for _, r := range d.SuggestedRules {
		o.Suggested = append(o.Suggested, r.String())
	}
	return o
}

// MaskedRead is an erased input field a decision could have read, and the
// rule that reads it.
type MaskedRead struct {
	Pointer string `json:"pointer"`
	Rule    string `json:"rule"`
}

// Change kinds.
const (
	// Widened: the new behavior is more permissive (DENY → ASK or ALLOW,
	// ASK → ALLOW).
	Widened = "widened"
	// Narrowed: the new behavior is stricter.
	Narrowed = "narrowed"
	// Reason: the same behavior, decided by another step, check, rule or
	// layer.
	Reason = "reason"
	// Unknown: the new decision reads a field the log erased; its outcome
	// cannot be known from the log.
	Unknown = "unknown"
	// TimedOut: the base or candidate policy gave no decision within the
	// deadline (--timeout); the call is listed and not compared, since a
	// live call would have been denied for the time taken, not by a rule.
	TimedOut = "timeout"
	// Same: nothing changed.
	Same = "same"
)

// Call is one replayed call.
type Call struct {
	Pos        decisionlog.Pos `json:"pos"`
	DecisionID string          `json:"decision_id,omitempty"`
	ToolUseID  string          `json:"tool_use_id,omitempty"`
	Time       *time.Time      `json:"time,omitempty"`
	Tool       string          `json:"tool"`
	// Subject is what the call acts on: the command, the path, the URL, or
	// the tool input's JSON.
	Subject string   `json:"subject"`
	Cwd     string   `json:"cwd,omitempty"`
	Mode    string   `json:"mode,omitempty"`
	Old     *Outcome `json:"old,omitempty"`
	// New is nil when Change is Unknown.
	New    *Outcome `json:"new,omitempty"`
	Change string   `json:"change"`
	// Erased are the input fields the log does not have.
	Erased []string `json:"erased,omitempty"`
	// Masked are the erased fields the new decision could have read.
	Masked []MaskedRead `json:"masked,omitempty"`
	// Revisions are the bundle revisions the log says decided the call,
	// by bundle name: the log's claim, shown and never acted on.
	Revisions map[string]string `json:"recorded_revisions,omitempty"`
	// WithoutProjectRules: with ProjectRules, the call's project was past
	// the projects a run loads (MaxProjects), so its rules were not applied.
	WithoutProjectRules bool `json:"without_project_rules,omitempty"`
	// OtherProject: without ProjectRules, the call's cwd belongs to another
	// project than WorkProject (another set of .permopa directories), whose
	// rules were not applied.
	OtherProject bool `json:"other_project,omitempty"`
}

// Options configure Run.
type Options struct {
	// Candidate decides every call again.
	Candidate *engine.Engine
	// Base decides the calls the log has no decision for, and every call
	// when Rebase is set; it is called at most once, when first needed.
	// Nil: such calls have no old decision.
	Base func(context.Context) (*engine.Engine, error)
	// Rebase compares with the base policy's decisions, not the log's.
	Rebase bool
	// Jobs is how many calls are decided at once (0: GOMAXPROCS).
	Jobs int
	// Reader configures the log reader.
	Reader decisionlog.ReaderOptions
	// OnCall receives every replayed call, in log order (the report keeps
	// the changed ones).
	OnCall func(*Call) error
	// OnError receives every value of a log that is not a call, in order.
	OnError func(error)
	// Progress, when set, is called now and then with the calls done.
	Progress func(Progress)
	// ProjectRules applies, to each call, the rules of its cwd's project
	// (<cwd>/.permopa/settings.local.* and settings.*) as `permopa hook`
	// does for a call made there, when that directory exists here.
	ProjectRules bool
	// UserDir is the user settings directory whose trusted projects count
	// for ProjectRules ("": none is trusted; what a project's files loosen
	// is then left out, docs/rules.md "Trusted projects").
	UserDir string
	// OnWarning receives problems that are not the log's (a project's
	// settings that cannot be read, the projects past MaxProjects).
	OnWarning func(string)
	// MaxProjects bounds the projects whose rules a run loads with
	// ProjectRules (0: 128). Each project loaded makes every later one
	// cost more (its rules join the settings document the engine
	// rewrites), so a log naming thousands of projects would take time and
	// memory growing with their square; the calls in projects past the
	// bound are decided without their project's rules, counted and named
	// (Summary.WithoutProjectRules).
	MaxProjects int
	// WorkProject is the directory whose project layers the engines
	// already hold (the working directory's; "" when they hold none).
	// Without ProjectRules, a call made in another project is decided
	// with those rules, not its own: such calls are counted
	// (Summary.OtherProject) so that the report says which project's
	// rules decided them.
	WorkProject string
}

// maxProjects is the default of Options.MaxProjects.
const maxProjects = 128

// Progress is how far a run is.
type Progress struct {
	Calls   int
	Changed int
	Elapsed time.Duration
}

// Summary counts a run.
type Summary struct {
	Files   []string `json:"files"`
	Calls   int      `json:"calls"`
	Skipped int      `json:"skipped"`
	Errors  int      `json:"errors"`
	// Behaviors counts calls per "OLD → NEW" behavior (unchanged ones too).
	Behaviors map[string]int `json:"behaviors"`
	// Steps counts calls per "old step → new step".
	Steps    map[string]int `json:"steps"`
	Widened  int            `json:"widened"`
	Narrowed int            `json:"narrowed"`
	Reason   int            `json:"reason_changed"`
	Unknown  int            `json:"unknown"`
	// TimedOut counts the calls the base or candidate policy gave no
	// decision for within the deadline.
	TimedOut int `json:"timed_out"`
	// Masked counts the calls with erased fields; MaskedExact those the
	// new policy decided without reading any.
	Masked      int `json:"masked"`
	MaskedExact int `json:"masked_exact"`
	// NoOld counts the calls without an old decision (no base policy).
	NoOld int `json:"no_old_decision"`
	// Revisions counts the calls per set of bundle revisions the log says
	// decided them ("name=revision", sorted, joined by ", "; "(none)" when
	// it names none). It is what the log claims: replay decides every call
	// with the candidate whatever revision a call names.
	Revisions map[string]int `json:"recorded_revisions"`
	// CandidateRevisions are the revisions of the candidate's bundles, by
	// path.
	CandidateRevisions map[string]string `json:"candidate_revisions,omitempty"`
	// WithoutProjectRules counts the calls decided without their project's
	// rules (Options.MaxProjects); WithoutProjectRulesFrom is the first,
	// file:line.
	WithoutProjectRules     int    `json:"without_project_rules,omitempty"`
	WithoutProjectRulesFrom string `json:"without_project_rules_from,omitempty"`
	MaxProjects             int    `json:"max_projects,omitempty"`
	// OtherProject counts the calls made in another project than
	// Options.WorkProject and decided without its rules (no ProjectRules);
	// OtherProjectFrom is the first, file:line, made in OtherProjectCwd.
	OtherProject     int     `json:"other_project,omitempty"`
	OtherProjectFrom string  `json:"other_project_from,omitempty"`
	OtherProjectCwd  string  `json:"other_project_cwd,omitempty"`
	WorkProject      string  `json:"work_project,omitempty"`
	Seconds          float64 `json:"seconds"`
}

// Changed is the number of calls whose behavior changed or is unknown
// (masked or timed out).
func (s *Summary) Changed() int { return s.Widened + s.Narrowed + s.Unknown + s.TimedOut }

// Run replays the calls of the sources in order. It returns an error only
// when a log cannot be read at all or ctx ends; values that are not calls
// go to OnError and are counted.
func Run(ctx context.Context, sources []Source, opts Options) (*Summary, error) {
	if opts.Candidate == nil {
		return nil, errors.New("replay: no candidate policy")
	}
	jobs := opts.Jobs
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	r := &runner{opts: opts, sum: &Summary{Behaviors: map[string]int{}, Steps: map[string]int{}, Revisions: map[string]int{},
		CandidateRevisions: opts.Candidate.BundleRevisions()}}
	started := time.Now()
	err := pipeline(ctx, sources, opts.Reader, jobs, r.work, func(res *result) error {
		return r.collect(res, started)
	}, func(name string) { r.sum.Files = append(r.sum.Files, name) }, func(n int) { r.sum.Skipped += n })
	r.sum.Seconds = time.Since(started).Seconds()
	return r.sum, err
}

type runner struct {
	opts Options
	sum  *Summary

	baseOnce sync.Once
	base     *engine.Engine
	baseErr  error

	maskMu sync.Mutex
	masks  map[*engine.Engine]*analysis

	projMu   sync.Mutex
	projects map[projectKey]*sync.Once
	// admitted are the projects loaded (at most maxProjects), whatever
	// the engines.
	admitted map[string]bool
	// chains are the .permopa directories that decide a call made in a
	// directory (otherProject), by directory, at most maxChains.
	chains map[string]string
}

type projectKey struct {
	eng *engine.Engine
	cwd string
}

// project loads the rules of the call's project into eng, once per
// engine and directory (ProjectRules). It returns false when the project
// is past MaxProjects and its rules are not applied.
func (r *runner) project(ctx context.Context, eng *engine.Engine, cwd string) bool {
	if !r.opts.ProjectRules || cwd == "" || !filepath.IsAbs(cwd) || filepath.Clean(cwd) != cwd {
		return true
	}
	// The cwd's own .permopa or an enclosing one (docs/rules.md,
	// "Enclosing projects").
	if st, err := os.Stat(filepath.Join(cwd, ".permopa")); (err != nil || !st.IsDir()) && len(settings.ProjectChain(cwd, r.opts.UserDir, "")) == 0 {
		return true
	}
	r.projMu.Lock()
	if r.projects == nil {
		r.projects, r.admitted = map[projectKey]*sync.Once{}, map[string]bool{}
	}
	if !r.admitted[cwd] {
		if len(r.admitted) >= r.maxProjects() {
			r.projMu.Unlock()
			return false
		}
		r.admitted[cwd] = true
	}
	k := projectKey{eng, cwd}
	once, ok := r.projects[k]
	if !ok {
		once = &sync.Once{}
		r.projects[k] = once
	}
	r.projMu.Unlock()
	once.Do(func() {
		pl := settings.NewProjectChainLayers(cwd, cwd, r.opts.UserDir)
		for _, p := range pl.Attach(ctx, eng) {
			r.warn("settings of project %s: %v", cwd, p)
		}
	})
	return true
}

// maxChains bounds the directories otherProject remembers.
const maxChains = 4096

// otherProject says whether, without ProjectRules, a call made in cwd has
// project rules other than WorkProject's (docs/replay.md, "Old and new
// decisions"): the .permopa directories of cwd and those above it are not
// those of WorkProject.
func (r *runner) otherProject(cwd string) bool {
	if r.opts.ProjectRules || r.opts.WorkProject == "" || cwd == "" || !filepath.IsAbs(cwd) || filepath.Clean(cwd) != cwd {
		return false
	}
	return r.projectsOf(cwd) != r.projectsOf(filepath.Clean(r.opts.WorkProject))
}

// projectsOf are the directories whose .permopa decides a call made in
// dir, nearest first, joined by NUL.
func (r *runner) projectsOf(dir string) string {
	r.projMu.Lock()
	v, ok := r.chains[dir]
	r.projMu.Unlock()
	if ok {
		return v
	}
	dirs := settings.ProjectChain(dir, r.opts.UserDir, "")
	if st, err := os.Stat(filepath.Join(dir, ".permopa")); err == nil && st.IsDir() {
		dirs = append([]string{dir}, dirs...)
	}
	v = strings.Join(dirs, "\x00")
	r.projMu.Lock()
	if r.chains == nil {
		r.chains = map[string]string{}
	}
	if len(r.chains) < maxChains {
		r.chains[dir] = v
	}
	r.projMu.Unlock()
	return v
}

func (r *runner) maxProjects() int {
	if r.opts.MaxProjects > 0 {
		return r.opts.MaxProjects
	}
	return maxProjects
}

func (r *runner) warn(format string, args ...any) {
	if r.opts.OnWarning != nil {
		r.opts.OnWarning(fmt.Sprintf(format, args...))
	}
}

// result is a worker's answer for one record.
type result struct {
	call *Call
	obs  *observation
	err  error
}

func (r *runner) baseEngine(ctx context.Context) (*engine.Engine, error) {
	r.baseOnce.Do(func() {
		if r.opts.Base == nil {
			return
		}
		r.base, r.baseErr = r.opts.Base(ctx)
	})
	return r.base, r.baseErr
}

// analysis is the masked-field analysis of eng's policy, made once per engine.
func (r *runner) analysis(eng *engine.Engine) *analysis {
	r.maskMu.Lock()
	defer r.maskMu.Unlock()
	if a, ok := r.masks[eng]; ok {
		return a
	}
	var a *analysis
	if c := eng.Compiler(); c != nil {
		a = newAnalysis(c)
	}
	if r.masks == nil {
		r.masks = map[*engine.Engine]*analysis{}
	}
	r.masks[eng] = a
	return a
}

// decide decides input with eng; with erased fields, it also returns the
// erased fields the decision could have read (then its outcome is unknown).
func (r *runner) decide(ctx context.Context, eng *engine.Engine, input ast.Value, erased []string) (permission.Decision, []MaskedRead) {
	if len(erased) == 0 {
		return eng.Decide(ctx, input), nil
	}
	a := r.analysis(eng)
	if a == nil {
		hits := make([]MaskedRead, 0, len(erased))
		for _, p := range erased {
			hits = append(hits, MaskedRead{Pointer: p, Rule: "the policy (its rules cannot be analysed)"})
		}
		return eng.Decide(ctx, input), hits
	}
	paths := erasedPaths(erased)
	var hits []MaskedRead
	seen := map[string]bool{}
	d := eng.DecideTraced(ctx, input, func(rule *ast.Rule) {
		for _, rd := range a.readsOf(rule) {
			for _, p := range paths {
				if !rd.reaches(p) {
					continue
				}
				hit := MaskedRead{Pointer: decisionlog.Pointer(p), Rule: where(rd.rule)}
				if key := hit.Pointer + " " + hit.Rule; !seen[key] {
					seen[key] = true
					hits = append(hits, hit)
				}
			}
		}
	})
	return d, hits
}

// work decides one record again.
func (r *runner) work(ctx context.Context, rec *decisionlog.Record) *result {
	call, input, err := callOf(rec)
	if err != nil {
		return &result{err: &decisionlog.LineError{Pos: rec.Pos, Err: err}}
	}
	// The old decision.
	var oldMasked, timedOut bool
	switch {
	case r.opts.Rebase || (rec.Result == nil && rec.Error == ""):
		base, err := r.baseEngine(ctx)
		if err != nil {
			return &result{err: fmt.Errorf("building the base policy: %w", err)}
		}
		if base != nil {
			call.WithoutProjectRules = !r.project(ctx, base, call.Cwd)
			d, hits := r.decide(ctx, base, input, rec.Erased)
			if len(hits) == 0 {
				call.Old = outcome(d, "base")
			}
			oldMasked = len(hits) > 0
			timedOut = isTimeout(d)
			call.Masked = append(call.Masked, hits...)
		}
	case rec.Result != nil:
		var d permission.Decision
		if err := json.Unmarshal(rec.Result, &d); err != nil {
			return &result{err: &decisionlog.LineError{Pos: rec.Pos, Err: fmt.Errorf("result: %v", err)}}
		}
		if d.MatchedRule != nil && d.MatchedRule.RuleContent != nil && *d.MatchedRule.RuleContent == "" {
			d.MatchedRule.RuleContent = nil
		}
		if d.Step == permission.StepError && d.Code == "" {
			d.Code = d.Reason
		}
		call.Old = outcome(d, "recorded")
	default:
		call.Old = outcome(permission.FailClosed(permission.CodeEvalError, rec.Error), "recorded")
	}
	// The new decision.
	if !r.project(ctx, r.opts.Candidate, call.Cwd) {
		call.WithoutProjectRules = true
	}
	call.OtherProject = r.otherProject(call.Cwd)
	d, hits := r.decide(ctx, r.opts.Candidate, input, rec.Erased)
	if len(hits) == 0 || isTimeout(d) {
		call.New = outcome(d, "candidate")
	}
	call.Masked = append(call.Masked, hits...)
	if timedOut || isTimeout(d) {
		call.Change = TimedOut
		return &result{call: call}
	}
	if oldMasked {
		call.Change = Unknown
		return &result{call: call}
	}
	call.Change = classify(call.Old, call.New)
	return &result{call: call}
}

// isTimeout reports whether d is the engine's answer past its deadline.
func isTimeout(d permission.Decision) bool {
	return d.Step == permission.StepError && d.Code == permission.CodeTimeout
}

// rank orders behaviors by how much they let through.
func rank(b string) int {
	switch b {
	case permission.Allow:
		return 2
	case permission.Ask:
		return 1
	}
	return 0
}

func classify(old, new *Outcome) string {
	switch {
	case new == nil:
		return Unknown
	case old == nil:
		return Same
	case rank(new.Behavior) > rank(old.Behavior):
		return Widened
	case rank(new.Behavior) < rank(old.Behavior):
		return Narrowed
	case old.Step != new.Step || old.Rule != new.Rule || old.Layer != new.Layer:
		return Reason
	case old.Check != new.Check && old.Check != "" && new.Check != "":
		// A log written before decisions named their check has none: that
		// alone is no change.
		return Reason
	}
	return Same
}

// stepKey is an outcome's step for the summary, with the check that
// decided in it ("tool_check: credential_read").
func stepKey(o *Outcome) string {
	if o.Check != "" {
		return o.Step + ": " + o.Check
	}
	return o.Step
}

func (r *runner) collect(res *result, started time.Time) error {
	if res.err != nil {
		var le *decisionlog.LineError
		if errors.As(res.err, &le) {
			r.sum.Errors++
			if r.opts.OnError != nil {
				r.opts.OnError(res.err)
			}
			return nil
		}
		return res.err
	}
	c := res.call
	s := r.sum
	s.Calls++
	if c.WithoutProjectRules {
		if s.WithoutProjectRules == 0 {
			s.WithoutProjectRulesFrom, s.MaxProjects = c.Pos.String(), r.maxProjects()
			r.warn("truncated: the logs name more than %d projects, the most replay loads; from %s on, calls in other projects are decided without their project's rules (first: %s)", s.MaxProjects, c.Pos, c.Cwd)
		}
		s.WithoutProjectRules++
	}
	if c.OtherProject {
		if s.OtherProject == 0 {
			s.OtherProjectFrom, s.OtherProjectCwd, s.WorkProject = c.Pos.String(), c.Cwd, r.opts.WorkProject
		}
		s.OtherProject++
	}
	if len(c.Erased) > 0 {
		s.Masked++
		if len(c.Masked) == 0 {
			s.MaskedExact++
		}
	}
	oldB, oldS := "NONE", "none"
	if c.Old != nil {
		oldB, oldS = c.Old.Behavior, stepKey(c.Old)
	} else {
		s.NoOld++
	}
	newB, newS := "UNKNOWN", "unknown"
	switch {
	case c.Change == TimedOut:
		newB, newS = "TIMEOUT", "timeout"
	case c.New != nil:
		newB, newS = c.New.Behavior, stepKey(c.New)
	}
	s.Behaviors[oldB+" → "+newB]++
	rk := revisionsKey(c.Revisions)
	if _, ok := s.Revisions[rk]; !ok && len(s.Revisions) >= maxRevisionKeys {
		rk = "(other)"
	}
	s.Revisions[rk]++
	// Recorded steps are the log's strings: the keys are capped in length
	// and number, so that memory does not grow with the log.
	sk := capKey(oldS) + " → " + newS
	if _, ok := s.Steps[sk]; !ok && len(s.Steps) >= maxStepKeys {
		sk = "(other)"
	}
	s.Steps[sk]++
	switch c.Change {
	case Widened:
		s.Widened++
	case Narrowed:
		s.Narrowed++
	case Reason:
		s.Reason++
	case Unknown:
		s.Unknown++
	case TimedOut:
		s.TimedOut++
	}
	if r.opts.OnCall != nil {
		if err := r.opts.OnCall(c); err != nil {
			return err
		}
	}
	if r.opts.Progress != nil && s.Calls%1000 == 0 {
		r.opts.Progress(Progress{Calls: s.Calls, Changed: s.Changed(), Elapsed: time.Since(started)})
	}
	return nil
}

// callOf reads a record's call: the report's fields and the input the
// policy decides, with a placeholder where the log erased a field (so
// that the input keeps its keys; what reads the value is reported).
func callOf(rec *decisionlog.Record) (*Call, ast.Value, error) {
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(rec.Input))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil || doc == nil {
		return nil, nil, fmt.Errorf("input: not a JSON object")
	}
	c := &Call{Pos: rec.Pos, DecisionID: rec.DecisionID, Erased: rec.Erased, Revisions: rec.Bundles}
	if !rec.Time.IsZero() {
		t := rec.Time
		c.Time = &t
	}
	c.Tool, _ = doc["tool_name"].(string)
	c.ToolUseID = str(doc["tool_use_id"])
	c.Cwd, _ = doc["cwd"].(string)
	c.Mode = modeOf(doc)
	ti, _ := doc["tool_input"].(map[string]any)
	c.Subject = subject(c.Tool, ti)
	if len(rec.Erased) > 0 {
		for i := len(rec.Erased) - 1; i >= 0; i-- {
			if segs, err := decisionlog.ParsePointer(rec.Erased[i]); err == nil {
				doc = restore(doc, segs).(map[string]any)
			}
		}
	}
	v, err := ast.InterfaceToValue(doc)
	if err != nil {
		return nil, nil, fmt.Errorf("input: %v", err)
	}
	return c, v, nil
}

// maxStepKeys bounds the "old step → new step" pairs a summary counts apart.
const maxStepKeys = 1000

// maxRevisionKeys bounds the sets of revisions a summary counts apart.
const maxRevisionKeys = 100

// revisionsKey names a call's recorded bundle revisions in the summary.
func revisionsKey(revs map[string]string) string {
	if len(revs) == 0 {
		return "(none)"
	}
	parts := make([]string, 0, len(revs))
	for name, rev := range revs {
		parts = append(parts, name+"="+rev)
	}
	sort.Strings(parts)
	return Short(strings.Join(parts, ", "), 200)
}

// Placeholder stands for an erased value in a replayed input.
const Placeholder = "(erased by the decision log mask)"

// restore puts Placeholder back at segs where the key is missing.
func restore(v any, segs []string) any {
	if len(segs) == 0 {
		return v
	}
	switch x := v.(type) {
	case map[string]any:
		if len(segs) == 1 {
			if _, ok := x[segs[0]]; !ok {
				x[segs[0]] = Placeholder
			}
			return x
		}
		if child, ok := x[segs[0]]; ok {
			x[segs[0]] = restore(child, segs[1:])
		}
		return x
	case []any:
		i, err := strconv.Atoi(segs[0])
		if err != nil || i < 0 || i > len(x) {
			return x
		}
		if len(segs) == 1 {
			x = append(x, nil)
			copy(x[i+1:], x[i:])
			x[i] = Placeholder
			return x
		}
		if i < len(x) {
			x[i] = restore(x[i], segs[1:])
		}
		return x
	}
	return v
}

func str(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return ""
	case json.Number:
		return x.String()
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// modeOf is the mode the call names (permission_mode, else the
// permission_context's mode); "" when it names none.
func modeOf(doc map[string]any) string {
	if m, ok := doc["permission_mode"].(string); ok && m != "" {
		return m
	}
	if pc, ok := doc["permission_context"].(map[string]any); ok {
		if m, ok := pc["mode"].(string); ok {
			return m
		}
	}
	return ""
}

// subject is what a call acts on, for the report.
func subject(tool string, ti map[string]any) string {
	for _, k := range []string{"command", "file_path", "notebook_path", "path", "pattern", "url"} {
		if s, ok := ti[k].(string); ok && s != "" {
			if k == "pattern" {
				if p, ok := ti["path"].(string); ok && p != "" {
					return s + " in " + p
				}
			}
			return s
		}
	}
	if ti == nil {
		return ""
	}
	b, _ := json.Marshal(ti)
	return string(b)
}

// Short cuts s to n runes for a one-line display, its runs of white space
// made one space and anything a terminal would act on escaped (Printable).
func Short(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n-1]) + "…"
	}
	return Printable(s)
}

// Printable is s safe to print on a terminal: control characters (escape
// sequences that move the cursor, set the title or the clipboard; line
// breaks and tabs that would forge lines or columns of a report), Unicode
// format characters (bidirectional overrides, zero-width characters that
// hide text) and invalid UTF-8 are written as Go escapes (\x1b, \u202e).
// Every string a text report or an error message takes from a log goes
// through it: a log is written by whoever could write to it.
func Printable(s string) string {
	clean := true
	for _, r := range s {
		if !printableRune(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, "\\x%02x", s[i])
		case printableRune(r):
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&b, "\\x%02x", r)
		default:
			fmt.Fprintf(&b, "\\u%04x", r)
		}
		i += size
	}
	return b.String()
}

func printableRune(r rune) bool {
	return r != utf8.RuneError && !unicode.IsControl(r) && !unicode.Is(unicode.Cf, r) &&
		r != '\u2028' && r != '\u2029'
}
