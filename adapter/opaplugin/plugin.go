package opaplugin

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/bundle"
	"github.com/open-policy-agent/opa/v1/plugins"
	bundleplugin "github.com/open-policy-agent/opa/v1/plugins/bundle"
	"github.com/open-policy-agent/opa/v1/runtime"
	"github.com/open-policy-agent/opa/v1/storage"

	"github.com/permopa/permopa/builtins"
	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/internal/engineops"
	"github.com/permopa/permopa/permission"
	defaultpolicy "github.com/permopa/permopa/rego"
	"github.com/permopa/permopa/settings"
)

// Name is the plugin's name: its configuration lives under plugins.permopa.
const Name = "permopa"

// EmbeddedPolicyPrefix starts the store ids of the embedded policy's
// modules ("permopa/embedded/permopa/policy/decision.rego").
const EmbeddedPolicyPrefix = "permopa/embedded/"

// policyPath is where the default policy lives; a bundle whose roots cover
// it replaces the embedded policy.
var policyPath = storage.MustParsePath("/permopa/policy")

var policyRef = ast.MustParseRef("data.permopa.policy")

var registerOnce sync.Once

// shared are the operations of an engine over the manager's store and
// compiler: the plugin's, not part of engine's embedder API (docs/api.md).
var shared = engineops.SharedOf[*engine.Engine, engine.Option]()

// Register registers permopa's built-ins and the plugin with OPA's runtime
// (once; later calls do nothing). Call it before the runtime starts (e.g.
// before `run` executes).
func Register() {
	registerOnce.Do(func() {
		builtins.Register()
		runtime.RegisterPlugin(Name, Factory{})
	})
}

// Factory builds the plugin from its configuration (plugins.Factory).
type Factory struct{}

// Validate parses the configuration under plugins.permopa; errors name the field.
func (Factory) Validate(_ *plugins.Manager, config []byte) (any, error) {
	return ParseConfig(config)
}

// New builds the plugin; it does nothing until Start.
func (Factory) New(m *plugins.Manager, config any) plugins.Plugin {
	p := &Plugin{m: m, kick: make(chan struct{}, 1)}
	p.cfg.Store(config.(*Config))
	m.UpdatePluginStatus(Name, &plugins.Status{State: plugins.StateNotReady})
	return p
}

// fault makes every decision of the plugin fail closed until it is cleared.
type fault struct{ code, message string }

// Plugin serves permopa's HTTP API on OPA's server and keeps an engine
// over the manager's store and compiler.
type Plugin struct {
	m   *plugins.Manager
	cfg atomic.Pointer[Config]

	eng    atomic.Pointer[engine.Engine]
	layers atomic.Pointer[settings.Layers]
	// projects loads project directories' rules per cwd (settings.projects;
	// nil when off). It is bound to the engine it was built with.
	projects atomic.Pointer[projects]
	fault    atomic.Pointer[fault]
	// gen counts compiler changes, applied is the count the engine was
	// last brought up to date with. The compiler trigger runs inside the
	// committing write transaction, where preparing a query (which opens a
	// read transaction on the inmem store) would deadlock; so the trigger
	// only counts, and the loop or the next request (whichever comes
	// first; the other waits for it) prepares.
	gen, applied atomic.Uint64
	kick         chan struct{}

	mu          sync.Mutex // serialises setup, refresh and stop
	ctx         context.Context
	cancel      context.CancelFunc
	done        chan struct{}
	triggerOnce sync.Once

	// installErr is the last failure to install the embedded policy, at
	// compiler generation installGen: not retried until the compiler
	// changes again, or installing and taking it out would loop.
	installErr error
	installGen uint64

	statusMu sync.Mutex // guards problems; never held while taking mu
	problems []error

	// bundlesReady is set once every configured bundle has been activated
	// (bundles stay activated: OPA keeps the last good one).
	bundlesReady atomic.Bool

	// tokens are the server's tokens (guard.go); nil until Start.
	tokens atomic.Pointer[tokens]
	// pending remembers recent ASKs for confirmation (pending.go).
	pending atomic.Pointer[pendingAsks]
	// lanes bound the checks evaluated at once (http.go).
	lanes atomic.Pointer[lanes]
}

