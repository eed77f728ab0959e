package paths

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// --- go toolchain switching ---

// goEnv is the environment the go command inherits: the deciding
// process's, which for a hook is the host's.
var goEnv = os.Getenv

// goToolchain reports what makes go run another toolchain than the local
// one (docs/shell.md, "What a program reads besides its argv"). Unless
// GOTOOLCHAIN is local, every go command, `go version` and `go help`
// included, first reads the go.work or go.mod that applies and, when its
// go or toolchain line names a newer Go, downloads that toolchain into the
// module cache and runs it (GOTOOLCHAIN=path: the goX.Y.Z PATH finds).
// GOTOOLCHAIN comes from the environment, then the go env -w file, then
// $GOROOT/go.env (the project cannot set it). Anything not read with
// certainty is a finding: a GOTOOLCHAIN naming a toolchain, an unknown
// local version (no go on permopa's PATH while a go.mod or go.work applies), a go.mod or go.work that is a link or not a regular
// file, a go or toolchain value that is not a plain release, a godebug
// line.
func (r *configReader) goToolchain(dir string) {
	goroot, found := goRoot()
	if !found {
		// No go on permopa's PATH. The shell that runs the command may
		// find one (its rc files may add Go's directory), whose version
		// permopa cannot know: a go.mod or go.work that applies is then a
		// finding; with none, go has nothing to switch to.
		for _, name := range []string{"go.work", "go.mod"} {
			for _, f := range r.goFindUp(dir, name) {
				r.add(f, 0, "", "permopa finds no go on its PATH, so it cannot tell whether this file's go line makes the shell's go switch toolchains")
			}
		}
		return
	}
	mode, from := r.goSetting("GOTOOLCHAIN", goroot)
	if mode == "" {
		mode, from = "auto", "go's default"
	}
	local := ""
	if goroot != "" {
		if b, err := readRegular(path.Join(goroot, "VERSION"), 4096); err == nil {
			local, _, _ = strings.Cut(string(b), "\n")
			local = strings.TrimPrefix(strings.TrimSpace(local), "go")
		}
	}
	name, suffix, _ := strings.Cut(mode, "+")
	if mode == "auto" || mode == "path" {
		name, suffix = "local", mode // go's shorthands
	}
	switch {
	case name == "local" || (name == "go"+local && local != ""):
	case strings.HasPrefix(name, "go") && goVersionLE(strings.TrimPrefix(name, "go"), local) && suffix != "":
	default:
		r.add(from, 0, "GOTOOLCHAIN", "GOTOOLCHAIN="+mode+" makes go run a toolchain other than the local one")
		return
	}
	switch suffix {
	case "":
		return // the local toolchain, whatever the project asks
	case "auto", "path":
	default:
		r.add(from, 0, "GOTOOLCHAIN", "GOTOOLCHAIN="+mode+" is not a value permopa models")
		return
	}
	if local == "" {
		r.add(goroot, 0, "GOTOOLCHAIN", "the local go version is not known, so a go.mod's go line may make go switch toolchains")
		return
	}
	var files []string
	switch work, wfrom := r.goSetting("GOWORK", goroot); {
	case work == "off":
	case work == "":
		files = append(files, r.goFindUp(dir, "go.work")...)
	case strings.HasPrefix(work, "/"):
		files = append(files, path.Clean(work))
	default:
		r.add(wfrom, 0, "GOWORK", "GOWORK="+work+" is not an absolute path permopa reads")
	}
	files = append(files, r.goFindUp(dir, "go.mod")...)
	for _, p := range files {
		r.goModToolchain(p, local)
	}
}

// goFindUp returns the nearest file name from dir up, as go looks for it
// from its working directory, for dir and each spelling of it (go walks
// up the directory as the shell names it, links unresolved).
func (r *configReader) goFindUp(dir, name string) []string {
	var out []string
	for _, d := range append([]string{dir}, r.spellings...) {
		if !strings.HasPrefix(d, "/") {
			continue
		}
		for _, x := range ancestors(d) {
			p := path.Join(x, name)
			if fi, err := os.Lstat(p); err == nil && !fi.IsDir() {
				if !slices.Contains(out, p) {
					out = append(out, p)
				}
				break
			}
		}
	}
	return out
}

