package builtins

import (
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"
	"github.com/open-policy-agent/opa/v1/topdown/builtins"
	"github.com/open-policy-agent/opa/v1/types"

	"github.com/permopa/permopa/builtins/paths"
)

var categoriesPath = []string{"permopa", "permopa.path"}

const (
	cwdHomeDoc = "`cwd` (string: relative paths are joined to it; absent: `/`), " +
		"`home` (string: `~`, `~/x`, `$HOME` expand to it; absent: the home directory of the process)"
	unknownKeys = "; unknown keys are ignored"
)

// PathResolve is permopa.path.resolve.
var PathResolve = &ast.Builtin{
	Name: "permopa.path.resolve",
	Description: "Resolves a path the way permopa compares paths: `abs` is the lexical absolute path " +
		"(`~` and `$HOME` expanded, joined to the cwd, cleaned); `real` is the path the kernel reaches, " +
		"component by component (every existing symlink followed, `link/..` the parent of its target, " +
		"`/proc/self/root` as `/`, `/proc/self/cwd` as the cwd, the part that does not exist yet appended). " +
		"Reads the file system, so it is non-deterministic.",
	Categories: categoriesPath,
	Decl: types.NewFunction(
		types.Args(
			types.Named("path", types.S).Description("the path as written in the tool call"),
			namedOpts("options: "+cwdHomeDoc+unknownKeys),
		),
		types.Named("result", types.NewObject([]*types.StaticProperty{
			types.NewStaticProperty("abs", types.S),
			types.NewStaticProperty("real", types.S),
		}, nil)).Description("`{\"abs\": string, \"real\": string}`"),
	),
	Nondeterministic: true,
}

var (
	keyAbs        = ast.StringTerm("abs")
	keyReal       = ast.StringTerm("real")
	keyPath       = ast.StringTerm("path")
	keyReason     = ast.StringTerm("reason")
	keyDangerous  = ast.StringTerm("dangerous")
	keyCredential = ast.StringTerm("credential")
)

// resolveKey keys the per-evaluation memo of resolved paths.
type resolveKey struct{ p, cwd, home string }

// resolve resolves p at most once per evaluation (in the query's built-in
// cache): the path built-ins of one decision (check, inside, the deny, ask
// and allow globs) see the same file system state and pay for it once.
func resolve(bctx topdown.BuiltinContext, p, cwd, home string) paths.Resolved {
	if bctx.Cache == nil {
		return paths.ResolvePath(p, cwd, home)
	}
	k := resolveKey{p, cwd, home}
	if v, ok := bctx.Cache.Get(k); ok {
		return v.(paths.Resolved)
	}
	r := paths.ResolvePath(p, cwd, home)
	bctx.Cache.Put(k, r)
	return r
}

type otherRoadsKey struct{ p, cwd, home string }

// otherRoads is paths.OtherRoads, once per evaluation.
func otherRoads(bctx topdown.BuiltinContext, p, cwd, home string, r paths.Resolved) []paths.Resolved {
	if !strings.HasPrefix(p, "~") || strings.HasPrefix(p, "~/") || p == "~" {
		return nil // the common case, without a lookup
	}
	if bctx.Cache == nil {
		return paths.OtherRoads(p, cwd, home, r)
	}
	k := otherRoadsKey{p, cwd, home}
	if v, ok := bctx.Cache.Get(k); ok {
		return v.([]paths.Resolved)
	}
	x := paths.OtherRoads(p, cwd, home, r)
	bctx.Cache.Put(k, x)
	return x
}

// classifyResolved classifies both forms of a path; the reason names the
// symlink target when only the target is dangerous (or a credential).
//
// A path whose target cannot be known statically (another process's root,
// a working directory, an open file: paths.Resolved.Unknown) fails closed:
// it is a credential path, so reading or writing it is a safety ASK
// (docs/reads.md, "Credential paths").
func classifyResolved(cl *paths.Classifier, r paths.Resolved) (d, c bool, reason string) {
	d, c, reason = cl.Classify(r.Abs)
	if r.Real != r.Abs && !c {
		if rd, rc, rreason := cl.Classify(r.Real); (rd && !d) || (rc && !c) {
			d, c, reason = true, c || rc, rreason+" (symlink target "+r.Real+")"
		}
	}
	if r.Unknown != "" && !c {
		d, c, reason = true, true, r.Unknown
	}
	return d, c, reason
}