// lanes are the semaphores of check evaluations: ordinary bodies, and
// large ones (over limits.large_body_bytes, or of unknown length).
type lanes struct{ normal, large chan struct{} }

func newLanes(cfg *Config) *lanes {
	return &lanes{normal: make(chan struct{}, cfg.maxConcurrent()), large: make(chan struct{}, cfg.maxLargeConcurrent())}
}

// pendingBundles names the bundles of OPA's configuration that have not
// been activated yet; nil once all have (or when wait_for_bundles is off).
// A bundle is activated when the store records its name.
func (p *Plugin) pendingBundles(ctx context.Context, txn storage.Transaction) []string {
	if p.bundlesReady.Load() || !p.cfg.Load().waitForBundles() {
		return nil
	}
	bp := bundleplugin.Lookup(p.m)
	if bp == nil {
		p.bundlesReady.Store(true)
		return nil
	}
	activated := map[string]bool{}
	names, err := bundle.ReadBundleNamesFromStore(ctx, p.m.Store, txn)
	if err != nil && !storage.IsNotFound(err) {
		return []string{fmt.Sprintf("(bundle names unreadable: %v)", err)}
	}
	for _, n := range names {
		activated[n] = true
	}
	var pending []string
	for name := range bp.Config().Bundles {
		if !activated[name] {
			pending = append(pending, name)
		}
	}
	if len(pending) == 0 {
		p.bundlesReady.Store(true)
		return nil
	}
	sort.Strings(pending)
	return pending
}

// Start installs the embedded policy if needed, builds the engine, loads the
// settings layers and registers the HTTP routes. Problems leave the plugin
// running in an ERROR state where every decision fails closed; Start
// itself does not fail, so that OPA keeps serving its other APIs.
func (p *Plugin) Start(_ context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	registerRoutes(p.m)
	p.triggerOnce.Do(func() { p.m.RegisterCompilerTrigger(p.onCompile) })
	// The runtime's context ends with the runtime; Stop ends this one.
	p.ctx, p.cancel = context.WithCancel(context.Background())
	p.done = make(chan struct{})
	p.setupLocked(p.ctx)
	go p.loop(p.ctx, p.done)
	return nil
}

// Stop stops watching settings files and recompiling.
func (p *Plugin) Stop(_ context.Context) {
	// The loop may be waiting for mu in refresh: end it before taking mu.
	p.mu.Lock()
	cancel, done := p.cancel, p.done
	p.cancel = nil
	p.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ctx = nil
	if l := p.layers.Swap(nil); l != nil {
		_ = l.Close()
	}
	p.m.UpdatePluginStatus(Name, &plugins.Status{State: plugins.StateNotReady})
}

// Reconfigure applies a new configuration (from discovery): the engine and
// the settings layers are rebuilt, session rules kept. Routes stay as
// registered at Start.
func (p *Plugin) Reconfigure(_ context.Context, config any) {
	p.cfg.Store(config.(*Config))
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ctx != nil {
		p.setupLocked(p.ctx)
	}
}

// Config is the configuration in force.
func (p *Plugin) Config() *Config { return p.cfg.Load() }

// Engine is the engine deciding for the plugin (nil before Start or when
// it could not be built).
func (p *Plugin) Engine() *engine.Engine { return p.eng.Load() }

// Layers are the settings layers the plugin reads (nil before Start).
func (p *Plugin) Layers() *settings.Layers { return p.layers.Load() }

// Lookup returns the manager's permopa plugin, nil when there is none.
func Lookup(m *plugins.Manager) *Plugin {
	if p, ok := m.Plugin(Name).(*Plugin); ok {
		return p
	}
	return nil
}

func (p *Plugin) onCompile(storage.Transaction) {
	p.gen.Add(1)
	select {
	case p.kick <- struct{}{}:
	default:
	}
}

func (p *Plugin) loop(ctx context.Context, done chan struct{}) {
	defer close(done)
	for {
		select {
		case <-ctx.Done():
			return
		case <-p.kick:
			p.refresh()
		}
	}
}

