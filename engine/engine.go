// Package engine evaluates permopa's policy: it compiles the embedded default
// policy (or bundles and policy files) once, prepares the decision query, keeps
// settings and rules in an OPA store that can change without re-preparing, and
// answers Decide calls concurrently. Every fault fails closed: an evaluation
// error, a timeout or an undefined result is a DENY with step "error" and a
// stable code. The engine knows no host protocol.
package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/bundle"
	"github.com/open-policy-agent/opa/v1/loader"
	"github.com/open-policy-agent/opa/v1/metrics"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"github.com/open-policy-agent/opa/v1/topdown"

	"github.com/permopa/permopa/builtins"
	"github.com/permopa/permopa/internal/engineops"
	"github.com/permopa/permopa/permission"
	defaultpolicy "github.com/permopa/permopa/rego"
	"github.com/permopa/permopa/settings"
)

// DefaultQuery is the decision entrypoint of the default policy.
const DefaultQuery = "data.permopa.policy.decision"

// Engine decides tool calls. It is safe for concurrent use.
type Engine struct {
	// query is swapped whole when a shared engine's compiler changes
	// (engineops.Shared.Recompile); Decide loads it once per call.
	query     atomic.Pointer[rego.PreparedEvalQuery]
	store     storage.Store
	shared    bool // the store and compiler belong to an OPA plugins.Manager
	queryText string
	mu        sync.Mutex // serialises settings writes
	settings  settings.Settings
	// regoOpts are the options the decision query was prepared with (modules,
	// store, query); Evaluate (explain.go) prepares further queries from them.
	regoOpts []func(*rego.Rego)
	// decisionOnly: the policy lacks the explanation (WithDecisionOnly).
	decisionOnly bool
	extra        extraQueries
	// untrusted is what the settings in force left out of untrusted
	// project files (settings.Settings.Untrusted), named in the decisions
	// it might have changed (untrusted.go).
	untrusted atomic.Pointer[untrustedNotes]
	// nextExpiry is when the next rule expires (Unix ns, 0: none); Decide
	// then rebuilds the settings document without it (layers_session.go).
	nextExpiry atomic.Int64
	// timeout bounds each decision (WithTimeout); 0: the caller's context only.
	timeout time.Duration
	// slots caps the evaluations running at once, those whose answer was
	// already given up on included (WithMaxConcurrent); nil: no cap.
	slots chan struct{}
	// compiler holds the rules the decision query evaluates (trace.go).
	compiler atomic.Pointer[ast.Compiler]
	// observer, when set, sees every Decide (trace.go).
	observer atomic.Pointer[func(input any, d permission.Decision)]
	// bundleRevisions are the revisions of the bundles loaded by New, by path.
	bundleRevisions map[string]string
	// cache, when on, answers repeated calls (cache.go); cacheGen counts
	// the store's commits and recompiles, cachePolicy says what the
	// compiled policy allows to cache.
	cache       *decisionCache
	cacheGen    *atomic.Uint64
	cachePolicy atomic.Pointer[cachePolicy]
}

type config struct {
	policyFS       fs.FS
	noDefault      bool
	paths          []string
	bundles        []string
	query          string
	settings       settings.Settings
	settingsLoaded bool
	timeout        time.Duration
	timeoutSet     bool
	maxConcurrent  int
	checked        bool
	decisionOnly   bool
	cacheEntries   int
	cacheBytes     int64
}

// Option configures New.
type Option func(*config)

// WithPolicyPaths adds Rego files or directories (loaded with OPA's loader)
// to the default policy; together with WithoutDefaultPolicy they replace it.
func WithPolicyPaths(paths ...string) Option {
	return func(c *config) { c.paths = append(c.paths, paths...) }
}

// WithBundles adds OPA bundles (directories or .tar.gz files).
func WithBundles(paths ...string) Option {
	return func(c *config) { c.bundles = append(c.bundles, paths...) }
}

// WithoutDefaultPolicy leaves the embedded policy out: the policy then comes
// from WithPolicyPaths and WithBundles alone.
func WithoutDefaultPolicy() Option { return func(c *config) { c.noDefault = true } }

