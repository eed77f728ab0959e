package settings

import (
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/permopa/permopa/permission"
)

// Sources name the kind of layer a rule came from (Rule.Source). The loader
// sets them itself, so a project file cannot pass its rules off as managed.
const (
	SourceManaged     = "managedSettings"
	SourceCommandLine = "cliSettings"
	SourceEnvironment = "envSettings"
	SourceLocal       = "localSettings"
	SourceProject     = "projectSettings"
	SourceUser        = "userSettings"
	SourceSession     = "session"
)

// settings.go: Settings, the merged settings of every layer as Go code
// handles them, and Merge, which layers them.

// Settings are the merged settings of every layer, with the session and
// project rules accepted at runtime, as Go code handles them. They are not
// the document the policy reads: DocumentAt builds that (Document, whose
// JSON is data.permopa.settings, docs/architecture.md); Settings carries
// no JSON tags.
type Settings struct {
	DefaultMode        string
	Rules              []permission.Rule
	WorkingDirectories []string
	// BypassHonoursSafety keeps safety ASKs in BYPASS (true in any layer wins: it only tightens).
	BypassHonoursSafety bool
	// NetworkReads is "ask" or "allow" (the default, ""): whether a command
	// that only talks to a service configured outside it (kubectl get, gh
	// pr view, npm view) counts as read-only. "ask" in any layer wins.
	NetworkReads string
	// DisableBypassMode runs BYPASS requests as DEFAULT (honoured from managed settings).
	DisableBypassMode bool
	// AllowManagedRulesOnly ignores every allow rule whose Source is not
	// SourceManaged, the input's permission_context and session rules
	// included. Deny and ask rules of every layer still apply: they only tighten.
	AllowManagedRulesOnly bool
	DangerousPaths        DangerousPaths
	// EnvironmentIsSecret: printing the environment (printenv, env,
	// export -p, jq env, ps e, ...) is a credential read (a safety ASK).
	// nil is the default, true; false relaxes it where the agent's
	// environment holds no secret. true in any layer wins: it only tightens.
	EnvironmentIsSecret *bool
	// CaseInsensitivePaths makes deny and ask path rules compare without
	// regard to case, as they always do on macOS and Windows (true in any
	// layer wins: it only tightens). Allow rules never fold case.
	CaseInsensitivePaths bool
	// Home expands ~ in paths and rules (default: the process's home).
	Home string
	// Cwd is used for calls whose input has no cwd (default: the process's).
	Cwd string
	// ProtectedPaths are the settings files and directories the engine
	// reads (managed, --settings, the project's .permopa, the user's):
	// writing them, or a directory holding them, is a safety ASK that
	// BYPASS does not skip (Layers fills it in).
	ProtectedPaths []string
	// SessionRules are rules accepted at runtime, keyed by session id. The
	// rules of session "" apply to every call; the others only to calls
	// whose input has that session_id.
	SessionRules map[string][]permission.Rule
	// SessionModes switch the mode at runtime, keyed by session id; session
	// "" is the mode of every call that names neither a mode nor a session
	// with its own. A mode named in the input still wins.
	SessionModes map[string]string
	// Projects are rules of project directories, keyed by the exact cwd
	// string of the calls they apply to (an OPA server's
	// settings.projects): the rules of that directory's
	// .permopa/settings.local and settings files, applied after the layers'
	// rules and before the session's to calls whose input has that cwd.
	// Only rules: a project's mode, directories and other knobs are not
	// taken. Under allow_managed_rules_only their allow rules are left out.
	Projects map[string][]permission.Rule
	// Unreadable lists, one message each, the settings problems that may
	// have left a deny or ask rule out (UnsafeProblems: a file that could
	// not be read with no last good settings, a deny or ask rule that
	// could not be read). While it is not empty every decision is DENY
	// with code settings_unreadable: permopa does not decide without the
	// user's deny rules. Layers fill it in; the messages name files, never
	// their content.
	Unreadable []string
	// Untrusted lists what untrusted project settings files set that would
	// loosen the decisions and was left out (trust.go, docs/rules.md "Trusted
	// projects"): reported by decide, doctor and rules lint, and named in the
	// reason of a decision it might have changed.
	Untrusted []Untrusted
	// ProjectUntrusted is Untrusted of the project directories of
	// Projects, by the same key: named in the decisions of calls made there.
	ProjectUntrusted map[string][]Untrusted

	// Of one file's settings as read (loadSettingsFile), for trust.go:
	// the key of each rule and working directory (treePositions form),
	// where each key starts, and the SHA-256 of the bytes parsed.
	ruleKeys, dirKeys []string
	pos               map[string]position
	digest            string
}

