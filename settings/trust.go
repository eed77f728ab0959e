package settings

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/permopa/permopa/permission"
	"github.com/permopa/permopa/rego/tables"
)

// A project's settings files (.permopa/settings.local.* and settings.*)
// come with the repository: whoever wrote the repository wrote them. Until
// the user trusts a project (`permopa trust`), its files contribute only
// what tightens the decisions; what loosens them is left out and reported
// (Settings.Untrusted). Trust is kept in the user's settings directory
// (TrustFileName) with the SHA-256 of each file trusted, so that a file
// changed by a pull needs trust again (docs/rules.md, "Trusted projects").

// TrustFileName is the file in the user's settings directory that records
// the trusted projects.
const TrustFileName = "trusted-projects.json"

// CheckUntrusted is the kind (Problem.Kind) of what an untrusted
// project file sets and permopa leaves out.
const CheckUntrusted = "untrusted"

// Trust classes of the settings keys (KeyTrust).
const (
	// TrustAlways: only tightens; always taken from a project file.
	TrustAlways = "always"
	// TrustOnceTrusted: loosens; taken only from a trusted project file.
	TrustOnceTrusted = "once trusted"
	// TrustPartly: the values that tighten always, the others once trusted.
	TrustPartly = "tightening values always, the rest once trusted"
	// TrustManagedOnly: honoured in managed settings only, never from a project.
	TrustManagedOnly = "managed settings only"
	// TrustNotRead: a key permopa accepts but does not act on.
	TrustNotRead = "not read"
)

// KeyTrust classifies every key a settings file may hold (the keys
// `permopa rules lint` knows, lint.go) by what a project file that is not
// trusted contributes with it. TestEveryKeyHasATrustClass fails on a key
// without a class, so a new key cannot slip through untrusted.
var KeyTrust = map[string]string{
	"permissions.allow":                        TrustOnceTrusted,
	"permissions.ask":                          TrustAlways,
	"permissions.deny":                         TrustAlways,
	"permissions.defaultMode":                  TrustPartly, // default and plan always
	"permissions.additionalDirectories":        TrustOnceTrusted,
	"permissions.disableBypassPermissionsMode": TrustManagedOnly,
	"permissions.disableAutoMode":              TrustNotRead,
	"allow_rules":                              TrustOnceTrusted,
	"ask_rules":                                TrustAlways,
	"deny_rules":                               TrustAlways,
	"working_directories":                      TrustOnceTrusted,
	"mode":                                     TrustPartly, // default and plan always
	"bypass_honours_safety":                    TrustAlways, // true in any layer wins; false changes nothing
	"allow_managed_rules_only":                 TrustManagedOnly,
	"disable_bypass_mode":                      TrustManagedOnly,
	"case_insensitive_paths":                   TrustAlways, // true in any layer wins; false changes nothing
	"environment_is_secret":                    TrustPartly, // true always, false once trusted
	"network_reads":                            TrustPartly, // ask always, allow once trusted
	"dangerous_paths.files.add":                TrustAlways,
	"dangerous_paths.files.remove":             TrustOnceTrusted,
	"dangerous_paths.directories.add":          TrustAlways,
	"dangerous_paths.directories.remove":       TrustOnceTrusted,
	"dangerous_paths.code_running.add":         TrustAlways,
	"dangerous_paths.code_running.remove":      TrustOnceTrusted,
}

// untrustedModes are the modes an untrusted project may set as its
// default: those that never allow what DEFAULT asks about (the matrix of
// docs/decision.md: ACCEPT_EDITS and DONT_ASK allow edits in the working
// directories, BYPASS allows everything).
var untrustedModes = []string{"DEFAULT", "EXPLORE"}

// Untrusted is one setting of an untrusted project file that permopa left
// out because it would loosen the decisions.
type Untrusted struct {
	File    string // the settings file
	Line    int    // its line, 0 when not known
	Column  int    // its column, 0 when not known
	Key     string // permissions.allow.0, permissions.defaultMode, ...
	Project string // the project directory to trust
	// Tool is the tool name of a left-out allow rule ("" for other keys).
	Tool  string
	Value string // the rule, mode, directory or value, as read
}

