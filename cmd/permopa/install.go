package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/spf13/cobra"

	"github.com/permopa/permopa/adapter/hookproto"
	"github.com/permopa/permopa/adapter/opaplugin"
	"github.com/permopa/permopa/internal/safefile"
)

// Matchers of the installed hooks: the tools permopa has a model of, and
// MCP tools (docs/hosts.md explains why the hosts' bookkeeping tools stay
// out).
const (
	claudeMatcher = "Bash|Read|Write|Edit|MultiEdit|NotebookEdit|Glob|Grep|WebFetch|mcp__.*"
	codexMatcher  = "Bash|apply_patch|mcp__.*"
	geminiMatcher = "run_shell_command|read_file|write_file|replace|glob|search_file_content|grep_search|list_directory|read_many_files|web_fetch|mcp_.*"
)

// Codex's config.toml has comments worth keeping, and no library here
// edits TOML in place: permopa's hooks go in one marked block, which
// install replaces and uninstall removes, leaving every other line as is.
// Codex itself writes the hooks' trust (tables under [hooks.state]) right
// after the last hooks table, so the block has no end marker: it is the
// marker line and the fixed lines that follow it (codexBlockRE).
const codexBlockBegin = "# permopa hooks (written by `permopa install codex`; `permopa uninstall codex` removes them)"

type installFlags struct {
	scope   string
	project string
	command string
	dryRun  bool
	codex   string
	mode    string
	server  string
	// proc is the environment install reads: HOME, the hosts' variables
	// (CLAUDE_CONFIG_DIR, CODEX_HOME, GEMINI_CLI_TRUSTED_FOLDERS_PATH,
	// PATH), the working directory and this binary's path.
	proc procEnv
}

// target is one host's settings file for a scope.
type target struct {
	host, scope, file, project, home, command string
	codexBin                                  string
	// hookURL, when set, is the permopa server route Claude Code's http
	// hook posts to (install --server): the hook is that, not a command.
	hookURL string
	// codexHome is Codex's directory ($CODEX_HOME, else ~/.codex) and
	// geminiTrust Gemini CLI's trusted folders file
	// ($GEMINI_CLI_TRUSTED_FOLDERS_PATH, else ~/.gemini/trustedFolders.json).
	codexHome, geminiTrust string
	// proc is the environment the target was read in: the hook commands
	// doctor runs and Codex's app server run in it.
	proc procEnv
	// self is this binary's resolved path when the command is the default
	// one (install checks that it will stay there).
	self string
}

// failClosedSuffix ends every hook command install writes: a command
// that cannot start (binary missing, moved, not executable: the shell's
// 127 or 126), crashes (a signal, 128+n) or exits 1 answers with exit
// status 2, which blocks the call on all three hosts, instead of a status
// the host reads as "hook failed, carry on" (docs/hosts.md, "Fail closed").
// The hook itself exits only 0 or 2, which pass through unchanged.
const failClosedSuffix = " || exit 2"

// failClosed is command with failClosedSuffix, once.
func failClosed(command string) string {
	if strings.HasSuffix(strings.TrimSpace(command), strings.TrimSpace(failClosedSuffix)) {
		return command
	}
	return strings.TrimSpace(command) + failClosedSuffix
}

// goCacheEntry is the name of an output directory in Go's build cache.
var goCacheEntry = regexp.MustCompile(`^[0-9a-f]{64}-d$`)

