package paths

import (
	"encoding/json"
	"errors"
	"os"
	"path"
	"regexp"
	"strings"
	"sync"
)

// Version managers' shims (docs/shell.md, "What a program reads besides
// its argv"): a shim PATH finds for a read-only leaf chooses the real
// program from files in the project (.python-version, .tool-versions,
// mise.toml, package.json's "volta"). A plain version name selects an
// installed program; a path, a git ref, a version the manager downloads
// or builds, an env template, hook or task runs what the project chose.
// Only pyenv is installed where this was written; the others follow their
// documentation.

// shimManagers are the managers whose shims are in a directory named
// shims: the variable that moves it, its default directory's name.
var shimManagers = []struct{ name, env, dir string }{
	{"pyenv", "PYENV_ROOT", ".pyenv"}, {"rbenv", "RBENV_ROOT", ".rbenv"}, {"nodenv", "NODENV_ROOT", ".nodenv"},
	{"goenv", "GOENV_ROOT", ".goenv"}, {"jenv", "JENV_ROOT", ".jenv"}, {"asdf", "ASDF_DATA_DIR", ".asdf"},
	{"mise", "MISE_DATA_DIR", "mise"},
}

// rustupProxies are the programs rustup installs as links to itself in
// cargo's bin directory (rustc and cargo included); the other programs
// there are ones cargo installed.
var rustupProxies = map[string]bool{"cargo": true, "rustc": true, "rustdoc": true, "rustfmt": true, "cargo-fmt": true,
	"cargo-clippy": true, "clippy-driver": true, "cargo-miri": true, "rls": true, "rust-analyzer": true,
	"rust-gdb": true, "rust-gdbgui": true, "rust-lldb": true}

// shimManager names the version manager whose shims directory the clean
// absolute PATH entry e is for program, from its name alone (no system
// call): "" is none, "unknown" a shims directory permopa does not model.
// Cargo's bin directory counts only for rustup's proxies.
func shimManager(e, program string) string {
	switch path.Base(e) {
	case "shims":
		for _, m := range shimManagers {
			if strings.HasSuffix(e, "/"+m.dir+"/shims") {
				return m.name
			}
		}
		if strings.Contains(e, "/.pyenv/plugins/") {
			return "pyenv"
		}
		for _, m := range shimManagers {
			if v := os.Getenv(m.env); v != "" && e == path.Join(path.Clean(v), "shims") {
				return m.name
			}
		}
		return "unknown"
	case "bin":
		if strings.HasSuffix(e, "/.volta/bin") {
			return "volta"
		}
		if rustupProxies[program] && strings.HasSuffix(e, "/.cargo/bin") {
			return "rustup"
		}
		if v := os.Getenv("VOLTA_HOME"); v != "" && e == path.Join(path.Clean(v), "bin") {
			return "volta"
		}
		if v := os.Getenv("CARGO_HOME"); rustupProxies[program] && v != "" && e == path.Join(path.Clean(v), "bin") {
			return "rustup"
		}
	}
	return ""
}

// managerRoot is a manager's own directory.
func (r *configReader) managerRoot(env, dir string) string {
	if v := os.Getenv(env); v != "" {
		return path.Clean(v)
	}
	return path.Join(r.home, dir)
}

// versionFiles are the version files of the managers that read one name
// (the nearest file from the directory up decides).
var versionFiles = map[string]string{"pyenv": ".python-version", "rbenv": ".ruby-version", "nodenv": ".node-version",
	"goenv": ".go-version", "jenv": ".java-version"}