// ready brings the engine up to date with the compiler and returns it, or
// the fault that makes decisions fail closed.
func (p *Plugin) ready() (*engine.Engine, *fault) {
	if p.applied.Load() != p.gen.Load() {
		p.refresh()
	}
	if f := p.fault.Load(); f != nil {
		return nil, f
	}
	if eng := p.eng.Load(); eng != nil {
		return eng, nil
	}
	return nil, &fault{permission.CodePolicyUnavailable, "the permopa plugin is not started"}
}

// refresh re-prepares the decision query after a compiler change, puts the
// embedded policy back if an activation erased it (auto), and writes the
// settings document again if an activation erased it.
func (p *Plugin) refresh() {
	p.mu.Lock()
	defer p.mu.Unlock()
	g := p.gen.Load()
	if p.ctx == nil || p.applied.Load() == g {
		return
	}
	ctx := p.ctx
	eng := p.eng.Load()
	if eng == nil {
		p.setupLocked(ctx)
		return
	}
	var f *fault
	wrote, err := p.ensurePolicy(ctx, p.cfg.Load())
	if wrote {
		// Our own commits compiled and counted; the compiler read below is
		// theirs or newer.
		g = p.gen.Load()
	}
	if err != nil {
		f = &fault{permission.CodeEmbeddedPolicyError, err.Error()}
	}
	if c := p.m.GetCompiler(); c == nil || c.Failed() {
		if f == nil {
			f = &fault{permission.CodePolicyUnavailable, fmt.Sprintf("the loaded policies do not compile: %v", compileErrors(c))}
		}
	} else if err := shared.Recompile(eng, ctx, c); err != nil && f == nil {
		f = &fault{permission.CodePolicyUnavailable, err.Error()}
	}
	if sf := p.ensureSettings(ctx, eng); sf != nil && f == nil {
		f = sf
	}
	p.fault.Store(f)
	// The status is reported before the generation is marked applied: a
	// caller that sees the new decisions also sees their status.
	p.report()
	p.applied.Store(g)
}

// setupLocked (re)builds the engine and the settings layers. p.mu is held.
func (p *Plugin) setupLocked(ctx context.Context) {
	cfg := p.cfg.Load()
	p.lanes.Store(newLanes(cfg))
	if old := p.pending.Load(); old == nil || old.max != cfg.Confirm.MaxPending || old.window != cfg.confirmWindow {
		p.pending.Store(newPendingAsks(cfg.Confirm.MaxPending, cfg.confirmWindow))
	}
	var f *fault
	if _, err := p.ensurePolicy(ctx, cfg); err != nil {
		f = &fault{permission.CodeEmbeddedPolicyError, err.Error()}
	}
	// Compiler changes up to here (our install included) are in the
	// compiler shared.New prepares against.
	g := p.gen.Load()
	opts := []engine.Option{engine.WithQuery(cfg.Query())}
	if dc := cfg.DecisionCache; dc.Entries > 0 {
		opts = append(opts, engine.WithDecisionCache(dc.Entries, dc.MaxBytes))
	}
	if old := p.eng.Load(); old != nil {
		// Rebuilt by Reconfigure: the settings in force (session rules
		// included) stay in the store until the layers are read again.
		// Projects are read again (the roots may have changed).
		s := old.Settings()
		s.Projects = nil
		opts = append(opts, engine.WithSettings(s))
	}
	eng, err := shared.New(ctx, p.m.Store, p.m.GetCompiler(), opts...)
	if err != nil {
		if f == nil {
			f = &fault{settingsFaultCode(err), err.Error()}
		}
		p.fault.Store(f)
		p.m.Logger().Error("permopa: %v", err)
		p.report()
		p.applied.Store(g)
		return
	}
	sc := cfg.Settings
	layers := settings.NewLayers(settings.LayerOptions{
		ManagedDir:  sc.ManagedDir,
		CommandLine: sc.Files,
		ProjectDir:  sc.ProjectDir,
		UserDir:     sc.UserDir,
	})
	problems := layers.Attach(ctx, eng)
	if sc.Watch {
		if err := layers.Watch(ctx, p.onReload); err != nil {
			problems = append(problems, fmt.Errorf("watching settings files: %w", err))
		}
	}
	if old := p.layers.Swap(layers); old != nil {
		_ = old.Close()
	}
	p.projects.Store(newProjects(eng, sc.Projects, layers.UserDir(), p.m.Logger().Warn))
	if !OPAAuthorization() {
		toks, tproblems := loadTokens(cfg, layers.UserDir())
		p.tokens.Store(toks)
		problems = append(problems, tproblems...)
	}
	p.eng.Store(eng)
	if sf := p.ensureSettings(ctx, eng); sf != nil && f == nil {
		f = sf
	}
	p.fault.Store(f)
	p.setProblems(problems)
	p.applied.Store(g)
}