// transientBinary says why the binary at self will not stay where it is,
// or "": Go's build cache or `go run`'s directory (a go-build* directory,
// $GOCACHE) or the temporary directory ($TMPDIR, else /tmp), whose files
// are removed by `go clean`, the next `go run` or a reboot, after which
// every hook call would fail.
func transientBinary(self string, p procEnv) string {
	under := func(dir string) bool {
		if dir == "" {
			return false
		}
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			dir = r
		}
		rel, err := filepath.Rel(dir, self)
		return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
	}
	for _, part := range strings.Split(filepath.Dir(self), string(filepath.Separator)) {
		if strings.HasPrefix(part, "go-build") {
			return "it is in Go's build cache (a `go run` binary)"
		}
	}
	// Go 1.24+ keeps `go run`'s executable in the build cache as
	// CACHE/xx/<sha256>-d/NAME, where CACHE may be one that no variable
	// names (`go env -w GOCACHE=DIR` writes go's own configuration file).
	if entry := filepath.Base(filepath.Dir(self)); goCacheEntry.MatchString(entry) && entry[:2] == filepath.Base(filepath.Dir(filepath.Dir(self))) {
		return "it is in Go's build cache (a `go run` binary)"
	}
	cache := p.getenv("GOCACHE")
	if cache == "" {
		if x := p.getenv("XDG_CACHE_HOME"); x != "" {
			cache = filepath.Join(x, "go-build")
		} else if h, err := p.home(); err == nil {
			cache = filepath.Join(h, ".cache", "go-build")
		}
	}
	if under(cache) {
		return "it is in Go's build cache (" + cache + ")"
	}
	tmp := p.getenv("TMPDIR")
	if tmp == "" {
		tmp = "/tmp"
	}
	if under(tmp) {
		return "it is in the temporary directory " + tmp
	}
	return ""
}

// register adds the flags of verb (install, uninstall or doctor), each
// with what it means for that command.
func (f *installFlags) register(c *cobra.Command, verb string) {
	scope := map[string]string{
		"install":   "where the hooks go: user (every project), project (the project's shared settings) or local (Claude Code's settings.local.json)",
		"uninstall": "the settings file to remove permopa's hooks from: user, project or local (as for install)",
		"doctor":    "the settings file to check: user, project or local (as for install)",
	}[verb]
	c.Flags().StringVar(&f.scope, "scope", "user", scope)
	c.Flags().StringVar(&f.project, "project", "", "the project directory for --scope project|local (default: the current directory)")
	switch verb {
	case "install":
		c.Flags().StringVar(&f.command, "command", "", "the hook command to install, to which ' || exit 2' is added so that it blocks when it cannot run (default: permopa-hook <host> when permopa-hook and permopa-hook-local sit next to this binary, else this binary's `hook <host>`; an absolute path, or for --scope project a name on each teammate's PATH)")
		c.Flags().BoolVar(&f.dryRun, "dry-run", false, "show the change and write nothing")
		c.Flags().StringVar(&f.codex, "codex", "", "the codex binary that records the hooks' trust (default: codex on PATH)")
		c.Flags().StringVar(&f.server, "server", "", "install Claude Code's http hook form: Claude Code posts each call to this running 'permopa run --server' on loopback TCP (http://127.0.0.1:PORT), with no process per call; the hook blocks while the server is down (docs/hosts.md)")
		c.Flags().StringVar(&f.mode, "mode", "", "add --mode M to the hook command: the mode for payloads that name none (Gemini CLI's: default, auto_edit, plan, yolo, dontAsk for headless runs)")
	case "uninstall":
		c.Flags().BoolVar(&f.dryRun, "dry-run", false, "show the change and write nothing")
	case "doctor":
		c.Flags().StringVar(&f.codex, "codex", "", "the codex binary asked whether Codex trusts the hooks (default: codex on PATH)")
	}
}

