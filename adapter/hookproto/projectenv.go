package hookproto

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Environment a host sets for every command from the project's own files
// (docs/hosts.md, "Environment from the project"): Gemini CLI loads the
// first .gemini/.env or .env up from its directory into its environment
// (in a trusted folder, the only one where it runs hooks); Claude Code
// applies the env of the project's .claude/settings.json and
// settings.local.json; Codex the shell_environment_policy of a trusted
// project's .codex/config.toml. The hook names each variable in the Bash
// input's project_env ({name, file}); the policy decides which ones
// programs read. A file that cannot be read or parsed names the variable
// "?", which the policy counts as read: fail closed.

// maxEnvFileBytes bounds a file read for its variable names.
const maxEnvFileBytes = 256 << 10

type envSource struct{ name, file string }

// markProjectEnv adds project_env to the Bash inputs of a host's request.
func markProjectEnv(host string, inputs []map[string]any) {
	for _, in := range inputs {
		if in["tool_name"] != "Bash" {
			continue
		}
		cwd, _ := in["cwd"].(string)
		if !filepath.IsAbs(cwd) {
			continue
		}
		home := os.Getenv("HOME")
		var found []envSource
		switch host {
		case "gemini":
			found = geminiProjectEnv(filepath.Clean(cwd), home)
		case "claude":
			dir := os.Getenv("CLAUDE_PROJECT_DIR")
			if !filepath.IsAbs(dir) {
				dir = cwd
			}
			found = claudeProjectEnv(filepath.Clean(dir), home)
		case "codex":
			var touchesPager bool
			found, touchesPager = codexProjectEnv(filepath.Clean(cwd), home)
			if touchesPager {
				// GIT_PAGER=cat may not reach the command.
				delete(in, "git_pager_cat")
			}
		}
		if len(found) == 0 {
			continue
		}
		list := make([]any, 0, len(found))
		for _, e := range found {
			list = append(list, map[string]any{"name": e.name, "file": e.file})
		}
		in["project_env"] = list
	}
}

// projectSettingsEnv lists what the project's files set, in the
// environment the host runs its hooks with, of the variables permopa reads
// its own settings from: PERMOPA_* (the environment layer, PERMOPA_ALLOW,
// PERMOPA_DEFAULT_MODE, PERMOPA_CONFIG_DIR, ...) and XDG_CONFIG_HOME and
// HOME (where the user's settings and trust file are). Claude Code applies
// the env of the project's .claude/settings.json and settings.local.json to
// its session, hooks included, and Gemini CLI loads the project's .env into
// its own environment, once the user trusts the folder in the host: with
// PERMOPA_DEFAULT_MODE=bypassPermissions or XDG_CONFIG_HOME=./cfg there a
// repository would set permopa's settings without `permopa trust`
// (SECURITY.md, guarantee 19). Codex's shell_environment_policy reaches
// the commands, not the hooks. A file that cannot be read ("?") names
// nothing here: the host cannot apply it either.
func projectSettingsEnv(host, cwd string) []envSource {
	if !filepath.IsAbs(cwd) {
		return nil
	}
	dir := cwd
	if d := os.Getenv("CLAUDE_PROJECT_DIR"); host == "claude" && filepath.IsAbs(d) {
		dir = d
	}
	return settingsEnvIn(host, filepath.Clean(dir), os.Getenv("HOME"))
}

// SettingsEnvVar is a variable permopa reads its own settings from that a
// project's host files set, and the file (ProjectSettingsEnv).
type SettingsEnvVar struct{ Name, File string }

// ProjectSettingsEnv lists the variables permopa reads its settings from
// that host's project files set for the hook in project dir (absolute;
// home is the user's home): the ones that make the hook block every call
// there (projectSettingsEnv). permopa doctor reports them.
func ProjectSettingsEnv(host, dir, home string) []SettingsEnvVar {
	if !filepath.IsAbs(dir) {
		return nil
	}
	var out []SettingsEnvVar
	for _, e := range settingsEnvIn(host, filepath.Clean(dir), home) {
		out = append(out, SettingsEnvVar{e.name, e.file})
	}
	return out
}

