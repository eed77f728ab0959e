package settings

// layers.go: the settings layers, read, merged and applied to engines (Layers).

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/viper"

	"github.com/permopa/permopa/permission"
)

// Destinations an accepted rule can be written to (docs/api.md, Go API), lowest
// precedence last: the session (in memory), the local project file
// (.permopa/settings.local.yaml, not shared), the shared project file
// (.permopa/settings.yaml) and the user's file (~/.config/permopa/settings.yaml).
const (
	DestinationSession = "session"
	DestinationLocal   = "local"
	DestinationProject = "project"
	DestinationUser    = "user"
)

// DefaultManagedDir is where the managed settings are unless
// LayerOptions.ManagedDir (or an admin-owned PERMOPA_MANAGED_DIR) says.
const DefaultManagedDir = "/etc/permopa"

// CheckManagedDir is the Problem.Kind of a refused PERMOPA_MANAGED_DIR.
const CheckManagedDir = "managed-dir"

// LayerOptions say where the settings layers are. Empty fields take the
// defaults below, and PERMOPA_MANAGED_DIR (only a directory root owns and
// no one else may write: adminOwned), PERMOPA_CONFIG_DIR and
// PERMOPA_PROJECT_DIR in the environment override the defaults.
type LayerOptions struct {
	// ManagedDir holds the managed settings (default /etc/permopa):
	// settings.yaml, .yml, .json or .toml. Only this layer can lock
	// (allow_managed_rules_only, disable_bypass_mode).
	ManagedDir string
	// CommandLine are settings files named on the command line, highest first.
	CommandLine []string
	// ProjectDir is the project root, holding .permopa/settings.local.yaml
	// and .permopa/settings.yaml (default: the process's working directory).
	// The .permopa of every directory above it is read too, after it
	// (ProjectChain; docs/rules.md, "Enclosing projects").
	ProjectDir string
	// UserDir holds the user's settings.yaml (default
	// $XDG_CONFIG_HOME/permopa, else ~/.config/permopa).
	UserDir string
	// Environ is read for PERMOPA_* overrides (default os.Environ()).
	Environ []string
	// Home and Cwd go into the merged settings (defaults: the process's).
	Home, Cwd string
}

// Environment variables read by the environment layer. Rule lists are
// Claude Code rules separated by commas outside parentheses, or a JSON
// array; directories are separated by the path list separator.
var envKeys = []struct{ key, name string }{
	{"permissions.defaultmode", "PERMOPA_DEFAULT_MODE"},
	{"permissions.allow", "PERMOPA_ALLOW"},
	{"permissions.ask", "PERMOPA_ASK"},
	{"permissions.deny", "PERMOPA_DENY"},
	{"permissions.additionaldirectories", "PERMOPA_ADDITIONAL_DIRECTORIES"},
	{"bypass_honours_safety", "PERMOPA_BYPASS_HONOURS_SAFETY"},
	{"environment_is_secret", "PERMOPA_ENVIRONMENT_IS_SECRET"},
	{"network_reads", "PERMOPA_NETWORK_READS"},
	{"dangerous_paths.files.add", "PERMOPA_DANGEROUS_FILES_ADD"},
	{"dangerous_paths.directories.add", "PERMOPA_DANGEROUS_DIRECTORIES_ADD"},
}

// settingsNames are the file names a settings directory is searched for,
// the first existing one being where accepted rules are written.
var settingsExts = []string{".yaml", ".yml", ".json", ".toml"}

// layer is one source of settings: its files, and the settings last read
// from each file that parsed.
type layer struct {
	source string
	// stems are file paths without extension; each is looked up with every
	// extension of settingsExts (command-line files are exact paths instead).
	stems []string
	exact []string
	base  string // relative additionalDirectories resolve against it
	// project is what "/path" in path rules is relative to (ProjectOf
	// refines it per file).
	project string
	// good holds, per file, the settings of its last successful read: a
	// file that breaks keeps them.
	good map[string]Settings
}

func (ly *layer) files() []string {
	out := append([]string(nil), ly.exact...)
	for _, stem := range ly.stems {
		for _, ext := range settingsExts {
			out = append(out, stem+ext)
		}
	}
	return out
}