// Values of Settings.NetworkReads.
const (
	NetworkReadsAsk   = "ask"
	NetworkReadsAllow = "allow"
)

// PathEdits adds names to a default list of dangerous paths and removes names from it.
type PathEdits struct {
	Add    []string `json:"add"`
	Remove []string `json:"remove"`
}

// DangerousPaths is the settings block dangerous_paths: edits to the
// default dangerous file and directory names (docs/decision.md), and to the
// files that make tools run code (code_running: .husky, .githooks,
// .vscode/tasks.json, ...). The permission settings of permopa and of the
// agent hosts are protected whatever the edits.
type DangerousPaths struct {
	// In the order of their keys (Document).
	CodeRunning PathEdits `json:"code_running"`
	Directories PathEdits `json:"directories"`
	Files       PathEdits `json:"files"`
}

// AllRules lists every rule: the layers' rules, then each session's
// (session "" first), expired ones included (see Rule.ExpiredAt). This is
// what `GET /v1/permission/rules` shows.
func (s Settings) AllRules() []permission.Rule {
	out := append([]permission.Rule(nil), s.Rules...)
	ids := slices.Collect(maps.Keys(s.SessionRules))
	slices.Sort(ids)
	for _, id := range ids {
		out = append(out, s.SessionRules[id]...)
	}
	return out
}

func (d DangerousPaths) empty() bool {
	return len(d.Files.Add)+len(d.Files.Remove)+len(d.Directories.Add)+len(d.Directories.Remove)+
		len(d.CodeRunning.Add)+len(d.CodeRunning.Remove) == 0
}

func (d DangerousPaths) document() DangerousPaths {
	edits := func(e PathEdits) PathEdits {
		return PathEdits{Add: nonNil(slices.Clone(e.Add)), Remove: nonNil(slices.Clone(e.Remove))}
	}
	return DangerousPaths{Files: edits(d.Files), Directories: edits(d.Directories), CodeRunning: edits(d.CodeRunning)}
}

// FillDefaults sets Home and Cwd, when empty, to the process's.
func (s *Settings) FillDefaults() {
	if s.Home == "" {
		s.Home, _ = os.UserHomeDir()
	}
	if s.Cwd == "" {
		s.Cwd = cwdOrRoot()
	}
}

// NextExpiry is the earliest expiry after now among the rules, or the zero
// time when no rule will expire.
func (s Settings) NextExpiry(now time.Time) time.Time {
	var next time.Time
	check := func(rs []permission.Rule) {
		for _, r := range rs {
			t, ok := r.ExpiresAt()
			if ok && t.After(now) && (next.IsZero() || t.Before(next)) {
				next = t
			}
		}
	}
	check(s.Rules)
	for _, rs := range s.SessionRules {
		check(rs)
	}
	for _, rs := range s.Projects {
		check(rs)
	}
	return next
}