func settingsEnvIn(host, dir, home string) []envSource {
	var found []envSource
	switch host {
	case "claude":
		found = claudeProjectEnv(dir, home)
	case "gemini":
		found = geminiProjectEnv(dir, home)
	}
	var out []envSource
	for _, e := range found {
		n := strings.ToUpper(e.name)
		if strings.HasPrefix(n, "PERMOPA_") || n == "XDG_CONFIG_HOME" || n == "HOME" {
			out = append(out, e)
		}
	}
	return out
}

// settingsEnvError is the refusal of a call whose hook environment the
// project may have set permopa's settings in (projectSettingsEnv).
func settingsEnvError(found []envSource) error {
	parts := make([]string, 0, len(found))
	for _, e := range found {
		parts = append(parts, e.name+" ("+e.file+")")
	}
	return fmt.Errorf("the project's host settings set %s for the hook, which permopa reads its own settings from: a repository could loosen them that way; remove it there and set it in your own host settings or shell instead; `permopa trust` does not lift this, since trust covers the project's .permopa/ rules, not its host settings (docs/hosts.md, \"Environment from the project\")", strings.Join(parts, ", "))
}

// protocolHost is the host a protocol is for ("" for another).
func protocolHost(p Protocol) string {
	switch p.(type) {
	case claudeProtocol, *claudeProtocol:
		return "claude"
	case codexProtocol, *codexProtocol:
		return "codex"
	case geminiProtocol, *geminiProtocol:
		return "gemini"
	}
	return ""
}

// readEnvFile reads a bounded regular file; ok false when there is none.
// A file that exists but cannot be read is reported as "?".
func readEnvFile(p string) (data []byte, ok bool, bad bool) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, false, !os.IsNotExist(err)
	}
	if fi.IsDir() {
		return nil, false, false
	}
	if !fi.Mode().IsRegular() || fi.Size() > maxEnvFileBytes {
		return nil, true, true
	}
	data, err = os.ReadFile(p)
	if err != nil {
		return nil, true, true
	}
	return data, true, false
}

// geminiProjectEnv is the .env Gemini CLI loads: walking up from dir,
// .gemini/.env then .env in each directory, the first found; one in the
// home directory is the user's own.
func geminiProjectEnv(dir, home string) []envSource {
	for x := dir; ; x = filepath.Dir(x) {
		for _, name := range []string{filepath.Join(".gemini", ".env"), ".env"} {
			p := filepath.Join(x, name)
			data, ok, bad := readEnvFile(p)
			if !ok && !bad {
				continue
			}
			if x == home {
				return nil
			}
			if bad {
				return []envSource{{"?", p}}
			}
			return dotenvNames(data, p)
		}
		if x == "/" || x == "." {
			return nil
		}
	}
}

var dotenvKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*(?:export\s+)?([^=\s#]+)\s*[=:]`) })

// dotenvNames lists the names a dotenv file sets (KEY=VALUE, export
// KEY=VALUE, KEY: VALUE); a line that is neither blank, a comment nor an
// assignment may be a value's continuation, which names nothing.
func dotenvNames(data []byte, file string) []envSource {
	var out []envSource
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	sc.Buffer(make([]byte, 0, 64<<10), maxEnvFileBytes)
	for sc.Scan() {
		if m := dotenvKey().FindStringSubmatch(sc.Text()); m != nil {
			out = appendEnv(out, envSource{m[1], file})
		}
	}
	if sc.Err() != nil {
		out = appendEnv(out, envSource{"?", file})
	}
	return out
}

// claudeProjectEnv is the env of the project's Claude Code settings.
func claudeProjectEnv(dir, home string) []envSource {
	if dir == home {
		return nil // ~/.claude/settings.json is the user's own
	}
	var out []envSource
	for _, name := range []string{"settings.json", "settings.local.json"} {
		p := filepath.Join(dir, ".claude", name)
		data, ok, bad := readEnvFile(p)
		if bad {
			out = appendEnv(out, envSource{"?", p})
		}
		if !ok || bad {
			continue
		}
		var s struct {
			Env map[string]any `json:"env"`
		}
		if err := json.Unmarshal(data, &s); err != nil {
			out = appendEnv(out, envSource{"?", p})
			continue
		}
		names := make([]string, 0, len(s.Env))
		for k := range s.Env {
			names = append(names, k)
		}
		slices.Sort(names)
		for _, k := range names {
			out = appendEnv(out, envSource{k, p})
		}
	}
	return out
}

var (
	tomlHeader  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*\[\s*([^\]]*?)\s*\]\s*(#.*)?$`) })
	tomlKey     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*("[^"]*"|'[^']*'|[A-Za-z0-9_.-]+)\s*=\s*(.*)$`) })
	tomlInlined = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`("[^"]*"|'[^']*'|[A-Za-z0-9_-]+)\s*=`) })
)