// plainVersion is a version or virtual environment name that selects an
// installed program by name: no path, no git ref, no option.
var plainVersion = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+@-]*$`) })

// shim reads what manager's shim f (PATH entry e) chooses program from,
// for a leaf started in dir.
func (r *configReader) shim(manager, f, program, dir string) {
	if manager == "rustup" {
		target, err := os.Readlink(f)
		if err != nil || path.Base(target) != "rustup" {
			return // a program cargo installed, not a proxy
		}
		if program == "cargo" || program == "rustc" {
			return // their toolchain file is read anyway
		}
	}
	if manager == "unknown" {
		r.add(f, 0, "", "PATH finds "+program+" in a shims directory of a version manager permopa does not model: the project may choose the program")
		return
	}
	if dir == "" {
		r.add(f, 0, "", "PATH finds "+manager+"'s shim for "+program+", which chooses the program from files in a directory not known statically")
		return
	}
	switch manager {
	case "rustup":
		r.rustToolchain(dir)
	case "asdf":
		r.toolVersions(dir, "asdf", "")
		r.asdfLegacy(dir)
	case "mise":
		r.mise(dir)
	case "volta":
		r.volta(dir, program)
	default:
		r.versionFile(dir, manager, versionFiles[manager])
	}
}

// versionFile reads the nearest name file (pyenv's .python-version,
// rbenv's .ruby-version, …) from dir up to the home directory: every
// version it names must be a plain name. pyenv before 2.3.3 ran a path
// (CVE-2022-35861); pyenv 2.6 refuses one that leaves its versions
// directory; a path is a finding either way. A name that is not installed
// makes these managers fail, not install.
func (r *configReader) versionFile(dir, manager, name string) bool {
	for _, x := range ancestors(dir) {
		if x == r.home {
			return false // the user's own
		}
		p := path.Join(x, name)
		data, ok := r.read(p)
		if !ok {
			continue
		}
		for i, line := range strings.Split(string(data), "\n") {
			w := strings.Fields(strings.TrimSpace(line))
			if len(w) == 0 || strings.HasPrefix(w[0], "#") {
				continue
			}
			if !managerVersion(manager, w[0]) {
				r.add(p, i+1, w[0], "is not a plain version name: "+manager+" may run a program from a path the project chose")
			}
		}
		return true
	}
	return false
}

func managerVersion(manager, v string) bool {
	if plainVersion().MatchString(v) {
		return true
	}
	if manager != "pyenv" {
		return false
	}
	// pyenv-virtualenv's 3.12.1/envs/name: every part plain.
	for _, part := range strings.Split(v, "/") {
		if !plainVersion().MatchString(part) {
			return false
		}
	}
	return true
}

// toolVersions reads every .tool-versions from dir up to the home
// directory (asdf takes each tool from the nearest file naming it): a
// `path:` version runs that directory's programs, a `ref:` one builds from
// source; mise (installs "" for asdf) installs a version it does not
// have.
func (r *configReader) toolVersions(dir, manager, installs string) {
	name := ".tool-versions"
	if v := os.Getenv("ASDF_DEFAULT_TOOL_VERSIONS_FILENAME"); manager == "asdf" && v != "" {
		name = v
	}
	for _, x := range ancestors(dir) {
		if x == r.home {
			return
		}
		p := path.Join(x, name)
		data, ok := r.read(p)
		if !ok {
			continue
		}
		for i, line := range strings.Split(string(data), "\n") {
			line, _, _ = strings.Cut(line, "#")
			w := strings.Fields(line)
			if len(w) == 0 {
				continue
			}
			if len(w) < 2 || !plainVersion().MatchString(w[0]) {
				r.add(p, i+1, "", "is not a line "+manager+"'s .tool-versions holds as permopa models it")
				continue
			}
			for _, v := range w[1:] {
				r.toolVersion(p, i+1, manager, installs, w[0], v)
			}
		}
	}
}

func (r *configReader) toolVersion(p string, line int, manager, installs, tool, v string) {
	switch {
	case v == "system":
	case strings.HasPrefix(v, "path:"):
		r.add(p, line, v, manager+" runs the programs of the directory it names")
	case strings.HasPrefix(v, "ref:"):
		r.add(p, line, v, manager+" builds the tool from the source of the git ref it names")
	case !plainVersion().MatchString(v):
		r.add(p, line, v, "is not a plain version name "+manager+" selects an installed program by")
	case installs != "":
		if _, err := os.Stat(path.Join(installs, tool, v)); err != nil {
			r.add(p, line, tool+" "+v, manager+" downloads and installs a version it does not have before running it")
		}
	}
}

// asdfLegacy reads the other managers' version files asdf reads when
// ~/.asdfrc says legacy_version_file = yes (a plugin's parser reads them).
func (r *configReader) asdfLegacy(dir string) {
	rc := os.Getenv("ASDF_CONFIG_FILE")
	if rc == "" {
		rc = path.Join(r.home, ".asdfrc")
	}
	data, err := readRegular(rc, maxConfigBytes)
	if err != nil || !regexp.MustCompile(`(?m)^\s*legacy_version_file\s*=\s*yes`).Match(data) {
		return
	}
	for _, name := range []string{".python-version", ".ruby-version", ".node-version", ".nvmrc", ".go-version", ".java-version"} {
		r.versionFile(dir, "asdf", name)
	}
}

// miseConfigs are the configuration files mise reads in each directory
// from dir up (mise.local.toml and MISE_ENV's files included).
func miseConfigs() []string {
	names := []string{".config/mise/config.toml", ".config/mise/mise.toml", ".config/mise.toml", "mise/config.toml",
		".mise/config.toml", ".rtx.toml", "mise.toml", ".mise.toml", "mise.local.toml", ".mise.local.toml"}
	for _, env := range strings.Split(os.Getenv("MISE_ENV"), ",") {
		if env = strings.TrimSpace(env); env != "" {
			names = append(names, "mise."+env+".toml", ".mise."+env+".toml", ".config/mise/config."+env+".toml")
		}
	}
	return names
}

// miseTool is a tool name of mise's registry (a backend's "npm:x",
// "ubi:owner/repo" downloads from elsewhere: not plain).
var miseTool = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^"?[A-Za-z0-9][A-Za-z0-9_-]*"?$`) })