// Merge layers settings, given highest first: rules from every layer are
// kept (deny anywhere wins in the policy), lists concatenate, the default
// mode, home and cwd come from the first layer that sets them, and the
// switches that only tighten (bypass_honours_safety, the managed locks) hold
// when any layer sets them. A dangerous name added by any layer stays
// dangerous even if another layer removes it.
func Merge(layers ...Settings) Settings {
	var out Settings
	for _, s := range layers {
		out.Rules = append(out.Rules, s.Rules...)
		out.WorkingDirectories = append(out.WorkingDirectories, s.WorkingDirectories...)
		if out.DefaultMode == "" {
			out.DefaultMode = s.DefaultMode
		}
		out.BypassHonoursSafety = out.BypassHonoursSafety || s.BypassHonoursSafety
		if e := s.EnvironmentIsSecret; e != nil && (out.EnvironmentIsSecret == nil || *e) {
			out.EnvironmentIsSecret = e
		}
		if s.NetworkReads == NetworkReadsAsk || out.NetworkReads == "" {
			out.NetworkReads = firstNonEmpty(s.NetworkReads, out.NetworkReads)
		}
		out.CaseInsensitivePaths = out.CaseInsensitivePaths || s.CaseInsensitivePaths
		out.DisableBypassMode = out.DisableBypassMode || s.DisableBypassMode
		out.AllowManagedRulesOnly = out.AllowManagedRulesOnly || s.AllowManagedRulesOnly
		out.DangerousPaths.Files.Add = append(out.DangerousPaths.Files.Add, s.DangerousPaths.Files.Add...)
		out.DangerousPaths.Files.Remove = append(out.DangerousPaths.Files.Remove, s.DangerousPaths.Files.Remove...)
		out.DangerousPaths.Directories.Add = append(out.DangerousPaths.Directories.Add, s.DangerousPaths.Directories.Add...)
		out.DangerousPaths.Directories.Remove = append(out.DangerousPaths.Directories.Remove, s.DangerousPaths.Directories.Remove...)
		out.DangerousPaths.CodeRunning.Add = append(out.DangerousPaths.CodeRunning.Add, s.DangerousPaths.CodeRunning.Add...)
		out.DangerousPaths.CodeRunning.Remove = append(out.DangerousPaths.CodeRunning.Remove, s.DangerousPaths.CodeRunning.Remove...)
		out.ProtectedPaths = append(out.ProtectedPaths, s.ProtectedPaths...)
		if out.Home == "" {
			out.Home = s.Home
		}
		if out.Cwd == "" {
			out.Cwd = s.Cwd
		}
		out.Unreadable = append(out.Unreadable, s.Unreadable...)
		out.Untrusted = append(out.Untrusted, s.Untrusted...)
		for id, rs := range s.SessionRules {
			if out.SessionRules == nil {
				out.SessionRules = map[string][]permission.Rule{}
			}
			out.SessionRules[id] = append(out.SessionRules[id], rs...)
		}
		for dir, rs := range s.Projects {
			if out.Projects == nil {
				out.Projects = map[string][]permission.Rule{}
			}
			out.Projects[dir] = append(out.Projects[dir], rs...)
		}
		for id, m := range s.SessionModes {
			if out.SessionModes == nil {
				out.SessionModes = map[string]string{}
			}
			if _, set := out.SessionModes[id]; !set {
				out.SessionModes[id] = m
			}
		}
	}
	out.DangerousPaths.Files.Remove = withoutNames(out.DangerousPaths.Files.Remove, out.DangerousPaths.Files.Add)
	out.DangerousPaths.Directories.Remove = withoutNames(out.DangerousPaths.Directories.Remove, out.DangerousPaths.Directories.Add)
	out.DangerousPaths.CodeRunning.Remove = withoutNames(out.DangerousPaths.CodeRunning.Remove, out.DangerousPaths.CodeRunning.Add)
	return out
}

func withoutNames(names, drop []string) []string {
	var out []string
	for _, n := range names {
		dropped := false
		for _, d := range drop {
			if strings.EqualFold(n, d) {
				dropped = true
				break
			}
		}
		if !dropped {
			out = append(out, n)
		}
	}
	return out
}

func cwdOrRoot() string {
	if wd, err := os.Getwd(); err == nil {
		return wd
	}
	return "/"
}