func (f *installFlags) target(host string) (target, error) {
	p := f.proc
	t := target{host: host, scope: f.scope, command: f.command, codexBin: f.codex, proc: p}
	if hookproto.For(host) == nil {
		return t, errors.New(hookproto.UnknownHost(host))
	}
	t.host = canonicalInstallHost(host)
	home, err := p.home()
	if err != nil {
		return t, fmt.Errorf("cannot find the home directory: %v", err)
	}
	t.home = home
	t.project = f.project
	if t.project == "" {
		if t.project, err = p.wd(); err != nil {
			return t, err
		}
	}
	if t.project, err = filepath.Abs(p.path(t.project)); err != nil {
		return t, err
	}
	t.codexHome = filepath.Join(home, ".codex")
	if d := p.getenv("CODEX_HOME"); d != "" {
		t.codexHome = d
	}
	t.geminiTrust = filepath.Join(home, ".gemini", "trustedFolders.json")
	if f := p.getenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH"); f != "" {
		t.geminiTrust = f
	}
	if f.server != "" {
		if t.hookURL, err = hookURL(t.host, f.server, f.command, f.mode); err != nil {
			return t, err
		}
	}
	if t.command == "" && t.hookURL == "" {
		self, err := p.executable()
		if err != nil {
			return t, fmt.Errorf("cannot find this binary's path (give --command): %v", err)
		}
		if r, err := filepath.EvalSymlinks(self); err == nil {
			self = r
		}
		t.self = self
		hook, fast := fastHook(filepath.Dir(self))
		switch {
		case t.scope == "project" && fast:
			// The project's shared file: a name each teammate's PATH
			// resolves, not this machine's path (docs/hosts.md).
			t.command = "permopa-hook " + t.host
		case t.scope == "project":
			t.command = "permopa hook " + t.host
		case fast:
			t.command = hookproto.ShellQuote(hook) + " " + t.host
		default:
			t.command = hookproto.ShellQuote(self) + " hook " + t.host
		}
		if f.mode != "" {
			t.command += " --mode " + hookproto.ShellQuote(f.mode)
		}
	}
	if t.command != "" {
		t.command = failClosed(t.command)
	}
	switch t.host + "/" + t.scope {
	case "claude/user":
		dir := p.getenv("CLAUDE_CONFIG_DIR")
		if dir == "" {
			dir = filepath.Join(home, ".claude")
		}
		t.file = filepath.Join(dir, "settings.json")
	case "claude/project":
		t.file = filepath.Join(t.project, ".claude", "settings.json")
	case "claude/local":
		t.file = filepath.Join(t.project, ".claude", "settings.local.json")
	case "codex/user":
		t.file = filepath.Join(t.codexHome, "config.toml")
	case "codex/project":
		t.file = filepath.Join(t.project, ".codex", "config.toml")
	case "gemini/user":
		t.file = filepath.Join(home, ".gemini", "settings.json")
	case "gemini/project":
		t.file = filepath.Join(t.project, ".gemini", "settings.json")
	default:
		return t, fmt.Errorf("--scope %q is not one %s has (user, project%s)", t.scope, t.host, map[bool]string{true: ", local"}[t.host == "claude"])
	}
	return t, nil
}

// hookURL is the URL of Claude Code's http hook for a permopa server at
// server: its hook route (opaplugin.HookClaudePath), with mode as the
// route's mode. Only Claude Code has http hooks, and only a loopback
// address over plain HTTP is taken: the hook sends every call to it, and
// nothing else on the network should see or answer them (docs/opa.md §7).
func hookURL(host, server, command, mode string) (string, error) {
	if host != "claude" {
		return "", fmt.Errorf("--server: only Claude Code has http hooks; for %s, give the hook command the server (--command 'permopa-hook %s --server ADDR')", host, host)
	}
	if command != "" {
		return "", errors.New("--server and --command: give one (--server installs an http hook, which runs no command)")
	}
	u, err := url.Parse(server)
	if err != nil || u.Scheme != "http" || u.Host == "" || u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("--server %q: want http://127.0.0.1:PORT (a loopback address and port; a unix socket cannot be an http hook's URL: use --command 'permopa-hook claude --server unix://…' for one)", server)
	}
	name, port := u.Hostname(), u.Port()
	ip, ipErr := netip.ParseAddr(name)
	if port == "" || !(name == "localhost" || ipErr == nil && ip.IsLoopback()) {
		return "", fmt.Errorf("--server %q: want a loopback address with its port (http://127.0.0.1:PORT, http://[::1]:PORT or http://localhost:PORT): the hook sends every tool call there", server)
	}
	out := "http://" + u.Host + opaplugin.HookClaudePath
	if mode != "" {
		out += "?" + url.Values{"mode": {mode}}.Encode()
	}
	return out, nil
}

