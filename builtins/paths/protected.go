package paths

import (
	"os"
	"strings"
)

// Self-protection: the agent must not rewrite its own rules. A call that
// writes permopa's settings, or an agent host's permission and hook
// settings, could allow itself everything from the next call on, so these
// paths are protected for every write form, and the list cannot be edited
// by any settings file (a project file could otherwise unprotect itself).
// Names are matched like dangerous directories: any run of a path's
// segments, case-insensitively, the last included, so a name covers the
// file or directory and everything below it.
//
// Only configuration that grants permissions, runs hooks or starts MCP
// servers is here. Instruction files (AGENTS.md, CLAUDE.md, GEMINI.md,
// .cursorrules) change what an agent is told, not what it may do: they are
// among the code-running files (a safety ASK that a project may relax).
var protectedNames = []entrySpec{
	// permopa: project settings at any depth, the user's directory
	// (XDG default) and the managed one.
	{name: ".permopa"}, {name: ".config/permopa"}, {name: "etc/permopa"},
	// Claude Code: settings, hooks, commands, agents and skills (whose
	// allowed-tools grant permissions), the user file with MCP servers and
	// per-project allowed tools, project MCP servers, managed settings.
	{name: ".claude"}, {name: ".claude.json*"}, {name: ".mcp.json"}, {name: "etc/claude-code"},
	{name: "Library/Application Support/ClaudeCode"},
	// Codex, Gemini CLI, Cursor, Continue, opencode, goose, aider.
	{name: ".codex"}, {name: "etc/codex"}, {name: ".gemini"}, {name: "etc/gemini-cli"},
	{name: ".cursor"}, {name: ".continue"}, {name: ".opencode"}, {name: "opencode.json"}, {name: "opencode.jsonc"},
	{name: ".config/opencode"}, {name: ".config/goose"}, {name: ".aider.conf.yml"},
}

// protectedTops are the single names of protectedNames that a project or
// home directory holds directly: a write that removes or renames a
// directory holding one removes the settings too.
var protectedTops = []string{
	".permopa", ".claude", ".claude.json", ".mcp.json", ".codex", ".gemini", ".cursor", ".continue",
	".opencode", "opencode.json", "opencode.jsonc", ".aider.conf.yml",
}

// defaultCodeRunning are files that make tools run code later, without
// anyone running them by name: git hooks (by hooksPath), commit hooks
// managers, editor tasks and settings that run on opening a folder, dev
// containers that run on build, direnv and mise on entering a directory,
// yarn's yarnPath on every yarn command. Writing them is a safety ASK by
// default; a project may relax entries with dangerous_paths.code_running
// (settings files are protected, so relaxing needs a human).
//
// Also here: the configuration files of programs that name a program or
// script to run on their ordinary, often read-only, commands: package
// managers (yarn's yarnPath and yarn-path, npm's script-shell and
// node-options, pnpm's pnpmfile, bun's preload), cargo (runner,
// rustc-wrapper, aliases) and rustup (a toolchain path), pytest's
// conftest.py (loaded on collection), pylint's init-hook, pdb's .pdbrc,
// git's attributes (which files go through filter, diff and merge
// drivers), less's lesskey (LESSOPEN), man-db's configuration (DEFINE
// redefines the programs man runs). And, with a label of their own, the
// agents' instruction files: what is written there steers every later
// session of the agent (docs/protected-paths.md).
//
// Not here: Makefile, package.json scripts, setup.py, build.rs, CI
// workflows and the like are the project's own code, run when someone
// runs the build or pushes: editing them is what an agent is for, and the
// build is a command that asks on its own.
var defaultCodeRunning = []entrySpec{
	{name: ".git/hooks"}, {name: ".git/config"}, {name: ".githooks"}, {name: ".husky"},
	{name: ".pre-commit-config.yaml"}, {name: "lefthook.yml"}, {name: ".lefthook.yml"}, {name: "lefthook.yaml"},
	{name: ".lefthook.yaml"}, {name: ".vscode/tasks.json"}, {name: ".vscode/settings.json"},
	{name: ".vscode/launch.json"}, {name: ".vscode/mcp.json"}, {name: ".devcontainer"},
	{name: ".devcontainer.json"}, {name: ".envrc"}, {name: "mise.toml"}, {name: ".mise.toml"},
	{name: ".yarnrc.yml"}, {name: ".yarnrc"}, {name: ".npmrc"}, {name: ".pnpmfile.cjs"}, {name: ".pnpmfile.mjs"},
	{name: "pnpm-workspace.yaml"}, {name: "bunfig.toml"}, {name: ".bunfig.toml"},
	{name: ".cargo/config.toml"}, {name: ".cargo/config"}, {name: "rust-toolchain.toml"}, {name: "rust-toolchain"},
	{name: "conftest.py"}, {name: ".pylintrc"}, {name: "pylintrc"}, {name: ".pdbrc"},
	{name: ".gitattributes"}, {name: ".git/info/attributes"}, {name: ".config/git/attributes"},
	{name: ".lesskey"}, {name: ".config/lesskey"}, {name: ".less"},
	{name: ".manpath"}, {name: "man_db.conf"}, {name: "manpath.config"}, {name: "man.conf"},
	{name: "AGENTS.md", label: agentInstructions}, {name: "AGENTS.override.md", label: agentInstructions},
	{name: "CLAUDE.md", label: agentInstructions}, {name: "CLAUDE.local.md", label: agentInstructions},
	{name: "GEMINI.md", label: agentInstructions}, {name: ".cursorrules", label: agentInstructions},
	{name: ".windsurfrules", label: agentInstructions},
	{name: ".clinerules", label: agentInstructions}, {name: ".github/copilot-instructions.md", label: agentInstructions},
}

