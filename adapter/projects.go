package adapter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/permopa/permopa/adapter/internal/projectlayers"
	"github.com/permopa/permopa/adapter/internal/projectlru"
	"github.com/permopa/permopa/engine"
	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/settings"
)

// MaxCwdProjects is how many project directories a ProjectCache keeps
// loaded; the least recently used one is dropped (and read again by its
// next call) beyond it.
const MaxCwdProjects = projectlru.Max

// ProjectCache applies to each call the rules of its cwd's project, as
// `permopa hook` does for a call made there and an OPA server does with
// settings.projects: <cwd>/.permopa/settings.local.* and settings.*, and
// those of every enclosing directory's .permopa (docs/rules.md,
// "Enclosing projects"), read with settings.NewProjectChainLayers (so what
// each loosens counts only once the user trusts it) into the engine's Settings.Projects[cwd]. It is
// what `permopa decide` and the Go API (Decide) use so that a call naming
// another project is decided with that project's rules (docs/api.md). The
// engine's own layers' project (Skip) is not loaded twice. Safe for
// concurrent use.
type ProjectCache struct {
	eng *engine.Engine
	// Skip is the project directory whose files the engine's own layers
	// already read (permopa decide's working directory).
	skip    string
	userDir string
	// projects holds the loaded projects, at most MaxCwdProjects (the
	// bound and eviction the OPA plugin's projects share).
	projects *projectlayers.Cache[cwdProject]
	// base watches the engine's own layers (WatchBase); nil: not watched.
	base *baseWatch
}

// cwdProject is what was read of one project: its files' stamps and, when
// they cannot be read whole, the DENY its calls get.
type cwdProject struct {
	// chain are the enclosing projects (settings.ProjectChain) the layers
	// were made with.
	chain []string
	// real is the cwd with symbolic links resolved when loaded: a cwd
	// that is a link retargeted to another project is read again, even
	// where that project's files have the same sizes and times (as the
	// OPA plugin's projects do).
	real    string
	stamp   []cwdStamp
	blocked *permission.Decision
}

type cwdStamp struct {
	exists bool
	size   int64
	mtime  time.Time
	mode   os.FileMode
}

// NewProjectCache returns a cache loading into eng the project rules of
// each call's cwd; skip is a project directory the engine's layers already
// read ("" for none), userDir the user settings directory whose trusted
// projects count ("": none is trusted).
func NewProjectCache(eng *engine.Engine, skip, userDir string) *ProjectCache {
	if skip != "" {
		skip = filepath.Clean(skip)
	}
	return &ProjectCache{eng: eng, skip: skip, userDir: userDir, projects: projectlayers.New[cwdProject](eng, userDir)}
}

// Decide decides input after loading its cwd's project rules; a project
// whose settings cannot be read whole is a DENY (code
// project_settings_unreadable), as on a server.
func (pc *ProjectCache) Decide(ctx context.Context, input any) permission.Decision {
	pc.refreshBase(ctx)
	if d := pc.Prepare(ctx, cwdOf(input)); d != nil {
		return *d
	}
	return pc.eng.Decide(ctx, input)
}

// DecideJSON is Decide for an input still to be parsed.
func (pc *ProjectCache) DecideJSON(ctx context.Context, doc []byte) permission.Decision {
	var v struct {
		Cwd any `json:"cwd"`
	}
	_ = json.Unmarshal(doc, &v)
	cwd, _ := v.Cwd.(string)
	pc.refreshBase(ctx)
	if d := pc.Prepare(ctx, cwd); d != nil {
		return *d
	}
	return pc.eng.DecideJSON(ctx, doc)
}

func cwdOf(input any) string {
	if in, ok := input.(map[string]any); ok {
		s, _ := in["cwd"].(string)
		return s
	}
	return ""
}

// Prepare makes sure the rules of cwd's project are in the engine's
// settings, current with its files and the user's trust. It returns a
// fail-closed decision when they cannot be read whole, nil otherwise (also
// for a cwd that is not a clean absolute path, or has no .permopa nor
// an enclosing one).
func (pc *ProjectCache) Prepare(ctx context.Context, cwd string) *permission.Decision {
	if pc == nil || cwd == "" || !filepath.IsAbs(cwd) || filepath.Clean(cwd) != cwd || cwd == pc.skip {
		return nil
	}
	// The cwd's own .permopa and every enclosing directory's: a call made
	// in a project's subdirectory keeps the project's deny and ask rules
	// (docs/rules.md, "Enclosing projects").
	chain := settings.ProjectChain(cwd, pc.userDir, "")
	if st, err := os.Stat(filepath.Join(cwd, ".permopa")); (err != nil || !st.IsDir()) && len(chain) == 0 {
		pc.projects.Drop(ctx, cwd)
		return nil
	}
	proj := pc.projects.Lock(ctx, cwd)
	if proj.Loaded() && !slices.Equal(proj.State.chain, chain) {
		// An enclosing .permopa appeared or went: its layers are found
		// when the project is created, so it is created again.
		proj.Unlock()
		pc.projects.Drop(ctx, cwd)
		proj = pc.projects.Lock(ctx, cwd)
	}
	defer proj.Unlock()
	pr := &proj.State
	pr.chain = chain
	real, _ := filepath.EvalSymlinks(cwd)
	stamp := pc.stamps(cwd, chain)
	if proj.Loaded() && pr.real == real && sameCwdStamps(pr.stamp, stamp) {
		return pr.blocked
	}
	pr.real = real
	problems := proj.Load(ctx)
	pr.stamp = stamp
	pr.blocked = nil
	var msgs []string
	for _, p := range problems {
		var sp *settings.Problem
		switch {
		case settings.UnreadableFile(p):
			msgs = append(msgs, p.Error())
		case errors.As(p, &sp) && sp.Behavior != "" && sp.Behavior != permission.Allow:
			msgs = append(msgs, p.Error())
		}
	}
	if len(msgs) > 0 {
		d := permission.FailClosed(permission.CodeProjectSettingsUnreadable, fmt.Sprintf(
			"settings of project %s: a deny or ask rule may be missing, so no call from it is let through until this is fixed: %s",
			cwd, strings.Join(msgs, "; ")))
		pr.blocked, pr.stamp = &d, nil
	}
	return pr.blocked
}

// stamps are the size, mtime and mode of the .permopa directory and files of
// the project and of each enclosing one, and of the user's trust file: a
// change reads the project again.
func (pc *ProjectCache) stamps(cwd string, chain []string) []cwdStamp {
	var files []string
	for _, dir := range append([]string{cwd}, chain...) {
		files = append(files, filepath.Join(dir, ".permopa"))
		files = append(files, settings.ProjectFiles(dir)...)
	}
	if tf := settings.TrustFile(pc.userDir); tf != "" {
		files = append(files, tf)
	}
	out := make([]cwdStamp, len(files))
	for i, f := range files {
		if info, err := os.Stat(f); err == nil {
			out[i] = cwdStamp{exists: true, size: info.Size(), mtime: info.ModTime(), mode: info.Mode()}
		}
	}
	return out
}

func sameCwdStamps(a, b []cwdStamp) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].exists != b[i].exists || a[i].size != b[i].size || a[i].mode != b[i].mode || !a[i].mtime.Equal(b[i].mtime) {
			return false
		}
	}
	return true
}

// Len is the number of projects loaded.
func (pc *ProjectCache) Len() int {
	return pc.projects.Len()
}
