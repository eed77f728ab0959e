package builtins

import (
	"fmt"
	"sort"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"
	"github.com/open-policy-agent/opa/v1/types"

	"github.com/permopa/permopa/builtins/internal/lru"
)

// CallContext declares permopa.call.context: the input plumbing of every
// decision in one call. It validates the input of docs/api.md (each problem
// names the field; the required and optional tool_input fields come from the
// policy's schema) and derives the cwd, home, working directories and the
// options the path and bash built-ins take. Which mode the call runs in is
// decision logic and stays in the policy (permopa.policy.call.mode, from
// the policy's tables of mode names and what each mode does).
var CallContext = &ast.Builtin{
	Name: "permopa.call.context",
	Description: "Validates a permopa input document and derives what the policy needs: " +
		"errors, valid, tool, cwd, home, working_directories, path_opts, write_opts, bash_opts, bypass_honours_safety, network_reads. " +
		"The mode is resolved by the policy, not here.",
	Categories: []string{"permopa"},
	Decl: types.NewFunction(
		types.Args(
			types.Named("input", types.A).Description("the decision input (docs/api.md)"),
			types.Named("settings", types.A).Description("data.permopa.settings"),
			types.Named("schema", types.NewObject(nil, types.NewDynamicProperty(types.S, types.A))).
				Description(`{"required": {tool: [string fields]}, "optional": {tool: [string fields]}} (other keys are ignored)`),
		),
		types.Named("context", types.NewObject(nil, types.NewDynamicProperty(types.S, types.A))).Description("the call context"),
	),
}

var (
	keyErrors       = ast.StringTerm("errors")
	keyValid        = ast.StringTerm("valid")
	keyTool         = ast.StringTerm("tool")
	keyPathOpts     = ast.StringTerm("path_opts")
	keyBashOpts     = ast.StringTerm("bash_opts")
	keyWriteOpts    = ast.StringTerm("write_opts")
	keyBypassSafety = ast.StringTerm("bypass_honours_safety")
	keyNetworkReads = ast.StringTerm("network_reads")
	keyToolName     = ast.StringTerm("tool_name")
	keyToolInput    = ast.StringTerm("tool_input")
	keyPermMode     = ast.StringTerm("permission_mode")
	keyPermContext  = ast.StringTerm("permission_context")
	keyReadOnly     = ast.StringTerm("read_only")
	keyToolCheck    = ast.StringTerm("tool_check")
	keyBehavior     = ast.StringTerm("behavior")
	keySessionID    = ast.StringTerm("session_id")
	keyRequired     = ast.StringTerm("required")
	keyOptional     = ast.StringTerm("optional")

	keyCaseInsensitivePaths = ast.StringTerm("case_insensitive_paths")
)

var toolCheckBehaviors = map[string]bool{"ALLOW": true, "DENY": true, "ASK": true, "PASSTHROUGH": true}

func callContext(_ topdown.BuiltinContext, operands []*ast.Term) (*ast.Term, error) {
	input, _ := operands[0].Value.(ast.Object)
	settings, _ := operands[1].Value.(ast.Object)
	schema, _ := operands[2].Value.(ast.Object)
	c := callCtx{input: input, settings: settings, schema: schema}
	return c.build(), nil
}

type callCtx struct {
	input, settings, schema ast.Object
	errs                    []string
}

func (c *callCtx) fail(format string, args ...any) {
	c.errs = append(c.errs, fmt.Sprintf(format, args...))
}

// termAt returns the term at key of obj, nil when obj is nil or the key absent.
func termAt(obj ast.Object, key *ast.Term) *ast.Term {
	if obj == nil {
		return nil
	}
	return obj.Get(key)
}

// get returns the value at key of obj, nil when obj is nil or the key absent.
func get(obj ast.Object, key *ast.Term) ast.Value {
	if obj == nil {
		return nil
	}
	if t := obj.Get(key); t != nil {
		return t.Value
	}
	return nil
}

func isNull(v ast.Value) bool { _, ok := v.(ast.Null); return v == nil || ok }

// nonEmpty returns v as a string when it is a non-empty string.
func nonEmpty(v ast.Value) (string, bool) {
	s, ok := v.(ast.String)
	return string(s), ok && s != ""
}