func settingsFaultCode(err error) string {
	if strings.Contains(err.Error(), "owned by bundle") {
		return permission.CodeSettingsOwnedByBundle
	}
	return permission.CodePolicyUnavailable
}

// onReload reports the problems of a reload by the settings watcher.
func (p *Plugin) onReload(problems []error) { p.setProblems(problems) }

func (p *Plugin) setProblems(problems []error) {
	p.statusMu.Lock()
	p.problems = problems
	p.statusMu.Unlock()
	for _, pr := range problems {
		p.m.Logger().Warn("permopa: settings: %v", pr)
	}
	p.report()
}

// report sets the plugin status: ERROR while decisions fail closed or a
// deny or ask rule could not be read (settings.UnsafeProblems), WARN for
// other settings problems (an invalid allow rule, a broken file whose last
// good settings are kept), OK otherwise.
func (p *Plugin) report() {
	p.statusMu.Lock()
	problems := p.problems
	p.statusMu.Unlock()
	if f := p.fault.Load(); f != nil {
		p.m.UpdatePluginStatus(Name, &plugins.Status{State: plugins.StateErr, Message: f.code + ": " + f.message})
		return
	}
	if len(problems) == 0 {
		p.m.UpdatePluginStatus(Name, &plugins.Status{State: plugins.StateOK})
		return
	}
	state := plugins.StateWarn
	if len(settings.UnsafeProblems(problems)) > 0 {
		state = plugins.StateErr
	}
	msgs := make([]string, 0, len(problems))
	for _, pr := range problems {
		msgs = append(msgs, pr.Error())
	}
	p.m.UpdatePluginStatus(Name, &plugins.Status{State: state, Message: "settings: " + strings.Join(msgs, "; ")})
}

// ensureSettings checks the settings document after a compiler change: a
// bundle whose roots cover permopa/settings is a fault (its data would
// replace the rules, and its next activation would erase the engine's
// writes); a document erased by an activation (a bundle without roots) is
// written again.
func (p *Plugin) ensureSettings(ctx context.Context, eng *engine.Engine) *fault {
	var owner string
	missing := false
	err := storage.Txn(ctx, p.m.Store, storage.TransactionParams{}, func(txn storage.Transaction) error {
		var err error
		if owner, err = engineops.ExplicitBundleOwning(ctx, p.m.Store, txn, engineops.SettingsPath); err != nil || owner != "" {
			return err
		}
		_, err = p.m.Store.Read(ctx, txn, engineops.SettingsPath)
		if storage.IsNotFound(err) {
			missing = true
			return nil
		}
		return err
	})
	switch {
	case err != nil:
		return &fault{permission.CodePolicyUnavailable, fmt.Sprintf("reading data.permopa.settings: %v", err)}
	case owner != "":
		msg := fmt.Sprintf("bundle %q owns data.permopa.settings (its roots cover permopa/settings), so the settings' deny rules cannot be kept in force; every decision is DENY until that bundle gets other roots", owner)
		p.m.Logger().Error("permopa: %s", msg)
		return &fault{permission.CodeSettingsOwnedByBundle, msg}
	case missing:
		// Rewrite the settings in force (layers and sessions).
		if err := eng.UpdateSettings(ctx, func(*settings.Settings) error { return nil }); err != nil {
			return &fault{settingsFaultCode(err), err.Error()}
		}
		p.m.Logger().Info("permopa: data.permopa.settings was erased by a bundle activation; written again")
	}
	return nil
}