// isPermopaHookURL reports whether an http hook's URL is a permopa
// server's hook route, on any address.
func isPermopaHookURL(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && u.Path == opaplugin.HookClaudePath
}

// fastHook is permopa-hook in dir when permopa-hook-local is there too:
// the hook command that answers fastest, through a running server or,
// without one, deciding locally in the lean binary (docs/hosts.md, "Fast
// path"), with the same answers as `permopa hook`.
func fastHook(dir string) (string, bool) {
	for _, name := range []string{"permopa-hook-local", "permopa-hook"} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			return "", false
		}
	}
	return filepath.Join(dir, "permopa-hook"), true
}

func canonicalInstallHost(host string) string {
	switch strings.ToLower(host) {
	case "claude", "claude-code", "claudecode":
		return "claude"
	case "gemini", "gemini-cli":
		return "gemini"
	}
	return strings.ToLower(host)
}

func installCommand(p procEnv) *cobra.Command {
	f := installFlags{proc: p}
	c := &cobra.Command{
		Use:   "install claude|codex|gemini",
		Short: "Install permopa's hooks in an agent host's settings (shows the change first)",
		Long: `Writes permopa's hooks into a host's settings, as docs/hosts.md describes:
Claude Code's PreToolUse and PermissionRequest hooks (~/.claude/settings.json,
or the project's .claude/settings.json or settings.local.json), Codex's
PreToolUse and PermissionRequest hooks (~/.codex/config.toml or the project's
.codex/config.toml) with their trust recorded through Codex's own app server,
and Gemini CLI's BeforeTool hook (~/.gemini/settings.json or the project's
.gemini/settings.json). The change is printed as a diff before it is written;
--dry-run writes nothing. Running it again changes nothing. The user's other
settings keep their order (JSON) and comments (TOML). It warns where the host
will not run the hook (an untrusted Codex project or Gemini folder).

The hook command is permopa-hook <host> when permopa-hook and
permopa-hook-local sit next to this binary (as 'go install ./cmd/...' puts
them): it asks a running server, else decides locally in the lean binary,
with the answers of 'permopa hook' in a fraction of its start-up time.
Otherwise it is this binary's 'hook <host>'. --command installs another.
User and local scopes name the binary by its absolute path, and install
refuses a binary in Go's build cache or the temporary directory (what 'go
run' builds): build one that stays ('go install ./cmd/...'). Project scope
names it without a path (permopa-hook <host>), for each teammate's PATH.
Every command ends with ' || exit 2': a hook that cannot run blocks the
call on every host, and Claude Code's hooks also carry "onFailure":
"block". The settings file is written through a new temporary file renamed
over it; a link, directory or pipe in its place is refused.

With --server http://127.0.0.1:PORT (Claude Code only), the hooks are
Claude Code's http hooks instead: Claude Code posts each call to that
running 'permopa run --server' (its /v1/permission/hook/claude route) and
reads the answer, with no process per call. They carry "onFailure":
"block": while the server is down every call is blocked (docs/hosts.md).`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			t, err := f.target(args[0])
			if err != nil {
				return err
			}
			if t.self != "" && t.scope != "project" {
				if why := transientBinary(t.self, f.proc); why != "" {
					return fmt.Errorf("will not install a hook that runs %s: %s, and once it is gone every call would fail. Build a binary that stays: `go install ./cmd/permopa ./cmd/permopa-hook ./cmd/permopa-hook-local` (or `go build -o DIR ./cmd/...`), then run that binary's `permopa install %s` (or give --command)", t.self, why, t.host)
				}
			}
			return t.apply(c.OutOrStdout(), c.ErrOrStderr(), f.dryRun, false)
		},
	}
	f.register(c, "install")
	return c
}