func (c *callCtx) build() *ast.Term {
	if c.input == nil {
		c.fail("input: must be a JSON object")
	}
	toolTerm := termAt(c.input, keyToolName)
	tool, toolOK := nonEmpty(get(c.input, keyToolName))
	switch {
	case c.input == nil:
	case get(c.input, keyToolName) == nil:
		c.fail("tool_name: missing")
	case !toolOK:
		c.fail("tool_name: must be a non-empty string")
	}
	toolInput, toolInputOK := get(c.input, keyToolInput).(ast.Object)
	if c.input != nil {
		if get(c.input, keyToolInput) == nil {
			c.fail("tool_input: missing")
		} else if !toolInputOK {
			c.fail("tool_input: must be an object")
		}
	}

	pm := get(c.input, keyPermMode)
	if !isNull(pm) {
		if _, ok := pm.(ast.String); !ok {
			c.fail("permission_mode: must be a string")
		}
	}
	ctxDoc := get(c.input, keyPermContext)
	permContext, _ := ctxDoc.(ast.Object)
	if !isNull(ctxDoc) && permContext == nil {
		c.fail("permission_context: must be an object")
	}
	cwdTerm := ast.InternedTerm("/")
	switch v := get(c.input, keyCwd).(type) {
	case ast.String:
		if v != "" {
			cwdTerm = c.input.Get(keyCwd)
		} else if t := termAt(c.settings, keyCwd); t != nil && t.Value.Compare(ast.InternedEmptyStringValue) != 0 && isString(t) {
			cwdTerm = t
		}
	case nil, ast.Null:
		if t := termAt(c.settings, keyCwd); t != nil && t.Value.Compare(ast.InternedEmptyStringValue) != 0 && isString(t) {
			cwdTerm = t
		}
	default:
		c.fail("cwd: must be a string")
	}

	// The working directories the input adds (its own, then the host's
	// permission_context); the settings' come after them, below.
	var dirs []*ast.Term
	switch v := get(c.input, keyWorkingDirectories).(type) {
	case nil, ast.Null:
	case *ast.Array:
		ok := true
		v.Foreach(func(t *ast.Term) {
			if _, isStr := t.Value.(ast.String); isStr {
				dirs = append(dirs, t)
			} else {
				ok = false
			}
		})
		if !ok {
			c.fail("working_directories: must be an array of strings")
		}
	default:
		c.fail("working_directories: must be an array of strings")
	}
	// The environment a host sets from the project's files: the policy
	// reads it as given, so a malformed list is an input error (fail
	// closed), never an empty one.
	switch v := get(c.input, keyProjectEnv).(type) {
	case nil, ast.Null:
	case *ast.Array:
		ok := true
		v.Foreach(func(t *ast.Term) {
			obj, isObj := t.Value.(ast.Object)
			if !isObj || obj.Len() != 2 {
				ok = false
				return
			}
			_, nameOK := get(obj, keyName).(ast.String)
			_, fileOK := get(obj, keyFile).(ast.String)
			ok = ok && nameOK && fileOK
		})
		if !ok {
			c.fail(`project_env: must be an array of {"name": string, "file": string}`)
		}
	default:
		c.fail(`project_env: must be an array of {"name": string, "file": string}`)
	}
	if wd, ok := get(permContext, keyWorkingDirectories).(ast.Object); ok {
		wd.Foreach(func(k, v *ast.Term) {
			if obj, ok := v.Value.(ast.Object); ok {
				if p, ok := get(obj, keyPath).(ast.String); ok {
					dirs = append(dirs, ast.NewTerm(p))
					return
				}
			}
			if _, ok := k.Value.(ast.String); ok {
				dirs = append(dirs, k)
			}
		})
	}
	if v := get(c.input, keyReadOnly); !isNull(v) {
		if _, ok := v.(ast.Boolean); !ok {
			c.fail("read_only: must be a boolean")
		}
	}
	if v := get(c.input, keyToolCheck); !isNull(v) {
		obj, _ := v.(ast.Object)
		b, _ := get(obj, keyBehavior).(ast.String)
		// Any case: AgentScope Java's wire form is lower-case ("allow",
		// "passthrough"), Python's PermissionBehavior upper-case.
		if obj == nil || !toolCheckBehaviors[strings.ToUpper(string(b))] {
			c.fail("tool_check: must be an object with a behavior of ALLOW, DENY, ASK or PASSTHROUGH (any case)")
		}
	}
	if toolOK && toolInputOK {
		c.fields(tool, toolInput)
	}

	errs := ast.InternedEmptyArray
	if len(c.errs) > 0 {
		sort.Strings(c.errs)
		ts := make([]*ast.Term, len(c.errs))
		for i, e := range c.errs {
			ts[i] = ast.StringTerm(e)
		}
		errs = ast.ArrayTerm(ts...)
	}
	// The result reuses the input's and the settings' terms where it can:
	// this runs on every decision.
	if !toolOK {
		toolTerm = ast.InternedEmptyString
	}
	cwd, _ := cwdTerm.Value.(ast.String)
	// Only an input that says so (a hook of a host that runs each call in
	// a shell of its own) lets a state change at the end of the command
	// count as harmless (docs/shell.md, "Shell state").
	shellPerCall := get(c.input, keyShellPerCall) == ast.Boolean(true)
	// Only true says the command runs as bash -c's script with no words
	// after it (its positional parameters are empty: docs/shell.md,
	// "Values and where they come from").
	positionalEmpty := get(c.input, keyPositionalEmpty) == ast.Boolean(true)
	// Any stdin_terminal but false marks a command that may keep a
	// terminal the agent types into later (docs/shell.md, "Terminal input").
	stdinTerminal := false
	if t := get(c.input, keyStdinTerminal); t != nil && t != ast.Boolean(false) {
		stdinTerminal = true
	}
	// Only true says the host runs the command with GIT_PAGER=cat (it
	// loosens: anything else is false).
	gitPagerCat := get(c.input, keyGitPagerCat) == ast.Boolean(true)
	if len(c.errs) == 0 && len(dirs) == 0 && c.settings != nil {
		// A valid call that brings nothing of its own into the context but
		// its tool and cwd (the common call): the context is the same for
		// every such call until the settings change.
		k := callKey{cwd: string(cwd), tool: tool, shellPerCall: shellPerCall, positionalEmpty: positionalEmpty, stdinTerminal: stdinTerminal, gitPagerCat: gitPagerCat}
		for i, key := range callSettingsKeys {
			k.fields[i] = termAt(c.settings, key)
		}
		if t, ok := callContexts.Get(k); ok {
			return t
		}
		t := contextTerm(errs, toolTerm, cwdTerm, buildCallOptions(c.settings, cwdTerm, nil, shellPerCall, positionalEmpty, stdinTerminal, gitPagerCat))
		callContexts.Put(k, t)
		return t
	}
	return contextTerm(errs, toolTerm, cwdTerm, buildCallOptions(c.settings, cwdTerm, dirs, shellPerCall, positionalEmpty, stdinTerminal, gitPagerCat))
}

