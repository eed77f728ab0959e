package scriptfile

import (
	"bytes"
	"path/filepath"
	"strings"
)

// How a shell script file is run.
const (
	// ByShell: sh x.sh, bash x.sh; the shell reads the file whatever its
	// first line says.
	ByShell = "shell"
	// BySource: source x.sh, . x.sh; the current shell reads it.
	BySource = "source"
	// ByExec: ./x.sh; the kernel runs it with the interpreter its #! line
	// names, and a file without one is run by the calling shell as sh.
	ByExec = "exec"
)

// shellInterpreters are the #! interpreters whose scripts the analyser
// reads as sh's.
var shellInterpreters = map[string]bool{"sh": true, "bash": true, "dash": true, "ash": true}

// ShellFile reads the shell script p (absolute, clean) run as how, in the
// call's directory. A file it cannot read, or one the kernel would run
// with another interpreter (#!/usr/bin/python3, a binary), is Unknown.
func ShellFile(c Call, p, how string) Script {
	s := Script{Name: filepath.Base(p), File: p, Dir: c.Dir}
	data, err := c.Files.Read(p)
	if err != nil {
		s.Unknown = err.Error()
		return s
	}
	if how == ByExec {
		if bytes.HasPrefix(data, []byte("\x7fELF")) {
			s.Unknown = p + " is a compiled program permopa cannot read"
			return s
		}
		if interp, ok := shebang(data); ok && !shellInterpreters[interp] {
			s.Unknown = p + " runs with " + firstOf(interp, "an interpreter its #! line names") + ", whose code permopa does not read"
			return s
		}
	}
	s.Lines = []Line{{File: p, Line: 1, Text: string(data)}}
	return s
}

// shebang is the interpreter a #! line names (its base name; through
// /usr/bin/env, the program env runs); ok false when there is no #! line.
// "" when the line names something the reader does not model.
func shebang(data []byte) (string, bool) {
	if !bytes.HasPrefix(data, []byte("#!")) {
		return "", false
	}
	line, _, _ := bytes.Cut(data[2:], []byte("\n"))
	f := strings.Fields(string(line))
	if len(f) == 0 {
		return "", true
	}
	prog := filepath.Base(f[0])
	if prog == "env" {
		if len(f) != 2 || strings.HasPrefix(f[1], "-") || strings.Contains(f[1], "=") {
			return "", true // env -S, env VAR=x: not modelled
		}
		return filepath.Base(f[1]), true
	}
	if len(f) > 1 && prog != "sh" && prog != "bash" && prog != "dash" {
		return "", true
	}
	return prog, true
}
