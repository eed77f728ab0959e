package engine

import (
	"container/list"
	"context"
	"fmt"
	"runtime"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"weak"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage"

	"github.com/permopa/permopa/builtins"
	"github.com/permopa/permopa/internal/engineops"
	"github.com/permopa/permopa/permission"
	defaultpolicy "github.com/permopa/permopa/rego"
)

// The decision cache (docs/architecture.md, "Repeated calls"; SECURITY.md).
// Agents repeat themselves: the same `git status`, the same test command.
// A decision is a function of the input, the data in the store (settings
// of every layer, session rules, bundles), the compiled policy, and what
// the path built-ins find on the file system. So an entry is keyed on the
// canonical input, belongs to one data generation (any commit to the
// store and any recompile starts a new one, and entries of an older one
// are never served), and carries the recording of the file system
// answers its evaluation got (builtins.Recording): a hit is served only
// when those built-ins, called again now, answer the same. A policy that
// calls any other non-deterministic built-in (time, http.send, rand, ...)
// or prints is not cached at all. Faults (step "error": timeouts, limits
// of the engine, evaluation errors) are never cached.

// Cache bounds of WithDecisionCache when given 0.
const (
	DefaultCacheEntries  = 4096
	DefaultCacheBytes    = 16 << 20
	DefaultCacheMaxInput = 16 << 10 // canonical input bytes; a larger input is not cached
	maxRecordedCalls     = 256      // an evaluation that read the file system more often is not cached
)

// WithDecisionCache turns the decision cache on, holding at most entries
// decisions and about maxBytes bytes (0: DefaultCacheEntries,
// DefaultCacheBytes; a negative entries turns it off). The cache never
// changes an answer (docs/architecture.md, "Repeated calls"); it is off
// by default.
func WithDecisionCache(entries int, maxBytes int64) Option {
	return func(c *config) {
		c.cacheEntries, c.cacheBytes = entries, maxBytes
		if entries == 0 {
			c.cacheEntries = DefaultCacheEntries
		}
		if maxBytes <= 0 {
			c.cacheBytes = DefaultCacheBytes
		}
	}
}

// CacheStats counts what the decision cache did.
type CacheStats struct {
	Enabled bool `json:"enabled"`
	// Every call through the cache is one of: Hits, answered from it;
	// Misses, evaluated (and stored when the answer can be: not a fault,
	// not read from the file system too often, no newer data meanwhile);
	// Stale, found but evaluated again because the file system answered
	// differently; Uncacheable, evaluated without a look (an input too
	// large or not plain JSON, a policy that cannot be cached).
	Hits        uint64 `json:"hits"`
	Misses      uint64 `json:"misses"`
	Stale       uint64 `json:"stale"`
	Uncacheable uint64 `json:"uncacheable"`
	Entries     int    `json:"entries"`
	Bytes       int64  `json:"bytes"`
	// Disabled says why the policy in force is not cached ("" when it is).
	Disabled string `json:"disabled,omitempty"`
}

// CacheStats returns the decision cache's counters (zero when it is off).
func (e *Engine) CacheStats() CacheStats {
	c := e.cache
	if c == nil {
		return CacheStats{}
	}
	c.mu.Lock()
	s := CacheStats{Enabled: true, Entries: c.lru.Len(), Bytes: c.bytes}
	c.mu.Unlock()
	s.Hits, s.Misses, s.Stale, s.Uncacheable = c.hits.Load(), c.misses.Load(), c.stale.Load(), c.uncacheable.Load()
	if p := e.cachePolicy.Load(); p != nil {
		s.Disabled = p.disabled
	}
	return s
}

type decisionCache struct {
	maxEntries int
	maxBytes   int64
	maxKey     int

	mu      sync.Mutex
	gen     uint64 // the generation the entries belong to
	entries map[string]*list.Element
	lru     list.List // of *cacheEntry, most recent first
	bytes   int64

	hits, misses, stale, uncacheable atomic.Uint64
}

type cacheEntry struct {
	key  string
	d    permission.Decision
	rec  *builtins.Recording
	size int64
}

func newDecisionCache(entries int, maxBytes int64) *decisionCache {
	if entries <= 0 {
		return nil
	}
	return &decisionCache{maxEntries: entries, maxBytes: maxBytes, maxKey: DefaultCacheMaxInput, entries: map[string]*list.Element{}}
}

// get returns the entry for key in generation gen.
func (c *decisionCache) get(key string, gen uint64) (*cacheEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return nil, false
	}
	el, ok := c.entries[key]
	if !ok {
		return nil, false
	}
	c.lru.MoveToFront(el)
	return el.Value.(*cacheEntry), true
}