// Layers reads the settings layers (docs/usage.md, "Rules"), highest first: managed,
// command line, environment (PERMOPA_*), local project, shared project,
// user; session rules live in the engine. It merges them into one Settings,
// keeps the last good settings of a file that breaks, applies the result to
// an engine (Attach), writes accepted rules (AddRules), and reloads when
// files change (Watch). It is safe for concurrent use.
type Layers struct {
	opts   LayerOptions
	layers []*layer
	env    *layer

	mu       sync.Mutex // serialises loads and applies
	merged   Settings
	problems []error
	engines  []Target

	watchMu sync.Mutex
	watch   *watcher

	// envProblem: PERMOPA_MANAGED_DIR was refused (reported at every load).
	envProblem error

	// projectKey is set for a project's own layers (NewProjectLayers):
	// attached engines then get the rules as Settings.Projects[projectKey].
	projectKey string

	// looked are the .permopa paths of every directory above the project
	// (ancestorMarkers): one appearing changes which files apply, so a
	// cache of loaded settings watches them (SourcePaths).
	looked []string
}

// NewLayers finds the layers' files; nothing is read until Load.
func NewLayers(opts LayerOptions) *Layers {
	env := envMap(opts.Environ)
	var envProblem error
	if opts.ManagedDir == "" {
		opts.ManagedDir = DefaultManagedDir
		if d := env["PERMOPA_MANAGED_DIR"]; d != "" {
			// A repository can set the hook's environment (its .envrc, its
			// host's project `env` settings): only a directory root owns is
			// taken from there (SECURITY.md, "Managed settings").
			if err := adminOwned(d); err != nil {
				p := newProblem(LevelWarning, CheckManagedDir, "", "PERMOPA_MANAGED_DIR", fmt.Sprintf("PERMOPA_MANAGED_DIR=%s ignored, managed settings read from %s: %v (the managed directory must belong to root and let no one else write; or pass --managed-dir or settings.managed_dir)", d, DefaultManagedDir, err))
				envProblem = &p
			} else {
				opts.ManagedDir = d
			}
		}
	}
	if opts.ProjectDir == "" {
		opts.ProjectDir = firstNonEmpty(env["PERMOPA_PROJECT_DIR"], opts.Cwd, cwdOrRoot())
	}
	if opts.UserDir == "" {
		opts.UserDir = defaultUserDir(env, opts.Home)
	}
	if abs, err := filepath.Abs(opts.ProjectDir); err == nil {
		opts.ProjectDir = abs
	}
	l := &Layers{opts: opts, envProblem: envProblem}
	add := func(ly *layer) { ly.good = map[string]Settings{}; l.layers = append(l.layers, ly) }
	// Every layer's "/path" rules are relative to the project permopa
	// decides for, as Claude Code reads its user and managed settings
	// against the session's project (docs/rules.md); a command-line file
	// inside a project's .permopa/ or .claude/ belongs to that project.
	pd := opts.ProjectDir
	add(&layer{source: SourceManaged, stems: []string{filepath.Join(opts.ManagedDir, "settings")}, base: opts.ManagedDir, project: pd})
	add(&layer{source: SourceCommandLine, exact: opts.CommandLine, base: pd, project: pd})
	l.env = &layer{source: SourceEnvironment, base: pd, project: pd}
	add(l.env)
	// The project's own files, then those of every enclosing directory's
	// .permopa (ProjectChain): a call made in a subdirectory keeps the
	// project's deny and ask rules (docs/rules.md, "Enclosing projects").
	for _, dir := range append([]string{pd}, ProjectChain(pd, opts.UserDir, opts.ManagedDir)...) {
		for _, ly := range projectDirLayers(dir) {
			add(ly)
		}
	}
	l.looked = ancestorMarkers(pd)
	if opts.UserDir != "" {
		add(&layer{source: SourceUser, stems: []string{filepath.Join(opts.UserDir, "settings")}, base: opts.UserDir, project: pd})
	}
	return l
}

// defaultUserDir is the user's settings directory: PERMOPA_CONFIG_DIR,
// else $XDG_CONFIG_HOME/permopa, else <home>/.config/permopa ("" when
// there is no home).
func defaultUserDir(env map[string]string, home string) string {
	if d := env["PERMOPA_CONFIG_DIR"]; d != "" {
		return d
	}
	if xdg := env["XDG_CONFIG_HOME"]; xdg != "" {
		return filepath.Join(xdg, "permopa")
	}
	if home = firstNonEmpty(home, env["HOME"]); home != "" {
		return filepath.Join(home, ".config", "permopa")
	}
	return ""
}

