package builtins

import (
	"fmt"
	"reflect"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"
	"github.com/open-policy-agent/opa/v1/topdown/builtins"
	"github.com/open-policy-agent/opa/v1/types"

	"github.com/permopa/permopa/builtins/bash"
	"github.com/permopa/permopa/builtins/internal/lru"
)

var categoriesBash = []string{"permopa", "permopa.bash"}

const bashOptsDoc = "options: `cwd` (string), `home` (string), `working_directories` (array of strings), " +
	"`max_length` (number: the command length cap in bytes, 0 the default), `max_leaves` (number: the leaf " +
	"command cap, 0 the default); unknown keys are ignored"

var (
	analysisType = reflect.TypeFor[bash.Analysis]()
	// analysisEncoder is built on first use, not at package
	// initialisation; TestLazyTablesCompile forces it.
	analysisEncoder = sync.OnceValue(func() encoder { return encoderFor(analysisType) })
)

// BashAnalyze is permopa.bash.analyze.
var BashAnalyze = &ast.Builtin{
	Name: "permopa.bash.analyze",
	Description: "Parses a bash command line (mvdan.cc/sh, bash dialect) and analyses it: the leaf commands " +
		"that will run (argv after quote removal, wrapper chain, what allow rules see, read-only verdict " +
		"with its reason, paths read and written, filesystem-command flag), every path read or written, " +
		"critical removals, dangerous-command hits, whether the whole command is read-only and whether it " +
		"could be analysed at all. Anything the analyser does not model fails closed: not read-only, and " +
		"not analysable when it hides what runs.",
	Categories: categoriesBash,
	Decl: types.NewFunction(
		types.Args(
			types.Named("command", types.S).Description("the command line"),
			namedOpts(bashOptsDoc),
		),
		types.Named("analysis", typeOf(analysisType)).Description("the analysis (see package builtins/bash, type Analysis, for every field)"),
	),
	// The context records the script files an analysis read, for the
	// decision cache (recordScriptFiles).
	CanSkipBctx: false,
}

// bashOptions reads the analysis options of operand pos.
func bashOptions(t *ast.Term, pos int) (bash.Options, error) {
	var bo bash.Options
	o, err := optsOperand(t, pos)
	if err != nil {
		return bo, err
	}
	if bo.Cwd, err = o.str(keyCwd); err != nil {
		return bo, err
	}
	if bo.Home, err = o.str(keyHome); err != nil {
		return bo, err
	}
	if bo.WorkingDirectories, err = o.strings(keyWorkingDirectories); err != nil {
		return bo, err
	}
	if bo.MaxLength, err = o.int(keyMaxLength); err != nil {
		return bo, err
	}
	if bo.MaxLeaves, err = o.int(keyMaxLeaves); err != nil {
		return bo, err
	}
	if bo.ShellPerCall, err = o.bool(keyShellPerCall); err != nil {
		return bo, err
	}
	if bo.StdinTerminal, err = o.bool(keyStdinTerminal); err != nil {
		return bo, err
	}
	if bo.PositionalEmpty, err = o.bool(keyPositionalEmpty); err != nil {
		return bo, err
	}
	bo.GitPagerCat, err = o.bool(keyGitPagerCat)
	return bo, err
}

// analyses caches the Rego value of an analysis. bash.Analyze returns the
// same *Analysis for the same command and options while it stays in its own
// cache, so a repeated command costs no conversion.
var analyses = lru.New[*bash.Analysis, ast.Value](4096)

func analysisTerm(a *bash.Analysis) *ast.Term {
	if v, ok := analyses.Get(a); ok {
		return ast.NewTerm(v)
	}
	t := analysisEncoder()(reflect.ValueOf(a).Elem())
	analyses.Put(a, t.Value)
	return t
}

func analyze(bctx topdown.BuiltinContext, cmd, optsT *ast.Term, cmdPos, optsPos int) (*bash.Analysis, error) {
	c, err := builtins.StringOperand(cmd.Value, cmdPos)
	if err != nil {
		return nil, err
	}
	bo, err := bashOptions(optsT, optsPos)
	if err != nil {
		return nil, err
	}
	// One evaluation asks several built-ins about one command: within it
	// they share one analysis, so they agree on the script files read and
	// the files' stamps are checked once (bash.Analyze checks them on
	// every cache hit).
	var key analysisKey
	if bctx.Cache != nil {
		key = analysisKey{cmd: string(c), opts: optsT.String()}
		if a, ok := bctx.Cache.Get(key); ok {
			return a.(*bash.Analysis), nil
		}
	}
	a := bash.Analyze(string(c), bo)
	if a.ReadsFiles() {
		recordScriptFiles(bctx, cmd, optsT, a)
	}
	if bctx.Cache != nil {
		bctx.Cache.Put(key, a)
	}
	return a, nil
}

