package paths

import (
	"strings"
	"testing"
)

func TestClassifyDefaults(t *testing.T) {
	cases := []struct {
		p          string
		dangerous  bool
		credential bool
		reason     string
	}{
		{"/home/u/.bashrc", true, false, "`.bashrc` file"},
		{"/home/u/.BashRC", true, false, "`.BashRC` file"},
		{"/home/u/.zshenv", true, false, "`.zshenv` file"},
		{"/p/.gitmodules", true, false, "`.gitmodules` file"},
		{"/p/.env", true, true, "`.env` file"},
		{"/p/.ENV", true, true, "`.ENV` file"},
		{"/p/.Env.local", true, true, "`.Env.local` file"},
		{"/p/.envrc", true, true, "`.envrc` file"},
		{"/p/.env.example", false, false, ""},
		{"/p/.ENV.EXAMPLE", false, false, ""},
		{"/p/.environment", false, false, ""},
		{"/p/env", false, false, ""},
		{"/home/u/.netrc", true, true, "`.netrc` file"},
		{"/home/u/.npmrc", true, true, "`.npmrc` file"},
		{"/home/u/.pypirc", true, true, "`.pypirc` file"},
		{"/backup/id_rsa", true, true, "`id_rsa` file"},
		{"/backup/id_ed25519_work", true, true, "`id_ed25519_work` file"},
		{"/backup/id_rsa.pub", false, false, ""},
		{"/backup/ID_RSA.PUB", false, false, ""},
		{"/home/u/.ssh/id_rsa.pub", true, true, "`.ssh` directory"},
		{"/home/u/.ssh/authorized_keys", true, true, "`.ssh` directory"},
		{"/srv/authorized_keys", true, false, "`authorized_keys` file"},
		{"/home/u/.ssh", true, true, "`.ssh` directory"},
		{"/home/u/.SSH/config", true, true, "`.SSH` directory"},
		{"/home/u/.aws/credentials", true, true, "`.aws` directory"},
		{"/home/u/.kube/config", true, true, "`.kube` directory"},
		{"/home/u/.gnupg/x", true, true, "`.gnupg` directory"},
		{"/home/u/.docker/config.json", true, true, "`.docker/config.json` file"},
		{"/home/u/.docker/daemon.json", true, false, "`.docker` directory"},
		{"/home/u/.config/permopa/server-token", true, true, "`.config/permopa/server-token` file"},
		{"/srv/x/.config/permopa/server-admin-token", true, true, "`.config/permopa/server-admin-token` file"},
		{"/home/u/server-token", false, false, ""},
		{"/home/u/.config/gh/hosts.yml", true, true, "`.config/gh` directory"},
		{"/home/u/.config/gh", true, true, "`.config/gh` directory"},
		{"/home/u/.config/git/config", true, false, "`.config/git` directory"},
		{"/home/u/.config/ghx/a", false, false, ""},
		{"/home/u/.config/other", false, false, ""},
		{"/p/.git/hooks/pre-commit", true, false, "`.git` directory"},
		{"/p/.git", true, false, "`.git` directory"},
		{"/p/.github/workflows/ci.yml", false, false, ""},
		{"/p/.claude/settings.json", true, false, "`.claude` (permission settings of permopa or an agent host)"},
		{"/p/.vscode/settings.json", true, false, "`.vscode` directory"},
		{"/p/.idea/workspace.xml", true, false, "`.idea` directory"},
		// A dangerous file under a dangerous directory: the credential wins.
		{"/p/.git/.env", true, true, "`.env` file"},
		{"/p/.claude/.ssh/x", true, true, "`.ssh` directory"},
		{"/p/src/main.go", false, false, ""},
		{"/", false, false, ""},
		{"", false, false, ""},
	}
	for _, c := range cases {
		d, cr, r := Classify(c.p, nil)
		if d != c.dangerous || cr != c.credential || r != c.reason {
			t.Errorf("Classify(%q) = %v, %v, %q; want %v, %v, %q", c.p, d, cr, r, c.dangerous, c.credential, c.reason)
		}
	}
}

func TestClassifyConfig(t *testing.T) {
	cfg := Config{
		Files:       Edits{Add: []string{"*.pem", "secrets.yaml", ".env.example"}, Remove: []string{".bashrc", ".env.local"}},
		Directories: Edits{Add: []string{"private", ".local/share/keyrings"}, Remove: []string{".ssh", ".IDEA"}},
	}
	c, err := Compiled(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		p                     string
		dangerous, credential bool
	}{
		{"/p/server.pem", true, false},
		{"/p/SERVER.PEM", true, false},
		{"/p/secrets.yaml", true, false},
		{"/p/.env.example", true, false}, // added back despite the default exception
		{"/home/u/.bashrc", false, false},
		{"/p/.env.local", false, false},
		{"/p/.env.prod", true, true},
		{"/home/u/.ssh/config", false, false},
		{"/home/u/.ssh/id_rsa", true, true}, // still a private key
		{"/p/.idea/x", false, false},
		{"/p/private/x", true, false},
		{"/home/u/.local/share/keyrings/login", true, false},
		{"/home/u/.local/share/other", false, false},
	}
	for _, c2 := range cases {
		d, cr, r := c.Classify(c2.p)
		if d != c2.dangerous || cr != c2.credential {
			t.Errorf("Classify(%q) = %v, %v, %q; want %v, %v", c2.p, d, cr, r, c2.dangerous, c2.credential)
		}
	}
	again, _ := Compiled(cfg)
	if again != c {
		t.Error("Compiled did not cache")
	}
	if def, _ := Compiled(Config{}); def != Default() {
		t.Error("empty config is not the default classifier")
	}
}

func TestClassifyConfigErrors(t *testing.T) {
	for _, cfg := range []Config{
		{Files: Edits{Add: []string{"["}}},
		{Directories: Edits{Remove: []string{""}}},
		{Directories: Edits{Add: []string{"a/../b"}}},
	} {
		_, err := cfg.Compile()
		if err == nil || !strings.Contains(err.Error(), "dangerous_paths.") {
			t.Errorf("%+v: err = %v", cfg, err)
		}
	}
}

func BenchmarkClassify(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Classify("/home/user/projects/permopa/builtins/paths/glob.go", nil)
		Classify("/home/user/.ssh/id_rsa", nil)
	}
}