// ProjectDir is the project directory whose .permopa files the layers read.
func (l *Layers) ProjectDir() string { return l.opts.ProjectDir }

// UserDir is the user's settings directory the layers use ("" when
// there is none: no HOME, XDG_CONFIG_HOME nor PERMOPA_CONFIG_DIR).
func (l *Layers) UserDir() string { return l.opts.UserDir }

// LoadLayers reads every layer once and merges them: the settings for
// `permopa decide` and other one-shot uses. The errors are problems to
// report (an unreadable file, an invalid rule, each naming the file and the
// rule); what could be read is in the settings.
func LoadLayers(opts LayerOptions) (Settings, []error) {
	return NewLayers(opts).Load()
}

// Load reads every layer and merges them. A file that cannot be read or
// parsed keeps the settings of its last good read (none on the first) and
// is reported; an invalid rule is reported and left out.
func (l *Layers) Load() (Settings, []error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.loadLocked()
}

func (l *Layers) loadLocked() (Settings, []error) {
	var problems []error
	if l.envProblem != nil {
		problems = append(problems, l.envProblem)
	}
	var parts []Settings
	var seen []os.FileInfo // files read by a higher layer
	managedLock := false
	// The user's trusted projects, read at every load: a project's own
	// files loosen nothing until trusted (trust.go).
	trust, err := ReadTrust(l.opts.UserDir)
	if err != nil {
		p := newProblem(LevelWarning, CheckUntrusted, TrustFile(l.opts.UserDir), "", err.Error())
		problems = append(problems, &p)
	}
	for _, ly := range l.layers {
		var s Settings
		var ps []error
		if ly == l.env {
			s, ps = l.readEnv()
		} else {
			s, ps = ly.read(&seen, trust)
		}
		problems = append(problems, ps...)
		if ly.source == SourceManaged && s.AllowManagedRulesOnly {
			managedLock = true
		}
		parts = append(parts, s)
	}
	merged := Merge(parts...)
	if managedLock {
		// Reported once per load so that a user wondering why an allow rule
		// does nothing finds out.
		for _, r := range merged.Rules {
			if strings.EqualFold(r.Behavior, allow) && r.Source != SourceManaged {
				problems = append(problems, fmt.Errorf("%s: rule %s ignored: managed settings allow only managed allow rules", r.Layer, r))
			}
		}
	}
	// A deny or ask rule that may be missing makes every decision DENY
	// (the policy reads settings.unreadable), in every embedding: the
	// server, `permopa decide`, engines attached to these layers.
	for _, p := range UnsafeProblems(problems) {
		merged.Unreadable = append(merged.Unreadable, p.Error())
	}
	// Rules that do not mean what they look like (permopa rules lint).
	problems = append(problems, LintProblems(LintRules(merged.Rules))...)
	merged.Home = firstNonEmpty(l.opts.Home, merged.Home)
	merged.Cwd = firstNonEmpty(l.opts.Cwd, merged.Cwd)
	merged.ProtectedPaths = append(merged.ProtectedPaths, l.protectedPaths()...)
	merged.FillDefaults()
	l.merged, l.problems = merged, problems
	return merged.Clone(), problems
}

// protectedPaths are the settings files and directories the layers read,
// absolute: the managed directory, the command-line files, the project's
// .permopa directory and the user's directory. An agent that wrote them
// would choose its own rules (Settings.ProtectedPaths).
func (l *Layers) protectedPaths() []string {
	var out []string
	for _, ly := range l.layers {
		for _, f := range ly.exact {
			if abs, err := filepath.Abs(f); err == nil {
				out = append(out, abs)
			}
		}
		for _, stem := range ly.stems {
			if abs, err := filepath.Abs(filepath.Dir(stem)); err == nil && !slices.Contains(out, abs) {
				out = append(out, abs)
			}
		}
	}
	return out
}