// analysisKey keys an evaluation's analyses in its built-in cache.
type analysisKey struct{ cmd, opts string }

// scriptFilesCall is the recorded call (record.go) of an analysis that
// read script files (docs/shell.md, "Scripts"): the bash built-ins are
// deterministic but for those files, so the decision cache keeps the files'
// stamps and serves a decision again only while they are unchanged.
const scriptFilesCall = "permopa.bash.analyze(script files)"

func recordScriptFiles(bctx topdown.BuiltinContext, cmd, optsT *ast.Term, a *bash.Analysis) {
	ops := []*ast.Term{cmd, optsT}
	if bctx.Context != nil {
		if r, ok := bctx.Context.Value(recordingKey{}).(*Recording); ok {
			for _, c := range r.Calls {
				if c.Name == scriptFilesCall && c.Operands[0].Equal(cmd) && c.Operands[1].Equal(optsT) {
					return // one evaluation calls several bash built-ins on one command
				}
			}
		}
	}
	record(bctx, scriptFilesCall, ops, ast.StringTerm(a.ScriptFiles()))
}

// bashScriptFiles answers the recorded call again: the stamps of the
// script files the analysis reads now.
func bashScriptFiles(bctx topdown.BuiltinContext, ops []*ast.Term) (*ast.Term, error) {
	c, err := builtins.StringOperand(ops[0].Value, 1)
	if err != nil {
		return nil, err
	}
	bo, err := bashOptions(ops[1], 2)
	if err != nil {
		return nil, err
	}
	return ast.StringTerm(bash.Analyze(string(c), bo).ScriptFiles()), nil
}

func bashAnalyze(bctx topdown.BuiltinContext, ops []*ast.Term) (*ast.Term, error) {
	a, err := analyze(bctx, ops[0], ops[1], 1, 2)
	if err != nil {
		return nil, err
	}
	return analysisTerm(a), nil
}

// BashMatch is permopa.bash.match.
var BashMatch = &ast.Builtin{
	Name: "permopa.bash.match",
	Description: "Matches one Bash rule content (`npm run:*`, `npm run *`, `git status`, `git * --force`; " +
		"empty: every command) against a command with deny semantics: true when any leaf command " +
		"matches, seen through every wrapper (`sudo`, `env`, `xargs`, `bash -c`, `$(...)`, ...). " +
		"Uses the default analysis options. A rule content that does not compile is an error.",
	Categories: categoriesBash,
	Decl: types.NewFunction(
		types.Args(
			types.Named("rule_content", types.S).Description("the content of a Bash rule"),
			types.Named("command", types.S).Description("the command line"),
		),
		types.Named("result", types.B).Description("true when some leaf matches"),
	),
	CanSkipBctx: true,
}

// patterns caches compiled single rule contents, as one-element lists.
var patterns = lru.New[string, []*bash.Pattern](4096)

func compileOne(content string) ([]*bash.Pattern, error) {
	if ps, ok := patterns.Get(content); ok {
		return ps, nil
	}
	p, err := bash.CompilePattern(content)
	if err != nil {
		return nil, fmt.Errorf("rule content %q: %w", content, err)
	}
	ps := []*bash.Pattern{p}
	patterns.Put(content, ps)
	return ps, nil
}

func bashMatch(_ topdown.BuiltinContext, ops []*ast.Term) (*ast.Term, error) {
	rc, err := builtins.StringOperand(ops[0].Value, 1)
	if err != nil {
		return nil, err
	}
	c, err := builtins.StringOperand(ops[1].Value, 2)
	if err != nil {
		return nil, err
	}
	ps, err := compileOne(string(rc))
	if err != nil {
		return nil, err
	}
	return boolTerm(bash.Analyze(string(c), bash.Options{}).MatchAny(ps) >= 0), nil
}

// patternLists caches compiled lists of rule contents with their index
// (bash.IndexList): a list stored in the data (a rule index, per data
// revision) is compiled and indexed once and found again by identity.
var patternLists = newValueCache[*compiledList](1 << 18)

type compiledList struct {
	ps  []*bash.Pattern
	set *bash.PatternSet // nil for a short list
}

