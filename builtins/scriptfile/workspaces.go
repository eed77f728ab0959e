package scriptfile

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
)

// npm workspaces (docs/shell.md, "Scripts"): npm run X -w NAME|PATH,
// --workspace=..., --workspaces (-ws), --include-workspace-root run X in
// the workspaces the root package.json's "workspaces" globs name, as npm 11
// does (TestNpmWorkspacesAgainstNpm): the root is the package npm uses
// (the nearest package.json up), which must declare workspaces and have no
// package.json above it (npm would take a root above as its prefix); each
// -w selects the workspaces whose name (else the folder's name) it is, or
// whose folder it names or holds (not the root's own), relative to the
// call's directory, in the order of the -w options, each workspace once;
// -w wins over
// --workspaces; a -w that selects none is skipped, and when none selects
// any npm runs nothing. Each workspace runs preX, X, postX in its folder
// with the arguments appended; one without X runs nothing. Globs are
// literal folders and one-level patterns (*, ?, [...]) with "!" exclusions;
// "**", a folder outside the working directories (links resolved), more
// workspaces than the file budget and anything else not modelled make the
// call Unknown.

// wsOptions are npm's workspace options on a command line.
type wsOptions struct {
	filters []string
	all     bool // --workspaces
	off     bool // --workspaces=false
	root    bool // --include-workspace-root
}

func (o wsOptions) used() bool { return len(o.filters) > 0 || o.all && !o.off }

// maxWorkspaces bounds the workspaces one call reads.
const maxWorkspaces = 32

// workspace is one package of a workspace root.
type workspace struct {
	dir, name string
	data      []byte
}

func (pc *pkgCall) readWorkspaces(c Call) []Script {
	name := "script " + pc.event
	unknown := func(why string) []Script { return []Script{{Name: name, Unknown: why}} }
	if pc.dir == "" {
		return unknown("npm runs in a directory not known statically: permopa cannot tell which workspaces it runs")
	}
	if pc.prefixed && len(pc.ws.filters) > 0 {
		return unknown("npm --prefix with -w is not modelled (which directory a workspace path is relative to)")
	}
	rootDir, ok := pc.findPackage(c.Files)
	if !ok {
		return unknown("permopa cannot tell which package.json npm reads (too many lookups)")
	}
	rootFile := filepath.Join(rootDir, "package.json")
	for x := filepath.Dir(rootDir); ; x = filepath.Dir(x) {
		e, ok := c.Files.Exists(filepath.Join(x, "package.json"))
		if !ok || e {
			return unknown("npm may take the package.json of " + x + " as the workspace root (npm 7+ looks above " + rootDir + ")")
		}
		if x == "/" {
			break
		}
	}
	data, err := c.Files.Read(rootFile)
	if err != nil {
		return unknown("the package.json npm reads: " + err.Error())
	}
	patterns, err := workspacePatterns(data)
	switch {
	case err != nil:
		return unknown(rootFile + ": " + err.Error())
	case patterns == nil:
		return unknown(rootFile + " declares no workspaces (npm then fails or takes a root permopa does not read)")
	}
	all, why := expandWorkspaces(c.Files, rootDir, patterns)
	if why != "" {
		return unknown(rootFile + " workspaces: " + why)
	}
	var selected []workspace
	seen := map[string]bool{}
	add := func(w workspace) {
		if !seen[w.dir] {
			seen[w.dir] = true
			selected = append(selected, w)
		}
	}
	if len(pc.ws.filters) > 0 {
		for _, f := range pc.ws.filters {
			p := absDir(c.Dir, f)
			if p == rootDir {
				p = "" // the root's own folder selects none (npm 11)
			}
			for _, w := range all {
				if f == w.name || p != "" && (w.dir == p || strings.HasPrefix(w.dir, p+"/")) {
					add(w)
				}
			}
		}
	} else {
		for _, w := range all {
			add(w)
		}
	}
	if len(selected) == 0 {
		if pc.unknown != "" {
			return unknown(pc.unknown)
		}
		return nil // npm: "No workspaces found", nothing runs
	}
	var out []Script
	if pc.ws.root {
		out = append(out, pc.readPackage(c, rootDir, data, true)...)
	}
	for _, w := range selected {
		out = append(out, pc.readPackage(c, w.dir, w.data, true)...)
	}
	return out
}