func uninstallCommand(p procEnv) *cobra.Command {
	f := installFlags{proc: p}
	c := &cobra.Command{
		Use:   "uninstall claude|codex|gemini",
		Short: "Remove permopa's hooks from an agent host's settings (shows the change first)",
		Long: `Removes permopa's hooks (every hook that runs permopa's hook command, and
its http hooks) from the host's settings file of --scope, printing the change
as a diff first (--dry-run writes nothing). The other settings are left as
they were, formatting included; a file that held only permopa's hooks is
removed, as is the project's .claude/.codex/.gemini directory when install
left it empty.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			t, err := f.target(args[0])
			if err != nil {
				return err
			}
			return t.apply(c.OutOrStdout(), c.ErrOrStderr(), f.dryRun, true)
		},
	}
	f.register(c, "uninstall")
	return c
}

// apply installs (or removes) the hooks: the new file, its diff, the write,
// and for Codex the trust.
func (t target) apply(out, errOut io.Writer, dryRun, remove bool) error {
	old, err := t.readSettings()
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	var next []byte
	switch t.host {
	case "codex":
		next, err = t.codexConfig(old, remove)
	default:
		next, err = t.jsonSettings(old, remove)
	}
	var syntax errSettingsSyntax
	if errors.As(err, &syntax) {
		return fmt.Errorf("%s:%v", t.file, err) // file:line:column: …
	}
	if err != nil {
		return fmt.Errorf("%s: %v", t.file, err)
	}
	verb := "install"
	if remove {
		verb = "uninstall"
	}
	if string(next) == string(old) {
		fmt.Fprintf(out, "%s: already up to date, nothing to %s\n", t.file, verb)
	} else {
		fmt.Fprint(out, unifiedDiff(t.file, string(old), string(next)))
		if dryRun {
			fmt.Fprintln(out, "(--dry-run: nothing written)")
			return nil
		}
		if err := t.writeSettings(next); err != nil {
			return err
		}
		if next == nil {
			fmt.Fprintf(out, "removed %s (it held only permopa's hooks)\n", t.file)
		} else {
			fmt.Fprintf(out, "wrote %s\n", t.file)
		}
	}
	if remove || dryRun {
		return nil
	}
	for _, w := range t.warnings() {
		fmt.Fprintln(errOut, "permopa install: warning:", w)
	}
	if t.host == "codex" {
		n, err := t.codexTrust()
		if err != nil {
			return fmt.Errorf("the hooks are written but Codex does not run a hook it has not trusted, and recording the trust failed: %v. Open codex, run /hooks and trust the permopa hooks, or rerun with --codex PATH", err)
		}
		if n > 0 {
			fmt.Fprintf(out, "trusted %d permopa hook(s) in Codex\n", n)
		} else {
			fmt.Fprintln(out, "Codex already trusts the permopa hooks")
		}
	}
	return nil
}

// maxHostSettings bounds a host settings file install, uninstall and
// doctor read: the hosts' own files are a few kilobytes, and a larger one
// (a repository can ship the project's) is refused, naming the file.
const maxHostSettings = 1 << 20

// root is the directory below which no directory on the way to t.file may
// be a symbolic link: the project for project and local scopes (a
// repository's `.claude -> ~/.claude` must not turn a project install into
// a write of the user's settings), none for user scope (the user's own
// directories, links from a dotfiles checkout included).
func (t target) root() string {
	if t.scope == "user" {
		return ""
	}
	return t.project
}

// readSettings reads t.file through safefile.Read: never through a link,
// never a named pipe or a directory, at most maxHostSettings bytes.
func (t target) readSettings() ([]byte, error) {
	if err := safefile.Check(t.file, t.root()); err != nil {
		return nil, err
	}
	return safefile.Read(t.file, maxHostSettings)
}

// writeSettings writes t.file through safefile.Write (docs/hosts.md,
// "Installing"): a temporary file created exclusively next to it, renamed
// over it; the file's mode kept. nil data removes the file: a project file
// that held only permopa's hooks goes as it came.
func (t target) writeSettings(data []byte) error {
	if data == nil {
		if err := safefile.Check(t.file, t.root()); err != nil {
			return err
		}
		if err := os.Remove(t.file); err != nil {
			return err
		}
		if t.scope != "user" {
			os.Remove(filepath.Dir(t.file)) // the project's .claude/ install made, when empty
		}
		return nil
	}
	return safefile.Write(t.file, data, safefile.Options{Mode: 0o644, DirMode: 0o755, Root: t.root()})
}

// isPermopaHook reports whether a hook command is one of permopa's for
// host: `permopa hook <host>` or `permopa-hook <host>`, by any path.
func isPermopaHook(command, host string) bool {
	f := strings.Fields(command)
	for i, w := range f {
		base := filepath.Base(strings.Trim(w, `'"`))
		if base == "permopa" && i+2 < len(f) && f[i+1] == "hook" && canonicalInstallHost(f[i+2]) == host {
			return true
		}
		if base == "permopa-hook" && i+1 < len(f) && canonicalInstallHost(f[i+1]) == host {
			return true
		}
	}
	return false
}