// WithCheckedPolicy skips OPA's compile stages that only check a policy
// (types, recursion, rule conflicts, unsafe and undefined calls, imports,
// required capabilities) when the policy is the embedded one alone: the
// test suite compiles that policy with every check, so a process that
// compiles it once and exits (a cold hook, docs/hosts.md) need not check it
// again. The stages that rewrite rules for evaluation all run, so the
// decisions are the same (TestCheckedPolicyDecidesTheSame). Policy files and
// bundles with Rego modules are always compiled with every check; bundles of
// data alone take the embedded policy's compile (embeddedCompiler).
func WithCheckedPolicy() Option { return func(c *config) { c.checked = true } }

// WithDecisionOnly leaves out of the embedded policy the modules no
// decision reads (explanationModules: the explanation `permopa explain`
// evaluates), for an engine that only decides: a cold hook process
// (docs/hosts.md) compiles the policy once before its one answer, and
// compiling what it never evaluates is time the user waits. Decide answers
// as without it (TestCheckedPolicyDecidesTheSame); Evaluate refuses every
// query, since an explanation or a tool's query would see part of the
// policy.
func WithDecisionOnly() Option { return func(c *config) { c.decisionOnly = true } }

// explanationModules are the embedded policy's modules that the decision
// does not read (evaluated by Evaluate, for `permopa explain` and tools).
var explanationModules = map[string]bool{"rego/permopa/policy/explanation.rego": true}

// checkOnlyStages are the compile stages WithCheckedPolicy skips: each only
// reports errors (or records what a check or `opa build` needs) and changes
// nothing evaluation reads.
var checkOnlyStages = []ast.StageID{
	ast.StageCheckUnusedImports,
	ast.StageCheckKeywordOverrides,
	ast.StageCheckDuplicateImports,
	ast.StageCheckVoidCalls,
	ast.StageCheckRuleConflicts,
	ast.StageCheckUndefinedFuncs,
	ast.StageCheckSafetyRuleHeads,
	ast.StageCheckRecursion,
	ast.StageCheckTypes,
	ast.StageCheckUnsafeBuiltins,
	ast.StageCheckDeprecatedBuiltins,
	ast.StageBuildRequiredCapabilities,
}

// WithQuery sets the decision query (default DefaultQuery).
func WithQuery(q string) Option { return func(c *config) { c.query = q } }

// DefaultTimeout bounds one decision of an engine built without
// WithTimeout: past it, Decide returns a DENY with code timeout.
const DefaultTimeout = 10 * time.Second

// WithTimeout bounds each decision (default DefaultTimeout; 0 or less:
// only the caller's context bounds it). Past the deadline, or when the
// caller's context ends first, Decide returns a DENY with code "timeout"
// at once, even while a built-in is still working on the input; that
// evaluation stops at its next step and its result is dropped.
func WithTimeout(d time.Duration) Option {
	return func(c *config) { c.timeout, c.timeoutSet = d, true }
}

// WithMaxConcurrent caps the evaluations Decide runs at once (0: no cap).
// An evaluation abandoned at its deadline keeps its slot until it really
// ends, so the cap also bounds the memory and CPU that inputs taking too
// long can hold; a decision that finds no free slot before its deadline is
// a DENY with code timeout.
func WithMaxConcurrent(n int) Option { return func(c *config) { c.maxConcurrent = max(n, 0) } }

func (c config) slots() chan struct{} {
	if c.maxConcurrent == 0 {
		return nil
	}
	return make(chan struct{}, c.maxConcurrent)
}

// timeoutOf is the per-decision bound a configuration asks for.
func (c config) timeoutOf() time.Duration {
	if !c.timeoutSet {
		return DefaultTimeout
	}
	return max(c.timeout, 0)
}

// WithSettings sets the initial settings (rules, mode, working directories, ...).
func WithSettings(s settings.Settings) Option {
	return func(c *config) { c.settings = s; c.settingsLoaded = true }
}

