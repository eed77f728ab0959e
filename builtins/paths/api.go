// Package paths normalises, classifies and matches file paths for permopa:
// dangerous and credential paths, working-directory containment with symlink
// resolution, and the doublestar globs of file rules.
//
// Every path is handled in two forms (see Resolve): Abs, the lexical absolute
// path (~ and $HOME expanded, joined to the cwd, cleaned), and Real, the same
// path with every existing symlink resolved. Checks that protect something
// (dangerous paths, deny and ask rules) look at both forms and hit when either
// does; checks that grant something (working directories, allow rules) need
// both forms to pass. A symlink therefore can neither hide a protected target
// nor smuggle an outside target into a granted place. Real is found as the
// kernel finds it, component by component ("link/.." is the parent of the
// link's target), with the magic links of /proc and /dev/fd read by what
// they mean for the process that opens the path (procStep); where that
// cannot be known statically (a working directory, an open file, another
// process's root) the path is flagged Unknown and fails closed. One
// resolution serves every tool: the bash analyser, which does not read the
// file system, reports each path in the spellings it needs (Spellings).
//
// Paths reported by the bash analyser keep shell globs literal ("cat .e*"
// reads "/repo/.e*"). Expand gives what such a glob names now and
// Classifier.ClassifyGlob what it could name; the built-ins judge both, so a
// glob hides nothing either.
//
// File-rule patterns (CompileRule, CompileRules, MatchAny) are doublestar
// globs anchored as docs/rules.md says; a RuleSet indexes them by literal
// directory, last segment and extension, so ten thousand rules cost about
// what ten do.
//
// The package is pure Go: it knows nothing of OPA. The Rego built-ins in the
// parent package wrap it.
package paths