// hookEvents are the events and the hook entry permopa installs for a JSON host.
func (t target) hookEntries() map[string]*jsonObject {
	switch t.host {
	case "claude":
		entry := func() *jsonObject {
			if t.hookURL != "" {
				// onFailure block: a server that is down, or an answer
				// Claude Code cannot read, blocks the call instead of
				// letting it through unchecked (docs/hosts.md).
				return ordered("matcher", claudeMatcher, "hooks", []any{ordered("type", "http", "url", t.hookURL, "timeout", 10, "onFailure", "block")})
			}
			// onFailure block on the command too: a hook that times out or
			// fails in a way the command's own exit 2 does not cover
			// blocks the call (docs/hosts.md, "Fail closed").
			return ordered("matcher", claudeMatcher, "hooks", []any{ordered("type", "command", "command", t.command, "timeout", 10, "onFailure", "block")})
		}
		return map[string]*jsonObject{"PreToolUse": entry(), "PermissionRequest": entry()}
	case "gemini":
		return map[string]*jsonObject{"BeforeTool": ordered("matcher", geminiMatcher, "hooks", []any{
			ordered("name", "permopa", "type", "command", "command", t.command, "timeout", 10000)})}
	}
	return nil
}

var hookEventOrder = []string{"PreToolUse", "PermissionRequest", "BeforeTool"}

