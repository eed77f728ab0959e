//go:build unix

package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Planted links and odd files around a target: the write fails or goes to
// the target itself, and what a link points to is never changed.
func TestWriteGoesOnlyWhereItSays(t *testing.T) {
	for _, tc := range []struct {
		name    string
		plant   func(t *testing.T, dir, target, victim string)
		wantErr string // "" : the write succeeds, as a regular file
	}{
		{"absent", func(*testing.T, string, string, string) {}, ""},
		{"link as the old tmp name", func(t *testing.T, dir, target, victim string) {
			must(t, os.Symlink(victim, target+".permopa-tmp"))
		}, ""},
		{"link as the target", func(t *testing.T, dir, target, victim string) {
			must(t, os.Symlink(victim, target))
		}, "is a symbolic link to " + "VICTIM"},
		{"dangling link as the target", func(t *testing.T, dir, target, victim string) {
			must(t, os.Symlink(victim+"-none", target))
		}, "is a symbolic link"},
		{"directory as the target", func(t *testing.T, dir, target, victim string) {
			must(t, os.Mkdir(target, 0o755))
		}, "a directory"},
		{"named pipe as the target", func(t *testing.T, dir, target, victim string) {
			must(t, syscall.Mkfifo(target, 0o644))
		}, "a named pipe"},
		{"link as a directory below the root", func(t *testing.T, dir, target, victim string) {
			must(t, os.Symlink(filepath.Dir(victim), filepath.Dir(target)))
		}, "is a symbolic link to"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, elsewhere := t.TempDir(), t.TempDir()
			victim := filepath.Join(elsewhere, "settings.json")
			must(t, os.WriteFile(victim, []byte("victim\n"), 0o600))
			target := filepath.Join(root, ".claude", "settings.json")
			if !strings.Contains(tc.name, "directory below") {
				must(t, os.Mkdir(filepath.Dir(target), 0o755))
			}
			tc.plant(t, root, target, victim)
			done := make(chan error, 1)
			go func() { done <- Write(target, []byte("new\n"), Options{Root: root, DirMode: 0o755}) }()
			var err error
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("Write blocked")
			}
			want := strings.ReplaceAll(tc.wantErr, "VICTIM", victim)
			if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
				t.Fatalf("error %v, want %q", err, want)
			}
			if b, _ := os.ReadFile(victim); string(b) != "victim\n" {
				t.Errorf("the link's target was written: %q", b)
			}
			if want == "" {
				fi, err := os.Lstat(target)
				if err != nil || !fi.Mode().IsRegular() {
					t.Errorf("target not a regular file: %v %v", fi, err)
				}
				if b, _ := os.ReadFile(target); string(b) != "new\n" {
					t.Errorf("target holds %q", b)
				}
			}
			// No temporary file is left behind.
			left, _ := filepath.Glob(filepath.Join(filepath.Dir(target), ".*.permopa-tmp"))
			if len(left) > 0 {
				t.Errorf("left %v", left)
			}
		})
	}
}

func TestWriteKeepsMode(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "config.toml")
	must(t, os.WriteFile(f, []byte("a\n"), 0o600))
	must(t, Write(f, []byte("b\n"), Options{}))
	if fi, _ := os.Stat(f); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
	g := filepath.Join(dir, "new.json")
	must(t, Write(g, []byte("{}\n"), Options{Mode: 0o640}))
	if fi, _ := os.Stat(g); fi.Mode().Perm() != 0o640 {
		t.Errorf("new file mode %v", fi.Mode().Perm())
	}
	if err := Write(filepath.Join(dir, "missing", "x.json"), nil, Options{}); err == nil {
		t.Error("a missing directory without DirMode must fail")
	}
}

func TestReadRefusesLinksPipesAndSize(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "s.json")
	must(t, os.WriteFile(f, []byte("0123456789"), 0o600))
	if b, err := Read(f, 10); err != nil || string(b) != "0123456789" {
		t.Fatalf("%q %v", b, err)
	}
	if _, err := Read(f, 9); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), f) {
		t.Errorf("over the limit: %v", err)
	}
	l := filepath.Join(dir, "l.json")
	must(t, os.Symlink(f, l))
	if _, err := Read(l, 0); err == nil || !strings.Contains(err.Error(), "symbolic link to "+f) {
		t.Errorf("link: %v", err)
	}
	p := filepath.Join(dir, "p.json")
	must(t, syscall.Mkfifo(p, 0o600))
	if _, err := Read(p, 0); err == nil || !strings.Contains(err.Error(), "named pipe") {
		t.Errorf("pipe: %v", err)
	}
	if _, err := Read(filepath.Join(dir, "none"), 0); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("absent: %v", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