// agentInstructions labels the agents' instruction files.
const agentInstructions = "(instructions the agent follows in every later session)"

// Protected says whether the clean absolute path p is one of the protected
// settings, or lies inside one, and why. The list is fixed: no
// configuration removes a name.
func (c *Classifier) Protected(p string) (reason string, ok bool) {
	var lb, ob [32]string
	segs, orig := bothSegments(p, lb[:0], ob[:0])
	return c.protectedSegs(segs, orig)
}

// CodeRunning says whether the clean absolute path p is a file that makes
// tools run code later (or lies in such a directory), and why.
func (c *Classifier) CodeRunning(p string) (reason string, ok bool) {
	var lb, ob [32]string
	segs, orig := bothSegments(p, lb[:0], ob[:0])
	return c.codeSegs(segs, orig)
}

// bothSegments splits p lower-cased and as written.
func bothSegments(p string, lower, orig []string) ([]string, []string) {
	lp := strings.ToLower(p)
	lower = splitSegments(lp, lower)
	if lp == p {
		return lower, lower
	}
	orig = splitSegments(p, orig)
	if len(orig) != len(lower) {
		orig = lower
	}
	return lower, orig
}

func (c *Classifier) protectedSegs(segs, orig []string) (string, bool) {
	for end := range segs {
		if e := c.locked.matchEnd(segs, end); e != nil {
			return describe(orig, end, len(e.parts), "(permission settings of permopa or an agent host)"), true
		}
	}
	return "", false
}

func (c *Classifier) codeSegs(segs, orig []string) (string, bool) {
	for end := range segs {
		if c.codeRemove.matchEnd(segs, end) != nil {
			continue
		}
		e := c.codeAdd.matchEnd(segs, end)
		if e == nil {
			e = c.code.matchEnd(segs, end)
		}
		if e != nil {
			label := "(makes tools run code)"
			if e.label != "" {
				label = e.label
			}
			return describe(orig, end, len(e.parts), label), true
		}
	}
	return "", false
}

// HoldsProtected says whether the clean absolute path dir is an existing
// directory that directly holds protected settings (a project's .permopa,
// a home's .claude.json): removing or renaming dir removes them.
func HoldsProtected(dir string) (name string, ok bool) {
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		return "", false
	}
	for _, n := range protectedTops {
		if _, err := os.Lstat(dir + "/" + n); err == nil {
			return n, true
		}
	}
	return "", false
}
