package scriptfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/permopa/permopa/builtins/flagspec"
	"github.com/permopa/permopa/builtins/paths"
)

// Package scripts (docs/shell.md, "Scripts"): npm run X, npm test, start,
// stop, restart (and npm's aliases and abbreviations), yarn [run] X,
// pnpm [run] X, bun run X. The script body comes from the package.json
// the manager uses: npm's from the nearest directory up from the start
// directory that holds package.json or node_modules (--prefix, -C), the
// others' from the nearest package.json (yarn --cwd, pnpm -C/--dir, bun
// --cwd). Each script runs with sh -c in that directory, after its "pre"
// script and before its "post" script (npm runs both; Yarn 2+, pnpm 7+
// without enable-pre-post-scripts and some bun versions do not: they are
// included, as deny rules seeing more commands is the safe side). The
// arguments (npm: the words after the name, -- included; the others: the
// words after the name, a first -- dropped) are appended to the script's
// command line, quoted, as the manager appends them; pre and post scripts
// get none. The manager's configuration that changes the shell or what
// runs (an .npmrc script-shell, node-options, ...; paths.ConfigFindings)
// makes the scripts Unknown; Yarn runs scripts with its own shell in
// Yarn 2+, so yarn's scripts are never read-only.

// Package reads the scripts of a package manager call: Argv[0] is npm,
// yarn, pnpm or bun (a path to one included).
func Package(c Call) ([]Script, bool) {
	if len(c.Argv) == 0 {
		return nil, false
	}
	switch filepath.Base(c.Argv[0]) {
	case "npm":
		return npmCall(c)
	case "yarn":
		return managerCall(c, "yarn")
	case "pnpm":
		return managerCall(c, "pnpm")
	case "bun":
		return managerCall(c, "bun")
	}
	return nil, false
}

// pkgCall is a parsed package manager call that runs a script.
type pkgCall struct {
	manager string
	// event is the script name ("test"), events what runs in order.
	event  string
	events []string
	// args are appended to the main script; dynamic[i] says args[i] is
	// only known at run time.
	args    []string
	dynamic []bool
	// dir is where the manager starts looking for package.json; npmStyle:
	// a directory holding node_modules also stops the walk (npm's prefix).
	dir      string
	npmStyle bool
	// ifPresent: a missing script runs nothing (npm --if-present).
	ifPresent bool
	// lifecycle: the call runs lifecycle events (npm install, ...):
	// events are the root package's scripts that run when present, deps
	// why dependencies' install scripts run ("" when they do not).
	lifecycle bool
	deps      string
	// ignoreScripts: --ignore-scripts (true), --no-ignore-scripts or
	// --ignore-scripts=false (false), or not given (nil).
	ignoreScripts *bool
	// installOpts are options seen that only an install-like command may
	// take harmlessly (checked once the command is known).
	installOpts []string
	// operands: the lifecycle command names packages or folders.
	operands bool
	// ws: the workspace options (npm -w, --workspaces,
	// --include-workspace-root; workspaces.go).
	ws wsOptions
	// prefixed: npm --prefix or -C named the directory.
	prefixed bool
	// unknown: the call does something the reader does not model.
	unknown string
}