// jsonSettings is the host's settings JSON with permopa's hooks installed
// (replacing any permopa hook already there, by command) or removed.
func (t target) jsonSettings(old []byte, remove bool) ([]byte, error) {
	root, err := parseJSONObject(old)
	if err != nil {
		return nil, errSettingsSyntax{err}
	}
	hooksV, ok := root.get("hooks")
	hooks, isObj := hooksV.(*jsonObject)
	if ok && !isObj {
		return nil, errors.New(`"hooks" is not an object`)
	}
	if !ok {
		if remove {
			return old, nil
		}
		hooks = newJSONObject()
		root.set("hooks", hooks)
	}
	entries := t.hookEntries()
	for _, event := range hookEventOrder {
		entry, want := entries[event]
		if !want {
			continue
		}
		var groups []any
		if v, ok := hooks.get(event); ok {
			if groups, ok = v.([]any); !ok {
				return nil, fmt.Errorf(`"hooks.%s" is not an array`, event)
			}
		}
		// Drop permopa's hooks from every group (a group left empty goes),
		// then add one group where the first one was.
		at := -1
		var kept []any
		for _, g := range groups {
			go_, ok := g.(*jsonObject)
			if !ok {
				kept = append(kept, g)
				continue
			}
			hv, _ := go_.get("hooks")
			hs, _ := hv.([]any)
			var rest []any
			mine := false
			for _, h := range hs {
				ho, _ := h.(*jsonObject)
				if ho != nil {
					cv, _ := ho.get("command")
					uv, _ := ho.get("url")
					if isPermopaHook(fmt.Sprint(cv), t.host) || t.host == "claude" && isPermopaHookURL(fmt.Sprint(uv)) {
						mine = true
						continue
					}
				}
				rest = append(rest, h)
			}
			if mine && at < 0 {
				at = len(kept)
			}
			if mine && len(rest) == 0 {
				continue
			}
			if mine {
				go_.set("hooks", rest)
			}
			kept = append(kept, g)
		}
		if remove && at < 0 {
			continue // none of permopa's hooks here: nothing to change
		}
		if !remove {
			if at < 0 {
				at = len(kept)
			}
			kept = append(kept[:at], append([]any{entry}, kept[at:]...)...)
		}
		if len(kept) == 0 {
			hooks.del(event)
		} else {
			hooks.set(event, kept)
		}
	}
	if len(hooks.keys) == 0 && hooks.dirty {
		root.del("hooks")
	}
	if len(old) > 0 && remove && len(root.keys) == 0 {
		return nil, nil // it held only permopa's hooks: the file goes
	}
	if !changed(root) {
		return old, nil // nothing changed: keep the file byte for byte
	}
	return encodeJSONIndent(root, indentOf(old)), nil
}

// codexBlock is permopa's block of config.toml.
func (t target) codexBlock() string {
	var b strings.Builder
	b.WriteString(codexBlockBegin + "\n")
	for i, event := range []string{"PreToolUse", "PermissionRequest"} {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "[[hooks.%s]]\nmatcher = %q\n[[hooks.%s.hooks]]\ntype = \"command\"\ncommand = %s\ntimeout = 10\n", event, codexMatcher, event, tomlString(t.command))
	}
	return b.String()
}

