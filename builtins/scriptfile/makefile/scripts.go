package makefile

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/permopa/permopa/builtins/flagspec"
	"github.com/permopa/permopa/builtins/scriptfile"
)

// Reader is the scriptfile.Reader of make and gmake: the recipe lines
// `make [OPTION…] [TARGET…] [VAR=value…]` runs, one Script per target, in
// make's order, each Line run by /bin/sh -c in make's directory. What the
// makefile reader cannot model is a Script with Unknown (the lines found
// before it are still walked, for deny rules). --help and --version run
// no makefile: not handled.
func Reader(c scriptfile.Call) ([]scriptfile.Script, bool) {
	prog := path.Base(c.Argv[0])
	unknown := func(format string, a ...any) ([]scriptfile.Script, bool) {
		return []scriptfile.Script{{Name: prog, Dir: c.Dir, Unknown: fmt.Sprintf(format, a...)}}, true
	}
	if strings.Contains(c.Argv[0], "/") && !systemMakes[c.Argv[0]] {
		return unknown("%s is not the system's make: permopa cannot tell what it runs", c.Argv[0])
	}
	for i, d := range c.Dynamic {
		if d || strings.Contains(c.Argv[i], flagspec.Dynamic) {
			return unknown("%s's argument %d is only known at run time", prog, i)
		}
	}
	if c.Dir == "" {
		return unknown("%s runs in a directory not known statically", prog)
	}
	inv, info := ParseArgs(c.Argv, c.Dir)
	if info {
		return nil, false
	}
	env, inherited, level, why := environment(c)
	if why != "" {
		return unknown("%s", why)
	}
	inv.Env, inv.Level = env, level
	for k, v := range inherited {
		if _, own := inv.Vars[k]; !own {
			if inv.Vars == nil {
				inv.Vars = map[string]string{}
			}
			inv.Vars[k] = v
		}
	}
	res, err := Read(inv, filesFS{c.Files}, Limits{MaxFileSize: scriptfile.MaxFileBytes})
	if err != nil {
		return unknown("%s: %v", prog, err)
	}
	var scripts []scriptfile.Script
	for _, l := range res.Commands {
		file := l.File
		if !filepath.IsAbs(file) {
			file = filepath.Join(inv.Dir, file)
		}
		if n := len(scripts); n == 0 || scripts[n-1].Name != "target "+l.Target || scripts[n-1].File != file {
			scripts = append(scripts, scriptfile.Script{Name: "target " + l.Target, File: file, Line: l.Line, Dir: inv.Dir})
		}
		s := &scripts[len(scripts)-1]
		s.Lines = append(s.Lines, scriptfile.Line{File: file, Line: l.Line, Text: l.Text})
	}
	if res.Uncertain != "" {
		scripts = append(scripts, scriptfile.Script{Name: prog, Dir: inv.Dir, Unknown: res.Uncertain})
	}
	if scripts == nil {
		scripts = []scriptfile.Script{}
	}
	return scripts, true
}

// systemMakes are the path-qualified names of GNU make the reader stands
// for; any other path may be any program.
var systemMakes = map[string]bool{
	"/usr/bin/make": true, "/bin/make": true, "/usr/local/bin/make": true,
	"/usr/bin/gmake": true, "/usr/local/bin/gmake": true, "/opt/homebrew/bin/gmake": true,
}

// envKeeps are wrappers that run their command with the environment they
// were given (the shell's, plus the assignments before them).
var envKeeps = map[string]bool{
	"nice": true, "nohup": true, "time": true, "timeout": true, "stdbuf": true, "command": true,
	"builtin": true, "exec": true, "sh": true, "bash": true, "dash": true, "ash": true,
	"make": true, "gmake": true, "npm": true, "yarn": true, "pnpm": true, "bun": true,
}

// environment is what the call's wrappers add to make's environment:
// NAME=value assignments before a command and env's, and the command
// line variables the makes running this one pass down (MAKEFLAGS), with
// their number (MAKELEVEL). why
// says why the environment is not known: an earlier export in the command,
// env with options, a wrapper that may change it (sudo), a value only
// known at run time.
func environment(c scriptfile.Call) (env, inherited map[string]string, level int, why string) {
	if c.EnvChanged != "" {
		return nil, nil, 0, c.EnvChanged
	}
	env = map[string]string{}
	for _, layer := range c.Layers {
		i := 0
		for ; i < len(layer) && isAssignment(layer[i]); i++ {
			if strings.Contains(layer[i], flagspec.Dynamic) {
				return nil, nil, 0, "the value of " + strings.SplitN(layer[i], "=", 2)[0] + " in make's environment is only known at run time"
			}
			n, v, _ := strings.Cut(layer[i], "=")
			if why := envForMake(n); why != "" {
				return nil, nil, 0, why
			}
			env[n] = v
		}
		if i >= len(layer) {
			continue
		}
		prog := path.Base(layer[i])
		switch {
		case prog == "env":
			for _, a := range layer[i+1:] {
				if strings.HasPrefix(a, "-") {
					return nil, nil, 0, "env " + a + " changes the environment make runs with"
				}
				if !isAssignment(a) {
					break
				}
				if strings.Contains(a, flagspec.Dynamic) {
					return nil, nil, 0, "a value in make's environment is only known at run time"
				}
				n, v, _ := strings.Cut(a, "=")
				if why := envForMake(n); why != "" {
					return nil, nil, 0, why
				}
				env[n] = v
			}
		case envKeeps[prog], strings.Contains(layer[i], "/"):
			// keeps the environment; a script file's own exports are
			// leaves the analyser reports in EnvChanged
		default:
			return nil, nil, 0, prog + " runs make and may change its environment"
		}
	}
	for _, p := range c.Parents {
		if len(p) == 0 || (path.Base(p[0]) != "make" && path.Base(p[0]) != "gmake") {
			continue
		}
		// A make running this one: its command line's variables reach
		// this make through MAKEFLAGS, and MAKELEVEL counts it.
		level++
		parent, _ := ParseArgs(p, "/")
		for k, v := range parent.Vars {
			if inherited == nil {
				inherited = map[string]string{}
			}
			inherited[k] = v
		}
	}
	return env, inherited, level, ""
}

// envForMake says why an environment variable changes what make reads
// (MAKEFLAGS holds options, --eval included; MAKEFILES names makefiles to
// read first); "" for any other.
func envForMake(name string) string {
	switch name {
	case "MAKEFLAGS", "MFLAGS", "GNUMAKEFLAGS", "MAKEFILES", "MAKELEVEL", "MAKE_RESTARTS", "MAKEOVERRIDES":
		return name + " in make's environment changes what make reads, which permopa does not model"
	}
	return ""
}

func isAssignment(w string) bool {
	n, _, ok := strings.Cut(w, "=")
	if !ok || n == "" {
		return false
	}
	for i, c := range n {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// filesFS reads through the analysis's scriptfile.Files: inside the
// working directories, bounded, stamped (a directory listed is stamped
// too, so that a file appearing in it invalidates a cached analysis).
type filesFS struct{ f *scriptfile.Files }

func (x filesFS) ReadFile(p string) ([]byte, bool, error) {
	data, err := x.f.Read(p)
	if errors.Is(err, scriptfile.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return data, true, nil
}

func (x filesFS) Exists(p string) (bool, bool) { return x.f.Exists(p) }

func (x filesFS) List(dir string) ([]string, bool) {
	ex, ok := x.f.Exists(dir)
	if !ok {
		return nil, false
	}
	if !ex {
		return nil, true
	}
	return listDir(dir)
}