// Problem is the left-out setting as a rules-lint finding (kind
// untrusted), naming its file and line and how to trust the project. Its
// level is info: nothing in the file is wrong (CI lints a repository's
// files where nobody trusts them), and what is left out only tightens.
func (u Untrusted) Problem() Problem {
	f := newProblem(LevelInfo, CheckUntrusted, u.File, u.Key,
		fmt.Sprintf("%s left out: the project's settings are not trusted (run `permopa trust %s` to review and trust them)", u.Value, u.Project))
	f.Line, f.Column = u.Line, u.Column
	if u.Tool != "" {
		f.Rule, f.Err = u.Value, errors.New("allow rule left out: the project's settings are not trusted (run `permopa trust "+u.Project+"` to review and trust them)")
	}
	return f
}

func (u Untrusted) String() string {
	p := Problem{File: u.File, Line: u.Line, Column: u.Column}
	return p.Position() + ": " + u.Value
}

// Digest is the SHA-256 of a settings file's content as trust records it.
func Digest(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// TrustStore is the content of TrustFileName: per project directory (its
// real path), the digest of each settings file trusted, by its path
// relative to the project.
type TrustStore struct {
	Projects map[string]TrustedProject `json:"projects"`
}

// TrustedProject is one trusted project.
type TrustedProject struct {
	TrustedAt string            `json:"trusted_at"`
	Files     map[string]string `json:"files"`
	// Rules are allow rules the user wrote (AddRules: `permopa rules add
	// --destination project|local`, a confirmation) into a file that is
	// not trusted, by file: they count, the rest of the file does not.
	Rules map[string][]string `json:"rules,omitempty"`
}

// TrustFile is the trust file of a user settings directory ("" when there
// is none).
func TrustFile(userDir string) string {
	if userDir == "" {
		return ""
	}
	return filepath.Join(userDir, TrustFileName)
}

// ReadTrust reads the user's trusted projects. A missing file is no trust;
// a file that cannot be read is an error (and no project is trusted).
func ReadTrust(userDir string) (TrustStore, error) {
	t := TrustStore{Projects: map[string]TrustedProject{}}
	file := TrustFile(userDir)
	if file == "" {
		return t, nil
	}
	// Read as a settings file is: a regular file, within the size, depth
	// and value bounds (settings_bounds.go), never a FIFO that blocks.
	data, _, err := readSettingsBytes(file)
	if errors.Is(err, fs.ErrNotExist) {
		return t, nil
	}
	if err != nil {
		return t, fmt.Errorf("trusted projects %s: %w (no project is trusted)", file, err)
	}
	if err := json.Unmarshal(data, &t); err != nil {
		return TrustStore{Projects: map[string]TrustedProject{}}, fmt.Errorf("trusted projects %s: not valid JSON: %v (no project is trusted)", file, err)
	}
	if t.Projects == nil {
		t.Projects = map[string]TrustedProject{}
	}
	return t, nil
}

// ProjectKey is the key of a project directory in the trust file: its
// absolute path with symbolic links resolved (the path as given when it
// cannot be resolved).
func ProjectKey(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		return real
	}
	return filepath.Clean(dir)
}

// Trusts reports whether the file of project, whose content has digest,
// is trusted.
func (t TrustStore) Trusts(project, file, digest string) bool {
	p, ok := t.Projects[ProjectKey(project)]
	if !ok || digest == "" {
		return false
	}
	rel, err := filepath.Rel(project, file)
	if err != nil {
		return false
	}
	return p.Files[filepath.ToSlash(rel)] == digest
}

// userRules are the allow rules the user wrote into file of project
// while it was not trusted (TrustedProject.Rules).
func (t TrustStore) userRules(project, file string) []string {
	p, ok := t.Projects[ProjectKey(project)]
	if !ok {
		return nil
	}
	rel, err := filepath.Rel(project, file)
	if err != nil {
		return nil
	}
	return p.Rules[filepath.ToSlash(rel)]
}