// New compiles the policy and prepares the decision query.
//
// New reads no settings file and no environment variable: without
// WithSettings the engine decides with no rules, in the default mode, as
// the input's permission_context alone says. The permopa command line
// (`permopa decide`, `permopa explain`) reads every settings layer:
// managed (/etc/permopa), --settings files, PERMOPA_* variables, the
// project's .permopa/settings.local.yaml and .permopa/settings.yaml, the
// user's ~/.config/permopa/settings.yaml. To decide as it does, load them
// with settings.LoadLayers and pass them with WithSettings (ExampleNew_layers); to
// keep the engine in step with the files as they change, use settings.NewLayers,
// Attach and Watch (ExampleLayers).
func New(ctx context.Context, opts ...Option) (*Engine, error) {
	builtins.Register()
	c := config{policyFS: defaultpolicy.FS, query: DefaultQuery}
	for _, o := range opts {
		o(&c)
	}
	if !c.settingsLoaded {
		c.settings = settings.Settings{}
	}
	c.settings.FillDefaults()

	doc := map[string]any{}
	regoOpts := []func(*rego.Rego){
		rego.Query(c.query),
		rego.StrictBuiltinErrors(true),
	}
	// Bundles are read first: one with Rego modules needs a compile of its
	// own, one of data alone does not.
	type loadedBundle struct {
		path string
		b    *bundle.Bundle
	}
	bundles := make([]loadedBundle, 0, len(c.bundles))
	dataOnly := true
	for _, path := range c.bundles {
		b, err := loader.NewFileLoader().AsBundle(path)
		if err != nil {
			return nil, fmt.Errorf("loading bundle %s: %w", path, err)
		}
		bundles = append(bundles, loadedBundle{path, b})
		dataOnly = dataOnly && len(b.Modules) == 0
	}
	// The embedded policy alone, beside bundles of data alone, is compiled
	// once per process and the compiler reused (embeddedCompiler); with
	// policy files or a bundle's modules the engine compiles its own.
	embeddedOnly := !c.noDefault && len(c.paths) == 0 && dataOnly
	var compiler *ast.Compiler
	if embeddedOnly {
		var err error
		if compiler, err = embeddedCompiler(ctx, c.policyFS, c.checked, c.decisionOnly); err != nil {
			return nil, err
		}
		regoOpts = append(regoOpts, rego.Compiler(compiler))
	} else if !c.noDefault {
		mods, err := parseModules(c.policyFS)
		if err != nil {
			return nil, err
		}
		for _, m := range mods {
			if c.decisionOnly && explanationModules[m.Package.Location.File] {
				continue
			}
			regoOpts = append(regoOpts, rego.ParsedModule(m))
		}
	}
	// Policy files and bundles are loaded here, not by rego.Load, because
	// their data goes into the engine's own store next to the settings.
	if len(c.paths) > 0 {
		res, err := loader.NewFileLoader().All(c.paths)
		if err != nil {
			return nil, fmt.Errorf("loading policy: %w", err)
		}
		for name, m := range res.ParsedModules() {
			regoOpts = append(regoOpts, rego.ParsedModule(withName(m, name)))
		}
		if err := mergeDoc(doc, res.Documents); err != nil {
			return nil, err
		}
	}
	revisions := map[string]string{}
	defaultOnly := embeddedOnly
	for _, lb := range bundles {
		revisions[lb.path] = lb.b.Manifest.Revision
		for _, m := range lb.b.Modules {
			regoOpts = append(regoOpts, rego.ParsedModule(withName(m.Parsed, lb.path+"/"+m.Path)))
		}
		if err := mergeDoc(doc, lb.b.Data); err != nil {
			return nil, fmt.Errorf("bundle %s: %w", lb.path, err)
		}
	}
	permopaDoc, _ := doc["permopa"].(map[string]any)
	if permopaDoc == nil {
		permopaDoc = map[string]any{}
		doc["permopa"] = permopaDoc
	}
	settingsDoc, err := documentValue(c.settings.Document())
	if err != nil {
		return nil, err
	}
	permopaDoc["settings"] = settingsDoc
	// AST values on read: the policy reads settings on every decision, and
	// converting the document from Go values each time would dominate.
	store := inmem.NewFromObjectWithOpts(doc, inmem.OptReturnASTValuesOnRead(true))
	regoOpts = append(regoOpts, rego.Store(store))
	if embeddedOnly && len(bundles) > 0 {
		// The shared compile saw no bundle's data: refuse data where the
		// policy has rules, as OPA's compile against this store does.
		if err := checkDataConflicts(ctx, store, compiler); err != nil {
			return nil, err
		}
	}
	pq, err := rego.New(append(slices.Clip(regoOpts), rego.CompilerHook(func(c *ast.Compiler) {
		compiler = c
	}))...).PrepareForEval(ctx)
	if err != nil {
		return nil, fmt.Errorf("compiling policy: %w", err)
	}
	e := &Engine{store: store, settings: c.settings, regoOpts: regoOpts, queryText: c.query, timeout: c.timeoutOf(), slots: c.slots(),
		decisionOnly: c.decisionOnly && !c.noDefault}
	e.compiler.Store(compiler)
	e.bundleRevisions = revisions
	e.query.Store(&pq)
	e.armExpiry(c.settings, time.Now())
	e.untrusted.Store(untrustedOf(c.settings))
	if err := e.startCache(ctx, c); err != nil {
		return nil, err
	}
	if e.cache != nil {
		e.cachePolicy.Store(analysePolicy(compiler, defaultOnly))
	}
	return e, nil
}