func compileList(t *ast.Term, pos int) (*compiledList, error) {
	// The elements are checked only when compiled: a cache hit is an array
	// equal to one that was checked.
	a, err := builtins.ArrayOperand(t.Value, pos)
	if err != nil {
		return nil, err
	}
	return patternLists.get(a, "", "", func() (*compiledList, error) {
		if _, err := stringArrayOperand(t, pos); err != nil {
			return nil, err
		}
		ps := make([]*bash.Pattern, a.Len())
		for i := range ps {
			one, err := compileOne(string(a.Elem(i).Value.(ast.String)))
			if err != nil {
				return nil, err
			}
			ps[i] = one[0]
		}
		return &compiledList{ps: ps, set: bash.IndexList(ps)}, nil
	})
}

// BashCoveredLists is permopa.bash.covered_lists.
var BashCoveredLists = &ast.Builtin{
	Name: "permopa.bash.covered_lists",
	Description: "permopa.bash.covered over several lists of allow-rule contents taken together (the rules of " +
		"several sources: each leaf may be covered by a rule of any list), without joining them per call. " +
		"`list` and `index` name the first rule used (list order, then index), both -1 when read-only leaves " +
		"alone cover the command (or it is not covered). Each list is compiled once and cached. A rule content " +
		"that does not compile is an error.",
	Categories: categoriesBash,
	Decl: types.NewFunction(
		types.Args(
			types.Named("rule_lists", types.NewArray(nil, stringArray())).Description("lists of Bash allow-rule contents"),
			types.Named("command", types.S).Description("the command line"),
			namedOpts(bashOptsDoc),
		),
		types.Named("result", types.NewObject([]*types.StaticProperty{
			types.NewStaticProperty("covered", types.B),
			types.NewStaticProperty("list", types.N),
			types.NewStaticProperty("index", types.N),
		}, nil)).Description("`{\"covered\": boolean, \"list\": number, \"index\": number}`"),
	),
	// The context records the script files an analysis read, for the
	// decision cache (recordScriptFiles).
	CanSkipBctx: false,
}

var keyList = ast.StringTerm("list")

// compileLists compiles an array of Bash rule lists (operand 1), each
// through the cache compileList keeps per list.
func compileLists(op *ast.Term) ([][]*bash.Pattern, []*bash.PatternSet, error) {
	outer, err := builtins.ArrayOperand(op.Value, 1)
	if err != nil {
		return nil, nil, err
	}
	lists := make([][]*bash.Pattern, outer.Len())
	sets := make([]*bash.PatternSet, outer.Len())
	for j := range lists {
		c, err := compileList(outer.Elem(j), 1)
		if err != nil {
			return nil, nil, err
		}
		lists[j], sets[j] = c.ps, c.set
	}
	return lists, sets, nil
}

func bashCoveredLists(bctx topdown.BuiltinContext, ops []*ast.Term) (*ast.Term, error) {
	lists, sets, err := compileLists(ops[0])
	if err != nil {
		return nil, err
	}
	a, err := analyze(bctx, ops[1], ops[2], 2, 3)
	if err != nil {
		return nil, err
	}
	l, i, ok := a.CoveredListsIndexed(lists, sets)
	return ast.ObjectTerm(
		ast.Item(keyCovered, boolTerm(ok)),
		ast.Item(keyList, indexTerm(l)),
		ast.Item(keyIndex, indexTerm(i)),
	), nil
}

// BashMatchAny is permopa.bash.match_any.
var BashMatchAny = &ast.Builtin{
	Name: "permopa.bash.match_any",
	Description: "Matches a list of Bash rule contents against a command with deny/ask semantics: the index " +
		"of the first rule that matches any leaf command, seen through every wrapper, or -1. Rules that name " +
		"options of a program with a flag spec also match every spelling of those options (flag-aware), and a " +
		"command that runs what permopa cannot tell (a command name built at run time, inline code, a " +
		"command-valued option only known at run time, a construct the analyser does not model) matches every " +
		"rule: see permopa.bash.match_reason. The list is compiled once and cached. A rule content that does " +
		"not compile is an error.",
	Categories: categoriesBash,
	Decl: types.NewFunction(
		types.Args(
			types.Named("rule_contents", stringArray()).Description("the contents of the Bash deny (or ask) rules"),
			types.Named("command", types.S).Description("the command line"),
			namedOpts(bashOptsDoc),
		),
		types.Named("index", types.N).Description("index of the first matching rule, or -1"),
	),
	// The context records the script files an analysis read, for the
	// decision cache (recordScriptFiles).
	CanSkipBctx: false,
}