// workspacePatterns is the "workspaces" of a package.json: an array of
// globs, or an object whose "packages" is one; nil when there is none.
func workspacePatterns(data []byte) ([]string, error) {
	var top struct {
		Workspaces json.RawMessage `json:"workspaces"`
	}
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("cannot be parsed as JSON: %w", err)
	}
	raw := top.Workspaces
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] == '{' {
		var obj struct {
			Packages json.RawMessage `json:"packages"`
		}
		if err := json.Unmarshal(raw, &obj); err != nil {
			return nil, fmt.Errorf("workspaces is not modelled: %w", err)
		}
		raw = obj.Packages
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil || list == nil {
		return nil, fmt.Errorf("workspaces is not a list of globs")
	}
	return list, nil
}

// expandWorkspaces lists the workspace folders patterns name under root,
// in npm's order (the patterns in order, each glob's matches sorted), each
// once, without those a "!" pattern names; only folders holding a
// package.json. why says what it cannot model.
func expandWorkspaces(f *Files, root string, patterns []string) ([]workspace, string) {
	var dirs []string
	seen, excluded := map[string]bool{}, map[string]bool{}
	for _, neg := range []bool{false, true} {
		for _, p := range patterns {
			if strings.HasPrefix(p, "!") != neg {
				continue
			}
			ms, why := globDirs(f, root, strings.TrimPrefix(p, "!"))
			if why != "" {
				return nil, why
			}
			for _, m := range ms {
				switch {
				case neg:
					excluded[m] = true
				case !seen[m]:
					seen[m] = true
					dirs = append(dirs, m)
				}
			}
		}
	}
	var out []workspace
	for _, d := range dirs {
		if excluded[d] {
			continue
		}
		file := filepath.Join(d, "package.json")
		e, ok := f.Exists(file)
		if !ok {
			return nil, "permopa looked at more files than it reads"
		}
		if !e {
			continue // npm skips a folder without package.json
		}
		if len(out) >= maxWorkspaces {
			return nil, fmt.Sprintf("more than %d workspaces, more than permopa reads", maxWorkspaces)
		}
		data, err := f.Read(file)
		if err != nil {
			return nil, err.Error()
		}
		var pkg struct {
			Name json.RawMessage `json:"name"`
		}
		if err := json.Unmarshal(data, &pkg); err != nil {
			return nil, file + " cannot be parsed as JSON: " + err.Error()
		}
		name := filepath.Base(d)
		if len(pkg.Name) > 0 && string(pkg.Name) != "null" {
			if err := json.Unmarshal(pkg.Name, &name); err != nil {
				return nil, file + ": its name is not a string"
			}
		}
		out = append(out, workspace{dir: d, name: name, data: data})
	}
	return out, ""
}

// globDirs are the folders glob p names under root: literal segments and
// one-level patterns; "**", braces and a folder outside the working
// directories are not modelled.
func globDirs(f *Files, root, p string) ([]string, string) {
	if p == "" || filepath.IsAbs(p) || strings.Contains(p, "**") || strings.ContainsAny(p, "{}\\!+@") {
		return nil, "the glob " + p + " is not modelled"
	}
	cur := []string{root}
	for _, seg := range strings.Split(filepath.ToSlash(filepath.Clean(p)), "/") {
		var next []string
		for _, d := range cur {
			if !strings.ContainsAny(seg, "*?[") {
				next = append(next, filepath.Join(d, seg))
				continue
			}
			if _, err := filepath.Match(seg, ""); err != nil {
				return nil, "the glob " + p + " is not modelled"
			}
			names, err := f.List(d)
			if err != nil {
				if strings.Contains(err.Error(), ErrNotExist.Error()) {
					continue
				}
				return nil, err.Error()
			}
			for _, n := range names {
				// Dot folders and node_modules too: a folder npm would
				// skip only adds commands for deny rules to see.
				if ok, _ := filepath.Match(seg, n); ok {
					next = append(next, filepath.Join(d, n))
				}
			}
		}
		cur = next
	}
	for _, d := range cur {
		if !f.Within(d) {
			return nil, d + " is outside the working directories"
		}
	}
	return cur, ""
}