// put stores ent for generation gen; entries of an older generation are
// dropped first, and a put for an older generation than the cache's is
// ignored.
func (c *decisionCache) put(ent *cacheEntry, gen uint64) bool {
	if ent.size > c.maxBytes/4 {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case gen < c.gen:
		return false
	case gen > c.gen:
		clear(c.entries)
		c.lru.Init()
		c.bytes, c.gen = 0, gen
	}
	if el, ok := c.entries[ent.key]; ok {
		c.bytes -= el.Value.(*cacheEntry).size
		c.lru.Remove(el)
	}
	c.entries[ent.key] = c.lru.PushFront(ent)
	c.bytes += ent.size
	for c.lru.Len() > c.maxEntries || c.bytes > c.maxBytes {
		last := c.lru.Back()
		old := last.Value.(*cacheEntry)
		c.lru.Remove(last)
		delete(c.entries, old.key)
		c.bytes -= old.size
	}
	return true
}

// drop removes key if it still holds ent.
func (c *decisionCache) drop(key string, ent *cacheEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[key]; ok && el.Value.(*cacheEntry) == ent {
		c.lru.Remove(el)
		delete(c.entries, key)
		c.bytes -= ent.size
	}
}

// cachePolicy is what the engine knows about the compiled policy for
// caching: whether its decisions can be cached at all, and whether the
// input's tool_use_id only comes back in the decision (the embedded
// policy: decision.rego copies it), so that calls differing only in it
// share an entry.
type cachePolicy struct {
	disabled      string
	echoToolUseID bool
}

// analysePolicy is what the cache knows about the compiled policy c
// (policyFactsOf: looked for once per compiler).
func analysePolicy(c *ast.Compiler, echoToolUseID bool) *cachePolicy {
	p := &cachePolicy{echoToolUseID: echoToolUseID}
	if c == nil {
		p.disabled = "no compiled policy"
		return p
	}
	p.disabled = policyFactsOf(c).uncheckable(c)
	return p
}

// policyFacts are what the cache finds in one compiled policy. Both walk
// every module of it, and a process builds many engines over one compile
// (New's over the shared embedded one, embedded.go; the OPA plugin's over
// the plugins manager's): a compiled policy does not change, so each is
// found once per compiler and kept as long as the compiler is.
type policyFacts struct {
	disabledOnce, defaultOnce sync.Once
	why                       string
	isDefault                 bool
}

var factsByCompiler struct {
	mu sync.Mutex
	m  map[weak.Pointer[ast.Compiler]]*policyFacts
}

// policyFactsOf is c's facts, found when first asked for. The entry goes
// when c is collected (a weak key and a cleanup): a server that
// recompiles keeps no old policy alive.
func policyFactsOf(c *ast.Compiler) *policyFacts {
	key := weak.Make(c)
	factsByCompiler.mu.Lock()
	defer factsByCompiler.mu.Unlock()
	if f, ok := factsByCompiler.m[key]; ok {
		return f
	}
	if factsByCompiler.m == nil {
		factsByCompiler.m = map[weak.Pointer[ast.Compiler]]*policyFacts{}
	}
	f := &policyFacts{}
	factsByCompiler.m[key] = f
	runtime.AddCleanup(c, func(key weak.Pointer[ast.Compiler]) {
		factsByCompiler.mu.Lock()
		defer factsByCompiler.mu.Unlock()
		delete(factsByCompiler.m, key)
	}, key)
	return f
}

// uncheckable is uncheckableBuiltins(c), c the compiler of f.
func (f *policyFacts) uncheckable(c *ast.Compiler) string {
	f.disabledOnce.Do(func() { f.why = uncheckableBuiltins(c) })
	return f.why
}

// runsDefault is runsDefaultPolicy(c), c the compiler of f.
func (f *policyFacts) runsDefault(c *ast.Compiler) bool {
	f.defaultOnce.Do(func() { f.isDefault = runsDefaultPolicy(c) })
	return f.isDefault
}

// uncheckableBuiltins looks through every module of the compiler for
// built-ins whose answers the cache cannot check again: a non-deterministic
// one that is not permopa's (its calls are recorded and replayed), and the
// printing ones (a hit would not print). It says which, or "".
func uncheckableBuiltins(c *ast.Compiler) string {
	var disabled string
	names := make([]string, 0, len(c.Modules))
	for n := range c.Modules {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		ast.WalkRefs(c.Modules[n], func(r ast.Ref) bool {
			if disabled != "" {
				return true
			}
			name := r.String()
			bi, ok := ast.BuiltinMap[name]
			if !ok {
				return false
			}
			switch {
			case name == "print" || name == "internal.print" || name == "trace":
				disabled = fmt.Sprintf("%s calls %s", n, name)
			case bi.Nondeterministic && !builtins.Recorded(name):
				disabled = fmt.Sprintf("%s calls the non-deterministic built-in %s", n, name)
			}
			return false
		})
	}
	return disabled
}