// npm options that change nothing about which script runs or how: output
// and logging. Value options take the next word unless written --o=v.
var (
	npmFlags = map[string]bool{
		"-s": true, "--silent": true, "-q": true, "--quiet": true, "-d": true, "--dd": true, "--ddd": true,
		"--verbose": true, "--no-color": true, "--unicode": true, "--no-unicode": true, "--if-present": true,
		"--foreground-scripts": true, "--no-foreground-scripts": true, "--progress": true, "--no-progress": true,
		"--no-update-notifier": true, "--no-fund": true, "--no-audit": true, "-l": true, "--long": true,
		"--json": true, "--parseable": true, "-p": true,
	}
	npmValues = map[string]bool{"--loglevel": true, "--color": true, "--prefix": true, "-C": true}
	// Options that change the shell or load code: not modelled.
	npmUnmodelled = "--script-shell --shell --node-options " +
		"--userconfig --globalconfig --call -c --package"
	npmUnmodelledValues = map[string]bool{"--script-shell": true, "--shell": true,
		"--node-options": true, "--userconfig": true, "--globalconfig": true, "--call": true, "-c": true, "--package": true}
	// Options of npm's install-like commands that change which packages
	// are installed or how, never which scripts run (those of the
	// packages installed run or not as --ignore-scripts says).
	npmInstallFlags = setOf(`-D --save-dev -S --save -P --save-prod -O --save-optional -B --save-bundle --save-peer
		-E --save-exact --no-save --no-package-lock --package-lock-only --package-lock -g --global --production
		--legacy-peer-deps --strict-peer-deps --prefer-offline --offline --prefer-online --install-links
		--no-install-links --no-bin-links --dry-run --force -f --no-git-tag-version --allow-same-version
		--no-commit-hooks --sign-git-tag --frozen-lockfile --immutable --prod --dev --no-optional --link
		--ignore-engines --pure-lockfile --no-lockfile --exact -T --tilde --caret --fix --no-frozen-lockfile`)
	npmInstallValues = map[string]bool{"--omit": true, "--include": true, "--install-strategy": true, "--tag": true,
		"--before": true, "--access": true, "--otp": true, "--preid": true, "-m": true, "--message": true}
	// Options of yarn, pnpm and bun that take a value (not modelled: they
	// select other packages).
	managerValues = map[string]bool{"--filter": true, "-F": true, "--filter-prod": true, "--workspace-concurrency": true,
		"--reporter": true, "--loglevel": true}
)

func npmCall(c Call) ([]Script, bool) {
	pc := pkgCall{manager: "npm", dir: c.Dir, npmStyle: true}
	var pos []int // indexes of positional words
	dashdash := -1
	for i := 1; i < len(c.Argv); i++ {
		a := c.Argv[i]
		if c.Dynamic[i] {
			if len(pos) == 0 {
				// The command itself is not known: not a script call we
				// can name, nor one we can rule out.
				return []Script{{Name: "npm " + printable(a), Unknown: "npm runs a command only known at run time"}}, true
			}
			if dashdash < 0 && (strings.HasPrefix(a, "-") || strings.HasPrefix(a, flagspec.Dynamic)) {
				pc.unknown = firstOf(pc.unknown, "npm reads "+printable(a)+", a word only known at run time, as an option or the script's arguments")
			}
			pos = append(pos, i)
			continue
		}
		if a == "--" {
			dashdash = i
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			pos = append(pos, i)
			continue
		}
		name, val, hasVal := strings.Cut(a, "=")
		switch {
		case npmFlags[name] && !hasVal:
			if name == "--if-present" {
				pc.ifPresent = true
			}
		case npmValues[name]:
			if !hasVal {
				if i+1 >= len(c.Argv) {
					return nil, false
				}
				i++
				val = c.Argv[i]
				if c.Dynamic[i] {
					pc.unknown = firstOf(pc.unknown, "npm "+name+" is only known at run time")
				}
			}
			if name == "--prefix" || name == "-C" {
				pc.dir, pc.prefixed = absDir(c.Dir, val), true
				if pc.dir == "" {
					pc.unknown = firstOf(pc.unknown, "npm "+name+" names a directory not known statically")
				}
			}
		case name == "--ignore-scripts" || name == "--no-ignore-scripts":
			on := name == "--ignore-scripts" && (!hasVal || val == "true")
			if hasVal && val != "true" && val != "false" {
				pc.unknown = firstOf(pc.unknown, "npm "+a+" is not modelled")
			}
			pc.ignoreScripts = &on
			pc.installOpts = append(pc.installOpts, name)
		case npmInstallFlags[name] && !hasVal, npmInstallValues[name]:
			if npmInstallValues[name] && !hasVal {
				i++ // its value
			}
			pc.installOpts = append(pc.installOpts, name)
		case name == "-w" || name == "--workspace":
			if !hasVal {
				if i+1 >= len(c.Argv) {
					return nil, false
				}
				i++
				val = c.Argv[i]
			}
			if c.Dynamic[i] || strings.Contains(val, flagspec.Dynamic) {
				pc.unknown = firstOf(pc.unknown, "npm "+name+" names a workspace only known at run time")
			}
			pc.ws.filters = append(pc.ws.filters, val)
		case name == "--workspaces" || name == "-ws":
			switch {
			case !hasVal || val == "true":
				pc.ws.all = true
			case val == "false":
				pc.ws.off = true
			default:
				pc.unknown = firstOf(pc.unknown, "npm "+a+" is not modelled")
			}
		case name == "--include-workspace-root" && !hasVal:
			pc.ws.root = true
		case strings.Contains(" "+npmUnmodelled+" ", " "+name+" "):
			pc.unknown = firstOf(pc.unknown, "npm "+name+" runs scripts permopa does not read (other packages, another shell or code)")
			if npmUnmodelledValues[name] && !hasVal {
				i++ // its value
			}
		default:
			pc.unknown = firstOf(pc.unknown, "npm option "+name+" is not modelled: it may change what runs")
		}
	}
	if dashdash >= 0 {
		// Words after -- are positional too (npm run -- x runs x).
		for i := dashdash + 1; i < len(c.Argv); i++ {
			pos = append(pos, i)
		}
	}
	if len(pos) == 0 || pos[0] > dashdash && dashdash >= 0 {
		return nil, false
	}
	cmd := flagspec.NpmCommand(c.Argv[pos[0]])
	rest := pos[1:]
	if events, deps, unknown, ok := npmLifecycle(cmd, len(rest) > 0); ok {
		pc.event, pc.events, pc.deps, pc.lifecycle, pc.operands = cmd, events, deps, true, len(rest) > 0
		pc.unknown = firstOf(pc.unknown, unknown)
		if pc.ws.used() {
			pc.unknown = firstOf(pc.unknown, "npm "+cmd+" in workspaces runs scripts permopa does not read (other packages')")
		}
		for _, i := range rest {
			if c.Dynamic[i] && strings.HasPrefix(c.Argv[i], flagspec.Dynamic) {
				pc.unknown = firstOf(pc.unknown, "npm reads "+printable(c.Argv[i])+", a word only known at run time, as an option or an operand")
			}
		}
		return pc.readLifecycle(c), true
	}
	if len(pc.installOpts) > 0 {
		pc.unknown = firstOf(pc.unknown, "npm option "+pc.installOpts[0]+" is not modelled: it may change what runs")
	}
	switch cmd {
	case "run":
		if len(rest) == 0 {
			return nil, false // npm run lists the scripts
		}
		if c.Dynamic[rest[0]] {
			return []Script{{Name: "script " + printable(c.Argv[rest[0]]), Unknown: "npm runs a script whose name is only known at run time"}}, true
		}
		pc.event = c.Argv[rest[0]]
		rest = rest[1:]
	case "test", "start", "stop", "restart":
		pc.event = cmd
	default:
		return nil, false
	}
	for _, i := range rest {
		pc.args = append(pc.args, c.Argv[i])
		pc.dynamic = append(pc.dynamic, c.Dynamic[i])
	}
	if pc.ws.used() {
		return pc.readWorkspaces(c), true
	}
	return pc.read(c), true
}