// contextTerm is the call context permopa.call.context returns.
func contextTerm(errs, toolTerm, cwdTerm *ast.Term, o *callOptions) *ast.Term {
	return ast.ObjectTerm(
		ast.Item(keyErrors, errs),
		ast.Item(keyValid, ast.InternedTerm(errs.Value.(*ast.Array).Len() == 0)),
		ast.Item(keyTool, toolTerm),
		ast.Item(keyCwd, cwdTerm),
		ast.Item(keyHome, o.home),
		ast.Item(keyWorkingDirectories, o.dirs),
		ast.Item(keyPathOpts, o.path),
		ast.Item(keyWriteOpts, o.write),
		ast.Item(keyBashOpts, o.bash),
		ast.Item(keyBypassSafety, o.bypassSafety),
		ast.Item(keyNetworkReads, o.networkReads),
	)
}

// callOptions is what the call context derives from the settings and the
// cwd.
type callOptions struct {
	home, dirs, path, write, bash, bypassSafety, networkReads *ast.Term
}

// callSettingsKeys are the settings fields the call context reads.
var callSettingsKeys = [...]*ast.Term{
	keyCwd, keyHome, keyDangerousPaths, keyProtectedPaths, keyWorkingDirectories,
	keyCaseInsensitivePaths, keyBypassSafety, keyNetworkReads,
}

// callKey identifies a call context that can be reused: the cwd, the tool
// and the very terms of the settings fields it was derived from. Every
// change of the settings gives those fields new terms: the engine writes a
// new settings document on every change, and a write into the document in
// place (OPA's data API) replaces the term of the field it changes, also
// when the change is deeper inside it. The cache holds those terms, so none
// is freed and its address reused while an entry names it.
type callKey struct {
	cwd, tool                                                 string
	shellPerCall, positionalEmpty, stdinTerminal, gitPagerCat bool
	fields                                                    [len(callSettingsKeys)]*ast.Term
}

// callContexts holds the call contexts of valid calls per callKey: built
// once per data revision, directory and tool instead of on every decision.
var callContexts = lru.New[callKey, *ast.Term](1024)