// ProjectFileDigests reads the project's settings files that exist and
// returns their digests by path relative to the project: what
// `permopa trust` records.
func ProjectFileDigests(project string) (map[string]string, error) {
	out := map[string]string{}
	for _, f := range ProjectFiles(project) {
		if _, err := os.Lstat(f); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		data, _, err := readSettingsBytes(f)
		if err != nil {
			return nil, fmt.Errorf("settings %s: %w", f, err)
		}
		rel, _ := filepath.Rel(project, f)
		out[filepath.ToSlash(rel)] = Digest(data)
	}
	return out, nil
}

// RecordTrust records project as trusted with the digests of its files
// (ProjectFileDigests), replacing what was recorded for it.
func RecordTrust(userDir, project string, digests map[string]string) error {
	return editTrust(userDir, func(t *TrustStore) {
		t.Projects[ProjectKey(project)] = TrustedProject{TrustedAt: time.Now().UTC().Format(time.RFC3339), Files: digests}
	})
}

// RevokeTrust forgets project; it reports whether it was trusted.
func RevokeTrust(userDir, project string) (bool, error) {
	had := false
	err := editTrust(userDir, func(t *TrustStore) {
		key := ProjectKey(project)
		_, had = t.Projects[key]
		delete(t.Projects, key)
	})
	return had, err
}

// retrustFile records the trust of one file of a project the user has
// just written (AddRules, RevokeRules): before (nil: the file did not
// exist) and after are its content. When the file as it was loosened
// nothing without trust (it was trusted, held only what tightens, or did
// not exist), its new digest is recorded: all it loosens now is the
// user's. Otherwise the allow rules the user wrote are recorded one by one
// (TrustedProject.Rules): they count, and the rest of the file still does
// not.
func retrustFile(userDir, project, file string, before, after []byte, written []permission.Rule) error {
	if userDir == "" {
		return nil
	}
	rel, err := filepath.Rel(project, file)
	if err != nil {
		return nil
	}
	rel = filepath.ToSlash(rel)
	return editTrust(userDir, func(t *TrustStore) {
		key := ProjectKey(project)
		p, ok := t.Projects[key]
		if !ok {
			p = TrustedProject{TrustedAt: time.Now().UTC().Format(time.RFC3339)}
		}
		if p.Files == nil {
			p.Files = map[string]string{}
		}
		clean := before == nil || (ok && p.Files[rel] == Digest(before))
		if !clean {
			if s, _, err := parseSettings(file, before, SourceProject, project, project); err == nil {
				clean = len(restrictUntrusted(s, file, project, p.Rules[rel]).Untrusted) == 0
			}
		}
		if clean {
			p.Files[rel] = Digest(after)
		} else {
			for _, r := range written {
				// As the file holds it (and the loader reads it back).
				r = fileForm(r)
				if strings.EqualFold(r.Behavior, allow) && !slices.Contains(p.Rules[rel], r.String()) {
					if p.Rules == nil {
						p.Rules = map[string][]string{}
					}
					p.Rules[rel] = append(p.Rules[rel], r.String())
				}
			}
		}
		t.Projects[key] = p
	})
}

// editTrust reads, changes and writes the trust file, under the user
// directory's lock, through a temporary file created exclusively and
// renamed over the old one.
func editTrust(userDir string, change func(*TrustStore)) error {
	file := TrustFile(userDir)
	if file == "" {
		return errors.New("no user settings directory (set HOME, XDG_CONFIG_HOME or PERMOPA_CONFIG_DIR) to record trust in")
	}
	if err := os.MkdirAll(userDir, 0o700); err != nil {
		return err
	}
	unlock, err := lockDir(userDir)
	if err != nil {
		return fmt.Errorf("trusted projects %s: locking: %w", file, err)
	}
	defer unlock()
	if info, err := os.Lstat(file); err == nil && !info.Mode().IsRegular() {
		return fmt.Errorf("trusted projects %s: not a regular file (%s); not written", file, fileKind(info.Mode()))
	}
	t, err := ReadTrust(userDir)
	if err != nil {
		return err
	}
	change(&t)
	data, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return err
	}
	return writeExclusive(file, append(data, '\n'), 0o600)
}