// Builtin commands of the other managers: a word that is one of them runs
// it, not a script (yarn X runs script X only when X is no command).
var (
	yarnCommands = setOf(`access add audit autoclean bin cache check config constraints create dedupe dlx exec explain
		generate-lock-entry global help import info init install licenses link list login logout node npm outdated owner
		pack patch patch-commit plugin policies publish rebuild remove search set stage tag team unlink unplug up upgrade
		upgrade-interactive version versions why workspace workspaces`)
	pnpmCommands = setOf(`add approve-builds audit bin cat-file cat-index config create dedupe deploy dlx doctor env exec
		fetch find-hash help i ignored-builds import init install install-test it licenses link list ln ls outdated pack
		patch patch-commit patch-remove prune publish rebuild remove rm root self-update server setup store uninstall un
		unlink update up upgrade why`)
)

func setOf(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// managerCall reads yarn, pnpm and bun calls.
func managerCall(c Call, manager string) ([]Script, bool) {
	pc := pkgCall{manager: manager, dir: c.Dir}
	i := 1
	// Options before the command.
	for ; i < len(c.Argv); i++ {
		a := c.Argv[i]
		if c.Dynamic[i] {
			return []Script{{Name: manager + " " + printable(a), Unknown: manager + " runs a command only known at run time"}}, true
		}
		if !strings.HasPrefix(a, "-") {
			break
		}
		name, val, hasVal := strings.Cut(a, "=")
		switch {
		case name == "-s" || name == "--silent":
		case name == "--ignore-scripts" && !hasVal:
			on := true
			pc.ignoreScripts = &on
			pc.installOpts = append(pc.installOpts, name)
		case npmInstallFlags[name] && !hasVal:
			pc.installOpts = append(pc.installOpts, name)
		case (manager == "yarn" || manager == "bun") && name == "--cwd", manager == "pnpm" && (name == "-C" || name == "--dir"):
			if !hasVal {
				if i+1 >= len(c.Argv) {
					return nil, false
				}
				i++
				val = c.Argv[i]
				if c.Dynamic[i] {
					val = flagspec.Dynamic
				}
			}
			pc.dir = absDir(c.Dir, val)
			if pc.dir == "" {
				pc.unknown = firstOf(pc.unknown, manager+" "+name+" names a directory not known statically")
			}
		default:
			// --filter, -r, --recursive, --workspace-root, ... run other
			// packages' scripts; any other option may change what runs.
			pc.unknown = firstOf(pc.unknown, manager+" option "+name+" is not modelled: it may run other scripts")
			if managerValues[name] && !hasVal {
				i++
			}
		}
	}
	cmd := ""
	if i < len(c.Argv) {
		cmd = c.Argv[i]
		i++
	} else if manager != "yarn" {
		return nil, false // pnpm and bun alone print their help; yarn installs
	}
	if events, deps, unknown, ok := managerLifecycle(manager, cmd, hasOperands(c, i)); ok {
		pc.event, pc.events, pc.deps, pc.lifecycle = firstOf(canonicalCommand(manager, cmd), "install"), events, deps, true
		pc.unknown = firstOf(pc.unknown, unknown)
		for ; i < len(c.Argv); i++ {
			a := c.Argv[i]
			name, _, hasVal := strings.Cut(a, "=")
			switch {
			case c.Dynamic[i]:
				pc.unknown = firstOf(pc.unknown, manager+" reads "+printable(a)+", a word only known at run time, as an option or an operand")
			case name == "--ignore-scripts" && !hasVal:
				on := true
				pc.ignoreScripts = &on
			case !strings.HasPrefix(a, "-") || a == "--":
			case npmInstallFlags[name] && !hasVal, npmInstallValues[name] && hasVal:
			default:
				pc.unknown = firstOf(pc.unknown, manager+" option "+name+" is not modelled: it may change what runs")
			}
		}
		return pc.readLifecycle(c), true
	}
	if len(pc.installOpts) > 0 {
		pc.unknown = firstOf(pc.unknown, manager+" option "+pc.installOpts[0]+" is not modelled: it may run other scripts")
	}
	switch {
	case cmd == "run" || cmd == "run-script" && manager == "pnpm":
		// Options of run itself come before the name.
		for ; i < len(c.Argv) && strings.HasPrefix(c.Argv[i], "-") && !c.Dynamic[i]; i++ {
			switch c.Argv[i] {
			case "--if-present":
				pc.ifPresent = true
			case "-s", "--silent":
			default:
				pc.unknown = firstOf(pc.unknown, manager+" run option "+c.Argv[i]+" is not modelled: it may run other scripts")
			}
		}
		if i >= len(c.Argv) {
			return nil, false // lists the scripts
		}
		if c.Dynamic[i] {
			return []Script{{Name: "script " + printable(c.Argv[i]), Unknown: manager + " runs a script whose name is only known at run time"}}, true
		}
		pc.event = c.Argv[i]
		i++
	case manager == "bun":
		return nil, false // bun X runs files and its own commands (bun test is its test runner)
	case manager == "pnpm" && (cmd == "t" || cmd == "tst" || cmd == "test"):
		pc.event = "test"
	case manager == "yarn" && (cmd == "workspace" || cmd == "workspaces"):
		// yarn workspace NAME X, yarn workspaces run X (Yarn 1) or
		// foreach (Yarn 2+) run other packages' scripts: no yarn here to
		// check its behaviour against, so not modelled.
		return []Script{{Name: "yarn " + cmd, Unknown: "yarn " + cmd + " runs other packages' scripts, which permopa does not read"}}, true
	case manager == "yarn" && yarnCommands[cmd], manager == "pnpm" && pnpmCommands[cmd]:
		return nil, false
	default:
		pc.event = cmd
	}
	if i < len(c.Argv) && c.Argv[i] == "--" && !c.Dynamic[i] {
		i++
	}
	for ; i < len(c.Argv); i++ {
		pc.args = append(pc.args, c.Argv[i])
		pc.dynamic = append(pc.dynamic, c.Dynamic[i])
	}
	return pc.read(c), true
}

// read finds the package.json and returns the scripts in run order.
func (pc *pkgCall) read(c Call) []Script {
	name := "script " + pc.event
	if pc.dir == "" {
		return []Script{{Name: name, Unknown: pc.manager + " runs in a directory not known statically: permopa cannot tell which package.json it reads"}}
	}
	pkgDir, ok := pc.findPackage(c.Files)
	if !ok {
		return []Script{{Name: name, Unknown: "permopa cannot tell which package.json " + pc.manager + " reads (too many lookups)"}}
	}
	file := filepath.Join(pkgDir, "package.json")
	if found, _ := c.Files.Exists(file); !found && pc.manager != "bun" && pc.unknown == "" {
		// No package.json from the directory up: npm, yarn and pnpm stop
		// with an error before running anything (bun run X would run a
		// file or program X). The absence is stamped.
		return nil
	}
	data, err := c.Files.Read(file)
	if err != nil {
		return []Script{{Name: name, File: file, Unknown: "the package.json " + pc.manager + " reads: " + err.Error()}}
	}
	return pc.readPackage(c, pkgDir, data, false)
}

// readPackage returns the scripts of the package in pkgDir whose
// package.json holds data, in run order. In a workspace a missing script
// runs nothing (npm 11 reports it and goes on to the next workspace).
func (pc *pkgCall) readPackage(c Call, pkgDir string, data []byte, workspace bool) []Script {
	name := "script " + pc.event
	file := filepath.Join(pkgDir, "package.json")
	scripts, lines, err := packageScripts(data)
	if err != nil {
		return []Script{{Name: name, File: file, Unknown: file + " cannot be parsed as JSON: " + err.Error()}}
	}
	bins := binDirs(pkgDir)
	unknown, notRO := pc.unknown, ""
	// The files ConfigFindings reads are stamped, so that a cached
	// analysis sees a change to them.
	for _, x := range ancestorsOf(pkgDir) {
		for _, name := range configFiles[pc.manager] {
			if _, ok := c.Files.Exists(filepath.Join(x, name)); !ok {
				unknown = firstOf(unknown, "permopa looked at more configuration files than it reads")
			}
		}
	}
	for _, f := range paths.ConfigFindings(configProgram(pc.manager), pkgDir, "") {
		where := f.File
		if f.Line > 0 {
			where = fmt.Sprintf("%s:%d", f.File, f.Line)
		}
		unknown = firstOf(unknown, where+" "+strings.TrimSpace(f.Key+" "+f.Reason))
	}
	switch pc.manager {
	case "yarn":
		notRO = "Yarn 2+ runs scripts in its own shell, not sh"
	case "pnpm":
		if npmrcSets(c.Files, pkgDir, "shell-emulator") {
			notRO = "pnpm's shell-emulator runs scripts in its own shell, not sh"
		}
	case "bun":
		if data, err := c.Files.Read(filepath.Join(pkgDir, "bunfig.toml")); err == nil {
			if bytes.Contains(data, []byte("shell")) || bytes.Contains(data, []byte("preload")) {
				unknown = firstOf(unknown, filepath.Join(pkgDir, "bunfig.toml")+" sets how bun runs scripts")
			}
		} else if !errors.Is(err, ErrNotExist) {
			unknown = firstOf(unknown, err.Error())
		}
	}
	var events []string
	switch {
	case pc.lifecycle:
		events = pc.events
	case pc.event == "restart":
		if _, ok := scripts["restart"]; ok || pc.manager != "npm" {
			events = []string{"prerestart", "restart", "postrestart"}
		} else {
			// npm restart without a restart script runs stop, then start.
			events = []string{"prerestart", "prestop", "stop", "poststop", "prestart", "start", "poststart", "postrestart"}
		}
	default:
		events = []string{"pre" + pc.event, pc.event, "post" + pc.event}
	}
	var out []Script
	for _, ev := range events {
		body, ok := scripts[ev]
		main := !pc.lifecycle && (ev == pc.event || pc.event == "restart" && (ev == "stop" || ev == "start"))
		if !ok {
			switch {
			case !main:
				continue
			case ev == "start" && pc.manager == "npm":
				// npm start without a start script runs node server.js.
				body = "node server.js"
			case pc.event == "restart" && ev != "restart":
				continue
			case pc.ifPresent, workspace:
				continue
			default:
				out = append(out, Script{Name: "script " + ev, File: file, Unknown: firstOf(pc.unknown, "there is no such script in "+file+
					" ("+pc.manager+" then fails or runs a program of that name)")})
				continue
			}
		}
		if ev == pc.event && !pc.lifecycle {
			body += appendArgs(pc.args, pc.dynamic)
		}
		s := Script{Name: "script " + ev, File: file, Line: lines[ev], Dir: pkgDir, BinDirs: bins,
			Lines: []Line{{File: file, Line: lines[ev], Text: body}}, Unknown: unknown, NotReadOnly: notRO}
		out = append(out, s)
	}
	return out
}

// configFiles are the files paths.ConfigFindings reads in each directory
// from the package up, per manager, and bun's own.
var configFiles = map[string][]string{
	"npm":  {".npmrc"},
	"yarn": {".yarnrc.yml", ".yarnrc.yaml", ".yarnrc", "package.json"},
	"pnpm": {".npmrc", ".pnpmfile.cjs", ".pnpmfile.mjs", "pnpmfile.js", "pnpm-workspace.yaml", "package.json"},
	"bun":  {".npmrc", "bunfig.toml"},
}

func ancestorsOf(dir string) []string {
	var out []string
	for x := dir; ; x = filepath.Dir(x) {
		out = append(out, x)
		if x == "/" || x == "." {
			return out
		}
	}
}

func configProgram(manager string) string {
	if manager == "bun" {
		return "npm" // bun reads .npmrc for registries only; no findings of its own
	}
	return manager
}

// findPackage is the directory of the package.json the manager reads:
// the nearest one up from pc.dir (npm: also a directory holding
// node_modules); pc.dir itself when there is none (the read then fails).
func (pc *pkgCall) findPackage(f *Files) (string, bool) {
	for x := pc.dir; ; x = filepath.Dir(x) {
		e, ok := f.Exists(filepath.Join(x, "package.json"))
		if !ok {
			return "", false
		}
		if e {
			return x, true
		}
		if pc.npmStyle {
			e, ok := f.Exists(filepath.Join(x, "node_modules"))
			if !ok {
				return "", false
			}
			if e {
				return x, true
			}
		}
		if x == "/" {
			return pc.dir, true
		}
	}
}

// binDirs are node_modules/.bin of dir and every parent: npm, yarn, pnpm
// and bun put them first on the script's PATH.
func binDirs(dir string) []string {
	var out []string
	for x := dir; ; x = filepath.Dir(x) {
		out = append(out, filepath.Join(x, "node_modules/.bin"))
		if x == "/" {
			return out
		}
	}
}

// npmrcSets reports whether an .npmrc from dir up sets key (any spelling).
func npmrcSets(f *Files, dir, key string) bool {
	for x := dir; ; x = filepath.Dir(x) {
		if data, err := f.Read(filepath.Join(x, ".npmrc")); err == nil {
			norm := strings.ReplaceAll(strings.ToLower(string(data)), "_", "-")
			if strings.Contains(norm, key) {
				return true
			}
		}
		if x == "/" || !f.Within(filepath.Dir(x)) {
			return false
		}
	}
}

// packageScripts reads the "scripts" object of a package.json: each
// script's body and the line of its key. A duplicate key counts as its
// last value, as JSON.parse reads it.
func packageScripts(data []byte) (map[string]string, map[string]int, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // npm strips a byte order mark
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v)
		return nil, nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	scripts, lines := map[string]string{}, map[string]int{}
	tok, err := dec.Token()
	if err != nil {
		return nil, nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, nil, fmt.Errorf("the top level is not an object")
	}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		key, _ := kt.(string)
		if key != "scripts" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, nil, err
			}
			continue
		}
		clear(scripts)
		clear(lines)
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		if d, ok := tok.(json.Delim); !ok || d != '{' {
			// npm ignores a "scripts" that is not an object: no scripts.
			if ok && (d == '[') {
				var skip json.RawMessage
				for dec.More() {
					if err := dec.Decode(&skip); err != nil {
						return nil, nil, err
					}
				}
				if _, err := dec.Token(); err != nil {
					return nil, nil, err
				}
			}
			continue
		}
		for dec.More() {
			nt, err := dec.Token()
			if err != nil {
				return nil, nil, err
			}
			name, _ := nt.(string)
			line := lineAt(data, dec.InputOffset())
			var v any
			if err := dec.Decode(&v); err != nil {
				return nil, nil, err
			}
			if s, ok := v.(string); ok {
				scripts[name] = s
				lines[name] = line
			} else {
				delete(scripts, name)
			}
		}
		if _, err := dec.Token(); err != nil {
			return nil, nil, err
		}
	}
	return scripts, lines, nil
}

