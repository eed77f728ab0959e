//go:build unix

package adapter

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/permopa/permopa/settings"
)

// stampBothStats is the settings stamp as it was taken before the hook
// server's one-stat-per-path stamp: lstat and stat of every source path.
func stampBothStats(cwd, home string, o HookEngineOptions) string {
	l := settings.NewLayers(settings.LayerOptions{ProjectDir: cwd, CommandLine: o.Settings, Home: home, Cwd: cwd, Environ: o.Environ})
	var b strings.Builder
	b.WriteString(cwd + "\x00" + home + "\x00" + o.Mode)
	for _, p := range l.SourcePaths() {
		b.WriteString("\x00" + p)
		b.WriteString(fileStamp(os.Lstat(p)))
		b.WriteString(fileStamp(os.Stat(p)))
	}
	return b.String()
}

// The hook server keeps the settings it read while HookSettingsStamp is
// unchanged (cmd/permopa-hook-local/serve.go): every change of a file or
// directory the settings come from, or where one may appear, must change
// it, links followed, and it must say what lstat and stat of every path
// would say (stampBothStats) although it skips the files of a missing
// directory and stats a path a second time only when it is a link.
func TestHookSettingsStampSeesEveryChange(t *testing.T) {
	tmp := t.TempDir()
	home := filepath.Join(tmp, "home")
	outer := filepath.Join(tmp, "outer")
	project := filepath.Join(outer, "project")
	elsewhere := filepath.Join(tmp, "elsewhere")
	for _, d := range []string{home, filepath.Join(project, ".permopa"), elsewhere} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("PERMOPA_CONFIG_DIR", "")
	t.Setenv("PERMOPA_MANAGED_DIR", "")
	userDir := filepath.Join(home, ".config", "permopa")
	projSettings := filepath.Join(project, ".permopa", "settings.yaml")
	write := func(path, text string) func() error {
		return func() error { return os.WriteFile(path, []byte(text), 0o600) }
	}
	// replace writes text to a new file and renames it over path: a new
	// inode, whatever the clock's granularity.
	replace := func(path, text string) func() error {
		return func() error {
			tmpFile := path + ".new"
			if err := os.WriteFile(tmpFile, []byte(text), 0o600); err != nil {
				return err
			}
			return os.Rename(tmpFile, path)
		}
	}
	deny := "permissions:\n  deny: [\"Bash(rm:*)\"]\n"
	steps := []struct {
		name   string
		change func() error
	}{
		{"the user directory appears", func() error { return os.MkdirAll(userDir, 0o700) }},
		{"a user settings file appears", write(filepath.Join(userDir, "settings.yaml"), deny)},
		{"the user settings file is replaced, same size", replace(filepath.Join(userDir, "settings.yaml"), deny)},
		{"a user settings file of another format appears", write(filepath.Join(userDir, "settings.json"), "{}")},
		{"the trust file appears", write(filepath.Join(userDir, "trusted-projects.json"), "{}")},
		{"the project's settings file appears", write(projSettings, deny)},
		{"the project's local settings appear", write(filepath.Join(project, ".permopa", "settings.local.toml"), "")},
		{"the project's settings file is chmod'ed", func() error { return os.Chmod(projSettings, 0o644) }},
		{"the project's settings file becomes a link", func() error {
			if err := os.WriteFile(filepath.Join(elsewhere, "s.yaml"), []byte(deny), 0o600); err != nil {
				return err
			}
			if err := os.Remove(projSettings); err != nil {
				return err
			}
			return os.Symlink(filepath.Join(elsewhere, "s.yaml"), projSettings)
		}},
		{"the link's target is replaced, the link untouched", replace(filepath.Join(elsewhere, "s.yaml"), deny)},
		{"the link's target disappears", func() error { return os.Remove(filepath.Join(elsewhere, "s.yaml")) }},
		{"an enclosing project appears", func() error { return os.Mkdir(filepath.Join(outer, ".permopa"), 0o700) }},
		{"the enclosing project gets settings", write(filepath.Join(outer, ".permopa", "settings.yaml"), deny)},
		{"the user directory goes", func() error { return os.RemoveAll(userDir) }},
		{"the user directory is a file", write(userDir, "")},
		{"the user directory is a link to a directory with settings", func() error {
			if err := os.Remove(userDir); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(elsewhere, "settings.yaml"), []byte(deny), 0o600); err != nil {
				return err
			}
			return os.Symlink(elsewhere, userDir)
		}},
		{"a settings file appears in the linked user directory", write(filepath.Join(elsewhere, "settings.yml"), deny)},
		{"the project's .permopa goes", func() error { return os.RemoveAll(filepath.Join(project, ".permopa")) }},
	}
	o := HookEngineOptions{Mode: "default"}
	prev := HookSettingsStamp(project, home, o)
	if want := stampBothStats(project, home, o); prev != want {
		t.Fatalf("at the start: stamp\n%q\nwant (lstat and stat of every path)\n%q", prev, want)
	}
	for _, s := range steps {
		if err := s.change(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		got := HookSettingsStamp(project, home, o)
		if got == prev {
			t.Errorf("%s: the stamp did not change: the server would keep the settings read before", s.name)
		}
		if want := stampBothStats(project, home, o); got != want {
			t.Errorf("%s: stamp\n%q\nwant (lstat and stat of every path)\n%q", s.name, got, want)
		}
		prev = got
	}
}