// writeExclusive writes data to a new file beside target (created
// exclusively, never through a link), syncs it and renames it over target.
func writeExclusive(target string, data []byte, perm os.FileMode) error {
	var b [8]byte
	_, _ = rand.Read(b[:])
	tmp := target + ".tmp-" + hex.EncodeToString(b[:])
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|noFollow, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, target)
	}
	if err != nil {
		_ = os.Remove(tmp)
	}
	return err
}

// restrictUntrusted leaves out of s, the settings of one file of an
// untrusted project, everything that would loosen the decisions (KeyTrust),
// and lists it in s.Untrusted.
//
// userRules are allow rules (as Rule.String) the user wrote into the file
// (TrustStore.userRules): they are kept.
func restrictUntrusted(s Settings, file, project string, userRules []string) Settings {
	var out []Untrusted
	left := func(key, tool, value string) {
		at := s.pos[strings.ToLower(key)]
		if at.Line == 0 {
			if k, _, ok := strings.Cut(strings.ToLower(key), "."); ok {
				at = s.pos[k]
			}
		}
		out = append(out, Untrusted{File: file, Line: at.Line, Column: at.Column, Key: key, Project: project, Tool: tool, Value: value})
	}
	var rules = s.Rules[:0:0]
	for i, r := range s.Rules {
		if strings.EqualFold(r.Behavior, allow) && !slices.Contains(userRules, r.String()) {
			key := ""
			if i < len(s.ruleKeys) {
				key = s.ruleKeys[i]
			}
			left(key, r.ToolName, r.String())
			continue
		}
		rules = append(rules, r)
	}
	s.Rules = rules
	if s.DefaultMode != "" {
		if m, _ := tables.CanonicalMode(s.DefaultMode); !slices.Contains(untrustedModes, m) {
			key := "permissions.defaultmode"
			if s.pos[key].Line == 0 && s.pos["mode"].Line != 0 {
				key = "mode"
			}
			left(key, "", "defaultMode "+s.DefaultMode)
			s.DefaultMode = ""
		}
	}
	// Every working directory waits for trust, inside the project too: a
	// directory is resolved at each decision, and one inside the project
	// when loaded (or missing) can become a link out of it later (`cp -P
	// link dir`, which acceptEdits allows), which no settings file's stamp
	// shows (docs/rules.md, "Trusted projects").
	for i, d := range s.WorkingDirectories {
		key := ""
		if i < len(s.dirKeys) {
			key = s.dirKeys[i]
		}
		left(key, "", "working directory "+d)
	}
	s.WorkingDirectories = nil
	for _, e := range []struct {
		key   string
		names *[]string
	}{
		{"dangerous_paths.files.remove", &s.DangerousPaths.Files.Remove},
		{"dangerous_paths.directories.remove", &s.DangerousPaths.Directories.Remove},
		{"dangerous_paths.code_running.remove", &s.DangerousPaths.CodeRunning.Remove},
	} {
		for i, n := range *e.names {
			left(join(e.key, strconv.Itoa(i)), "", e.key+" "+n)
		}
		*e.names = nil
	}
	if s.EnvironmentIsSecret != nil && !*s.EnvironmentIsSecret {
		left("environment_is_secret", "", "environment_is_secret: false")
		s.EnvironmentIsSecret = nil
	}
	if s.NetworkReads == NetworkReadsAllow {
		left("network_reads", "", "network_reads: allow")
		s.NetworkReads = ""
	}
	// Only tighten whatever their value (Merge): bypass_honours_safety,
	// case_insensitive_paths. Managed only (fileDoc.settings): the locks.
	s.Untrusted = append(s.Untrusted, out...)
	return s
}