func bashMatchAny(bctx topdown.BuiltinContext, ops []*ast.Term) (*ast.Term, error) {
	return matchList(bctx, ops, (*bash.Analysis).MatchAnySet, (*bash.Analysis).MatchAny)
}

// matchList is match_any and match_certain: the first of the compiled rule
// list ops[0] that match finds in the analysis of the command ops[1], by
// the list's set when it has one.
func matchList(bctx topdown.BuiltinContext, ops []*ast.Term, bySet func(*bash.Analysis, *bash.PatternSet) int, byList func(*bash.Analysis, []*bash.Pattern) int) (*ast.Term, error) {
	c, err := compileList(ops[0], 1)
	if err != nil {
		return nil, err
	}
	a, err := analyze(bctx, ops[1], ops[2], 2, 3)
	if err != nil {
		return nil, err
	}
	if len(c.ps) == 0 {
		return termMinusOne, nil
	}
	if c.set != nil {
		return indexTerm(bySet(a, c.set)), nil
	}
	return indexTerm(byList(a, c.ps)), nil
}

// BashMatchCertain is permopa.bash.match_certain.
var BashMatchCertain = &ast.Builtin{
	Name: "permopa.bash.match_certain",
	Description: "permopa.bash.match_any without the uncertainty: the index of the first Bash deny or ask rule " +
		"content that a leaf the command shows matches (literally, flag-aware, or in what a program permopa does " +
		"not model may run), or -1, whether or not the command also runs what permopa cannot tell " +
		"(permopa.bash.uncertain). The policy denies on a certain match and asks on an uncertain one " +
		"(docs/decision.md). The list is compiled once and cached. A rule content that does not compile is an error.",
	Categories: categoriesBash,
	Decl: types.NewFunction(
		types.Args(
			types.Named("rule_contents", stringArray()).Description("the contents of the Bash deny (or ask) rules"),
			types.Named("command", types.S).Description("the command line"),
			namedOpts(bashOptsDoc),
		),
		types.Named("index", types.N).Description("index of the first rule a leaf matches, or -1"),
	),
	// The context records the script files an analysis read, for the
	// decision cache (recordScriptFiles).
	CanSkipBctx: false,
}

func bashMatchCertain(bctx topdown.BuiltinContext, ops []*ast.Term) (*ast.Term, error) {
	return matchList(bctx, ops, (*bash.Analysis).MatchCertainSet, (*bash.Analysis).MatchCertain)
}

// BashUncertain is permopa.bash.uncertain.
var BashUncertain = &ast.Builtin{
	Name: "permopa.bash.uncertain",
	Description: "Why a command runs what permopa cannot read, so that any Bash deny or ask rule could match it " +
		"(`npx runs a package's program`, `node -e runs inline code that can start processes`, `sh reads its " +
		"script from stdin`, a command name only known at run time, a construct the analyser does not model); " +
		"\"\" when it runs nothing of the kind.",
	Categories: categoriesBash,
	Decl: types.NewFunction(
		types.Args(
			types.Named("command", types.S).Description("the command line"),
			namedOpts(bashOptsDoc),
		),
		types.Named("reason", types.S).Description("why permopa cannot tell what the command runs; \"\" when it can"),
	),
	// The context records the script files an analysis read, for the
	// decision cache (recordScriptFiles).
	CanSkipBctx: false,
}

func bashUncertain(bctx topdown.BuiltinContext, ops []*ast.Term) (*ast.Term, error) {
	a, err := analyze(bctx, ops[0], ops[1], 1, 2)
	if err != nil {
		return nil, err
	}
	return ast.StringTerm(a.Uncertain()), nil
}

// BashMatchReason is permopa.bash.match_reason.
var BashMatchReason = &ast.Builtin{
	Name: "permopa.bash.match_reason",
	Description: "Says why a Bash deny or ask rule content matches a command, for the decision's message: \"\" " +
		"when a leaf matches the rule's words literally (or the rule does not match), else the reason: a leaf " +
		"that carries the rule's options in another spelling (flag-aware match: `rm -fr x` for `rm -rf:*`), a leaf " +
		"whose options permopa cannot see, or a command that runs what permopa cannot tell (a command name built " +
		"at run time, inline interpreter code, a command-valued option only known at run time), which every " +
		"deny and ask rule hits. A rule content that does not compile is an error.",
	Categories: categoriesBash,
	Decl: types.NewFunction(
		types.Args(
			types.Named("rule_content", types.S).Description("the content of the Bash rule that matched"),
			types.Named("command", types.S).Description("the command line"),
			namedOpts(bashOptsDoc),
		),
		types.Named("reason", types.S).Description("why the rule matches; \"\" for a literal match"),
	),
	// The context records the script files an analysis read, for the
	// decision cache (recordScriptFiles).
	CanSkipBctx: false,
}