// lineAt is the 1-based line of the byte offset off in data.
func lineAt(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	return bytes.Count(data[:off], []byte("\n")) + 1
}

// appendArgs is the text a manager appends to a script for its
// arguments: each quoted for sh, a word only known at run time as a
// variable no one sets (it stays unknown to the analysis).
func appendArgs(args []string, dynamic []bool) string {
	var b strings.Builder
	for i, a := range args {
		b.WriteByte(' ')
		if dynamic[i] {
			b.WriteString(`${PERMOPA_RUN_TIME_WORD}`)
			continue
		}
		b.WriteString(shellQuote(a))
	}
	return b.String()
}

func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:=@,+%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// absDir resolves a directory option against dir; "" when not static.
func absDir(dir, val string) string {
	if strings.Contains(val, flagspec.Dynamic) || val == "" {
		return ""
	}
	if !filepath.IsAbs(val) {
		if dir == "" {
			return ""
		}
		val = filepath.Join(dir, val)
	}
	return filepath.Clean(val)
}

func printable(s string) string { return strings.ReplaceAll(s, flagspec.Dynamic, "$…") }

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// hasOperands reports whether the words from i on hold a positional one
// (a package name, a folder) before any --.
func hasOperands(c Call, i int) bool {
	for ; i < len(c.Argv); i++ {
		a := c.Argv[i]
		if a == "--" {
			return false
		}
		if c.Dynamic[i] || !strings.HasPrefix(a, "-") {
			return true
		}
	}
	return false
}

