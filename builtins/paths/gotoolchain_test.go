package paths

import (
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
)

// Unless GOTOOLCHAIN is local, every go command (go version, go env, go
// list) reads the go.work or go.mod that applies and downloads and runs
// the newer toolchain its go or toolchain line asks for (observed with
// GOTOOLCHAIN=auto under unshare -n: "go: downloading go1.99.1").
// TestHostileGoToolchainIsNotReadOnly decides the same cases end to end.
func TestConfigFindingsGoToolchain(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	goroot := filepath.Join(root, "goroot")
	mkfile(t, goroot+"/VERSION", "go1.26.8\ntime 2026-01-01\n")
	mkfile(t, goroot+"/go.env", "GOPROXY=https://proxy.golang.org,direct\nGOTOOLCHAIN=auto\n")
	t.Setenv("GOROOT", goroot)
	t.Setenv("GOTOOLCHAIN", "")
	t.Setenv("GOENV", "")
	t.Setenv("GOWORK", "")
	t.Setenv("XDG_CONFIG_HOME", "")
	sub := filepath.Join(root, "p", "sub")
	mkfile(t, root+"/p/go.mod", "module example.com/p\n\ngo 1.21\n")
	mkfile(t, sub+"/x.go", "package sub\n")
	plain := func(what string) {
		t.Helper()
		if got := findings(root, "go", sub); len(got) != 0 {
			t.Errorf("%s: %v, want none", what, got)
		}
	}
	plain("an older go line")
	for _, c := range []struct{ file, body, want string }{
		{"p/go.mod", "module example.com/p\n\ngo 1.21\n\ntoolchain go1.99.1\n", "p/go.mod toolchain"},
		{"p/go.mod", "module example.com/p\n\ngo 1.99\n", "p/go.mod go"},
		{"p/go.mod", "module example.com/p\n\ngo 1.26.9\n", "p/go.mod go"},
		{"p/go.mod", "module example.com/p\n\ngo 1.27rc1\n", "p/go.mod go"},
		{"p/go.mod", "module example.com/p\n\ngo 1.21\ntoolchain default\n", "p/go.mod toolchain"},
		{"p/go.mod", "module example.com/p\n\ngo \"1.99\"\n", "p/go.mod go"},
		{"p/go.mod", "module example.com/p\n\ngo 1.21\ngodebug default=go1.21\n", "p/go.mod godebug"},
		{"p/go.work", "go 1.99\n\nuse .\n", "p/go.work go"},
		{"p/sub/go.work", "go 1.21\ntoolchain go1.99.1\n", "p/sub/go.work toolchain"},
		{"go.mod", "module x\n\ngo 1.99\n", "go.mod go"}, // found from p when p's go.mod is gone
	} {
		if c.file == "go.mod" {
			os.Rename(root+"/p/go.mod", root+"/p/go.mod.x")
		}
		old, _ := os.ReadFile(filepath.Join(root, c.file))
		mkfile(t, filepath.Join(root, c.file), c.body)
		got := findings(root, "go", sub)
		if len(got) == 0 || got[0] != c.want {
			t.Errorf("%s %q: %v, want %q", c.file, c.body, got, c.want)
		}
		if c.file == "p/go.mod" {
			mkfile(t, filepath.Join(root, c.file), string(old))
		} else {
			os.Remove(filepath.Join(root, c.file))
		}
		if c.file == "go.mod" {
			os.Rename(root+"/p/go.mod.x", root+"/p/go.mod")
		}
	}
	plain("the files restored")

	// A go.mod that is a link (its target decides) or a FIFO.
	os.Rename(root+"/p/go.mod", root+"/p/real.mod")
	if err := os.Symlink("real.mod", root+"/p/go.mod"); err != nil {
		t.Fatal(err)
	}
	if got := findings(root, "go", sub); len(got) == 0 || got[0] != "p/go.mod " {
		t.Errorf("go.mod a link: %v", got)
	}
	os.Remove(root + "/p/go.mod")
	if err := syscall.Mkfifo(root+"/p/go.mod", 0o644); err != nil {
		t.Fatal(err)
	}
	if got := findings(root, "go", sub); len(got) == 0 || got[0] != "p/go.mod " {
		t.Errorf("go.mod a FIFO: %v", got)
	}
	os.Remove(root + "/p/go.mod")
	os.Rename(root+"/p/real.mod", root+"/p/go.mod")
	plain("the go.mod restored")

	// GOTOOLCHAIN: local never switches; auto and path do on the file;
	// a toolchain name switches whatever the file says.
	mkfile(t, root+"/p/go.work", "go 1.99\n")
	for _, c := range []struct {
		env, want string
	}{
		{"local", ""},
		{"go1.26.8", ""},
		{"auto", "p/go.work go"},
		{"path", "p/go.work go"},
		{"local+auto", "p/go.work go"},
		{"go1.21.0+auto", "p/go.work go"},
		{"go1.99.1+auto", "the environment GOTOOLCHAIN"},
		{"go1.99.1", "the environment GOTOOLCHAIN"},
		{"go1.99.1+path", "the environment GOTOOLCHAIN"},
		{"local+other", "the environment GOTOOLCHAIN"},
	} {
		t.Setenv("GOTOOLCHAIN", c.env)
		var got []string
		for _, f := range ConfigFindings("go", sub, filepath.Join(root, "home")) {
			if f.File == "the environment" {
				got = append(got, f.File+" "+f.Key)
			} else {
				rel, _ := filepath.Rel(root, f.File)
				got = append(got, rel+" "+f.Key)
			}
		}
		if (c.want == "") != (len(got) == 0) || (c.want != "" && got[0] != c.want) {
			t.Errorf("GOTOOLCHAIN=%s: %v, want %q", c.env, got, c.want)
		}
	}
	t.Setenv("GOTOOLCHAIN", "")

	// GOWORK=off skips go.work; the go env -w file and go.env decide.
	t.Setenv("GOWORK", "off")
	plain("GOWORK=off")
	t.Setenv("GOWORK", "")
	mkfile(t, root+"/home/.config/go/env", "GOTOOLCHAIN=local\n")
	plain("go env -w GOTOOLCHAIN=local")
	mkfile(t, root+"/home/.config/go/env", "GOTOOLCHAIN=auto\n")
	if got := findings(root, "go", sub); len(got) == 0 || got[0] != "p/go.work go" {
		t.Errorf("go env -w GOTOOLCHAIN=auto: %v", got)
	}
	os.Remove(root + "/home/.config/go/env")
	mkfile(t, goroot+"/go.env", "GOTOOLCHAIN=local\n")
	plain("$GOROOT/go.env GOTOOLCHAIN=local")
	mkfile(t, goroot+"/go.env", "GOPROXY=off\n") // go's default is auto
	if got := findings(root, "go", sub); len(got) == 0 || got[0] != "p/go.work go" {
		t.Errorf("go.env without GOTOOLCHAIN: %v", got)
	}
	os.Remove(goroot + "/VERSION")
	if got := findings(root, "go", sub); len(got) == 0 || got[0] != "goroot GOTOOLCHAIN" {
		t.Errorf("no VERSION: %v", got)
	}
	// No GOROOT: the go PATH finds decides; with none, the shell's may
	// be any version: a go.mod that applies is a finding, none is plain.
	t.Setenv("GOROOT", "")
	mkfile(t, root+"/bin/go", "#!/bin/sh\n") // not under a GOROOT: version unknown
	t.Setenv("PATH", root+"/bin")
	if got := findings(root, "go", sub); len(got) == 0 || got[0] != ". GOTOOLCHAIN" {
		t.Errorf("a go outside a GOROOT: %v", got)
	}
	t.Setenv("PATH", root+"/p")
	if got := findings(root, "go", sub); !slices.Contains(got, "p/go.mod ") {
		t.Errorf("no go on PATH, a go.mod applies: %v", got)
	}
	bare := filepath.Join(root, "bare")
	mkfile(t, bare+"/x", "")
	if got := findings(root, "go", bare); len(got) != 0 {
		t.Errorf("no go on PATH, no go.mod: %v, want none", got)
	}
}