// checkDataConflicts refuses data in store at a path where compiler has
// rules, as OPA's compile does when it compiles against a store.
func checkDataConflicts(ctx context.Context, store storage.Store, compiler *ast.Compiler) error {
	return storage.Txn(ctx, store, storage.TransactionParams{}, func(txn storage.Transaction) error {
		if errs := ast.CheckPathConflicts(compiler, storage.NonEmpty(ctx, store, txn)); len(errs) > 0 {
			return fmt.Errorf("compiling policy: %w", errs)
		}
		return nil
	})
}

// parseModules returns the embedded policy's modules, parsed once per
// process (defaultpolicy.ParsedModules: rego/tables reads its tables from
// the same parse).
func parseModules(fsys fs.FS) ([]*ast.Module, error) {
	if fsys != fs.FS(defaultpolicy.FS) {
		return nil, errors.New("parsing policy: only the embedded policy is parsed here")
	}
	return defaultpolicy.ParsedModules()
}

// Decide evaluates the policy for one input (the JSON object of
// docs/api.md, as decoded by encoding/json or as an ast.Value). It never returns an
// error: faults are DENY decisions with step "error" and a Code. It returns
// by the engine's deadline (WithTimeout) or when ctx ends, whichever comes
// first, with a DENY of code "timeout".
func (e *Engine) Decide(ctx context.Context, input any) (d permission.Decision) {
	defer e.observe(input, &d)
	d = e.decideBounded(ctx, input)
	e.noteUntrusted(input, &d)
	return d
}

// decideBounded is Decide without the observer: within the engine's
// deadline and concurrency cap, with extra evaluation options.
func (e *Engine) decideBounded(ctx context.Context, input any, extra ...rego.EvalOption) permission.Decision {
	ctx, cancel := e.bound(ctx)
	defer cancel()
	if e.slots != nil {
		select {
		case e.slots <- struct{}{}:
		case <-ctx.Done():
			return failClosed(permission.CodeTimeout, "no decision within the deadline: %d evaluations already running; denied to fail closed", cap(e.slots))
		}
	}
	if ctx.Done() == nil {
		if e.slots != nil {
			defer func() { <-e.slots }()
		}
		return e.decideCaching(ctx, input, len(extra) == 0, extra...)
	}
	// The evaluation runs apart so that a built-in busy with a huge input
	// (which does not look at ctx) cannot hold the answer past the
	// deadline; OPA stops the evaluation at its next step.
	done := make(chan permission.Decision, 1)
	engineops.Go(func() {
		if e.slots != nil {
			defer func() { <-e.slots }()
		}
		defer func() {
			if r := recover(); r != nil {
				done <- failClosed(permission.CodeEvalError, "policy evaluation failed: %v", r)
			}
		}()
		done <- e.decideCaching(ctx, input, len(extra) == 0, extra...)
	})
	select {
	case d := <-done:
		return d
	case <-ctx.Done():
		return timedOut(ctx)
	}
}

// decideIn is Decide inside a store transaction the caller opened
// (engineops.Shared.DecideIn, for the OPA plugin): it returns only when
// the evaluation does, since it reads txn until then.
func (e *Engine) decideIn(ctx context.Context, txn storage.Transaction, input any) permission.Decision {
	ctx, cancel := e.bound(ctx)
	defer cancel()
	// txn is a read transaction: no commit happens while it is open, so
	// the cache's generation read inside it is the one txn sees.
	d := e.decideCaching(ctx, input, true, rego.EvalTransaction(txn))
	if ctx.Err() != nil && d.Code != permission.CodeTimeout {
		// A built-in that finished after the deadline: the answer is late.
		return timedOut(ctx)
	}
	e.noteUntrusted(input, &d)
	return d
}

// Timeout is the engine's per-decision bound (0: none but the caller's).
func (e *Engine) Timeout() time.Duration { return e.timeout }

// bound adds the engine's deadline to ctx.
func (e *Engine) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	if e.timeout <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, e.timeout)
}

func timedOut(ctx context.Context) permission.Decision {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return failClosed(permission.CodeTimeout, "no decision within the deadline; denied to fail closed")
	}
	return failClosed(permission.CodeTimeout, "the decision was cancelled (%v); denied to fail closed", ctx.Err())
}