// expansion is what a path with shell glob syntax expands to now, resolved.
type expansion struct {
	paths    []paths.Resolved
	complete bool
}

type expandKey struct{ abs string }

// expand expands the shell glob abs (see paths.Expand) at most once per
// evaluation. The bash analyser leaves globs literal in the paths it
// reports, so `cat .e*` reaches the path built-ins as ".../.e*": every
// built-in also looks at what that expands to.
func expand(bctx topdown.BuiltinContext, abs string) expansion {
	if bctx.Cache != nil {
		if v, ok := bctx.Cache.Get(expandKey{abs}); ok {
			return v.(expansion)
		}
	}
	ms, complete := paths.Expand(abs)
	x := expansion{complete: complete}
	for _, m := range ms {
		real, ok := paths.RealPath(m)
		if !ok {
			real = m
		}
		x.paths = append(x.paths, paths.Resolved{Abs: m, Real: real})
	}
	if bctx.Cache != nil {
		bctx.Cache.Put(expandKey{abs}, x)
	}
	return x
}

func cwdHome(o opts) (cwd, home string, err error) {
	if cwd, err = o.str(keyCwd); err != nil {
		return
	}
	home, err = o.str(keyHome)
	return
}

func pathResolve(bctx topdown.BuiltinContext, ops []*ast.Term) (*ast.Term, error) {
	p, err := builtins.StringOperand(ops[0].Value, 1)
	if err != nil {
		return nil, err
	}
	o, err := optsOperand(ops[1], 2)
	if err != nil {
		return nil, err
	}
	cwd, home, err := cwdHome(o)
	if err != nil {
		return nil, err
	}
	r := resolve(bctx, string(p), cwd, home)
	return ast.ObjectTerm(
		ast.Item(keyAbs, ast.StringTerm(r.Abs)),
		ast.Item(keyReal, ast.StringTerm(r.Real)),
	), nil
}

var pathReasonType = types.NewArray(nil, types.NewObject([]*types.StaticProperty{
	types.NewStaticProperty("path", types.S),
	types.NewStaticProperty("reason", types.S),
}, nil))

// PathCheck is permopa.path.check.
var PathCheck = &ast.Builtin{
	Name: "permopa.path.check",
	Description: "Classifies paths against permopa's dangerous paths (shell profiles, `.git`, `.ssh`, `.env*`, " +
		"private keys, ...; configurable) and credential paths (whose reads are protected too). " +
		"Each path is resolved and both its lexical and its symlink-resolved form are classified, " +
		"so a symlink to `~/.ssh/id_rsa` is a credential path. A path with shell glob syntax (`.e*`) is " +
		"also judged by what it expands to now and, when it expands to too much, by what it could name. " +
		"Names compare case-insensitively. A path whose target cannot be known statically (a process's working " +
		"directory or open files, another process's root) is a credential path. A tree read recursively (`grep -r`, `rg`, `find`, the Grep tool) is a " +
		"credential read when its root is one, when it holds a well-known credential location (`~/.ssh`, " +
		"`/etc/shadow`, ...), or when a bounded walk of it, skipping what the program skips, finds a credential " +
		"path; a tree too large to walk is reported under `unknown`. Permission settings of permopa and of agent " +
		"hosts (`.permopa`, `.claude`, `.codex`, `.gemini`, `.mcp.json`, ...) and files that make tools run code " +
		"(`.husky`, `.githooks`, `.vscode/tasks.json`, ...; configurable) are dangerous. " +
		"Reads the file system, so it is non-deterministic.",
	Categories: categoriesPath,
	Decl: types.NewFunction(
		types.Args(
			types.Named("paths", pathOrTreeArray()).Description("the paths as written in the tool call; "+treeDoc),
			namedOpts("options: "+cwdHomeDoc+"; `dangerous_paths` (object, the settings block "+
				"`{files: {add: [], remove: []}, directories: {add: [], remove: []}, code_running: {add: [], remove: []}}`; "+
				"absent: the defaults); "+writesDoc+unknownKeys),
		),
		types.Named("result", types.NewObject([]*types.StaticProperty{
			types.NewStaticProperty("dangerous", pathReasonType),
			types.NewStaticProperty("credential", pathReasonType),
			types.NewStaticProperty("unknown", pathReasonType),
			types.NewStaticProperty("protected", pathReasonType),
		}, nil)).Description("`{\"dangerous\": [{\"path\", \"reason\"}], \"credential\": [{\"path\", \"reason\"}], "+
			"\"unknown\": [{\"path\", \"reason\"}], \"protected\": [...]}`: each hit with the path (or tree root) as given "+
			"and why (every credential path is also dangerous); unknown: trees too large to check; protected, only "+
			"with `writes`: the hits (also dangerous) that are permission settings of permopa or an agent host"),
	),
	Nondeterministic: true,
}

