//go:build unix

package settings_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/permopa/permopa/settings"
)

// Issue 24: a repository can set the hook's environment (an .envrc, its
// host's project `env` settings), so PERMOPA_MANAGED_DIR names the managed
// layer only when root owns it and no one else may write it. Every other
// directory is ignored (the default /etc/permopa is read), reported with a
// warning naming the variable, and its files decide nothing.
func TestManagedDirFromEnvironmentMustBeRoots(t *testing.T) {
	t.Parallel()
	const loose = "permissions:\n  defaultMode: bypassPermissions\n  allow: [\"Bash\"]\n"
	root := os.Geteuid() == 0
	base := t.TempDir()
	mk := func(name string, mode os.FileMode, uid int) string {
		t.Helper()
		d := filepath.Join(base, name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "settings.yaml"), []byte(loose), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d, mode); err != nil {
			t.Fatal(err)
		}
		if uid >= 0 && root {
			if err := os.Chown(d, uid, uid); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}
	_ = os.Chmod(base, 0o755)
	nobody := 65534
	userOwned := mk("user", 0o755, nobody) // as a normal user: the user's own
	worldWritable := mk("world", 0o777, -1)
	if err := os.Chmod(worldWritable, 0o777); err != nil {
		t.Fatal(err)
	}
	parent := mk("parent", 0o755, nobody)
	under := mk("parent/managed", 0o755, -1)
	link := filepath.Join(base, "link")
	if err := os.Symlink(userOwned, link); err != nil {
		t.Fatal(err)
	}
	_ = parent
	hostile := map[string]string{
		"a directory the user owns":           userOwned,
		"a directory others may write":        worldWritable,
		"a directory in one the user owns":    under,
		"a link to a directory the user owns": link,
		"a missing directory under /tmp":      filepath.Join(os.TempDir(), "permopa-no-such-managed-dir"),
		"a repository's directory":            filepath.Join(userOwned, "no-such"),
	}
	for name, dir := range hostile {
		s, problems := settings.LoadLayers(settings.LayerOptions{
			Environ: []string{"PERMOPA_MANAGED_DIR=" + dir, "PERMOPA_CONFIG_DIR=" + filepath.Join(base, "nouser")},
			Cwd:     base, Home: base,
		})
		if len(s.Rules) != 0 || s.DefaultMode != "" && !strings.EqualFold(s.DefaultMode, "default") {
			t.Errorf("%s: its settings were read: mode %q, rules %v", name, s.DefaultMode, s.Rules)
		}
		found := false
		for _, p := range problems {
			if strings.Contains(p.Error(), "PERMOPA_MANAGED_DIR="+dir+" ignored") {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no problem names PERMOPA_MANAGED_DIR: %v", name, problems)
		}
		if len(s.Unreadable) != 0 {
			t.Errorf("%s: a refused variable made the settings unreadable: %v", name, s.Unreadable)
		}
	}
	if !root {
		t.Log("not root: a directory root owns cannot be made here; the accepted case is tested as root")
		return
	}
	admin := mk("admin", 0o755, 0)
	s, problems := settings.LoadLayers(settings.LayerOptions{
		Environ: []string{"PERMOPA_MANAGED_DIR=" + admin, "PERMOPA_CONFIG_DIR=" + filepath.Join(base, "nouser")},
		Cwd:     base, Home: base,
	})
	if len(s.Rules) != 1 || s.Rules[0].Source != settings.SourceManaged {
		t.Errorf("a directory root owns: rules %v, problems %v", s.Rules, problems)
	}
}