// goModToolchain reports the lines of a go.mod or go.work that make go
// switch to a newer toolchain than local, and what it cannot read.
func (r *configReader) goModToolchain(p, local string) {
	if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		r.add(p, 0, "", "is a link, whose target decides which toolchain go runs")
		return
	}
	data, ok := r.read(p) // a FIFO, an unreadable or too large file: a finding
	if !ok {
		return
	}
	for i, line := range strings.Split(string(data), "\n") {
		if c := strings.Index(line, "//"); c >= 0 {
			line = line[:c]
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if k := strings.Trim(f[0], "\"`"); k != f[0] && (k == "go" || k == "toolchain" || k == "godebug") {
			r.add(p, i+1, k, "is a quoted key permopa does not read")
		}
		switch f[0] {
		case "go", "toolchain":
			v := ""
			if len(f) == 2 {
				v = f[1]
				if f[0] == "toolchain" {
					v = strings.TrimPrefix(v, "go")
					if v == f[1] {
						v = "" // not goVERSION ("default", a custom name)
					}
				}
			}
			switch {
			case !goRelease().MatchString(v):
				r.add(p, i+1, f[0], "is not a Go version permopa reads, and go may switch toolchains on it")
			case !goVersionLE(v, local):
				r.add(p, i+1, f[0], "asks for Go "+v+", newer than the local go"+local+": go downloads that toolchain and runs it")
			}
		case "godebug":
			r.add(p, i+1, f[0], "is a key permopa does not model")
		}
	}
}

// goRelease is a Go version as go.mod's go and toolchain lines write it:
// 1.21, 1.21.3, 1.21rc1, 1.21.0-... not allowed.
var goRelease = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^1\.[0-9]{1,4}(\.[0-9]{1,4}|(rc|beta)[0-9]{1,4})?$`) })

// goVersionLE says whether Go version a is not newer than b, as go orders
// them: 1.21 < 1.21rc1 < 1.21.0 < 1.21.1. Either not a plain version:
// false.
func goVersionLE(a, b string) bool {
	if !goRelease().MatchString(a) || !goRelease().MatchString(b) {
		return false
	}
	pa, pb := goVersionKey(a), goVersionKey(b)
	for i := range pa {
		if pa[i] != pb[i] {
			return pa[i] < pb[i]
		}
	}
	return true
}

// goVersionKey is minor, kind (0 language, 1 beta, 2 rc, 3 release),
// prerelease number and patch.
func goVersionKey(v string) [4]int {
	rest := strings.TrimPrefix(v, "1.")
	var k [4]int
	num := func(s string) int { n, _ := strconv.Atoi(s); return n }
	switch {
	case strings.Contains(rest, "rc"):
		m, n, _ := strings.Cut(rest, "rc")
		k = [4]int{num(m), 2, num(n), 0}
	case strings.Contains(rest, "beta"):
		m, n, _ := strings.Cut(rest, "beta")
		k = [4]int{num(m), 1, num(n), 0}
	case strings.Contains(rest, "."):
		m, n, _ := strings.Cut(rest, ".")
		k = [4]int{num(m), 3, 0, num(n)}
	default:
		k = [4]int{num(rest), 0, 0, 0}
	}
	return k
}

// goSetting is a go setting as go finds it: the environment, then the
// go env -w file ($GOENV, else $XDG_CONFIG_HOME/go/env or
// ~/.config/go/env), then $GOROOT/go.env; from names where. A file that
// cannot be read is a finding.
func (r *configReader) goSetting(key, goroot string) (value, from string) {
	if v := goEnv(key); v != "" {
		return v, "the environment"
	}
	files := []string{}
	switch envFile := goEnv("GOENV"); {
	case envFile == "off":
	case envFile != "":
		files = append(files, envFile)
	case goEnv("XDG_CONFIG_HOME") != "":
		files = append(files, path.Join(goEnv("XDG_CONFIG_HOME"), "go/env"))
	case r.home != "":
		files = append(files, path.Join(r.home, ".config/go/env"))
	}
	if goroot != "" {
		files = append(files, path.Join(goroot, "go.env"))
	}
	for _, f := range files {
		data, ok := r.read(f)
		if !ok {
			continue
		}
		found := false
		for _, line := range strings.Split(string(data), "\n") {
			k, v, ok := strings.Cut(line, "=")
			if !ok || strings.TrimSpace(k) != key {
				continue
			}
			v = strings.TrimSpace(v)
			if found && v != value {
				return "conflicting values", f // never local
			}
			value, found = v, true
		}
		if found {
			return value, f
		}
	}
	return "", ""
}

// goRoot is the GOROOT of the go PATH finds: $GOROOT, else the directory
// above the resolved program's bin ("" when it cannot be resolved); found
// is false when GOROOT is unset and PATH has no go.
func goRoot() (root string, found bool) {
	if g := goEnv("GOROOT"); g != "" {
		return path.Clean(g), true
	}
	for _, d := range strings.Split(pathEnv(), ":") {
		if !strings.HasPrefix(d, "/") {
			continue
		}
		p := path.Join(d, "go")
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() || fi.Mode()&0o111 == 0 {
			continue
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			return "", true
		}
		return path.Dir(path.Dir(real)), true
	}
	return "", false
}