var classifiers = newValueCache[*paths.Classifier](1024)

// classifier returns the classifier for the dangerous_paths option.
func classifier(o opts) (*paths.Classifier, error) {
	t := o.obj.Get(keyDangerousPaths)
	if t == nil {
		return paths.Default(), nil
	}
	if _, ok := t.Value.(ast.Null); ok {
		return paths.Default(), nil
	}
	return classifiers.get(t.Value, "", "", func() (*paths.Classifier, error) {
		cfg, err := dangerousConfig(t.Value, o.pos)
		if err != nil {
			return nil, err
		}
		c, err := paths.Compiled(cfg)
		if err != nil {
			return nil, builtins.NewOperandErr(o.pos, "option %v", err)
		}
		return c, nil
	})
}

func dangerousConfig(v ast.Value, pos int) (paths.Config, error) {
	var cfg paths.Config
	obj, ok := v.(ast.Object)
	if !ok {
		return cfg, builtins.NewOperandErr(pos, "option dangerous_paths must be an object, got %s", ast.ValueName(v))
	}
	for _, sec := range []struct {
		key   *ast.Term
		name  string
		edits *paths.Edits
	}{{keyFiles, "files", &cfg.Files}, {keyDirectories, "directories", &cfg.Directories},
		{keyCodeRunning, "code_running", &cfg.CodeRunning}} {
		st := obj.Get(sec.key)
		if st == nil {
			continue
		}
		if _, ok := st.Value.(ast.Null); ok {
			continue
		}
		so, ok := st.Value.(ast.Object)
		if !ok {
			return cfg, builtins.NewOperandErr(pos, "option dangerous_paths.%s must be an object, got %s", sec.name, ast.ValueName(st.Value))
		}
		for _, l := range []struct {
			key  *ast.Term
			name string
			dst  *[]string
		}{{keyAdd, "add", &sec.edits.Add}, {keyRemove, "remove", &sec.edits.Remove}} {
			lt := so.Get(l.key)
			if lt == nil {
				continue
			}
			ss, err := stringsOf(lt.Value, func() error {
				return builtins.NewOperandErr(pos, "option dangerous_paths.%s.%s must be an array of strings, got %v",
					sec.name, l.name, lt)
			})
			if err != nil {
				return cfg, err
			}
			*l.dst = ss
		}
	}
	return cfg, nil
}