// read reads the layer's files, keeping the last good settings of a file
// that is broken. A file that does not exist contributes nothing. A file a
// higher layer already read (in seen: `--settings .permopa/settings.yaml`
// in that project) is that layer's, so that its rules and problems come
// once; the files this layer reads are added to seen, except a project's:
// a repository's .permopa (or one file of it) that is a link to an
// enclosing project's or the user's must not take that file away from its
// own layer, where its "/path" rules mean the other directory and its
// trust is its own (docs/rules.md, "Enclosing projects").
//
// A project's own files (the local and shared project layers) that trust
// does not cover contribute only what tightens (restrictUntrusted).
func (ly *layer) read(seen *[]os.FileInfo, trust TrustStore) (Settings, []error) {
	var parts []Settings
	var problems []error
	for _, f := range ly.files() {
		info, err := os.Stat(f)
		if errors.Is(err, fs.ErrNotExist) {
			delete(ly.good, f)
			continue
		}
		if err == nil {
			if slices.ContainsFunc(*seen, func(o os.FileInfo) bool { return os.SameFile(o, info) }) {
				continue
			}
			if ly.source != SourceLocal && ly.source != SourceProject {
				*seen = append(*seen, info)
			}
		}
		if err == nil && info.IsDir() {
			err = fmt.Errorf("is a directory")
		}
		var s Settings
		var ps []error
		if err == nil {
			project := ly.project
			if ly.source == SourceCommandLine {
				project = ProjectOf(f, project)
			}
			s, ps, err = loadSettingsFile(f, ly.source, ly.base, project)
		}
		if err != nil {
			last, had := ly.good[f]
			problems = append(problems, fileProblem(f, err, had))
			if had {
				parts = append(parts, last)
			}
			continue
		}
		if (ly.source == SourceLocal || ly.source == SourceProject) && !trust.Trusts(ly.project, f, s.digest) {
			s = restrictUntrusted(s, f, ly.project, trust.userRules(ly.project, f))
			for _, u := range s.Untrusted {
				p := u.Problem()
				ps = append(ps, &p)
			}
		}
		ly.good[f] = s
		problems = append(problems, ps...)
		// Keys permopa does not read (a typo such as "denny:" would drop
		// rules without a word), each naming the file and line.
		if fs, err := LintFile(f); err == nil {
			problems = append(problems, LintProblems(fs)...)
		}
		parts = append(parts, s)
	}
	return Merge(parts...), problems
}

// readEnv reads the PERMOPA_* variables as one more layer: viper nests
// them by key (permissions.allow), and the File reader reads the document
// as it reads a file's.
func (l *Layers) readEnv() (Settings, []error) {
	env := envMap(l.opts.Environ)
	v := viper.New()
	for _, k := range envKeys {
		if val, ok := env[k.name]; ok && val != "" {
			v.Set(k.key, val)
		}
	}
	if len(v.AllKeys()) == 0 {
		return Settings{}, nil
	}
	f := fileFrom("environment (PERMOPA_*)", plainTree(v.AllSettings()))
	s, problems := f.settings(SourceEnvironment, l.opts.ProjectDir, l.opts.ProjectDir)
	// A problem names its variable, as a file's names its line.
	for _, e := range problems {
		var p *Problem
		if !errors.As(e, &p) {
			continue
		}
		for _, k := range envKeys {
			if key := strings.ToLower(p.Key); key == k.key || strings.HasPrefix(key, k.key+".") {
				p.File = k.name
			}
		}
	}
	return s, problems
}

// Settings returns the merged settings of the last load.
func (l *Layers) Settings() Settings {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.merged.Clone()
}

// Problems returns the problems of the last load: broken files (whose last
// good settings are kept) and invalid rules (left out).
func (l *Layers) Problems() []error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]error(nil), l.problems...)
}

// Target is what layers keep up to date: an engine.Engine, which keeps the
// settings document in the store its policy reads (docs/architecture.md).
// The settings package evaluates no policy and imports no engine.
type Target interface {
	// UpdateSettings changes the settings in force under the target's
	// lock; change gets a private copy.
	UpdateSettings(ctx context.Context, change func(*Settings) error) error
}

// Attach loads the layers into eng and keeps it up to date: every later
// Reload, AddRules and RevokeRules applies the merged settings to it. The
// engine's session rules and session modes are kept.
func (l *Layers) Attach(ctx context.Context, eng Target) []error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.engines = append(l.engines, eng)
	s, problems := l.loadLocked()
	if err := l.applyTo(ctx, eng, s); err != nil {
		problems = append(problems, err)
	}
	return problems
}

// Reload reads the layers again and applies them to the attached engines.
func (l *Layers) Reload(ctx context.Context) []error {
	problems, err := l.reload(ctx)
	if err != nil {
		problems = append(problems, err)
	}
	return problems
}