// buildCallOptions derives the options from the settings, the cwd and the
// working directories the input adds. The result reuses the settings'
// terms where it can. Every settings field read here must be in
// callSettingsKeys, or a change of it would not be seen by a kept context.
func buildCallOptions(settings ast.Object, cwdTerm *ast.Term, inputDirs []*ast.Term, shellPerCall, positionalEmpty, stdinTerminal, gitPagerCat bool) *callOptions {
	dirs := make([]*ast.Term, 1, 1+len(inputDirs)+2)
	dirs[0] = cwdTerm
	dirs = append(dirs, inputDirs...)
	if sd, ok := get(settings, keyWorkingDirectories).(*ast.Array); ok {
		sd.Foreach(func(t *ast.Term) {
			if _, ok := t.Value.(ast.String); ok {
				dirs = append(dirs, t)
			}
		})
	}
	dangerous := ast.InternedEmptyObject
	if t := termAt(settings, keyDangerousPaths); t != nil {
		dangerous = t
	}
	homeTerm := ast.InternedEmptyString
	if t := termAt(settings, keyHome); t != nil && isString(t) {
		homeTerm = t
	}
	protectedTerm := ast.InternedEmptyArray
	if t := termAt(settings, keyProtectedPaths); t != nil {
		if _, ok := t.Value.(*ast.Array); ok {
			protectedTerm = t
		}
	}
	wdTerm := ast.ArrayTerm(dirs...)
	return &callOptions{
		home: homeTerm,
		dirs: wdTerm,
		path: ast.ObjectTerm(
			ast.Item(keyCwd, cwdTerm),
			ast.Item(keyHome, homeTerm),
			ast.Item(keyDangerousPaths, dangerous),
			ast.Item(keyCaseInsensitive, ast.InternedTerm(get(settings, keyCaseInsensitivePaths) == ast.Boolean(true))),
		),
		// The path options for what a call writes: also look on disk, and
		// protect the settings files the engine reads (settings.protected_paths).
		write: ast.ObjectTerm(
			ast.Item(keyCwd, cwdTerm),
			ast.Item(keyHome, homeTerm),
			ast.Item(keyDangerousPaths, dangerous),
			ast.Item(keyWrites, ast.InternedTerm(true)),
			ast.Item(keyProtectedPaths, protectedTerm),
		),
		bash: ast.ObjectTerm(
			ast.Item(keyCwd, cwdTerm),
			ast.Item(keyHome, homeTerm),
			ast.Item(keyWorkingDirectories, wdTerm),
			ast.Item(keyShellPerCall, ast.InternedTerm(shellPerCall)),
			ast.Item(keyPositionalEmpty, ast.InternedTerm(positionalEmpty)),
			ast.Item(keyStdinTerminal, ast.InternedTerm(stdinTerminal)),
			ast.Item(keyGitPagerCat, ast.InternedTerm(gitPagerCat)),
		),
		bypassSafety: ast.InternedTerm(get(settings, keyBypassSafety) == ast.Boolean(true)),
		networkReads: networkReads(get(settings, keyNetworkReads)),
	}
}

// networkReads is the settings' network_reads: "allow" when absent or
// "allow", "ask" for anything else (a value that cannot be read tightens).
func networkReads(v ast.Value) *ast.Term {
	if v == nil || v.Compare(ast.String("allow")) == 0 {
		return ast.InternedTerm("allow")
	}
	return ast.InternedTerm("ask")
}

// isString reports whether t is a string.
func isString(t *ast.Term) bool {
	_, ok := t.Value.(ast.String)
	return ok
}

// fields checks the tool's arguments against the policy's schema: required
// fields are non-empty strings, optional ones strings when present.
func (c *callCtx) fields(tool string, toolInput ast.Object) {
	toolKey := ast.StringTerm(tool)
	if req, ok := get(get2(c.schema, keyRequired), toolKey).(*ast.Array); ok {
		req.Foreach(func(f *ast.Term) {
			if _, ok := nonEmpty(get(toolInput, f)); !ok {
				c.fail("tool_input.%s: %s needs a non-empty string", unquote(f), tool)
			}
		})
	}
	if opt, ok := get(get2(c.schema, keyOptional), toolKey).(*ast.Array); ok {
		opt.Foreach(func(f *ast.Term) {
			v := get(toolInput, f)
			if _, isStr := v.(ast.String); !isStr && !isNull(v) {
				c.fail("tool_input.%s: must be a string", unquote(f))
			}
		})
	}
}

func get2(obj ast.Object, key *ast.Term) ast.Object {
	o, _ := get(obj, key).(ast.Object)
	return o
}

func unquote(t *ast.Term) string {
	if s, ok := t.Value.(ast.String); ok {
		return string(s)
	}
	return t.String()
}
