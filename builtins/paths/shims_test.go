package paths

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A version manager's shim PATH finds first chooses the program from the
// project's files (docs/shell.md, "What a program reads besides its
// argv"): one hostile file per manager and class is a finding naming it;
// an installed plain version, a missing file, a shim not found first are
// not.
func TestConfigFindingsShims(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"PYENV_ROOT", "RBENV_ROOT", "NODENV_ROOT", "GOENV_ROOT", "JENV_ROOT", "ASDF_DATA_DIR",
		"MISE_DATA_DIR", "MISE_ENV", "XDG_DATA_HOME", "VOLTA_HOME", "CARGO_HOME", "ASDF_CONFIG_FILE",
		"ASDF_DEFAULT_TOOL_VERSIONS_FILENAME", "RUSTUP_HOME"} {
		t.Setenv(v, "")
	}
	home := filepath.Join(root, "home")
	p := filepath.Join(home, "p")
	sub := filepath.Join(p, "src")
	for _, f := range []string{".pyenv/shims/python", ".rbenv/shims/ruby", ".nodenv/shims/node", ".goenv/shims/gofmt",
		".jenv/shims/java", ".pyenv/plugins/pyenv-virtualenv/shims/python", ".asdf/shims/terraform", ".local/share/mise/shims/node", ".cargo/bin/rustup",
		".cargo/bin/rg", "tools/shims/deno", ".volta/bin/volta-shim"} {
		mkfile(t, filepath.Join(home, f), "#!/bin/sh\n")
	}
	for _, d := range []string{".pyenv/versions/3.11.7", ".local/share/mise/installs/node/20.1.0",
		".volta/tools/image/node/18.0.0", "p/src"} {
		os.MkdirAll(filepath.Join(home, d), 0o755)
	}
	for link, target := range map[string]string{".cargo/bin/rustfmt": "rustup", ".volta/bin/node": "volta-shim",
		".volta/bin/tsc": "volta-shim"} {
		if err := os.Symlink(target, filepath.Join(home, link)); err != nil {
			t.Fatal(err)
		}
	}
	mkfile(t, root+"/sys/bin/python", "#!/bin/sh\n")
	mkfile(t, home+"/.asdfrc", "legacy_version_file = yes\n")
	t.Setenv("RUSTUP_HOME", filepath.Join(home, ".rustup"))
	os.MkdirAll(home+"/.rustup/toolchains/stable-x86_64-unknown-linux-gnu", 0o755)
	sys := root + "/sys/bin"
	run := func(entry, program, dir string) string {
		pathEnv = func() string { return filepath.Join(home, entry) + ":" + sys }
		defer func() { pathEnv = func() string { return os.Getenv("PATH") } }()
		var out []string
		for _, f := range ConfigFindingsCall(nil, program, dir, "", home) {
			rel, _ := filepath.Rel(root, f.File)
			out = append(out, rel+" "+f.Key)
		}
		return strings.Join(out, ",")
	}
	for _, c := range []struct{ entry, program, file, body, want string }{
		// Harmless: installed or plain names, the user's own files.
		{".pyenv/shims", "python", "p/.python-version", "3.11.7\n", ""},
		{".pyenv/shims", "python", "p/.python-version", "3.99.1\n# c\nmyvenv\n3.12.1/envs/x\n", ""}, // pyenv fails, never installs
		{".pyenv/shims", "python", ".python-version", "../../x\n", ""},                              // the home's: the user's
		{".pyenv/shims", "ls", "p/.python-version", "../x\n", ""},                                   // not a shim
		{".rbenv/shims", "ruby", "p/.ruby-version", "3.2.2\n", ""},
		{".asdf/shims", "terraform", "p/.tool-versions", "terraform 1.5.0 system\n", ""},
		{".local/share/mise/shims", "node", "p/mise.toml", "min_version = \"2024.1.1\"\n[tools]\nnode = \"20.1.0\"\n", ""},
		{".local/share/mise/shims", "node", "p/.tool-versions", "node 20.1.0\n", ""},
		{".volta/bin", "node", "p/package.json", `{"name": "x", "volta": {"node": "18.0.0"}}`, ""},
		{".volta/bin", "node", "p/package.json", `{"name": "x"}`, ""},
		{".cargo/bin", "rustfmt", "p/rust-toolchain.toml", "[toolchain]\nchannel = \"stable\"\n", ""},
		{".cargo/bin", "rg", "p/rust-toolchain.toml", "[toolchain]\npath = \"./tc\"\n", ""}, // cargo installed it: no proxy
		// Hostile: a path, a ref, a download, code.
		{".pyenv/shims", "python", "p/.python-version", "../../../p/tc\n", "home/p/.python-version ../../../p/tc"},
		{".pyenv/shims", "python", "p/src/.python-version", "3.11.7\n/opt/evil\n", "home/p/src/.python-version /opt/evil"},
		{".pyenv/plugins/pyenv-virtualenv/shims", "python", "p/.python-version", "3.12.1/../../x\n", "home/p/.python-version 3.12.1/../../x"},
		{".pyenv/shims", "python", "p/.python-version", strings.Repeat("3.11.7\n", 40000), "home/p/.python-version "}, // larger than read
		{".pyenv/shims", "python", "p/.python-version", "-m\n", "home/p/.python-version -m"},
		{".rbenv/shims", "ruby", "p/.ruby-version", "3.2.2/../../../p\n", "home/p/.ruby-version 3.2.2/../../../p"},
		{".nodenv/shims", "node", "p/.node-version", "../n\n", "home/p/.node-version ../n"},
		{".goenv/shims", "gofmt", "p/.go-version", "./go\n", "home/p/.go-version ./go"},
		{".jenv/shims", "java", "p/.java-version", "..\n", "home/p/.java-version .."},
		{".asdf/shims", "terraform", "p/.tool-versions", "terraform path:./tf\n", "home/p/.tool-versions path:./tf"},
		{".asdf/shims", "terraform", "p/.tool-versions", "terraform ref:main\n", "home/p/.tool-versions ref:main"},
		{".asdf/shims", "terraform", "p/.tool-versions", "terraform\n", "home/p/.tool-versions "},
		{".asdf/shims", "terraform", "p/.nvmrc", "lts/*\n", "home/p/.nvmrc lts/*"}, // legacy_version_file = yes
		{".local/share/mise/shims", "node", "p/mise.toml", "[env]\n_.source = \"./x.sh\"\n", "home/p/mise.toml env"},
		{".local/share/mise/shims", "node", "p/.mise.toml", "[hooks]\nenter = \"sh x\"\n", "home/p/.mise.toml hooks"},
		{".local/share/mise/shims", "node", "p/.config/mise.toml", "[tools]\nnode = \"{{exec(command='id')}}\"\n", "home/p/.config/mise.toml "},
		{".local/share/mise/shims", "node", "p/mise.toml", "[tools]\nnode = \"22.0.0\"\n", "home/p/mise.toml node 22.0.0"},
		{".local/share/mise/shims", "node", "p/mise.toml", "[tools]\nnode = { version = \"20.1.0\", postinstall = \"x\" }\n", "home/p/mise.toml node"},
		{".local/share/mise/shims", "node", "p/mise.toml", "[tools]\n\"npm:prettier\" = \"3\"\n", "home/p/mise.toml \"npm:prettier\""},
		{".local/share/mise/shims", "node", "p/mise.toml", "env_file = \".env\"\n", "home/p/mise.toml env_file"},
		{".local/share/mise/shims", "node", "p/.tool-versions", "node path:/x\n", "home/p/.tool-versions path:/x"},
		{".local/share/mise/shims", "node", "p/.nvmrc", "21.0.0\n", "home/p/.nvmrc node 21.0.0"},
		{".local/share/mise/shims", "node", "p/.mise/conf.d/a.toml", "", "home/p/.mise/conf.d "},
		{".volta/bin", "node", "p/package.json", `{"volta": {"node": "20.0.0"}}`, "home/p/package.json volta.node"},
		{".volta/bin", "node", "p/package.json", `{"volta": {"extends": "../x.json"}}`, "home/p/package.json volta.extends"},
		{".volta/bin", "node", "p/package.json", `{"volta": `, "home/p/package.json "},
		{".local/share/mise/shims", "node", "p/mise.toml", "[tools]\nnode.postinstall = \"x\"\n", "home/p/mise.toml node.postinstall"},
		{".cargo/bin", "rustfmt", "p/rust-toolchain.toml", "[toolchain]\npath = \"./tc\"\n", "home/p/rust-toolchain.toml path"},
		{"tools/shims", "deno", "p/x", "", "home/tools/shims/deno "},
	} {
		mkfile(t, filepath.Join(root, "home", c.file), c.body)
		if got := run(c.entry, c.program, sub); !strings.HasPrefix(got, c.want) || (c.want == "") != (got == "") {
			t.Errorf("%s %s, %s %q: %q, want %q", c.entry, c.program, c.file, c.body, got, c.want)
		}
		os.RemoveAll(filepath.Join(root, "home", c.file))
		os.RemoveAll(filepath.Join(p, ".mise"))
	}
	// Volta runs a project's own copy of a package's program.
	mkfile(t, p+"/package.json", "{}")
	mkfile(t, p+"/node_modules/.bin/tsc", "")
	if got := run(".volta/bin", "tsc", sub); got != "home/p/node_modules/.bin/tsc " {
		t.Errorf("volta, the project's tsc: %q", got)
	}
	mkfile(t, p+"/.volta/hooks.json", `{"node": {"index": {"bin": "./x"}}}`)
	if got := run(".volta/bin", "node", sub); got != "home/p/.volta/hooks.json " {
		t.Errorf("volta, the project's hooks: %q", got)
	}
	os.Remove(p + "/package.json")
	// A directory not known statically: the version file cannot be read.
	if got := run(".pyenv/shims", "python", ""); got != "home/.pyenv/shims/python " {
		t.Errorf("dir not known: %q", got)
	}
	// A shim not found first: the system's python wins.
	pathEnv = func() string { return sys + ":" + home + "/.pyenv/shims" }
	mkfile(t, p+"/.python-version", "../x\n")
	if got := ConfigFindingsCall(nil, "python", sub, "", home); len(got) != 0 {
		t.Errorf("the system's python first: %v", got)
	}
	// With the version system, the shim runs the next python on PATH:
	// one inside the project is the project's.
	mkfile(t, p+"/.python-version", "system\n")
	mkfile(t, p+"/bin/python", "#!/bin/sh\n")
	pathEnv = func() string { return home + "/.pyenv/shims:" + p + "/bin:" + sys }
	got := ConfigFindingsCall(nil, "python", sub, p, home)
	pathEnv = func() string { return os.Getenv("PATH") }
	if len(got) != 1 || got[0].File != p+"/bin/python" {
		t.Errorf("system, then the project's python: %v", got)
	}
}