// readLifecycle returns what a lifecycle call runs: the root package's
// lifecycle scripts that exist, in order, then the call itself (Self),
// uncertain when it runs its dependencies' install scripts. With scripts
// off (--ignore-scripts; npm: ignore-scripts=true in the package's
// .npmrc) only the call itself, judged by its words (npm install-test
// still runs its test script).
func (pc *pkgCall) readLifecycle(c Call) []Script {
	self := Script{Name: pc.manager + " " + pc.event, Self: true}
	off := pc.ignoreScripts != nil && *pc.ignoreScripts
	if pc.ignoreScripts == nil && pc.manager == "npm" && pc.dir != "" {
		if pkgDir, ok := pc.findPackage(c.Files); ok && !underPackage(c.Files, pkgDir) && npmrcIgnoresScripts(c.Files, pkgDir) {
			off, self.OffBy = true, filepath.Join(pkgDir, ".npmrc")
		}
	}
	if pc.manager == "npm" && !pc.operands && pc.dir != "" && pc.unknown == "" {
		// No package.json from the directory up: npm stops with an error
		// before installing or running anything (measured with npm 11,
		// a package-lock.json beside it included). The absence is stamped.
		if pkgDir, ok := pc.findPackage(c.Files); ok {
			if found, ok := c.Files.Exists(filepath.Join(pkgDir, "package.json")); ok && !found {
				off = true
			}
		}
	}
	if off {
		pc.deps = ""
		pc.events = nil
		if pc.event == "install-test" || pc.event == "install-ci-test" {
			pc.events = []string{"test"}
		}
	}
	var out []Script
	if len(pc.events) > 0 {
		out = pc.read(c)
	}
	self.Unknown = firstOf(pc.deps, pc.unknown)
	return append(out, self)
}

// underPackage reports whether a directory above dir may hold a
// package.json (or cannot be checked): dir may then be a workspace of
// it, and npm (7+) takes that directory as its prefix, reading its .npmrc
// instead of dir's and installing from there.
func underPackage(f *Files, dir string) bool {
	for x := filepath.Dir(dir); ; x = filepath.Dir(x) {
		if e, ok := f.Exists(filepath.Join(x, "package.json")); e || !ok {
			return true
		}
		if x == "/" || x == "." {
			return false
		}
	}
}