func (e *Engine) decide(ctx context.Context, input any, extra ...rego.EvalOption) permission.Decision {
	if at := e.nextExpiry.Load(); at != 0 && time.Now().UnixNano() >= at {
		if err := e.expireRules(ctx); err != nil {
			return failClosed(permission.CodeEvalError, "expiring rules: %v", err)
		}
	}
	var opt rego.EvalOption
	switch v := input.(type) {
	case jsonDocument:
		val, err := parseInput(v)
		if err != nil {
			return failClosed(permission.CodeInvalidJSON, "input is not valid JSON: %v", err)
		}
		opt = rego.EvalParsedInput(val)
	case ast.Value:
		opt = rego.EvalParsedInput(v)
	default:
		val, err := ast.InterfaceToValue(input)
		if err != nil {
			return failClosed(permission.CodeInputError, "input: %v", err)
		}
		opt = rego.EvalParsedInput(val)
	}
	if err := ctx.Err(); err != nil {
		return timedOut(ctx)
	}
	// OPA's own per-evaluation costs that a decision does not need: no
	// metrics are read, the result is read as OPA's value (decodeValue),
	// and the evaluation is cancelled when ctx ends by a callback rather
	// than by a goroutine OPA would start for each evaluation. Options the
	// caller passes (extra) come after and win.
	cancel := topdown.NewCancel()
	if ctx.Done() != nil {
		stop := context.AfterFunc(ctx, cancel.Cancel)
		defer stop()
	}
	opts := make([]rego.EvalOption, 0, 4+len(extra))
	opts = append(opts, evalNoMetrics, evalResultValue, rego.EvalExternalCancel(cancel))
	rs, err := e.query.Load().Eval(ctx, append(append(opts, extra...), opt)...)
	if err != nil {
		var terr *topdown.Error
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) ||
			(errors.As(err, &terr) && terr.Code == topdown.CancelErr) || ctx.Err() != nil {
			return timedOut(ctx)
		}
		return failClosed(permission.CodeEvalError, "policy evaluation failed: %v", err)
	}
	if len(rs) == 0 || len(rs[0].Expressions) == 0 {
		return failClosed(permission.CodeUndefinedDecision, "policy produced no decision for %s", DefaultQuery)
	}
	if v, ok := rs[0].Expressions[0].Value.(ast.Value); ok {
		return decodeValue(v)
	}
	return decode(rs[0].Expressions[0].Value)
}

// The evaluation options every decision passes, made once (metrics.NoOp
// is a stateless singleton).
var (
	evalNoMetrics   = rego.EvalMetrics(metrics.NoOp())
	evalResultValue = rego.EvalGenerateJSON(resultValue)
)

// DecideJSON decides one JSON document; input that is not JSON is a DENY
// with code invalid_json. Parsing is inside the decision's deadline.
func (e *Engine) DecideJSON(ctx context.Context, doc []byte) permission.Decision {
	return e.Decide(ctx, jsonDocument(doc))
}

// jsonDocument is an input still to be parsed (DecideJSON).
type jsonDocument []byte

// Settings returns the settings in force.
func (e *Engine) Settings() settings.Settings {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.settings
}

// SetSettings replaces the settings in the store; the prepared query is
// kept, so the next Decide sees the new rules.
func (e *Engine) SetSettings(ctx context.Context, s settings.Settings) error {
	s.FillDefaults()
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.writeSettings(ctx, s.Document()); err != nil {
		return err
	}
	e.settings = s
	e.armExpiry(s, time.Now())
	e.untrusted.Store(untrustedOf(s))
	return nil
}

// withName sets a module's file name (used in errors and coverage).
func withName(m *ast.Module, name string) *ast.Module {
	if m.Package != nil && m.Package.Location != nil {
		m.Package.Location.File = name
	}
	return m
}

// mergeDoc merges src into dst; a key that is an object on one side and
// not on the other is a conflict.
func mergeDoc(dst, src map[string]any) error {
	for k, v := range src {
		sub, isObj := v.(map[string]any)
		cur, exists := dst[k]
		if !exists {
			dst[k] = v
			continue
		}
		curObj, curIsObj := cur.(map[string]any)
		if !isObj || !curIsObj {
			return fmt.Errorf("data conflict at key %q", k)
		}
		if err := mergeDoc(curObj, sub); err != nil {
			return err
		}
	}
	return nil
}