// reload is Reload with the failures to apply (the engine's store refused
// the settings) apart from the problems of the files.
func (l *Layers) reload(ctx context.Context) ([]error, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s, problems := l.loadLocked()
	var errs []error
	for _, eng := range l.engines {
		if err := l.applyTo(ctx, eng, s); err != nil {
			errs = append(errs, err)
		}
	}
	return problems, errors.Join(errs...)
}

func (l *Layers) applyTo(ctx context.Context, eng Target, s Settings) error {
	if l.projectKey != "" {
		return applyProject(ctx, eng, l.projectKey, s)
	}
	return eng.UpdateSettings(ctx, func(cur *Settings) error {
		sessions, modes, projects, pu := cur.SessionRules, cur.SessionModes, cur.Projects, cur.ProjectUntrusted
		*cur = s.Clone()
		cur.SessionRules, cur.SessionModes, cur.Projects, cur.ProjectUntrusted = sessions, modes, projects, pu
		return nil
	})
}

// DestinationFile is the file a destination writes to: the first existing
// settings file of that layer, else its .yaml file.
func (l *Layers) DestinationFile(dest string) (string, error) {
	var ly *layer
	switch dest {
	case DestinationLocal:
		ly = l.layerOf(SourceLocal)
	case DestinationProject:
		ly = l.layerOf(SourceProject)
	case DestinationUser:
		ly = l.layerOf(SourceUser)
		if ly == nil {
			return "", errors.New("destination user: no user settings directory (set HOME, XDG_CONFIG_HOME or PERMOPA_CONFIG_DIR)")
		}
	case DestinationSession:
		return "", errors.New("destination session is kept in memory, not in a file")
	default:
		return "", fmt.Errorf("destination %q: want session, local, project or user", dest)
	}
	for _, f := range ly.files() {
		if _, err := os.Stat(f); err == nil {
			return f, nil
		}
	}
	return ly.stems[0] + ".yaml", nil
}

func (l *Layers) layerOf(source string) *layer {
	for _, ly := range l.layers {
		if ly.source == source {
			return ly
		}
	}
	return nil
}

// LayerFile is one settings file and the layer it belongs to.
type LayerFile struct {
	Source string `json:"source"`
	Path   string `json:"path"`
	Exists bool   `json:"exists"`
}

// Files lists the settings files looked at, highest layer first.
func (l *Layers) Files() []LayerFile {
	var out []LayerFile
	for _, ly := range l.layers {
		for _, f := range ly.files() {
			_, err := os.Stat(f)
			if ly.stems != nil && err != nil && !strings.HasSuffix(f, ".yaml") {
				continue // list only the .yaml candidate of a missing layer
			}
			out = append(out, LayerFile{Source: ly.source, Path: f, Exists: err == nil})
		}
	}
	return out
}

// SourcePaths are every path a Load reads or looks for: each layer's
// candidate files (every extension, present or not), the managed and user
// directories and the user's trust file. A cache of loaded settings (the
// hook server's, cmd/permopa-hook-local) is current while none of them
// changed.
func (l *Layers) SourcePaths() []string {
	var out []string
	for _, ly := range l.layers {
		out = append(out, ly.files()...)
	}
	out = append(out, l.looked...)
	out = append(out, l.opts.ManagedDir)
	if l.opts.UserDir != "" {
		out = append(out, l.opts.UserDir, TrustFile(l.opts.UserDir))
	}
	return out
}

// Rules lists the rules of the last load, highest layer first, expired
// ones included (see Rule.ExpiredAt).
func (l *Layers) Rules() []permission.Rule {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]permission.Rule(nil), l.merged.Rules...)
}

func envMap(environ []string) map[string]string {
	if environ == nil {
		environ = os.Environ()
	}
	m := make(map[string]string, len(environ))
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return m
}

func firstNonEmpty(xs ...string) string {
	for _, x := range xs {
		if x != "" {
			return x
		}
	}
	return ""
}

// ParseTTL reads a rule lifetime: a Go duration ("90m", "24h") or a number
// of days ("7d"). "" is no expiry.
func ParseTTL(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	if days, ok := strings.CutSuffix(s, "d"); ok {
		var n int
		if _, err := fmt.Sscanf(days, "%d", &n); err == nil && n > 0 && fmt.Sprint(n) == days {
			return time.Duration(n) * 24 * time.Hour, nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("ttl %q: want a positive duration such as 30m, 24h or 7d", s)
	}
	return d, nil
}
