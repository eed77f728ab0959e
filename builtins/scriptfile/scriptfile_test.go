//go:build unix

package scriptfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// packageScripts reads bodies and the lines of their keys, as JSON.parse
// does (the last duplicate wins), and refuses what is not JSON.
func TestPackageScriptsLines(t *testing.T) {
	data := []byte("{\n  \"name\": \"x\",\n  \"scripts\": {\n    \"a\": \"echo a\",\n\n    \"b\": \"rm -rf \\\"x\\\"\",\n    \"n\": 1\n  }\n}\n")
	s, l, err := packageScripts(data)
	if err != nil {
		t.Fatal(err)
	}
	if s["a"] != "echo a" || l["a"] != 4 || s["b"] != `rm -rf "x"` || l["b"] != 6 {
		t.Errorf("scripts %q lines %v", s, l)
	}
	if _, ok := s["n"]; ok {
		t.Error("a script that is not a string is read")
	}
	for _, bad := range []string{`{"scripts": {"a": "x",}}`, `{"scripts": `, `[]`, "\x00"} {
		if _, _, err := packageScripts([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	if s, _, _ := packageScripts([]byte(`{"scripts": {"a": "rm x"}, "scripts": {"b": "ls"}}`)); s["a"] != "" || s["b"] != "ls" {
		t.Errorf("duplicate scripts keys: %q", s)
	}
}

func TestShebang(t *testing.T) {
	for in, want := range map[string]string{
		"#!/bin/sh\n": "sh", "#! /bin/bash -e\n": "bash", "#!/usr/bin/env bash\n": "bash", "#!/usr/bin/env python3\n": "python3",
		"#!/usr/bin/env -S bash -e\n": "", "#!/usr/bin/python3 -u\n": "", "#!\n": "",
	} {
		if got, ok := shebang([]byte(in)); !ok || got != want {
			t.Errorf("shebang(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	if _, ok := shebang([]byte("echo hi\n")); ok {
		t.Error("no #! line read as one")
	}
}

// Files reads inside the working directories only, refuses credential
// files, links out, FIFOs and large files, and bounds the files read.
func TestFilesBounds(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	proj := filepath.Join(root, "p")
	os.MkdirAll(filepath.Join(proj, ".ssh"), 0o755)
	os.WriteFile(filepath.Join(root, "outside.sh"), []byte("rm x\n"), 0o644)
	os.WriteFile(filepath.Join(proj, "ok.sh"), []byte("ls\n"), 0o644)
	os.WriteFile(filepath.Join(proj, ".ssh/id_ed25519"), []byte("secret\n"), 0o600)
	os.WriteFile(filepath.Join(proj, "big.sh"), []byte(strings.Repeat("#", MaxFileBytes+1)), 0o644)
	os.Symlink(filepath.Join(root, "outside.sh"), filepath.Join(proj, "out.sh"))
	os.Symlink(filepath.Join(proj, "ok.sh"), filepath.Join(proj, "in.sh"))
	if err := syscall.Mkfifo(filepath.Join(proj, "fifo.sh"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := NewFiles([]string{proj})
	if d, err := f.Read(filepath.Join(proj, "in.sh")); err != nil || string(d) != "ls\n" {
		t.Errorf("in.sh: %q %v", d, err)
	}
	for name, want := range map[string]string{
		"out.sh": "leads out of the working directories", "big.sh": "larger than", ".ssh/id_ed25519": "credential",
		"none.sh": "does not exist", "fifo.sh": "not a regular file", "../outside.sh": "outside the working directories",
	} {
		if _, err := f.Read(filepath.Clean(filepath.Join(proj, name))); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", name, err, want)
		}
	}
	if _, err := f.Read(filepath.Join(proj, "none.sh")); !errors.Is(err, ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
	if !Fresh(f.Stamps()) {
		t.Error("unchanged files are not fresh")
	}
	os.WriteFile(filepath.Join(proj, "none.sh"), nil, 0o644)
	if Fresh(f.Stamps()) {
		t.Error("a file created where none was is not seen")
	}
	g := NewFiles([]string{proj})
	var err error
	for i := 0; i <= MaxFiles && err == nil; i++ {
		_, err = g.Read(filepath.Join(proj, "ok.sh"))
	}
	if err == nil || !strings.Contains(err.Error(), "more than") {
		t.Errorf("past MaxFiles: %v", err)
	}
	if _, err := NewFiles(nil).Read(filepath.Join(proj, "ok.sh")); err == nil {
		t.Error("read without working directories")
	}
}