// ensurePolicy installs the embedded policy when the configuration asks
// for it and it is missing; it reports whether it wrote to the store.
// p.mu is held.
func (p *Plugin) ensurePolicy(ctx context.Context, cfg *Config) (bool, error) {
	if cfg.DefaultPolicy == PolicyOff {
		return false, nil
	}
	if p.installErr != nil && p.installGen == p.gen.Load() {
		return false, p.installErr
	}
	p.installErr = nil
	compiler := p.m.GetCompiler()
	embedded, other := false, false
	if compiler != nil {
		for id, mod := range compiler.Modules {
			if !mod.Package.Path.HasPrefix(policyRef) {
				continue
			}
			if strings.HasPrefix(id, EmbeddedPolicyPrefix) {
				embedded = true
			} else {
				other = true
			}
		}
	}
	if embedded || (other && cfg.DefaultPolicy == PolicyAuto) {
		return false, nil
	}
	mods, err := embeddedModules()
	if err != nil {
		return false, err
	}
	wrote := false
	err = storage.Txn(ctx, p.m.Store, storage.WriteParams, func(txn storage.Transaction) error {
		owner, err := engineops.ExplicitBundleOwning(ctx, p.m.Store, txn, policyPath)
		if err != nil {
			return err
		}
		if owner != "" {
			// The bundle replaces the embedded policy (and would erase it
			// on its next activation anyway).
			if cfg.DefaultPolicy == PolicyOn {
				p.m.Logger().Warn("permopa: default_policy is on, but bundle %q owns permopa/policy; its policy is used", owner)
			}
			return nil
		}
		for _, m := range mods {
			if err := p.m.Store.UpsertPolicy(ctx, txn, m.id, m.src); err != nil {
				return err
			}
		}
		wrote = true
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("installing the embedded policy: %w", err)
	}
	if !wrote {
		return false, nil
	}
	// The manager compiles store policies on commit and keeps the compiler
	// even when it failed, silently; check that ours compiled, and take it
	// out again if not, so that the other policies and later bundle
	// activations still compile.
	if c := p.m.GetCompiler(); c != nil && !c.Failed() {
		if _, ok := c.Modules[mods[0].id]; ok {
			p.m.Logger().Info("permopa: embedded policy installed (%d modules)", len(mods))
			return true, nil
		}
	}
	_ = storage.Txn(ctx, p.m.Store, storage.WriteParams, func(txn storage.Transaction) error {
		for _, m := range mods {
			if err := p.m.Store.DeletePolicy(ctx, txn, m.id); err != nil && !storage.IsNotFound(err) {
				return err
			}
		}
		return nil
	})
	p.installErr = errors.New("installing the embedded policy: it does not compile together with the loaded policies (does a module under data.permopa.policy conflict with it? use default_policy auto or off)")
	p.installGen = p.gen.Load()
	p.m.Logger().Error("permopa: %v", p.installErr)
	return true, p.installErr
}

type embeddedModule struct {
	id  string
	src []byte
}

// embeddedModules are the default policy's modules (not its tests),
// checked to compile on their own, in a stable order.
var embeddedModules = sync.OnceValues(func() ([]embeddedModule, error) {
	var mods []embeddedModule
	parsed := map[string]*ast.Module{}
	err := fs.WalkDir(defaultpolicy.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || path.Ext(p) != ".rego" || strings.HasSuffix(p, "_test.rego") {
			return nil
		}
		src, err := fs.ReadFile(defaultpolicy.FS, p)
		if err != nil {
			return err
		}
		id := EmbeddedPolicyPrefix + p
		m, err := ast.ParseModuleWithOpts(id, string(src), ast.ParserOptions{RegoVersion: ast.RegoV1})
		if err != nil {
			return err
		}
		parsed[id] = m
		mods = append(mods, embeddedModule{id: id, src: src})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("embedded policy: %w", err)
	}
	if len(mods) == 0 {
		return nil, errors.New("embedded policy: no modules")
	}
	sort.Slice(mods, func(i, j int) bool { return mods[i].id < mods[j].id })
	builtins.Register()
	c := ast.NewCompiler().WithDefaultRegoVersion(ast.RegoV1)
	if c.Compile(parsed); c.Failed() {
		return nil, fmt.Errorf("embedded policy does not compile: %v", c.Errors)
	}
	return mods, nil
})

func compileErrors(c *ast.Compiler) string {
	if c == nil {
		return "no compiler"
	}
	return c.Errors.Error()
}