// codexProjectEnv reads the shell_environment_policy of every
// .codex/config.toml from dir up (a trusted project's; the home's is the
// user's own, read for touchesPager only): the names its set tables give
// the commands, and whether a policy may take GIT_PAGER=cat away (any
// policy key but a set without GIT_PAGER or PAGER).
func codexProjectEnv(dir, home string) (found []envSource, touchesPager bool) {
	codexHome := os.Getenv("CODEX_HOME")
	if codexHome == "" && home != "" {
		codexHome = filepath.Join(home, ".codex")
	}
	if codexHome != "" {
		if data, ok, bad := readEnvFile(filepath.Join(codexHome, "config.toml")); bad {
			touchesPager = true
		} else if ok {
			_, t := codexPolicyNames(data, "")
			touchesPager = touchesPager || t
		}
	}
	for x := dir; ; x = filepath.Dir(x) {
		p := filepath.Join(x, ".codex", "config.toml")
		if filepath.Join(x, ".codex") != codexHome && x != home {
			data, ok, bad := readEnvFile(p)
			switch {
			case bad:
				found = appendEnv(found, envSource{"?", p})
				touchesPager = true
			case ok:
				names, t := codexPolicyNames(data, p)
				touchesPager = touchesPager || t
				for _, n := range names {
					found = appendEnv(found, n)
				}
			}
		}
		if x == "/" || x == "." {
			return found, touchesPager
		}
	}
}

// codexPolicyNames scans a config.toml as text: in any table whose name
// holds shell_environment_policy, the keys of its set (a [... .set] table
// or an inline set = {...}); any other key there may drop GIT_PAGER. A
// line of such a table that is not a plain key names "?".
func codexPolicyNames(data []byte, file string) (names []envSource, touchesPager bool) {
	in, inSet := false, false
	for _, line := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(line)
		if t == "" || t[0] == '#' {
			continue
		}
		if m := tomlHeader().FindStringSubmatch(t); m != nil {
			table := strings.ReplaceAll(strings.Trim(m[1], "[]"), " ", "")
			in = strings.Contains(table, "shell_environment_policy")
			inSet = in && strings.HasSuffix(table, "shell_environment_policy.set")
			continue
		}
		m := tomlKey().FindStringSubmatch(t)
		switch {
		case strings.Contains(t, "shell_environment_policy") && !in:
			// A dotted key outside the table (shell_environment_policy.set.X
			// = ..., profiles.p.shell_environment_policy = {...}).
			touchesPager = true
			names = appendEnv(names, envSource{"?", file})
		case !in:
		case m == nil:
			touchesPager = true
			names = appendEnv(names, envSource{"?", file})
		case inSet:
			names = appendEnv(names, envSource{strings.Trim(m[1], `"'`), file})
		case strings.Trim(m[1], `"'`) == "set" || strings.HasPrefix(strings.Trim(m[1], `"'`), "set."):
			for _, k := range tomlInlined().FindAllStringSubmatch(m[2], -1) {
				names = appendEnv(names, envSource{strings.Trim(k[1], `"'`), file})
			}
			if !strings.HasSuffix(strings.TrimSpace(m[2]), "}") && strings.HasPrefix(strings.TrimSpace(m[2]), "{") {
				names = appendEnv(names, envSource{"?", file}) // a multi-line inline table
			}
		default:
			touchesPager = true // inherit, exclude, include_only, ignore_default_excludes
		}
	}
	for _, n := range names {
		if n.name == "GIT_PAGER" || n.name == "PAGER" || n.name == "?" {
			touchesPager = true
		}
	}
	return names, touchesPager
}

func appendEnv(out []envSource, e envSource) []envSource {
	if slices.Contains(out, e) {
		return out
	}
	return append(out, e)
}