func pathCheck(bctx topdown.BuiltinContext, ops []*ast.Term) (*ast.Term, error) {
	ps, err := pathArgs(ops[0], 1)
	if err != nil {
		return nil, err
	}
	o, err := optsOperand(ops[1], 2)
	if err != nil {
		return nil, err
	}
	cwd, home, err := cwdHome(o)
	if err != nil {
		return nil, err
	}
	cl, err := classifier(o)
	if err != nil {
		return nil, err
	}
	wc, err := newWriteCheck(bctx, o, cl, cwd, home)
	if err != nil {
		return nil, err
	}
	var dangerous, credential, unknown, protected []*ast.Term
	for _, pa := range ps {
		pt := pa.term
		r := resolve(bctx, pa.p, cwd, home)
		if pa.tree != nil {
			v, root := checkTrees(bctx, cl, *pa.tree, r, home)
			switch {
			case v.Credential:
				hit := treeHit(pa, root, v)
				dangerous = append(dangerous, hit)
				credential = append(credential, hit)
			case v.Unknown:
				unknown = append(unknown, treeHit(pa, root, v))
			}
			continue
		}
		d, c, reason := classifyResolved(cl, r)
		if !c && paths.HasGlob(r.Abs) {
			// What the shell will expand the glob to, and, when that cannot
			// be known in full, what it could name.
			x := expand(bctx, r.Abs)
			for _, e := range x.paths {
				if ed, ec, er := classifyResolved(cl, e); (ed && !d) || (ec && !c) {
					d, c, reason = true, c || ec, er+" (glob match "+e.Abs+")"
					if c {
						break
					}
				}
			}
			if !x.complete && !c {
				if gd, gc, gr := cl.ClassifyGlob(r.Abs); (gd && !d) || (gc && !c) {
					d, c, reason = true, c || gc, gr+" (glob too large to expand)"
				}
			}
		}
		prot := false
		if wc != nil {
			d, prot, reason = wc.check(r, d, c, reason)
		}
		if !d {
			continue
		}
		hit := ast.ObjectTerm(ast.Item(keyPath, pt), ast.Item(keyReason, ast.StringTerm(reason)))
		dangerous = append(dangerous, hit)
		if c {
			credential = append(credential, hit)
		}
		if prot {
			protected = append(protected, hit)
		}
	}
	out := ast.NewObject(
		ast.Item(keyDangerous, termsArray(dangerous)),
		ast.Item(keyCredential, termsArray(credential)),
		ast.Item(keyUnknown, termsArray(unknown)),
	)
	if wc != nil {
		// Only with writes: the protected settings are a question of writes.
		out.Insert(keyProtected, termsArray(protected))
	}
	return ast.NewTerm(out), nil
}

func termsArray(ts []*ast.Term) *ast.Term {
	if len(ts) == 0 {
		return ast.InternedEmptyArray
	}
	return ast.ArrayTerm(ts...)
}

// PathInside is permopa.path.inside.
var PathInside = &ast.Builtin{
	Name: "permopa.path.inside",
	Description: "Reports whether every path lies inside one of the directories. Both sides are resolved; " +
		"a path is inside when its symlink-resolved form is within the resolved form of some directory, " +
		"so a symlink inside a working directory that points out is not inside, a path spelled through a " +
		"symlink to a working directory is inside it, and `/proj-evil` is not inside `/proj`. " +
		"A path with shell glob syntax is inside only when everything it expands to is. " +
		"No paths: false. Reads the file system, so it is non-deterministic.",
	Categories: categoriesPath,
	Decl: types.NewFunction(
		types.Args(
			types.Named("paths", stringArray()).Description("the paths to check"),
			types.Named("dirs", stringArray()).Description("the directories (e.g. the working directories)"),
			namedOpts("options: "+cwdHomeDoc+unknownKeys),
		),
		types.Named("result", types.B).Description("true when every path is inside some directory"),
	),
	Nondeterministic: true,
}

func pathInside(bctx topdown.BuiltinContext, ops []*ast.Term) (*ast.Term, error) {
	ps, err := stringArrayOperand(ops[0], 1)
	if err != nil {
		return nil, err
	}
	ds, err := stringArrayOperand(ops[1], 2)
	if err != nil {
		return nil, err
	}
	o, err := optsOperand(ops[2], 3)
	if err != nil {
		return nil, err
	}
	cwd, home, err := cwdHome(o)
	if err != nil {
		return nil, err
	}
	if ps.Len() == 0 || ds.Len() == 0 {
		return termFalse, nil
	}
	dirs := make([]paths.Resolved, 0, ds.Len())
	for i := range ds.Len() {
		if d := string(ds.Elem(i).Value.(ast.String)); d != "" {
			dirs = append(dirs, resolve(bctx, d, cwd, home))
		}
	}
	for i := range ps.Len() {
		p := string(ps.Elem(i).Value.(ast.String))
		if p == "" {
			return termFalse, nil
		}
		r := resolve(bctx, p, cwd, home)
		if !paths.InsideResolved(r, dirs) {
			return termFalse, nil
		}
		if paths.HasGlob(r.Abs) {
			// Every path the glob expands to must be inside too.
			x := expand(bctx, r.Abs)
			if !x.complete {
				return termFalse, nil
			}
			for _, e := range x.paths {
				if !paths.InsideResolved(e, dirs) {
					return termFalse, nil
				}
			}
		}
	}
	return termTrue, nil
}