func bashMatchReason(bctx topdown.BuiltinContext, ops []*ast.Term) (*ast.Term, error) {
	rc, err := builtins.StringOperand(ops[0].Value, 1)
	if err != nil {
		return nil, err
	}
	ps, err := compileOne(string(rc))
	if err != nil {
		return nil, err
	}
	a, err := analyze(bctx, ops[1], ops[2], 2, 3)
	if err != nil {
		return nil, err
	}
	return ast.StringTerm(a.MatchReason(ps[0])), nil
}

var (
	keyCovered = ast.StringTerm("covered")
	keyIndex   = ast.StringTerm("index")
)

// BashCovered is permopa.bash.covered.
var BashCovered = &ast.Builtin{
	Name: "permopa.bash.covered",
	Description: "Decides whether allow rules cover a command: covered when every leaf command is read-only " +
		"or matched by some rule, where rules see only through transparent wrappers (`timeout`, `nice`, " +
		"`nohup`, `time`, `stdbuf`, `command`, allowlisted assignments), so `sudo rm x` or `xargs rm` are " +
		"never covered by a rule for `rm`. A leaf that writes a file by redirection is never covered, and a " +
		"wildcard never stands for a word that carries code (`sed:*` does not cover `sed '1e id' f`). " +
		"`index` is the first rule used, or -1 when read-only leaves " +
		"alone cover the command (or it is not covered). A rule content that does not compile is an error.",
	Categories: categoriesBash,
	Decl: types.NewFunction(
		types.Args(
			types.Named("rule_contents", stringArray()).Description("the contents of the Bash allow rules"),
			types.Named("command", types.S).Description("the command line"),
			namedOpts(bashOptsDoc),
		),
		types.Named("result", types.NewObject([]*types.StaticProperty{
			types.NewStaticProperty("covered", types.B),
			types.NewStaticProperty("index", types.N),
		}, nil)).Description("`{\"covered\": boolean, \"index\": number}`"),
	),
	// The context records the script files an analysis read, for the
	// decision cache (recordScriptFiles).
	CanSkipBctx: false,
}

func bashCovered(bctx topdown.BuiltinContext, ops []*ast.Term) (*ast.Term, error) {
	c, err := compileList(ops[0], 1)
	if err != nil {
		return nil, err
	}
	a, err := analyze(bctx, ops[1], ops[2], 2, 3)
	if err != nil {
		return nil, err
	}
	var i int
	var ok bool
	if c.set != nil {
		i, ok = a.CoveredSet(c.set)
	} else {
		i, ok = a.Covered(c.ps)
	}
	if !ok {
		i = -1
	}
	return ast.ObjectTerm(
		ast.Item(keyCovered, boolTerm(ok)),
		ast.Item(keyIndex, indexTerm(i)),
	), nil
}

// BashSuggest is permopa.bash.suggest.
var BashSuggest = &ast.Builtin{
	Name: "permopa.bash.suggest",
	Description: "Suggests at most 5 Bash allow-rule contents that, accepted, make the command covered " +
		"and never a more destructive form of it: the exact leaf, or `program subcommand:*` for a write " +
		"subcommand of a read-mostly program whose options are modelled and that has no more destructive " +
		"form; never a bare program prefix; words that carry code spelled out. Empty when no rule can cover " +
		"the command (it cannot be analysed, or a leaf writes a file by redirection).",
	Categories: categoriesBash,
	Decl: types.NewFunction(
		types.Args(
			types.Named("command", types.S).Description("the command line"),
			namedOpts(bashOptsDoc),
		),
		types.Named("rule_contents", stringArray()).Description("suggested rule contents"),
	),
	// The context records the script files an analysis read, for the
	// decision cache (recordScriptFiles).
	CanSkipBctx: false,
}

func bashSuggest(bctx topdown.BuiltinContext, ops []*ast.Term) (*ast.Term, error) {
	a, err := analyze(bctx, ops[0], ops[1], 1, 2)
	if err != nil {
		return nil, err
	}
	return stringsTerm(a.Suggest()), nil
}