// mise reads mise's configuration from dir up to the home directory:
// only a [tools] table of installed plain versions is harmless; [env]
// (templates, `_.source`, `_.file`), [hooks], [tasks], [settings],
// templates anywhere, tool options and versions mise would install (its
// shims install what is missing) are findings, as are the conf.d
// directories, not read, and the idiomatic version files (.nvmrc, …).
func (r *configReader) mise(dir string) {
	installs := path.Join(r.home, ".local/share/mise/installs")
	if v := os.Getenv("XDG_DATA_HOME"); v != "" {
		installs = path.Join(v, "mise/installs")
	}
	if v := os.Getenv("MISE_DATA_DIR"); v != "" {
		installs = path.Join(v, "installs")
	}
	for _, x := range ancestors(dir) {
		if x == r.home {
			break
		}
		for _, name := range miseConfigs() {
			p := path.Join(x, name)
			if data, ok := r.read(p); ok {
				r.miseFile(p, data, installs)
			}
		}
		for _, d := range []string{".config/mise/conf.d", "mise/conf.d", ".mise/conf.d"} {
			if _, err := os.Lstat(path.Join(x, d)); err == nil {
				r.add(path.Join(x, d), 0, "", "mise reads every configuration file in this directory, which permopa does not read")
			}
		}
	}
	r.toolVersions(dir, "mise", installs)
	for _, f := range [][2]string{{".python-version", "python"}, {".node-version", "node"}, {".nvmrc", "node"},
		{".ruby-version", "ruby"}, {".go-version", "go"}, {".java-version", "java"}} {
		name, tool := f[0], f[1]
		for _, x := range ancestors(dir) {
			if x == r.home {
				break
			}
			p := path.Join(x, name)
			data, ok := r.read(p)
			if !ok {
				continue
			}
			for i, line := range strings.Split(string(data), "\n") {
				if w := strings.Fields(line); len(w) > 0 && !strings.HasPrefix(w[0], "#") {
					r.toolVersion(p, i+1, "mise", installs, tool, w[0])
				}
			}
			break
		}
	}
}

