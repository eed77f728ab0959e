package settings

// load.go: reading one settings file into Settings (LoadSettingsFile), and
// the problems of a rule or value it leaves out.

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// LoadSettingsFile reads one settings file (YAML, JSON or TOML, by
// extension) in the shape docs/usage.md's "Rules" describes. source names the layer
// (SourceProject, ...; "" means "settings"); every rule gets it as Source
// and the file as Layer. Rules that cannot be read are returned as
// problems, each naming the rule and the file; the valid ones are kept.
// The error is for a file that cannot be read or parsed at all.
// allow_managed_rules_only and disable_bypass_mode are honoured only when
// source is SourceManaged.
//
// A deny or ask rule that cannot be read is also listed in the settings'
// Unreadable, so that an engine built on them denies every call until it
// is fixed (UnsafeProblems).
func LoadSettingsFile(file, source string) (Settings, []error, error) {
	s, problems, err := loadSettingsFile(file, source, filepath.Dir(file), ProjectOf(file, ""))
	for _, p := range UnsafeProblems(problems) {
		s.Unreadable = append(s.Unreadable, p.Error())
	}
	return s, problems, err
}

// ProjectOf is the project a settings file belongs to, for its path rules'
// "/path": the directory holding its .permopa/ or .claude/ directory (but
// not the home directory: ~/.claude/settings.json is the user's), else
// fallback.
func ProjectOf(file, fallback string) string {
	abs, err := filepath.Abs(file)
	if err != nil {
		return fallback
	}
	dir := filepath.Dir(abs)
	if b := filepath.Base(dir); b != ".permopa" && b != ".claude" {
		return fallback
	}
	project := filepath.Dir(dir)
	if home, err := os.UserHomeDir(); err == nil && filepath.Clean(home) == project && filepath.Base(dir) == ".claude" {
		return fallback
	}
	return project
}

// loadSettingsFile is LoadSettingsFile with relative additionalDirectories
// resolved against base and "/path" in path rules against project.
func loadSettingsFile(file, source, base, project string) (Settings, []error, error) {
	data, _, err := readSettingsBytes(file)
	if err != nil {
		return Settings{}, nil, fmt.Errorf("settings %s: %w", file, err)
	}
	return parseSettings(file, data, source, base, project)
}

// parseSettings is loadSettingsFile of data, the content of file: decoded
// once, with its format's own decoder, into a tree that knows where each
// value is (decode.go), read as a fileDoc (file.go).
func parseSettings(file string, data []byte, source, base, project string) (Settings, []error, error) {
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(file)), ".")
	if !slices.Contains([]string{"yaml", "yml", "json", "toml"}, format) {
		return Settings{}, nil, fmt.Errorf("settings %s: not read: a settings file is .yaml, .yml, .json or .toml", file)
	}
	tree, err := decodeTree(file, format, data)
	if err != nil {
		return Settings{}, nil, err
	}
	if source == "" {
		source = "settings"
	}
	s, problems := fileFrom(file, tree).settings(source, base, project)
	s.digest = Digest(data)
	return s, problems, nil
}

// ruleProblem is the rule at index of the list key that could not be read
// and was left out; b is its behavior. Hosts that must not decide without a
// user's deny or ask rules (hooks) find these with UnsafeProblems.
func ruleProblem(where, key string, index int, b string, err error) *Problem {
	p := &Problem{Level: LevelError, Kind: CheckInvalidRule, File: where, Key: key, Behavior: strings.ToUpper(b), Err: err, index: index}
	if p.Behavior == allow {
		p.Level = LevelWarning // deciding without it only asks more
	}
	return p
}

// valueProblem is a settings value that could not be read (an unknown
// mode, a lock outside managed settings, a bad dangerous_paths entry) and
// was left out; the other settings of the file are kept.
func valueProblem(where, key string, err error) *Problem {
	return &Problem{Level: LevelError, Kind: CheckInvalidValue, File: where, Key: key, Err: err}
}

func sortedKeys(m map[string]any) []string {
	keys := slices.Collect(maps.Keys(m))
	slices.Sort(keys)
	return keys
}

func toList(x any) []any {
	switch v := x.(type) {
	case []any:
		return v
	case []string:
		out := make([]any, len(v))
		for i, s := range v {
			out[i] = s
		}
		return out
	case []map[string]any: // TOML arrays of tables
		out := make([]any, len(v))
		for i, m := range v {
			out[i] = m
		}
		return out
	case nil:
		return nil
	default:
		return []any{v}
	}
}