// tomlString is s as a TOML literal string when it can be one (no quote
// to escape), else a basic string.
func tomlString(s string) string {
	if !strings.ContainsAny(s, "'\n") {
		return "'" + s + "'"
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

var codexBlockRE = regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(codexBlockBegin) + `\n` +
	`\[\[hooks\.PreToolUse\]\]\nmatcher = .*\n\[\[hooks\.PreToolUse\.hooks\]\]\ntype = "command"\ncommand = .*\ntimeout = .*\n\n` +
	`\[\[hooks\.PermissionRequest\]\]\nmatcher = .*\n\[\[hooks\.PermissionRequest\.hooks\]\]\ntype = "command"\ncommand = .*\ntimeout = .*\n`)

// codexConfig is config.toml with permopa's block put in (replacing the
// block already there, in place) or removed; every other line is kept.
func (t target) codexConfig(old []byte, remove bool) ([]byte, error) {
	text := string(old)
	if err := checkTOMLDepth(old); err != nil {
		return nil, errSettingsSyntax{err}
	}
	var v map[string]any
	if err := toml.Unmarshal(old, &v); err != nil {
		return nil, errSettingsSyntax{fmt.Errorf("%v (not valid TOML, so permopa does not edit it)", tomlPositioned(err))}
	}
	block := t.codexBlock()
	var next string
	switch {
	case codexBlockRE.MatchString(text) && remove:
		next = codexBlockRE.ReplaceAllLiteralString(text, "")
		next = strings.TrimRight(next, "\n") + "\n"
		if strings.TrimSpace(next) == "" {
			return nil, nil // it held only permopa's hooks: the file goes
		}
	case codexBlockRE.MatchString(text):
		next = codexBlockRE.ReplaceAllLiteralString(text, block)
	case remove:
		return old, nil
	default:
		next = text
		if next != "" && !strings.HasSuffix(next, "\n") {
			next += "\n"
		}
		if next != "" {
			next += "\n"
		}
		next += block
	}
	var after map[string]any
	if err := toml.Unmarshal([]byte(next), &after); err != nil {
		return nil, fmt.Errorf("adding permopa's hooks would make it invalid TOML (%v): add them by hand as docs/hosts.md shows", err)
	}
	return []byte(next), nil
}

// warnings name what will keep the host from running the hook.
func (t target) warnings() []string {
	var w []string
	if t.scope == "project" && t.self != "" {
		bin := strings.Fields(t.command)[0]
		need := "permopa-hook and permopa-hook-local"
		if bin == "permopa" {
			need = "permopa"
		}
		w = append(w, fmt.Sprintf("%s is shared: its hook runs `%s` from the PATH of whoever runs %s in this project. Each teammate needs %s on that PATH (`go install github.com/permopa/permopa/cmd/permopa@latest github.com/permopa/permopa/cmd/permopa-hook@latest github.com/permopa/permopa/cmd/permopa-hook-local@latest`); where it is missing, every call is blocked", t.file, bin, t.host, need))
		if _, err := t.proc.lookPath(bin); err != nil {
			w = append(w, fmt.Sprintf("%s is not on your own PATH either: every call in this project will be blocked until it is", bin))
		}
	}
	if msg := t.hooksOffMessage(); msg != "" {
		w = append(w, msg)
	}
	for _, a := range t.otherApprovers() {
		w = append(w, a+": it can approve a call permopa asks about without you")
	}
	if t.command != "" {
		if why := t.pathHijack(t.command); why != "" {
			w = append(w, "the hook command may not run permopa: "+why)
		}
	}
	switch t.host {
	case "codex":
		if t.scope == "project" {
			w = append(w, fmt.Sprintf("Codex loads %s only when it trusts the project %s (projects.%q.trust_level = \"trusted\" in %s, or `codex --trust`); `permopa doctor codex --scope project` checks it", t.file, t.project, t.project, filepath.Join(t.codexHome, "config.toml")))
		}
	case "gemini":
		trusted, how := geminiFolderTrusted(t.home, t.geminiTrust, t.project)
		if !trusted {
			w = append(w, fmt.Sprintf("Gemini CLI runs no settings hooks (user or project) in a folder it does not trust, and %s is not trusted (%s): trust it in Gemini CLI (/permissions) or in %s", t.project, how, t.geminiTrust))
		}
		if t.scope == "project" {
			w = append(w, "`gemini --skip-trust` and GEMINI_CLI_TRUST_WORKSPACE=true trust the folder for one run; a project hook is only as good as the folder's trust, so prefer --scope user")
		}
	}
	return w
}

// tomlPositioned is a TOML error with its line and column first.
func tomlPositioned(err error) error {
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, col := de.Position()
		return fmt.Errorf("%d:%d: %v", row, col, err)
	}
	return err
}

// checkTOMLDepth refuses a TOML text whose arrays and inline tables nest
// deeper than maxJSONDepth (outside strings and comments): config.toml
// nests a few levels, and the parser's work and stack grow with the depth.
func checkTOMLDepth(data []byte) error {
	depth, line, lineStart := 0, 1, 0
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '\n':
			line, lineStart = line+1, i+1
		case '#':
			for i < len(data) && data[i] != '\n' {
				i++
			}
			i--
		case '"', '\'':
			delim := []byte{c}
			if i+2 < len(data) && data[i+1] == c && data[i+2] == c {
				delim = []byte{c, c, c}
			}
			i += len(delim)
			for i < len(data) && !bytes.HasPrefix(data[i:], delim) {
				if c == '"' && data[i] == '\\' {
					i++
				} else if data[i] == '\n' {
					line, lineStart = line+1, i+1
				}
				i++
			}
			i += len(delim) - 1
		case '[', '{':
			if depth++; depth > maxJSONDepth {
				return fmt.Errorf("%d:%d: nested deeper than %d levels: permopa does not edit it", line, i-lineStart+1, maxJSONDepth)
			}
		case ']', '}':
			depth--
		}
	}
	return nil
}