func (r *configReader) miseFile(p string, data []byte, installs string) {
	section := ""
	for i, line := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(line)
		if t == "" || t[0] == '#' {
			continue
		}
		if strings.Contains(t, "{{") || strings.Contains(t, "{%") {
			r.add(p, i+1, "", "is a template mise renders, which can run commands")
			continue
		}
		if strings.HasPrefix(t, "[") {
			section = strings.TrimSpace(strings.Trim(t, "[] \t"))
			if section != "tools" {
				r.add(p, i+1, section, "is a table of mise's configuration that can run code, set the environment or change settings")
			}
			continue
		}
		key, value, ok := strings.Cut(t, "=")
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		switch {
		case !ok:
			r.add(p, i+1, "", "is not a line mise's configuration holds as permopa models it")
		case section == "" && key == "min_version":
		case section != "tools":
			r.add(p, i+1, key, "is a key of mise's configuration that can run code, set the environment or change settings")
		case !miseTool().MatchString(key):
			r.add(p, i+1, key, "is a tool of a mise backend that downloads or builds it")
		default:
			r.miseVersions(p, i+1, installs, strings.Trim(key, `"`), value)
		}
	}
}

// miseVersions reads a [tools] value: a quoted version or an array of
// them; an inline table (options, postinstall) is a finding.
func (r *configReader) miseVersions(p string, line int, installs, tool, value string) {
	var vs []string
	if strings.HasPrefix(value, "[") {
		if err := json.Unmarshal([]byte(value), &vs); err != nil {
			r.add(p, line, tool, "is a version list permopa does not parse")
			return
		}
	} else {
		var v string
		if err := json.Unmarshal([]byte(value), &v); err != nil {
			r.add(p, line, tool, "is a version permopa does not parse (tool options can run code)")
			return
		}
		vs = []string{v}
	}
	for _, v := range vs {
		r.toolVersion(p, line, "mise", installs, tool, v)
	}
}

// volta reads the nearest package.json from dir up: its "volta" object
// pins node, npm, pnpm and yarn versions, which Volta downloads when it
// does not have them; "extends" reads another file. For a package's
// program (not a toolchain tool), Volta runs the project's own copy in
// node_modules/.bin when the project depends on it. The project's
// .volta/hooks.json (download locations, a "bin" command) is a finding.
func (r *configReader) volta(dir, program string) {
	for _, x := range ancestors(dir) {
		if x == r.home {
			return
		}
		p := path.Join(x, "package.json")
		data, ok := r.read(p)
		if !ok {
			continue
		}
		if _, err := os.Lstat(path.Join(x, ".volta/hooks.json")); !errors.Is(err, os.ErrNotExist) {
			r.add(path.Join(x, ".volta/hooks.json"), 0, "", "Volta's project hooks choose where it downloads tools from and can run a command")
		}
		switch program {
		case "node", "npm", "npx", "pnpm", "pnpx", "yarn", "yarnpkg":
		default:
			if _, err := os.Lstat(path.Join(x, "node_modules/.bin", program)); !errors.Is(err, os.ErrNotExist) {
				r.add(path.Join(x, "node_modules/.bin", program), 0, "", "Volta runs the project's own "+program+" when the project depends on its package")
			}
		}
		var pkg struct {
			Volta map[string]json.RawMessage `json:"volta"`
		}
		if err := json.Unmarshal(data, &pkg); err != nil {
			r.add(p, 0, "", "cannot be parsed: "+err.Error())
			return
		}
		home := r.managerRoot("VOLTA_HOME", ".volta")
		for k, raw := range pkg.Volta {
			line := lineOf(data, `"`+k+`"`)
			var v string
			switch {
			case k != "node" && k != "npm" && k != "pnpm" && k != "yarn":
				r.add(p, line, "volta."+k, "is a key of Volta's settings permopa does not model (extends reads another file)")
			case json.Unmarshal(raw, &v) != nil || !plainVersion().MatchString(v):
				r.add(p, line, "volta."+k, "is not a plain version Volta selects an installed tool by")
			default:
				if _, err := os.Stat(path.Join(home, "tools/image", k, v)); err != nil {
					r.add(p, line, "volta."+k, "Volta downloads and installs "+k+" "+v+" before running it")
				}
			}
		}
		return // the nearest package.json is the project
	}
}