// defaultModules are the embedded policy's modules, compiled alone: a
// shared compiler whose permopa modules are exactly these runs the
// embedded policy (echoToolUseID).
var defaultModules = sync.OnceValue(func() map[string]*ast.Module {
	builtins.Register()
	mods, err := defaultpolicy.ParsedModules()
	if err != nil {
		return nil
	}
	in := make(map[string]*ast.Module, len(mods))
	for _, m := range mods {
		in[m.Package.Location.File] = m
	}
	// The compiler works on copies: the shared parse is left as it is.
	c := ast.NewCompiler()
	if c.Compile(in); c.Failed() {
		return nil
	}
	return c.Modules
})

// runsDefaultPolicy reports whether every module of c in package
// permopa (or below) is one of the embedded policy's.
func runsDefaultPolicy(c *ast.Compiler) bool {
	def := defaultModules()
	if c == nil || len(def) == 0 {
		return false
	}
	root := ast.MustParseRef("data.permopa")
	seen := 0
	for _, m := range c.Modules {
		if !m.Package.Path.HasPrefix(root) {
			continue
		}
		found := false
		for _, d := range def {
			if d.Package.Path.Equal(m.Package.Path) && d.Equal(m) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
		seen++
	}
	return seen == len(def)
}

// watchStore counts the store's commits in gen: every write (settings,
// session rules, expiries, bundle activations, data API writes) starts a
// new generation. The trigger holds gen only, not the engine.
func watchStore(ctx context.Context, store storage.Store, gen *atomic.Uint64) error {
	return storage.Txn(ctx, store, storage.WriteParams, func(txn storage.Transaction) error {
		_, err := store.Register(ctx, txn, storage.TriggerConfig{
			OnCommit: func(context.Context, storage.Transaction, storage.TriggerEvent) { gen.Add(1) },
		})
		return err
	})
}

// decideCached answers val from the cache when it can, else evaluates
// with eval and stores the answer. gen is the data generation the
// evaluation will see: read before its transaction opens, or inside the
// caller's read transaction (no commit happens while one is open).
func (e *Engine) decideCached(ctx context.Context, val ast.Value, eval func(context.Context) permission.Decision) permission.Decision {
	c := e.cache
	if ctx.Err() != nil {
		return eval(ctx) // given up on already: the caller has its answer
	}
	pol := e.cachePolicy.Load()
	if pol == nil || pol.disabled != "" {
		c.uncacheable.Add(1)
		return eval(ctx)
	}
	gen := e.cacheGen.Load()
	key, toolUseID, ok := canonicalKey(val, pol.echoToolUseID, c.maxKey)
	if !ok {
		c.uncacheable.Add(1)
		return eval(ctx)
	}
	if ent, ok := c.get(key, gen); ok {
		if ent.rec.Replay(ctx) {
			c.hits.Add(1)
			engineops.ReportCacheHit(ctx)
			d := ent.serve(pol, toolUseID)
			if testChecks(key, true, d, ent.rec) {
				if fresh := eval(ctx); e.cacheGen.Load() == gen && ctx.Err() == nil {
					testCacheCheck(val, d, fresh)
				}
			}
			return d
		}
		c.stale.Add(1)
		c.drop(key, ent)
	} else {
		c.misses.Add(1)
	}
	rctx, rec := builtins.Record(ctx)
	d := eval(rctx)
	if d.Step == permission.StepError || ctx.Err() != nil || len(rec.Calls) > maxRecordedCalls || !plainToolUseID(d.ToolUseID) {
		return d
	}
	if e.cacheGen.Load() != gen {
		return d // the data changed while deciding: the answer may be either's
	}
	ent := &cacheEntry{key: key, d: cloneDecision(d), rec: rec}
	ent.size = int64(len(key)) + decisionSize(ent.d) + recordingSize(rec)
	if !c.put(ent, gen) {
		return d
	}
	if testChecks(key, false, d, rec) {
		// What a repeat of this call would be served, beside the answer
		// just evaluated over the same state.
		if again, ok := c.get(key, gen); ok && again.rec.Replay(ctx) {
			testCacheCheck(val, again.serve(pol, toolUseID), d)
		}
	}
	return d
}

// serve is the decision a hit answers: a copy, with the call's own
// tool_use_id when the policy only copies it.
func (ent *cacheEntry) serve(pol *cachePolicy, toolUseID any) permission.Decision {
	d := cloneDecision(ent.d)
	if pol.echoToolUseID {
		d.ToolUseID = toolUseID
	}
	return d
}

// Set by the engine's own tests only (cache_check_test.go): every engine
// gets a cache (testDefaultCache), and testCacheCheck sees the answers
// the cache serves, or would serve, beside an evaluation of the same
// input over the same state: every answer, or those testCacheSampled
// picks (a hit or a store, by key, decision and recorded calls).
var (
	testDefaultCache bool
	testCacheCheck   func(input ast.Value, cached, fresh permission.Decision)
	testCacheSampled func(key string, hit bool, d permission.Decision, rec *builtins.Recording) bool
)

// testChecks reports whether testCacheCheck sees this answer.
func testChecks(key string, hit bool, d permission.Decision, rec *builtins.Recording) bool {
	return testCacheCheck != nil && (testCacheSampled == nil || testCacheSampled(key, hit, d, rec))
}

func plainToolUseID(v any) bool {
	switch v.(type) {
	case nil, string:
		return true
	}
	return false
}

// cloneDecision copies d deeply enough that a caller changing its copy cannot
// change the cache's.
func cloneDecision(d permission.Decision) permission.Decision {
	if d.MatchedRule != nil {
		r := cloneRule(*d.MatchedRule)
		d.MatchedRule = &r
	}
	if d.SuggestedRules != nil {
		rs := make([]permission.Rule, len(d.SuggestedRules))
		for i, r := range d.SuggestedRules {
			rs[i] = cloneRule(r)
		}
		d.SuggestedRules = rs
	}
	return d
}

// cloneRule copies r's content so the copies share nothing a caller can change.
func cloneRule(r permission.Rule) permission.Rule {
	if r.RuleContent != nil {
		s := *r.RuleContent
		r.RuleContent = &s
	}
	return r
}

// decisionSize estimates the bytes d keeps alive.
func decisionSize(d permission.Decision) int64 {
	n := 256 + len(d.Message) + len(d.Reason) + len(d.Step) + len(d.Code)
	if d.MatchedRule != nil {
		n += ruleSize(*d.MatchedRule)
	}
	for _, r := range d.SuggestedRules {
		n += ruleSize(r)
	}
	if s, ok := d.ToolUseID.(string); ok {
		n += len(s)
	}
	return int64(n)
}

// ruleSize estimates the bytes r keeps alive.
func ruleSize(r permission.Rule) int {
	n := 128 + len(r.ToolName) + len(r.Behavior) + len(r.Source) + len(r.Layer) + len(r.Expires) + len(r.Syntax) + len(r.Project)
	if r.RuleContent != nil {
		n += len(*r.RuleContent)
	}
	return n
}

// recordingSize estimates the bytes a recording keeps alive. Its operands
// and results are mostly shared with the input and the store; they are
// counted anyway, up to a bound per term.
func recordingSize(rec *builtins.Recording) int64 {
	n := int64(0)
	for _, c := range rec.Calls {
		n += 64
		for _, t := range c.Operands {
			n += termSize(t.Value, 1<<16)
		}
		n += termSize(c.Result.Value, 1<<16)
	}
	return n
}

func termSize(v ast.Value, budget int64) int64 {
	n := int64(16)
	switch x := v.(type) {
	case ast.String:
		n += int64(len(x))
	case ast.Number:
		n += int64(len(x))
	case *ast.Array:
		for i := 0; i < x.Len() && n < budget; i++ {
			n += termSize(x.Elem(i).Value, budget-n)
		}
	case ast.Object:
		x.Until(func(k, v *ast.Term) bool {
			n += termSize(k.Value, budget-n) + termSize(v.Value, budget-n)
			return n >= budget
		})
	case ast.Set:
		x.Until(func(t *ast.Term) bool {
			n += termSize(t.Value, budget-n)
			return n >= budget
		})
	}
	return n
}

var keyToolUseID = ast.StringTerm("tool_use_id")

// canonicalKey writes val as the cache key: objects with their keys in
// order, strings quoted, so that two inputs share a key only when they
// are the same JSON value (the map compares whole keys, never a hash).
// With echo, a top-level tool_use_id is left out and returned (it must
// then be a string or absent). ok is false for an input beyond maxLen
// bytes, or one that is not plain JSON.
func canonicalKey(val ast.Value, echo bool, maxLen int) (key string, toolUseID any, ok bool) {
	obj, isObj := val.(ast.Object)
	b := make([]byte, 0, 256)
	if echo {
		b = append(b, 'E')
	} else {
		b = append(b, 'F')
	}
	if echo && isObj {
		if t := obj.Get(keyToolUseID); t != nil {
			switch v := t.Value.(type) {
			case ast.String:
				toolUseID = string(v)
			case ast.Null:
			default:
				return "", nil, false
			}
		}
		b, ok = appendCanonObject(b, obj, true, maxLen)
	} else {
		b, ok = appendCanon(b, val, maxLen)
	}
	if !ok {
		return "", nil, false
	}
	return string(b), toolUseID, true
}

func appendCanon(b []byte, v ast.Value, maxLen int) ([]byte, bool) {
	if len(b) > maxLen {
		return b, false
	}
	switch x := v.(type) {
	case ast.Null:
		return append(b, "null"...), true
	case ast.Boolean:
		return strconv.AppendBool(b, bool(x)), true
	case ast.Number:
		return append(b, x...), true
	case ast.String:
		return strconv.AppendQuote(b, string(x)), true
	case *ast.Array:
		b = append(b, '[')
		ok := true
		for i := 0; i < x.Len() && ok; i++ {
			if i > 0 {
				b = append(b, ',')
			}
			b, ok = appendCanon(b, x.Elem(i).Value, maxLen)
		}
		return append(b, ']'), ok && len(b) <= maxLen
	case ast.Object:
		return appendCanonObject(b, x, false, maxLen)
	}
	return b, false // sets, refs, ...: not an input from JSON
}

func appendCanonObject(b []byte, obj ast.Object, skipToolUseID bool, maxLen int) ([]byte, bool) {
	keys := obj.Keys()
	if !sort.SliceIsSorted(keys, func(i, j int) bool { return keys[i].Value.Compare(keys[j].Value) < 0 }) {
		sort.Slice(keys, func(i, j int) bool { return keys[i].Value.Compare(keys[j].Value) < 0 })
	}
	b = append(b, '{')
	first, ok := true, true
	for _, k := range keys {
		if skipToolUseID && k.Value.Compare(keyToolUseID.Value) == 0 {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		if b, ok = appendCanon(b, k.Value, maxLen); !ok {
			return b, false
		}
		b = append(b, ':')
		if b, ok = appendCanon(b, obj.Get(k).Value, maxLen); !ok {
			return b, false
		}
	}
	return append(b, '}'), len(b) <= maxLen
}

// startCache sets up the cache New or newShared was asked for: the
// generation counter and the store trigger that moves it.
func (e *Engine) startCache(ctx context.Context, c config) error {
	if testDefaultCache && c.cacheEntries == 0 {
		WithDecisionCache(0, 0)(&c)
	}
	e.cache = newDecisionCache(c.cacheEntries, c.cacheBytes)
	if e.cache == nil {
		return nil
	}
	e.cacheGen = new(atomic.Uint64)
	if err := watchStore(ctx, e.store, e.cacheGen); err != nil {
		return fmt.Errorf("decision cache: %w", err)
	}
	return nil
}

// recompiled is called after a shared engine's query changed.
func (e *Engine) recompiled(compiler *ast.Compiler) {
	if e.cache == nil {
		return
	}
	echo := false
	if compiler != nil {
		echo = policyFactsOf(compiler).runsDefault(compiler)
	}
	e.cachePolicy.Store(analysePolicy(compiler, echo))
	e.cacheGen.Add(1)
}

// decideCaching is decide through the cache when cache is true and the
// cache is on. Rules that expired are taken out first, so that the
// generation read next is the one the evaluation sees.
func (e *Engine) decideCaching(ctx context.Context, input any, cache bool, extra ...rego.EvalOption) permission.Decision {
	if e.cache == nil || !cache {
		return e.decide(ctx, input, extra...)
	}
	if at := e.nextExpiry.Load(); at != 0 && time.Now().UnixNano() >= at {
		if err := e.expireRules(ctx); err != nil {
			return failClosed(permission.CodeEvalError, "expiring rules: %v", err)
		}
	}
	var val ast.Value
	switch v := input.(type) {
	case jsonDocument:
		x, err := parseInput(v)
		if err != nil {
			return failClosed(permission.CodeInvalidJSON, "input is not valid JSON: %v", err)
		}
		val = x
	case ast.Value:
		val = v
	default:
		x, err := ast.InterfaceToValue(input)
		if err != nil {
			return failClosed(permission.CodeInputError, "input: %v", err)
		}
		val = x
	}
	return e.decideCached(ctx, val, func(ctx context.Context) permission.Decision { return e.decide(ctx, val, extra...) })
}
